//! `validate_final_payload`: a value checked against the `FinalPayload` contract, defaults
//! filled, every problem reported with its path.
//!
//! The field checkers are shared with the builder (`build.rs`), which drops what they reject
//! instead of failing: one set of rules for both.

use super::iso639::is_iso639_1;
use super::types::{get, Artifacts, FinalPayload, JsonMap, Source, SuggestedAction};
use crate::json::JsonValue;
use crate::json::Quoted;
use crate::{Error, ErrorKind, Result};

/// One reason a value is not a valid `FinalPayload`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PayloadProblem {
    /// Where: `confidence`, `sources[0].title`, `artifacts.analyze_sales` (`$` for the root).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl PayloadProblem {
    /// `{"path": …, "message": …}`, as `error.problems` lists it.
    pub fn to_json_value(&self) -> JsonValue {
        JsonValue::Object(vec![
            ("path".into(), JsonValue::String(self.path.clone())),
            ("message".into(), JsonValue::String(self.message.clone())),
        ])
    }

    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        PayloadProblem { path: path.into(), message: message.into() }
    }
}

/// The fields of `FinalPayload`, in the RFC's order.
pub(crate) const FIELDS: [&str; 10] = [
    "raw_answer",
    "artifacts",
    "confidence",
    "sources",
    "route",
    "suggested_actions",
    "requires_followup",
    "warnings",
    "language",
    "extra",
];

/// Checks `value` against the contract and fills the defaults.
///
/// # Errors
/// `payload_invalid`, its message listing every problem as `path: message`, separated by
/// `; ` (see [`check_final_payload`] for the list itself).
pub fn validate_final_payload(value: &JsonValue) -> Result<FinalPayload> {
    check_final_payload(value).map_err(|problems| payload_error(&problems))
}

/// The `payload_invalid` error for a list of problems.
pub fn payload_error(problems: &[PayloadProblem]) -> Error {
    let list: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.path, p.message)).collect();
    Error::new(
        ErrorKind::PayloadInvalid,
        format!(
            "invalid FinalPayload ({} problem{}): {}",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" },
            list.join("; ")
        ),
    )
}

