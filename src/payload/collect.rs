//! `ArtifactCollector` (artifact fields of full observations, by tool) and `collect_sources`
//! (citations from source-producing tools).
//!
//! The collector runs on the *full* observation, before any truncation or clamping, so what
//! reaches the frontend never depends on what fitted the model's context (reference bug B18).
//! An artifact is known by its field name, or for a nested one by its dotted path
//! (`sections.0.figure`); a later artifact of the same node and name replaces the earlier.
//! Artifacts larger than `max_inline_bytes` (compact JSON) are handed to a store callback
//! and replaced by `{artifact_ref, type, size_bytes}`; without a store they stay inline.
//! Either way an `artifact_large` warning is recorded.

use super::redact::{apply, placeholder, Edits};
use super::schema::{dotted, walk_artifacts, SchemaDoc, MAX_DEPTH};
use super::text::{holds_container, string_root};
use super::types::{dedup_sources, get, json_len, number, set, type_name, Artifacts, JsonMap, Source};
use crate::budget::{out_of_memory, try_boxed_str, try_to_string};
use crate::hash::Map;
use crate::json::JsonValue;
use crate::{Error, ErrorKind, Result};

/// Default `max_inline_bytes`: 1 MiB.
pub const DEFAULT_MAX_INLINE_BYTES: usize = 1024 * 1024;

/// Options of [`ArtifactCollector::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArtifactCollectorOptions {
    /// Artifacts whose compact JSON is larger than this many bytes go to the store.
    pub max_inline_bytes: usize,
}

impl Default for ArtifactCollectorOptions {
    fn default() -> Self {
        ArtifactCollectorOptions { max_inline_bytes: DEFAULT_MAX_INLINE_BYTES }
    }
}

/// Stores a large artifact (`node`, `field`, value) and returns its reference.
pub type ArtifactStore<'s> = dyn FnMut(&str, &str, &JsonValue) -> Result<String> + 's;

/// A collected artifact: a value, or the compact JSON text of one (what the one-pass text
/// walk keeps, so big artifacts are never built as trees unless asked for).
#[derive(Debug, Clone, PartialEq)]
enum Held {
    Value(JsonValue),
    Json(String),
}

impl Held {
    fn size(&self) -> usize {
        match self {
            Held::Value(v) => json_len(v),
            Held::Json(t) => t.len(),
        }
    }

    fn value(&self) -> JsonValue {
        match self {
            Held::Value(v) => v.clone(),
            // The text was written by the walk from a valid document: it parses.
            Held::Json(t) => crate::parse_strict(t.as_bytes()).unwrap_or(JsonValue::Null),
        }
    }

    fn write_json(&self, out: &mut String) {
        match self {
            Held::Value(v) => v.write_json(out),
            Held::Json(t) => out.push_str(t),
        }
    }
}

/// Artifacts found by the text walk, kept as their JSON text.
fn held_json(found: super::text::Found) -> Vec<(String, Held)> {
    found.into_iter().map(|(k, t)| (k, Held::Json(t))).collect()
}

/// Collects artifact fields from tool observations during a run.
#[derive(Debug, Clone, Default)]
pub struct ArtifactCollector {
    options: ArtifactCollectorOptions,
    artifacts: Vec<(String, Vec<(String, Held)>)>,
    /// Where each node is in `artifacts`, and each field in its node: a run that collects
    /// many fields or nodes must not look each up by scanning.
    node_at: Map<Box<str>, usize>,
    field_at: Vec<Map<Box<str>, usize>>,
    warnings: Vec<String>,
}

impl ArtifactCollector {
    /// An empty collector.
    pub fn new(options: ArtifactCollectorOptions) -> Self {
        ArtifactCollector { options, artifacts: Vec::new(), node_at: Map::default(), field_at: Vec::new(), warnings: Vec::new() }
    }

