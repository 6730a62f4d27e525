//! Tool narrowing: a small, relevant tool subset for the plan-adaptation prompt.
//!
//! Precedence (the design's): template tools always, in template order; then retrieval tools,
//! best first, until the cap; then every safety tool not yet present, even past the cap; when
//! the cap is exceeded, the lowest-scoring retrieval tools go first, never a template or safety
//! tool (so the result exceeds the cap only when template and safety tools alone do).

use super::index::{Method, Mode, Query, ToolIndex};
use super::requirements::Requirements;
use crate::hash::{Map, StrSet};
use crate::json::JsonValue;

/// Why a tool is in the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Curated by the template.
    Template,
    /// Found by retrieval.
    Retrieval,
    /// From the safety set.
    Safety,
}

impl Reason {
    /// `"template"`, `"retrieval"` or `"safety"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Template => "template",
            Reason::Retrieval => "retrieval",
            Reason::Safety => "safety",
        }
    }
}

/// One tool of the subset.
#[derive(Debug, Clone, PartialEq)]
pub struct NarrowedTool {
    /// Tool name.
    pub name: String,
    /// Why it is in.
    pub reason: Reason,
    /// Retrieval score (for every tool that retrieval ranked, whatever its reason).
    pub score: Option<f64>,
    /// 1-based retrieval rank, likewise.
    pub rank: Option<usize>,
}

/// The narrowing options.
#[derive(Debug, Clone)]
pub struct NarrowOptions {
    /// Template-curated tools.
    pub template: Vec<String>,
    /// The safety set (default: aggregate, plot_line, compute_summary_stats).
    pub safety_set: Vec<String>,
    /// The cap (default 8).
    pub cap: usize,
    /// Retrieval depth N (default: the cap): the top N tools of the whole catalog are
    /// retrieved, the template tools among them included.
    pub n: Option<usize>,
    /// Retrieval tools scoring below this are not added.
    pub min_score: Option<f64>,
    /// Retrieval method.
    pub mode: Mode,
}

/// The design's safety set.
pub const DEFAULT_SAFETY_SET: &[&str] = &["aggregate", "plot_line", "compute_summary_stats"];
/// The default cap.
pub const DEFAULT_CAP: usize = 8;

impl Default for NarrowOptions {
    fn default() -> Self {
        NarrowOptions {
            template: vec![],
            safety_set: DEFAULT_SAFETY_SET.iter().map(|s| s.to_string()).collect(),
            cap: DEFAULT_CAP,
            n: None,
            min_score: None,
            mode: Mode::Auto,
        }
    }
}

/// What [`narrow_tools`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowed {
    /// The subset: template, retrieval, then safety tools.
    pub tools: Vec<NarrowedTool>,
    /// The safety set, each with whether it was added (`true`) or already present.
    pub safety: Vec<(String, bool)>,
    /// Retrieval tools left out by the cap, best first, with their scores.
    pub dropped: Vec<(String, f64)>,
    /// The retrieval method used.
    pub method: Method,
    /// Why the asked-for method was not used, if it was not.
    pub fallback: Option<String>,
    /// The query texts (for BM25, and to embed for the query vectors).
    pub queries: Vec<String>,
    /// The cap.
    pub cap: usize,
    /// Template or safety tools that are not in the catalog.
    pub warnings: Vec<String>,
}

