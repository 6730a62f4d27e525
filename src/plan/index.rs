//! `ToolIndex`: exact nearest-neighbour search over the catalog's embeddings, with BM25 as the
//! fallback and reciprocal-rank fusion as the hybrid.
//!
//! The embeddings live in one contiguous `Vec<f32>` (tool-major, `dim` floats each),
//! L2-normalised on load, tagged with the model that made them (`model_id`, `dim`,
//! `pooling`). A search is exact: the inner product of the normalised query with every tool
//! (FAISS `IndexFlatIP` over normalised vectors, i.e. cosine), the top N kept in a small sorted
//! buffer. Ties are broken by tool name (byte order), so results never depend on catalog order.
//! The dot product sums in eight independent lanes, which the compiler maps to SIMD (wasm
//! `simd128`, SSE/NEON natively) without changing the result between targets.

use super::bm25::Bm25;
use super::catalog::{Tool, MAX_TOOLS};
use crate::{Error, ErrorKind, Result};

/// The most floats the embeddings may take (256 MiB).
pub const MAX_EMBEDDING_FLOATS: usize = 64 << 20;
/// The largest embedding dimension.
pub const MAX_DIM: usize = 8192;
/// Reciprocal-rank-fusion constant of the hybrid search.
pub const RRF_K: f64 = 60.0;

/// What made the embeddings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingModel {
    /// Model id, e.g. `sentence-transformers/all-MiniLM-L6-v2` or `@cf/baai/bge-small-en-v1.5`.
    pub model_id: String,
    /// Dimensions.
    pub dim: usize,
    /// Pooling (`mean`, `cls`, …).
    pub pooling: String,
}

impl EmbeddingModel {
    /// `{ model_id, dim, pooling }`.
    pub fn to_json_value(&self) -> crate::json::JsonValue {
        use crate::json::JsonValue;
        JsonValue::Object(vec![
            ("model_id".into(), JsonValue::String(self.model_id.clone())),
            ("dim".into(), JsonValue::Number(self.dim.to_string())),
            ("pooling".into(), JsonValue::String(self.pooling.clone())),
        ])
    }
}

/// One search result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Position of the tool in the catalog.
    pub index: usize,
    /// Cosine similarity, BM25 score or fused score, by method.
    pub score: f64,
}

/// How a retrieval ranked the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Exact cosine over the embeddings.
    Cosine,
    /// BM25 over name, description and capabilities.
    Bm25,
    /// Reciprocal-rank fusion of both.
    Hybrid,
    /// Ranked by the caller (narrowing over a given retrieval).
    Given,
}

impl Method {
    /// `"cosine"`, `"bm25"` or `"hybrid"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Cosine => "cosine",
            Method::Bm25 => "bm25",
            Method::Hybrid => "hybrid",
            Method::Given => "given",
        }
    }
}

/// Which method a retrieval asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Cosine when the query vectors fit the index, else BM25.
    #[default]
    Auto,
    /// Cosine (BM25 when the vectors do not fit).
    Cosine,
    /// BM25 only.
    Bm25,
    /// Hybrid (BM25 when the vectors do not fit).
    Hybrid,
}

impl Mode {
    /// Parses `"auto" | "cosine" | "bm25" | "hybrid"`.
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "auto" => Mode::Auto,
            "cosine" => Mode::Cosine,
            "bm25" => Mode::Bm25,
            "hybrid" => Mode::Hybrid,
            _ => return None,
        })
    }
}

/// A retrieval request: query vectors (`k × dim`, any k ≥ 0) with their model, and the query
/// texts for BM25.
#[derive(Debug, Clone, Default)]
pub struct Query<'a> {
    /// The query embeddings, concatenated.
    pub vectors: &'a [f32],
    /// The model that made them (checked against the index's when given).
    pub model_id: Option<&'a str>,
    /// Their dimension (defaults to the index's).
    pub dim: Option<usize>,
    /// The query texts (BM25 and hybrid).
    pub texts: &'a [String],
    /// Which method.
    pub mode: Mode,
    /// How many results.
    pub n: usize,
}

/// The result of [`ToolIndex::retrieve`].
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    /// The method used.
    pub method: Method,
    /// Why the method asked for was not used, if it was not.
    pub fallback: Option<String>,
    /// The top results, best first.
    pub hits: Vec<Hit>,
}