    /// Collects the artifact-marked fields of `observation` (as described by the tool's
    /// output `schema`) under `node`. Large artifacts stay inline (with a warning).
    ///
    /// # Errors
    /// `invalid_input` for a schema that is not an object or boolean; `json_too_deep`.
    pub fn collect(&mut self, node: &str, schema: &JsonValue, observation: &JsonValue) -> Result<()> {
        self.collect_with(node, schema, observation, None)
    }

    /// [`ArtifactCollector::collect`], handing artifacts over `max_inline_bytes` to `store`.
    ///
    /// # Errors
    /// As `collect`, and whatever `store` returns (nothing of this observation is kept then).
    pub fn collect_with(
        &mut self,
        node: &str,
        schema: &JsonValue,
        observation: &JsonValue,
        store: Option<&mut ArtifactStore<'_>>,
    ) -> Result<()> {
        if let Some(w) = string_root(observation, schema, true)? {
            return self.keep(node, held_json(w.found), store);
        }
        let doc = SchemaDoc::new(schema)?;
        let mut found = Vec::new();
        walk_artifacts(&doc, observation, &mut |f| {
            found.push((dotted(f.path), Held::Value(f.value.clone())));
            Ok(())
        })?;
        self.keep(node, found, store)
    }

    /// Collects like [`ArtifactCollector::collect_with`] and returns the redacted observation
    /// (as `redact_artifacts` would), moving each artifact instead of copying it: one walk
    /// for both jobs.
    ///
    /// # Errors
    /// As `collect_with`.
    pub fn collect_and_redact(
        &mut self,
        node: &str,
        schema: &JsonValue,
        mut observation: JsonValue,
        store: Option<&mut ArtifactStore<'_>>,
    ) -> Result<JsonValue> {
        if let Some(w) = string_root(&observation, schema, true)? {
            self.keep(node, held_json(w.found), store)?;
            return Ok(JsonValue::String(w.text));
        }
        let doc = SchemaDoc::new(schema)?;
        let mut names = Vec::new();
        let mut edits: Edits = Vec::new();
        walk_artifacts(&doc, &observation, &mut |f| {
            names.push(dotted(f.path));
            edits.push((f.path.iter().map(|s| s.index()).collect(), placeholder(f.value, &f.marks, f.path)));
            Ok(())
        })?;
        let mut found = Vec::with_capacity(names.len());
        for (name, (path, _)) in names.into_iter().zip(&edits) {
            let value = super::schema::at_mut(&mut observation, path)
                .map(|slot| std::mem::replace(slot, JsonValue::Null))
                .unwrap_or(JsonValue::Null);
            found.push((name, Held::Value(value)));
        }
        apply(&mut observation, edits);
        self.keep(node, found, store)?;
        Ok(observation)
    }

    /// [`ArtifactCollector::collect_with`] on JSON text (one pass, no tree for the
    /// observation; only the artifacts are built).
    ///
    /// # Errors
    /// As `collect_with`, and `json_invalid` for text that is not JSON.
    pub fn collect_json(
        &mut self,
        node: &str,
        schema: &JsonValue,
        observation_json: &str,
        store: Option<&mut ArtifactStore<'_>>,
    ) -> Result<()> {
        self.collect_text(node, schema, observation_json, store).map(|_| ())
    }

    /// [`ArtifactCollector::collect_and_redact`] on JSON text in and out.
    ///
    /// # Errors
    /// As `collect_json`.
    pub fn collect_and_redact_json(
        &mut self,
        node: &str,
        schema: &JsonValue,
        observation_json: &str,
        store: Option<&mut ArtifactStore<'_>>,
    ) -> Result<String> {
        self.collect_text(node, schema, observation_json, store).map(|(text, _)| text)
    }

    /// Collects from JSON text; returns the redacted text and how many artifacts it found.
    pub(crate) fn collect_text(
        &mut self,
        node: &str,
        schema: &JsonValue,
        observation_json: &str,
        store: Option<&mut ArtifactStore<'_>>,
    ) -> Result<(String, usize)> {
        let walk = super::text::redact_text(observation_json.as_bytes(), schema, true)?;
        self.keep(node, held_json(walk.found), store)?;
        Ok((walk.text, walk.replaced))
    }