impl Narrowed {
    /// The result as the JSON object JS gets (the fields by their names; pairs as objects).
    pub fn to_json_value(&self) -> JsonValue {
        let n = self;
        let s = |x: &str| JsonValue::String(x.to_string());
        let num = |x: f64| JsonValue::Number(crate::num::f64_text(x).unwrap_or_else(|| "0".into()));
        let tools = n
            .tools
            .iter()
            .map(|t| {
                JsonValue::Object(vec![
                    ("name".into(), s(&t.name)),
                    ("reason".into(), s(t.reason.as_str())),
                    ("score".into(), t.score.map_or(JsonValue::Null, num)),
                    ("rank".into(), t.rank.map_or(JsonValue::Null, |r| JsonValue::Number(r.to_string()))),
                ])
            })
            .collect();
        let list = |l: &[String]| JsonValue::Array(l.iter().map(|x| s(x)).collect());
        JsonValue::Object(vec![
            ("tools".into(), JsonValue::Array(tools)),
            ("names".into(), JsonValue::Array(n.tools.iter().map(|t| s(&t.name)).collect())),
            (
                "safety".into(),
                JsonValue::Array(
                    n.safety
                        .iter()
                        .map(|(name, added)| {
                            JsonValue::Object(vec![("name".into(), s(name)), ("added".into(), JsonValue::Bool(*added))])
                        })
                        .collect(),
                ),
            ),
            (
                "dropped".into(),
                JsonValue::Array(
                    n.dropped
                        .iter()
                        .map(|(name, score)| JsonValue::Object(vec![("name".into(), s(name)), ("score".into(), num(*score))]))
                        .collect(),
                ),
            ),
            ("method".into(), s(n.method.as_str())),
            ("fallback".into(), n.fallback.as_deref().map_or(JsonValue::Null, s)),
            ("queries".into(), list(&n.queries)),
            ("cap".into(), JsonValue::Number(n.cap.to_string())),
            ("warnings".into(), list(&n.warnings)),
        ])
    }
}

fn phrase(label: &str) -> String {
    match label {
        "total" => "total sum aggregate".into(),
        "compare" => "compare across groups segment".into(),
        "trend" => "trend over time time series line plot".into(),
        "distribution" => "distribution histogram of values".into(),
        "anomaly" => "detect anomalies outliers".into(),
        "correlation" => "correlation between variables scatter".into(),
        "ranking" => "rank top values sort".into(),
        "forecast" => "forecast future values".into(),
        "summary" => "summary statistics describe".into(),
        "chart" => "chart plot visualization".into(),
        "table" => "table of results summary".into(),
        "text" => "text summary narrative".into(),
        other => other.replace('_', " "),
    }
}

/// The retrieval queries of the design: one per requirement, then the combined one.
pub fn retrieval_queries(req: &Requirements) -> Vec<String> {
    let metrics = req.metrics.join(" ");
    let mut out = Vec::new();
    let mut combined = Vec::new();
    for a in &req.analysis {
        let q = format!("{} {metrics}", phrase(a));
        combined.push(q.clone());
        out.push(q.trim().to_string());
    }
    for o in &req.outputs {
        let q = phrase(o);
        combined.push(q.clone());
        out.push(q);
    }
    if !req.group_by.is_empty() {
        let q = format!("group by {} aggregate segment", req.group_by.join(" "));
        combined.push(q.clone());
        out.push(q);
    }
    if let Some(c) = req.time_column() {
        let q = format!("parse datetime {c} over time");
        combined.push(q.clone());
        out.push(q);
    }
    if !req.constraints.is_empty() {
        let text: Vec<String> =
            req.constraints.iter().map(|c| c.as_str().map(str::to_string).unwrap_or_else(|| c.to_json())).collect();
        let q = format!("filter rows {}", text.join(" "));
        combined.push(q.clone());
        out.push(q);
    }
    if out.len() > 1 {
        // The words of all queries, one space apart.
        let mut all = String::new();
        for w in combined.iter().flat_map(|q| q.split_whitespace()) {
            if !all.is_empty() {
                all.push(' ');
            }
            all.push_str(w);
        }
        out.push(all);
    } else if out.is_empty() && !metrics.is_empty() {
        out.push(metrics);
    }
    out
}

/// Narrows the catalog of `index` for `req`. `vectors` are the query embeddings (any number;
/// a tool scores its best similarity over them), `model_id` their model; `texts` the query
/// texts (default: [`retrieval_queries`]); `dim`, when given, their declared dimension.
pub fn narrow_tools(
    index: &ToolIndex,
    req: &Requirements,
    vectors: &[f32],
    model_id: Option<&str>,
    dim: Option<usize>,
    texts: Option<Vec<String>>,
    opts: &NarrowOptions,
) -> Narrowed {
    let queries = texts.unwrap_or_else(|| retrieval_queries(req));
    let n = opts.n.unwrap_or(opts.cap.max(1));
    let retrieval = index.retrieve(&Query { vectors, model_id, dim, texts: &queries, mode: opts.mode, n });
    let ranked: Vec<(String, f64)> =
        retrieval.hits.iter().filter_map(|h| index.tool(h.index).map(|t| (t.name.clone(), h.score))).collect();
    let mut out = narrow_ranked(Some(index), &ranked, opts);
    out.method = retrieval.method;
    out.fallback = retrieval.fallback;
    out.queries = queries;
    out
}

