//! The data types of the contract (`FinalPayload`, `Source`, `SuggestedAction`) and their JSON
//! form. Field names, optionality and defaults follow final-payload-and-artifacts.md §1.

use crate::json::JsonValue;

/// An ordered JSON object: members in order, as in [`JsonValue::Object`].
pub type JsonMap = Vec<(String, JsonValue)>;

/// Collected artifacts: tool (node) name to `{field: value}`, both in insertion order.
pub type Artifacts = Vec<(String, JsonMap)>;

/// A citation or reference used in the answer.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct Source {
    /// The title (required).
    pub title: String,
    /// Where it lives.
    pub url: Option<String>,
    /// The quoted passage.
    pub snippet: Option<String>,
    /// How relevant the retriever found it.
    pub relevance_score: Option<f64>,
}

impl Source {
    /// A source with only a title.
    pub fn new(title: impl Into<String>) -> Self {
        Source { title: title.into(), url: None, snippet: None, relevance_score: None }
    }

    /// `{title, url, snippet, relevance_score}` (absent fields as `null`).
    pub fn to_value(&self) -> JsonValue {
        JsonValue::Object(vec![
            ("title".into(), JsonValue::String(self.title.clone())),
            ("url".into(), opt_str(&self.url)),
            ("snippet".into(), opt_str(&self.snippet)),
            ("relevance_score".into(), self.relevance_score.map_or(JsonValue::Null, number)),
        ])
    }
}

/// A follow-up action the user might want to take.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SuggestedAction {
    /// A stable id, e.g. `export_csv`.
    pub action_id: String,
    /// The human-readable label.
    pub label: String,
    /// Parameters of the action (default `{}`).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub params: JsonMap,
}

impl SuggestedAction {
    /// `{action_id, label, params}`.
    pub fn to_value(&self) -> JsonValue {
        JsonValue::Object(vec![
            ("action_id".into(), JsonValue::String(self.action_id.clone())),
            ("label".into(), JsonValue::String(self.label.clone())),
            ("params".into(), JsonValue::Object(self.params.clone())),
        ])
    }
}

/// The one structure every planner answer reaches the frontend as.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct FinalPayload {
    /// The human-readable answer text (required).
    pub raw_answer: String,
    /// Heavy data from tool outputs: node name to `{field: value}` (default `{}`).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, Record<string, unknown>>"))]
    pub artifacts: Artifacts,
    /// Confidence in `0..=1`, or `None`.
    pub confidence: Option<f64>,
    /// Citations (default `[]`).
    pub sources: Vec<Source>,
    /// The answer's category (`knowledge_base`, `calculation`, ...), or `None`.
    pub route: Option<String>,
    /// Follow-up actions (default `[]`).
    pub suggested_actions: Vec<SuggestedAction>,
    /// Whether the answer needs the user's input (default `false`).
    pub requires_followup: bool,
    /// Non-fatal issues (default `[]`).
    pub warnings: Vec<String>,
    /// ISO 639-1 code of the answer's language, or `None`.
    pub language: Option<String>,
    /// Domain-specific fields (default `{}`).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub extra: JsonMap,
}

impl FinalPayload {
    /// A payload with `raw_answer` and every other field at its default.
    pub fn new(raw_answer: impl Into<String>) -> Self {
        FinalPayload {
            raw_answer: raw_answer.into(),
            artifacts: Vec::new(),
            confidence: None,
            sources: Vec::new(),
            route: None,
            suggested_actions: Vec::new(),
            requires_followup: false,
            warnings: Vec::new(),
            language: None,
            extra: Vec::new(),
        }
    }

    /// The JSON form, every field present, in the RFC's order.
    pub fn to_value(&self) -> JsonValue {
        let artifacts = self.artifacts.iter().map(|(node, fields)| (node.clone(), JsonValue::Object(fields.clone()))).collect();
        JsonValue::Object(vec![
            ("raw_answer".into(), JsonValue::String(self.raw_answer.clone())),
            ("artifacts".into(), JsonValue::Object(artifacts)),
            ("confidence".into(), self.confidence.map_or(JsonValue::Null, number)),
            ("sources".into(), JsonValue::Array(self.sources.iter().map(Source::to_value).collect())),
            ("route".into(), opt_str(&self.route)),
            (
                "suggested_actions".into(),
                JsonValue::Array(self.suggested_actions.iter().map(SuggestedAction::to_value).collect()),
            ),
            ("requires_followup".into(), JsonValue::Bool(self.requires_followup)),
            ("warnings".into(), JsonValue::strings(&self.warnings)),
            ("language".into(), opt_str(&self.language)),
            ("extra".into(), JsonValue::Object(self.extra.clone())),
        ])
    }