/// The catalog with its embeddings and BM25 index.
#[derive(Debug, Clone)]
pub struct ToolIndex {
    tools: Vec<Tool>,
    /// Rank of each tool's name in byte order (the tie-break).
    name_rank: Vec<u32>,
    /// The positions of the tools in name order (`position` searches it).
    by_name: Vec<u32>,
    model: Option<EmbeddingModel>,
    vectors: Vec<f32>,
    bm25: Bm25,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// The inner product, summed in eight lanes (with wasm SIMD in the wasm build, see
/// `dot_lanes`) plus the tail.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let whole = n - n % 8;
    let acc = dot_lanes(&a[..whole], &b[..whole]);
    let mut tail = 0.0f32;
    for (x, y) in a[whole..n].iter().zip(&b[whole..n]) {
        tail += x * y;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// Eight running sums over slices of the same length, a multiple of 8: lane `j` sums
/// `a[8k + j] * b[8k + j]`, a multiply then an add per element in both versions, so they
/// give the same bits. The wasm version is written with SIMD instead of left to LLVM's
/// vectoriser, which the size-optimised release build does not run.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn dot_lanes(a: &[f32], b: &[f32]) -> [f32; 8] {
    use core::arch::wasm32::*;
    // Four floats as one v128, from two 64-bit halves (this compiles to two loads).
    let load = |x: &[f32; 8], i: usize| {
        let pair = |k: usize| u64::from(x[k].to_bits()) | (u64::from(x[k + 1].to_bits()) << 32);
        u64x2(pair(i), pair(i + 2))
    };
    let (mut lo, mut hi) = (f32x4_splat(0.0), f32x4_splat(0.0));
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        if let (Ok(x), Ok(y)) = (<&[f32; 8]>::try_from(x), <&[f32; 8]>::try_from(y)) {
            lo = f32x4_add(lo, f32x4_mul(load(x, 0), load(y, 0)));
            hi = f32x4_add(hi, f32x4_mul(load(x, 4), load(y, 4)));
        }
    }
    [
        f32x4_extract_lane::<0>(lo),
        f32x4_extract_lane::<1>(lo),
        f32x4_extract_lane::<2>(lo),
        f32x4_extract_lane::<3>(lo),
        f32x4_extract_lane::<0>(hi),
        f32x4_extract_lane::<1>(hi),
        f32x4_extract_lane::<2>(hi),
        f32x4_extract_lane::<3>(hi),
    ]
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn dot_lanes(a: &[f32], b: &[f32]) -> [f32; 8] {
    let mut acc = [0.0f32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for j in 0..8 {
            acc[j] += x[j] * y[j];
        }
    }
    acc
}

/// Scales `v` to unit L2 norm (a zero vector stays zero).
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        // Divide in f64: 1/norm of a subnormal vector does not fit an f32.
        for x in v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// Keeps the best `n` of a stream of scores: score descending, then name rank ascending.
struct TopN<'a> {
    n: usize,
    rank: &'a [u32],
    best: Vec<Hit>,
}

impl<'a> TopN<'a> {
    fn new(n: usize, rank: &'a [u32]) -> Self {
        TopN { n, rank, best: Vec::with_capacity(n.min(1024) + 1) }
    }

    fn before(&self, a: Hit, b: Hit) -> bool {
        let ra = self.rank.get(a.index).copied().unwrap_or(u32::MAX);
        let rb = self.rank.get(b.index).copied().unwrap_or(u32::MAX);
        a.score > b.score || (a.score == b.score && ra < rb)
    }

    #[inline]
    fn push(&mut self, hit: Hit) {
        if self.n == 0 {
            return;
        }
        if self.best.len() == self.n {
            match self.best.last() {
                Some(&worst) if self.before(hit, worst) => {
                    self.best.pop();
                }
                _ => return,
            }
        }
        let pos = self.best.partition_point(|&h| self.before(h, hit));
        self.best.insert(pos, hit);
    }
}