    fn keep(&mut self, node: &str, found: Vec<(String, Held)>, mut store: Option<&mut ArtifactStore<'_>>) -> Result<()> {
        if found.is_empty() {
            return Ok(());
        }
        let mut kept = Vec::with_capacity(found.len());
        let mut warnings = Vec::new();
        let max = self.options.max_inline_bytes;
        for (field, held) in found {
            let size = held.size();
            if size <= max {
                kept.push((field, held));
                continue;
            }
            let held = match store.as_deref_mut() {
                Some(store) => {
                    let value = held.value();
                    let reference = store(node, &field, &value)?;
                    warnings.push(format!("artifact_large: {node}.{field} is {size} bytes (over {max}), stored as {reference}"));
                    Held::Value(JsonValue::Object(vec![
                        ("artifact_ref".into(), JsonValue::String(reference)),
                        ("type".into(), JsonValue::String(type_name(&value).into())),
                        ("size_bytes".into(), number(size as f64)),
                    ]))
                }
                None => {
                    warnings.push(format!("artifact_large: {node}.{field} is {size} bytes (over {max}), kept inline (no store)"));
                    held
                }
            };
            kept.push((field, held));
        }
        // What the collector keeps grows fallibly: out of memory is `memory_limit_exceeded`.
        let oom = |n: usize| move |_| out_of_memory(n);
        self.warnings.try_reserve(warnings.len()).map_err(oom(warnings.len()))?;
        let n = match self.node_at.get(node) {
            Some(&n) => n,
            None => {
                let (key, name) = (try_boxed_str(node)?, try_to_string(node)?);
                self.node_at.try_reserve(1).map_err(oom(node.len()))?;
                self.artifacts.try_reserve(1).map_err(oom(node.len()))?;
                self.field_at.try_reserve(1).map_err(oom(node.len()))?;
                self.node_at.insert(key, self.artifacts.len());
                self.artifacts.push((name, Vec::new()));
                self.field_at.push(Map::default());
                self.artifacts.len() - 1
            }
        };
        let (slot, at) = (&mut self.artifacts[n].1, &mut self.field_at[n]);
        slot.try_reserve(kept.len()).map_err(oom(kept.len()))?;
        at.try_reserve(kept.len()).map_err(oom(kept.len()))?;
        for (field, held) in kept {
            match at.get(field.as_str()) {
                Some(&i) => slot[i].1 = held,
                None => {
                    at.insert(try_boxed_str(&field)?, slot.len());
                    slot.push((field, held));
                }
            }
        }
        self.warnings.extend(warnings);
        Ok(())
    }

    /// Everything collected: node name to `{field: value}` (a copy).
    pub fn all(&self) -> Artifacts {
        self.artifacts.iter().map(|(n, f)| (n.clone(), f.iter().map(|(k, h)| (k.clone(), h.value())).collect())).collect()
    }

    /// [`ArtifactCollector::all`] as one JSON object.
    pub fn all_value(&self) -> JsonValue {
        JsonValue::Object(self.all().into_iter().map(|(n, f)| (n, JsonValue::Object(f))).collect())
    }

    /// [`ArtifactCollector::all`] as compact JSON text, written without copying the values.
    pub fn all_json(&self) -> String {
        let mut out = String::from("{");
        for (i, (node, fields)) in self.artifacts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            crate::json::write_json_string(node, &mut out);
            out.push_str(":{");
            for (j, (field, value)) in fields.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                crate::json::write_json_string(field, &mut out);
                out.push(':');
                value.write_json(&mut out);
            }
            out.push('}');
        }
        out.push('}');
        out
    }

    /// The `artifact_large` warnings recorded so far.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The options in force.
    pub fn options(&self) -> ArtifactCollectorOptions {
        self.options
    }

    /// Forgets every artifact and warning (for a new run).
    pub fn clear(&mut self) {
        self.artifacts.clear();
        self.node_at.clear();
        self.field_at.clear();
        self.warnings.clear();
    }
}