    /// Compact JSON text of [`FinalPayload::to_value`].
    pub fn to_json(&self) -> String {
        self.to_value().to_json()
    }
}

/// A finite `f64` as a JSON number (shortest text that reads back the same).
pub(crate) fn number(x: f64) -> JsonValue {
    crate::num::f64_text(x).map_or(JsonValue::Null, JsonValue::Number)
}

fn opt_str(s: &Option<String>) -> JsonValue {
    s.clone().map_or(JsonValue::Null, JsonValue::String)
}

/// Sets `key` in an ordered map: replaces every existing member of that name (keeping the
/// first one's position), or appends.
pub(crate) fn set<V>(map: &mut Vec<(String, V)>, key: &str, value: V) {
    let mut value = Some(value);
    map.retain_mut(|(k, v)| {
        if k != key {
            return true;
        }
        match value.take() {
            Some(new) => {
                *v = new;
                true
            }
            None => false,
        }
    });
    if let Some(v) = value {
        map.push((key.to_string(), v));
    }
}

/// The first member named `key` (the crate's duplicate-key rule, `json::keys`).
pub(crate) fn get<'a>(map: &'a [(String, JsonValue)], key: &str) -> Option<&'a JsonValue> {
    map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Keeps the first of sources equal on `(title, url, snippet)`, in order.
pub fn dedup_sources(sources: Vec<Source>) -> Vec<Source> {
    // Keyed by the three as JSON text (`"title","url",null`: one text per triple), in the
    // crate's kept-name table type, so the `.wasm` links no table code for a tuple key.
    let mut seen: crate::hash::Map<Box<str>, usize> = crate::hash::Map::default();
    let mut key = String::new();
    sources
        .into_iter()
        .filter(|s| {
            key.clear();
            for (i, part) in [Some(&s.title), s.url.as_ref(), s.snippet.as_ref()].into_iter().enumerate() {
                if i > 0 {
                    key.push(',');
                }
                match part {
                    Some(text) => crate::json::write_json_string(text, &mut key),
                    None => key.push_str("null"),
                }
            }
            !seen.contains_key(key.as_str()) && seen.insert(key.as_str().into(), 0).is_none()
        })
        .collect()
}

/// The type name used in artifact placeholders and `artifact_type`: the Python name of the
/// decoded JSON value (`dict`, `list`, `str`, `int`, `float`, `bool`, `NoneType`), as in the
/// RFCs' `<artifact:dict ...>`.
pub fn type_name(value: &JsonValue) -> &'static str {
    match value {
        JsonValue::Object(_) => "dict",
        JsonValue::Array(_) => "list",
        JsonValue::String(_) => "str",
        JsonValue::Number(n) if n.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) => "float",
        JsonValue::Number(_) => "int",
        JsonValue::Bool(_) => "bool",
        JsonValue::Null => "NoneType",
    }
}

/// The length in bytes of `value.to_json()`, computed without building it.
pub fn json_len(value: &JsonValue) -> usize {
    match value {
        JsonValue::Null => 4,
        JsonValue::Bool(true) => 4,
        JsonValue::Bool(false) => 5,
        JsonValue::Number(n) => n.len(),
        JsonValue::String(s) => string_len(s),
        JsonValue::Array(items) => 2 + items.len().saturating_sub(1) + items.iter().map(json_len).sum::<usize>(),
        JsonValue::Object(members) => {
            2 + members.len().saturating_sub(1) + members.iter().map(|(k, v)| string_len(k) + 1 + json_len(v)).sum::<usize>()
        }
    }
}

/// Bytes of `s` as a JSON string literal (see `write_json_string`).
fn string_len(s: &str) -> usize {
    2 + escaped_len(s)
}

/// Bytes of `s` escaped as JSON string content (without the quotes).
pub(crate) fn escaped_len(s: &str) -> usize {
    s.len()
        + s.bytes()
            .map(|b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
                0..=0x1f => 5,
                _ => 0,
            })
            .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::{dedup_sources, Source};

    fn source(title: &str, url: Option<&str>, snippet: Option<&str>) -> Source {
        Source { url: url.map(Into::into), snippet: snippet.map(Into::into), ..Source::new(title) }
    }

    #[test]
    fn dedup_sources_keeps_the_first_of_equal_triples_only() {
        let list = vec![
            source("a", None, None),
            source("a", Some("null"), None),
            source("a", None, Some("null")),
            source("a,", None, None),
            source("a", Some(","), None),
            source("a\",\"b", None, None),
            source("a", Some("b"), None),
            source("a", None, None),
            source("a", Some("b"), None),
            Source { relevance_score: Some(0.5), ..source("a", Some("null"), None) },
        ];
        let kept = dedup_sources(list.clone());
        assert_eq!(kept, list[..7].to_vec());
    }
}