/// The precedence alone, over tools that retrieval elsewhere scored: e.g. a platform vector
/// index. They are ranked by score, best first (a stable sort: equal scores keep the order
/// given), so the lowest-scoring ones are dropped first whatever order they came in. `index`,
/// when given, is only used to warn about template and safety tools that are not in the
/// catalog. `method` is reported as `Given`.
pub fn narrow_ranked(index: Option<&ToolIndex>, ranked: &[(String, f64)], opts: &NarrowOptions) -> Narrowed {
    let cap = opts.cap.max(1);
    let n = opts.n.unwrap_or(cap);
    let mut order: Vec<usize> = (0..ranked.len()).collect();
    crate::sort::sort_by(&mut order, |&a, &b| ranked[a].1 > ranked[b].1);
    let best_first: Vec<(&str, f64)> = order.iter().take(n).map(|&i| (ranked[i].0.as_str(), ranked[i].1)).collect();
    let ranked = &best_first[..];
    let mut warnings = Vec::new();
    let mut tools: Vec<NarrowedTool> = Vec::new();
    // Score and 1-based rank by name (the first occurrence counts).
    let mut by_name: Map<&str, usize> = crate::hash::map_with_capacity(ranked.len());
    // Backwards, so that the first occurrence is the one inserted last.
    for (r, (name, _)) in ranked.iter().enumerate().rev() {
        by_name.insert(name, r);
    }
    let scored = |name: &str| by_name.get(name).and_then(|&r| Some((ranked.get(r)?.1, r + 1)));
    // Names already in the subset or among the candidates.
    let mut seen = StrSet::default();
    let mut add = |tools: &mut Vec<NarrowedTool>, name: &str, reason: Reason| {
        if index.is_some_and(|i| i.position(name).is_none()) {
            warnings.push(format!("{} tool \"{name}\" is not in the catalog", reason.as_str()));
        }
        let s = scored(name);
        tools.push(NarrowedTool { name: name.into(), reason, score: s.map(|x| x.0), rank: s.map(|x| x.1) });
    };
    for t in &opts.template {
        if seen.insert(t.as_str()) {
            add(&mut tools, t, Reason::Template);
        }
    }
    // Candidate retrieval tools, best first.
    let mut candidates: Vec<(String, f64, usize)> = Vec::new();
    for (r, (name, score)) in ranked.iter().enumerate() {
        if opts.min_score.is_some_and(|m| *score < m) || !seen.insert(name) {
            continue;
        }
        candidates.push((name.to_string(), *score, r + 1));
    }
    let mut safety = Vec::new();
    let mut safety_missing = Vec::new();
    let mut listed = StrSet::default();
    for s in &opts.safety_set {
        if !listed.insert(s.as_str()) {
            continue;
        }
        let present = seen.contains(s.as_str());
        safety.push((s.clone(), !present));
        if !present {
            safety_missing.push(s.clone());
        }
    }
    // Retrieval fills what template and safety tools leave of the cap; a safety tool that
    // retrieval found comes in as retrieval and counts as a fixed tool.
    let is_safety = |name: &str| listed.contains(name);
    let fixed = tools.len() + safety_missing.len() + candidates.iter().filter(|c| is_safety(&c.0)).count();
    let room = cap.saturating_sub(fixed);
    let mut dropped = Vec::new();
    let mut taken = 0;
    for (name, score, rank) in candidates {
        if is_safety(&name) || taken < room {
            taken += usize::from(!is_safety(&name));
            tools.push(NarrowedTool { name, reason: Reason::Retrieval, score: Some(score), rank: Some(rank) });
        } else {
            dropped.push((name, score));
        }
    }
    for s in &safety_missing {
        add(&mut tools, s, Reason::Safety);
    }
    Narrowed { tools, safety, dropped, method: Method::Given, fallback: None, queries: vec![], cap, warnings }
}