/// One executed tool step, as `collect_sources` reads it.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(rename = "ToolStepInput"))]
pub struct ToolStep<'a> {
    /// The tool (node) name.
    pub node: &'a str,
    /// The tool's output JSON Schema.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown> | boolean"))]
    pub schema: &'a JsonValue,
    /// The full observation (`null` when the step produced none).
    #[cfg_attr(target_arch = "wasm32", tsify(optional, type = "unknown"))]
    pub observation: &'a JsonValue,
}

/// The sources of a run: every object of every observation whose schema declares
/// `"produces_sources": true` (at any depth the schema describes) mapped to a [`Source`]
/// (fields named by a property's `"source_field"`, else `title`/`url`/`snippet`/
/// `relevance_score` by name), in order, deduplicated on `(title, url, snippet)`. Objects
/// that do not make a valid source (no string `title`, a wrong type) are skipped.
///
/// # Errors
/// `invalid_input` for a schema that is not an object or boolean; `json_too_deep`.
pub fn collect_sources(steps: &[ToolStep<'_>]) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for step in steps {
        let doc = SchemaDoc::new(step.schema)?;
        let embedded = match step.observation {
            JsonValue::String(s) if holds_container(s) => crate::parse_strict(s.as_bytes()).ok(),
            _ => None,
        };
        let observation = embedded.as_ref().unwrap_or(step.observation);
        sources_in(&doc, observation, &doc.root()?, 0, &mut out)?;
    }
    Ok(dedup_sources(out))
}

fn sources_in<'a>(
    doc: &SchemaDoc<'a>,
    value: &JsonValue,
    nodes: &[&'a JsonValue],
    depth: usize,
    out: &mut Vec<Source>,
) -> Result<()> {
    if depth >= MAX_DEPTH {
        return Err(Error::new(ErrorKind::JsonTooDeep, "the observation is nested too deeply"));
    }
    match value {
        JsonValue::Object(members) => {
            if SchemaDoc::produces_sources(nodes) {
                out.extend(to_source(doc, members, nodes)?);
            }
            for (k, v) in members {
                let schema = doc.property(nodes, k)?;
                if !schema.is_empty() && matches!(v, JsonValue::Object(_) | JsonValue::Array(_)) {
                    sources_in(doc, v, &schema, depth + 1, out)?;
                }
            }
        }
        JsonValue::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let schema = doc.item(nodes, i)?;
                if !schema.is_empty() {
                    sources_in(doc, v, &schema, depth + 1, out)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The source `members` make, or `None` when they make no valid one.
fn to_source<'a>(doc: &SchemaDoc<'a>, members: &JsonMap, nodes: &[&'a JsonValue]) -> Result<Option<Source>> {
    let mut mapped: JsonMap = Vec::new();
    for (k, v) in members {
        let marks = SchemaDoc::marks(&doc.property(nodes, k)?);
        let target = marks.source_field.unwrap_or(k);
        if matches!(target, "title" | "url" | "snippet" | "relevance_score") {
            set(&mut mapped, target, v.clone());
        }
    }
    Ok(mapped_source(&mapped))
}

fn mapped_source(mapped: &JsonMap) -> Option<Source> {
    let text = |key| match get(mapped, key) {
        None | Some(JsonValue::Null) => Some(None),
        Some(JsonValue::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    };
    let score = match get(mapped, "relevance_score") {
        None | Some(JsonValue::Null) => None,
        Some(JsonValue::Number(n)) => Some(crate::num::parse_f64(n).filter(|x| x.is_finite())?),
        Some(_) => return None,
    };
    Some(Source { title: text("title")??, url: text("url")?, snippet: text("snippet")?, relevance_score: score })
}
