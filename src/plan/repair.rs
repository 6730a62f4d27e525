//! The execution-time repair policy and the auto time grain.
//!
//! A repair is `safe` when it only fills a missing `df`, fixes the casing of a column name or
//! adds (or drops) a parameter that carries no analysis intent; it is `semantic` when the tool
//! changes or a parameter that carries intent (grouping, metric, time grain, aggregation, axes)
//! gets another value: such a repair is rejected and the plan is made again.

use crate::hash::{Map, StrSet};
use crate::json::JsonValue;
use crate::num::parse_f64;
use crate::{Error, ErrorKind, Result};

/// Whether a repair may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairClass {
    /// Allowed, with logging.
    Safe,
    /// Rejected: re-plan.
    Semantic,
}

impl RepairClass {
    /// `"safe"` or `"semantic"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairClass::Safe => "safe",
            RepairClass::Semantic => "semantic",
        }
    }
}

/// Parameters whose value carries analysis intent. (`column`/`columns`: the column a tool
/// analyses, e.g. `detect_anomalies` or `plot_histogram`; another one is another metric.)
pub const SEMANTIC_PARAMS: &[&str] = &[
    "group_by",
    "by",
    "metrics",
    "metric",
    "y",
    "x",
    "color",
    "agg_func",
    "agg",
    "aggregation",
    "grain",
    "time_grain",
    "freq",
    "frequency",
    "period",
    "time_column",
    "date_column",
    "column",
    "columns",
];

/// How deep nested parameter objects are compared member by member (deeper ones as values).
const MAX_NESTED: usize = 32;

/// Parameters naming the input frame: filling one in is the `missing df` repair.
const FRAME_PARAMS: &[&str] = &["df", "data", "dataframe", "input"];

/// Equal, or only different in the ASCII case of strings (arrays element by element, order
/// kept; a string and a one-string array count as equal).
fn same_ignoring_case(a: &JsonValue, b: &JsonValue) -> bool {
    match (a, b) {
        (JsonValue::String(x), JsonValue::String(y)) => x.trim().eq_ignore_ascii_case(y.trim()),
        (JsonValue::Array(x), JsonValue::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_ignoring_case(p, q))
        }
        (JsonValue::String(_), JsonValue::Array(y)) if y.len() == 1 => same_ignoring_case(a, &y[0]),
        (JsonValue::Array(x), JsonValue::String(_)) if x.len() == 1 => same_ignoring_case(&x[0], b),
        (JsonValue::Number(x), JsonValue::Number(y)) => x == y || parse_f64(x).zip(parse_f64(y)).is_some_and(|(p, q)| p == q),
        _ => a == b,
    }
}

fn empty(v: Option<&JsonValue>) -> bool {
    match v {
        None | Some(JsonValue::Null) => true,
        Some(JsonValue::String(s)) => s.trim().is_empty(),
        Some(JsonValue::Array(a)) => a.is_empty(),
        _ => false,
    }
}

/// `(tool, params)` of a step `{ tool?, params }`, or of a bare params object.
/// An object's members.
type Members = [(String, JsonValue)];

fn parts(v: &JsonValue) -> Result<(Option<&str>, &Members)> {
    let is_step = v.get("params").is_some() || v.get("tool").is_some();
    let params = if is_step { v.get("params").unwrap_or(&JsonValue::Null) } else { v };
    let members: &Members = match params {
        JsonValue::Object(m) => m,
        JsonValue::Null => &[],
        _ => return Err(Error::new(ErrorKind::InvalidInput, "a repair compares steps { tool, params } or params objects")),
    };
    if !matches!(v, JsonValue::Object(_)) {
        return Err(Error::new(ErrorKind::InvalidInput, "a repair compares steps { tool, params } or params objects"));
    }
    Ok((if is_step { v.get("tool").and_then(JsonValue::as_str) } else { None }, members))
}

/// Each key's first value (a repeated key counts once).
fn first_table(m: &Members) -> Map<&str, usize> {
    let mut t: Map<&str, usize> = crate::hash::map_with_capacity(m.len());
    // Backwards, so that the first occurrence is the one inserted last.
    for (i, (k, _)) in m.iter().enumerate().rev() {
        t.insert(k.as_str(), i);
    }
    t
}

/// The first value of key `k` in `m`, found through its table.
fn first_value<'a>(t: &Map<&str, usize>, m: &'a Members, k: &str) -> Option<&'a JsonValue> {
    t.get(k).and_then(|&i| m.get(i)).map(|(_, v)| v)
}

/// Classifies the repair that turned `before` into `after` (steps or params objects), with
/// the parameters of `semantic_params` (default [`SEMANTIC_PARAMS`]) carrying intent.
///
/// # Errors
/// `invalid_input` when either side is not a step or params object.
pub fn classify_repair(before: &JsonValue, after: &JsonValue, semantic_params: &[String]) -> Result<RepairClass> {
    let (tool_a, pa) = parts(before)?;
    let (tool_b, pb) = parts(after)?;
    if let (Some(a), Some(b)) = (tool_a, tool_b) {
        if a.trim() != b.trim() {
            return Ok(RepairClass::Semantic);
        }
    }
    let semantic_lower: Vec<String> = semantic_params.iter().map(|s| s.to_ascii_lowercase()).collect();
    let semantic_set: StrSet = semantic_lower.iter().map(String::as_str).collect();
    Ok(if changes_intent(pa, pb, &semantic_set, 0) { RepairClass::Semantic } else { RepairClass::Safe })
}

/// Whether params `pa` became `pb` by a change of intent: a semantic parameter that got another
/// value (beyond case), also inside a nested parameter object (`time: {column, grain}`).
fn changes_intent(pa: &Members, pb: &Members, semantic_set: &StrSet, depth: usize) -> bool {
    // One look-up table per side (a repeated key counts once, its first occurrence), so the
    // comparison is linear in the keys.
    let (ta, tb) = (first_table(pa), first_table(pb));
    let mut keys: Vec<&str> = ta.keys().chain(tb.keys()).copied().collect();
    crate::sort::sort_by(&mut keys, |a, b| a < b);
    keys.dedup();
    for k in keys {
        let (a, b) = (first_value(&ta, pa, k), first_value(&tb, pb, k));
        let semantic = semantic_set.contains(k.to_ascii_lowercase().as_str());
        let changed = match (a, b) {
            (Some(x), Some(y)) => !same_ignoring_case(x, y),
            _ => !(empty(a) && empty(b)),
        };
        if !changed {
            continue;
        }
        if FRAME_PARAMS.contains(&k) && empty(a) {
            continue; // missing df filled in
        }
        if semantic {
            return true;
        }
        if let (Some(JsonValue::Object(x)), Some(JsonValue::Object(y))) = (a, b) {
            if depth < MAX_NESTED && changes_intent(x, y, semantic_set, depth + 1) {
                return true;
            }
        }
    }
    false
}

/// The auto time grain for data spanning `span_days` with `points` points: `"day"` below 90
/// days or above 60 points, `"week"` from 90 to 365 days, `"month"` beyond.
///
/// # Errors
/// `invalid_input` for a negative or non-finite argument.
pub fn auto_time_grain(span_days: f64, points: f64) -> Result<&'static str> {
    if !span_days.is_finite() || span_days < 0.0 || !points.is_finite() || points < 0.0 {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "spanDays and points must be finite and >= 0, got {} and {}",
                crate::num::show(span_days),
                crate::num::show(points)
            ),
        ));
    }
    Ok(if span_days < 90.0 || points > 60.0 {
        "day"
    } else if span_days <= 365.0 {
        "week"
    } else {
        "month"
    })
}