impl ToolIndex {
    /// Builds the index. Embeddings come either as `embeddings` (contiguous, `tools.len() × dim`)
    /// or from every tool's `embedding`; either way they need `model`. Tools without any
    /// embedding give a BM25-only index.
    ///
    /// # Errors
    /// `invalid_input` for more than [`MAX_TOOLS`] tools, duplicate names, embeddings without a model, a wrong length, a
    /// dimension of 0 or over [`MAX_DIM`], non-finite values, or more than
    /// [`MAX_EMBEDDING_FLOATS`] floats.
    pub fn new(mut tools: Vec<Tool>, model: Option<EmbeddingModel>, embeddings: Option<Vec<f32>>) -> Result<ToolIndex> {
        if tools.len() > MAX_TOOLS {
            return Err(bad(format!("a catalog holds at most {MAX_TOOLS} tools")));
        }
        let mut by_name: Vec<u32> = (0..tools.len() as u32).collect();
        crate::sort::sort_by(&mut by_name, |&a, &b| tools[a as usize].name < tools[b as usize].name);
        if let Some(w) = by_name.windows(2).find(|w| tools[w[0] as usize].name == tools[w[1] as usize].name) {
            return Err(bad(format!("duplicate tool name \"{}\"", tools[w[0] as usize].name)));
        }
        let with = tools.iter().filter(|t| t.embedding.is_some()).count();
        let vectors = match (embeddings, with) {
            (Some(_), w) if w > 0 => return Err(bad("give the embeddings either contiguously or per tool, not both")),
            (Some(v), _) => Some(v),
            (None, 0) => None,
            (None, w) if w < tools.len() => {
                return Err(bad(format!("{} of {} tools have no embedding", tools.len() - w, tools.len())))
            }
            (None, _) => {
                let dim = model.as_ref().map_or(0, |m| m.dim);
                let mut all = Vec::with_capacity(tools.len().saturating_mul(dim).min(MAX_EMBEDDING_FLOATS));
                for t in &mut tools {
                    let e = t.embedding.take().unwrap_or_default();
                    if e.len() != dim {
                        return Err(bad(format!("tool \"{}\": embedding has {} dimensions, the model {dim}", t.name, e.len())));
                    }
                    if all.len() + e.len() > MAX_EMBEDDING_FLOATS {
                        return Err(bad(format!("embeddings over {MAX_EMBEDDING_FLOATS} floats")));
                    }
                    all.extend_from_slice(&e);
                }
                Some(all)
            }
        };
        let vectors = match vectors {
            None => Vec::new(),
            Some(mut v) => {
                let Some(m) = &model else {
                    return Err(bad("embeddings need a model tag { model_id, dim, pooling }"));
                };
                if m.dim == 0 || m.dim > MAX_DIM {
                    return Err(bad(format!("dim must be 1..={MAX_DIM}, got {}", m.dim)));
                }
                if v.len() > MAX_EMBEDDING_FLOATS {
                    return Err(bad(format!("embeddings over {MAX_EMBEDDING_FLOATS} floats")));
                }
                if Some(v.len()) != tools.len().checked_mul(m.dim) {
                    return Err(bad(format!(
                        "embeddings hold {} floats, expected {} tools × {} dims",
                        v.len(),
                        tools.len(),
                        m.dim
                    )));
                }
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(bad("embeddings must be finite numbers"));
                }
                for row in v.chunks_exact_mut(m.dim) {
                    l2_normalize(row);
                }
                v
            }
        };
        let model = if vectors.is_empty() { None } else { model };
        let mut name_rank = vec![0u32; tools.len()];
        for (r, &i) in by_name.iter().enumerate() {
            name_rank[i as usize] = r as u32;
        }
        let bm25 = Bm25::new(tools.iter().map(|t| format!("{} {} {}", t.name, t.description, t.capabilities.join(" "))));
        Ok(ToolIndex { tools, name_rank, by_name, model, vectors, bm25 })
    }

    /// The tools, in catalog order (embeddings moved into the index).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool at `index`.
    pub fn tool(&self, index: usize) -> Option<&Tool> {
        self.tools.get(index)
    }

    /// The position of the tool called `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let at = self.by_name.binary_search_by(|&i| self.tools[i as usize].name.as_str().cmp(name)).ok()?;
        self.by_name.get(at).map(|&i| i as usize)
    }

    /// The model tag, when the index has embeddings.
    pub fn model(&self) -> Option<&EmbeddingModel> {
        self.model.as_ref()
    }

    /// The normalised embeddings, contiguous (empty without a model).
    pub fn vectors(&self) -> &[f32] {
        &self.vectors
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the catalog is empty.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Why query vectors of `dim` from `model_id` cannot be searched here, if they cannot.
    pub fn mismatch(&self, vectors: &[f32], model_id: Option<&str>, dim: Option<usize>) -> Option<String> {
        let Some(m) = &self.model else {
            return Some("the index has no embeddings".into());
        };
        if vectors.is_empty() {
            return Some("no query vector".into());
        }
        if let Some(id) = model_id {
            if id != m.model_id {
                return Some(format!("query model \"{id}\" differs from the index model \"{}\"", m.model_id));
            }
        }
        let dim = dim.unwrap_or(m.dim);
        if dim != m.dim || vectors.len() % m.dim != 0 {
            return Some(format!(
                "query dimension {} does not match the index dimension {}",
                if dim != m.dim { dim } else { vectors.len() },
                m.dim
            ));
        }
        if vectors.iter().any(|x| !x.is_finite()) {
            return Some("query vector has non-finite values".into());
        }
        None
    }

    /// Exact top-`n` cosine search for one query vector of the index's dimension.
    ///
    /// # Errors
    /// `invalid_input` when the index has no embeddings, or the query has another length or
    /// non-finite values.
    pub fn search(&self, query: &[f32], n: usize) -> Result<Vec<Hit>> {
        if let Some(why) = self.mismatch(query, None, None) {
            return Err(bad(why));
        }
        if let Some(m) = self.model.as_ref().filter(|m| query.len() != m.dim) {
            return Err(bad(format!("query has {} dimensions, the index {}", query.len(), m.dim)));
        }
        let mut q = query.to_vec();
        l2_normalize(&mut q);
        let mut top = TopN::new(n, &self.name_rank);
        for (i, row) in self.vectors.chunks_exact(q.len()).enumerate() {
            top.push(Hit { index: i, score: f64::from(dot(&q, row)) });
        }
        Ok(top.best)
    }

    /// Cosine scores of every tool: the best over the query vectors (checked beforehand).
    fn cosine_scores(&self, vectors: &[f32], dim: usize) -> Vec<f64> {
        let mut best = vec![f64::NEG_INFINITY; self.tools.len()];
        for q in vectors.chunks_exact(dim) {
            let mut q = q.to_vec();
            l2_normalize(&mut q);
            for (s, row) in best.iter_mut().zip(self.vectors.chunks_exact(dim)) {
                *s = s.max(f64::from(dot(&q, row)));
            }
        }
        best
    }

    /// BM25 scores of every tool: the best over the texts.
    fn bm25_scores(&self, texts: &[String]) -> Vec<f64> {
        let mut best = vec![0.0f64; self.tools.len()];
        for t in texts {
            for (b, s) in best.iter_mut().zip(self.bm25.scores(t)) {
                *b = b.max(s);
            }
        }
        best
    }

    /// Top-`n` BM25 search over name, description and capabilities (tools that match no
    /// query term are left out).
    pub fn search_text(&self, text: &str, n: usize) -> Vec<Hit> {
        self.top(&self.bm25_scores(&[text.to_string()]), n, true)
    }

    fn top(&self, scores: &[f64], n: usize, positive_only: bool) -> Vec<Hit> {
        let mut top = TopN::new(n, &self.name_rank);
        for (i, &s) in scores.iter().enumerate() {
            if !positive_only || s > 0.0 {
                top.push(Hit { index: i, score: s });
            }
        }
        top.best
    }

    /// `hits` as JSON text: `[{"name":…,"index":…,"score":…},…]`.
    pub fn hits_json(&self, hits: &[Hit]) -> String {
        let mut out = String::with_capacity(hits.len() * 48 + 2);
        out.push('[');
        for (i, h) in hits.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            crate::json::write_json_string(self.tool(h.index).map_or("", |t| t.name.as_str()), &mut out);
            out.push_str(&format!(",\"index\":{},\"score\":", h.index));
            out.push_str(crate::num::f64_text(h.score).as_deref().unwrap_or("0"));
            out.push('}');
        }
        out.push(']');
        out
    }

    /// Retrieval with the fallback rules: cosine (or hybrid) when the query vectors fit the
    /// index (same model, same dimension), BM25 over the texts otherwise.
    pub fn retrieve(&self, q: &Query<'_>) -> Retrieval {
        let mismatch = self.mismatch(q.vectors, q.model_id, q.dim);
        let method = match (q.mode, &mismatch) {
            (Mode::Bm25, _) | (_, Some(_)) => Method::Bm25,
            (Mode::Hybrid, None) => Method::Hybrid,
            (Mode::Auto | Mode::Cosine, None) => Method::Cosine,
        };
        let fallback = if q.mode == Mode::Bm25 { None } else { mismatch };
        let dim = self.model.as_ref().map_or(1, |m| m.dim);
        let hits = match method {
            Method::Bm25 => self.top(&self.bm25_scores(q.texts), q.n, true),
            Method::Cosine => self.top(&self.cosine_scores(q.vectors, dim), q.n, false),
            Method::Given | Method::Hybrid => {
                let all = self.tools.len();
                let cos = self.top(&self.cosine_scores(q.vectors, dim), all, false);
                let bm = self.top(&self.bm25_scores(q.texts), all, true);
                let mut fused = vec![0.0f64; all];
                for list in [&cos, &bm] {
                    for (r, h) in list.iter().enumerate() {
                        if let Some(f) = fused.get_mut(h.index) {
                            *f += 1.0 / (RRF_K + r as f64 + 1.0);
                        }
                    }
                }
                self.top(&fused, q.n, false)
            }
        };
        Retrieval { method, fallback, hits }
    }
}