/// [`validate_final_payload`] with the problems as a list.
///
/// # Errors
/// Every problem found, in field order (at least one).
pub fn check_final_payload(value: &JsonValue) -> Result<FinalPayload, Vec<PayloadProblem>> {
    let JsonValue::Object(members) = value else {
        return Err(vec![PayloadProblem::new("$", format!("must be an object (got {})", kind(value)))]);
    };
    let mut problems = Vec::new();
    let mut out = FinalPayload::new(String::new());
    match get(members, "raw_answer") {
        None => problems.push(PayloadProblem::new("raw_answer", "required string is missing")),
        Some(JsonValue::String(s)) => out.raw_answer = s.clone(),
        Some(v) => problems.push(PayloadProblem::new("raw_answer", format!("must be a string (got {})", kind(v)))),
    }
    let mut keep = |r: Result<(), Vec<PayloadProblem>>| {
        if let Err(p) = r {
            problems.extend(p);
        }
    };
    if let Some(v) = get(members, "artifacts") {
        keep(artifacts(v, "artifacts").map(|a| out.artifacts = a));
    }
    if let Some(v) = get(members, "confidence") {
        keep(confidence(v, "confidence").map(|c| out.confidence = c).map_err(|p| vec![p]));
    }
    if let Some(v) = get(members, "sources") {
        keep(each(v, "sources", |item, path| source(item, path, true).map(|(s, _)| s)).map(|s| out.sources = s));
    }
    if let Some(v) = get(members, "route") {
        keep(nullable_string(v, "route").map(|r| out.route = r).map_err(|p| vec![p]));
    }
    if let Some(v) = get(members, "suggested_actions") {
        keep(
            each(v, "suggested_actions", |item, path| suggested_action(item, path, true).map(|(a, _)| a))
                .map(|a| out.suggested_actions = a),
        );
    }
    if let Some(v) = get(members, "requires_followup") {
        keep(boolean(v, "requires_followup").map(|b| out.requires_followup = b).map_err(|p| vec![p]));
    }
    if let Some(v) = get(members, "warnings") {
        keep(each(v, "warnings", |item, path| string(item, &path).map_err(|p| vec![p])).map(|w| out.warnings = w));
    }
    if let Some(v) = get(members, "language") {
        keep(language(v, "language").map(|l| out.language = l).map_err(|p| vec![p]));
    }
    if let Some(v) = get(members, "extra") {
        keep(object(v, "extra").map(|e| out.extra = e).map_err(|p| vec![p]));
    }
    for (k, _) in members {
        if !FIELDS.contains(&k.as_str()) {
            problems.push(PayloadProblem::new(
                k.clone(),
                "unknown field (FinalPayload has no such field; domain data belongs in extra)",
            ));
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// A short name of a value's JSON type, for messages.
pub(crate) fn kind(v: &JsonValue) -> &'static str {
    match v {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "boolean",
        JsonValue::Number(_) => "number",
        JsonValue::String(_) => "string",
        JsonValue::Array(_) => "array",
        JsonValue::Object(_) => "object",
    }
}

pub(crate) fn string(v: &JsonValue, path: &str) -> Result<String, PayloadProblem> {
    match v {
        JsonValue::String(s) => Ok(s.clone()),
        _ => Err(PayloadProblem::new(path, format!("must be a string (got {})", kind(v)))),
    }
}

pub(crate) fn nullable_string(v: &JsonValue, path: &str) -> Result<Option<String>, PayloadProblem> {
    match v {
        JsonValue::Null => Ok(None),
        JsonValue::String(s) => Ok(Some(s.clone())),
        _ => Err(PayloadProblem::new(path, format!("must be a string or null (got {})", kind(v)))),
    }
}

pub(crate) fn boolean(v: &JsonValue, path: &str) -> Result<bool, PayloadProblem> {
    match v {
        JsonValue::Bool(b) => Ok(*b),
        _ => Err(PayloadProblem::new(path, format!("must be a boolean (got {})", kind(v)))),
    }
}

pub(crate) fn object(v: &JsonValue, path: &str) -> Result<JsonMap, PayloadProblem> {
    match v {
        JsonValue::Object(m) => Ok(dedup(m)),
        _ => Err(PayloadProblem::new(path, format!("must be an object (got {})", kind(v)))),
    }
}

/// An object's members, a repeated key counting once: its first occurrence (`json::keys`).
fn dedup(m: &JsonMap) -> JsonMap {
    crate::json::keys::first_keys(m)
}

/// A finite number, as `f64`.
pub(crate) fn finite(v: &JsonValue) -> Option<f64> {
    match v {
        JsonValue::Number(n) => crate::num::parse_f64(n).filter(|x| x.is_finite()),
        _ => None,
    }
}

pub(crate) fn confidence(v: &JsonValue, path: &str) -> Result<Option<f64>, PayloadProblem> {
    match (v, finite(v)) {
        (JsonValue::Null, _) => Ok(None),
        (_, Some(x)) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
        (JsonValue::Number(n), _) => Err(PayloadProblem::new(path, format!("must be between 0 and 1 (got {n})"))),
        _ => Err(PayloadProblem::new(path, format!("must be a number between 0 and 1 or null (got {})", kind(v)))),
    }
}

pub(crate) fn language(v: &JsonValue, path: &str) -> Result<Option<String>, PayloadProblem> {
    match v {
        JsonValue::Null => Ok(None),
        JsonValue::String(s) if is_iso639_1(s) => Ok(Some(s.clone())),
        JsonValue::String(s) => {
            Err(PayloadProblem::new(path, format!("must be an ISO 639-1 code such as \"en\" (got {})", Quoted(s))))
        }
        _ => Err(PayloadProblem::new(path, format!("must be an ISO 639-1 code or null (got {})", kind(v)))),
    }
}

pub(crate) fn artifacts(v: &JsonValue, path: &str) -> Result<Artifacts, Vec<PayloadProblem>> {
    let m = object(v, path).map_err(|p| vec![p])?;
    let mut problems = Vec::new();
    let mut out = Vec::new();
    for (node, fields) in m {
        match fields {
            JsonValue::Object(f) => out.push((node, dedup(&f))),
            other => problems.push(PayloadProblem::new(
                format!("{path}.{node}"),
                format!("must be an object of artifact fields (got {})", kind(&other)),
            )),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Checks every item of an array; the problems of all items together.
pub(crate) fn each<T>(
    v: &JsonValue,
    path: &str,
    mut item: impl FnMut(&JsonValue, String) -> Result<T, Vec<PayloadProblem>>,
) -> Result<Vec<T>, Vec<PayloadProblem>> {
    let JsonValue::Array(items) = v else {
        return Err(vec![PayloadProblem::new(path, format!("must be an array (got {})", kind(v)))]);
    };
    let mut out = Vec::with_capacity(items.len());
    let mut problems = Vec::new();
    for (i, x) in items.iter().enumerate() {
        match item(x, format!("{path}[{i}]")) {
            Ok(t) => out.push(t),
            Err(p) => problems.extend(p),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Checks the members of an object against `fields`; unknown keys are problems when
/// `strict`, otherwise they are returned (to be reported as ignored).
fn members<'v>(
    v: &'v JsonValue,
    path: &str,
    what: &str,
    fields: &[&str],
    strict: bool,
    problems: &mut Vec<PayloadProblem>,
) -> Option<(&'v JsonMap, Vec<String>)> {
    let JsonValue::Object(m) = v else {
        problems.push(PayloadProblem::new(path, format!("must be a {what} object (got {})", kind(v))));
        return None;
    };
    let mut ignored = Vec::new();
    for (k, _) in m {
        if !fields.contains(&k.as_str()) {
            if strict {
                problems.push(PayloadProblem::new(format!("{path}.{k}"), format!("unknown field of {what}")));
            } else if !ignored.contains(k) {
                ignored.push(k.clone());
            }
        }
    }
    Some((m, ignored))
}

/// A `Source`; with `strict == false` unknown keys are returned instead of rejected.
pub(crate) fn source(v: &JsonValue, path: String, strict: bool) -> Result<(Source, Vec<String>), Vec<PayloadProblem>> {
    let mut problems = Vec::new();
    let fields = ["title", "url", "snippet", "relevance_score"];
    let Some((m, ignored)) = members(v, &path, "Source", &fields, strict, &mut problems) else {
        return Err(problems);
    };
    let mut s = Source::new(String::new());
    match get(m, "title") {
        None => problems.push(PayloadProblem::new(format!("{path}.title"), "required string is missing")),
        Some(t) => match string(t, &format!("{path}.title")) {
            Ok(t) => s.title = t,
            Err(p) => problems.push(p),
        },
    }
    for (key, slot) in [("url", &mut s.url), ("snippet", &mut s.snippet)] {
        if let Some(x) = get(m, key) {
            match nullable_string(x, &format!("{path}.{key}")) {
                Ok(x) => *slot = x,
                Err(p) => problems.push(p),
            }
        }
    }
    match get(m, "relevance_score") {
        None | Some(JsonValue::Null) => {}
        Some(x) => match finite(x) {
            Some(f) => s.relevance_score = Some(f),
            None => problems.push(PayloadProblem::new(
                format!("{path}.relevance_score"),
                format!("must be a number or null (got {})", kind(x)),
            )),
        },
    }
    if problems.is_empty() {
        Ok((s, ignored))
    } else {
        Err(problems)
    }
}

/// A `SuggestedAction`; `strict` as for [`source`].
pub(crate) fn suggested_action(
    v: &JsonValue,
    path: String,
    strict: bool,
) -> Result<(SuggestedAction, Vec<String>), Vec<PayloadProblem>> {
    let mut problems = Vec::new();
    let fields = ["action_id", "label", "params"];
    let Some((m, ignored)) = members(v, &path, "SuggestedAction", &fields, strict, &mut problems) else {
        return Err(problems);
    };
    let mut a = SuggestedAction { action_id: String::new(), label: String::new(), params: Vec::new() };
    for (key, slot) in [("action_id", &mut a.action_id), ("label", &mut a.label)] {
        match get(m, key) {
            None => problems.push(PayloadProblem::new(format!("{path}.{key}"), "required string is missing")),
            Some(x) => match string(x, &format!("{path}.{key}")) {
                Ok(x) => *slot = x,
                Err(p) => problems.push(p),
            },
        }
    }
    if let Some(x) = get(m, "params") {
        match object(x, &format!("{path}.params")) {
            Ok(p) => a.params = p,
            Err(p) => problems.push(p),
        }
    }
    if problems.is_empty() {
        Ok((a, ignored))
    } else {
        Err(problems)
    }
}
