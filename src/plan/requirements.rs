//! The requirements schema of the planning pipeline and its closed label sets.
//!
//! `{ metrics, group_by, time: { column, grain }, analysis, outputs, constraints }`, as the
//! extraction step emits it. [`validate_requirements`] checks the shape and that every
//! `analysis`, `outputs` and `time.grain` label is in its closed set; it reports every problem
//! at once, each with its path, and [`reextraction_message`] turns that list into the
//! corrective prompt. [`Requirements::from_json`] checks only the shape: the coverage check and
//! tool narrowing take labels they do not know and apply the unknown-requirement policy.

use crate::hash::StrSet;
use crate::json::JsonValue;
use crate::{Error, ErrorKind};

/// The closed label sets of the schema. Callers extend them (see [`RequirementLabels::extend`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequirementLabels {
    /// Allowed `analysis` labels.
    pub analysis: Vec<String>,
    /// Allowed `outputs` labels.
    pub outputs: Vec<String>,
    /// Allowed `time.grain` labels (`unknown` included).
    pub grain: Vec<String>,
}

const ANALYSIS: &[&str] =
    &["total", "compare", "trend", "distribution", "anomaly", "correlation", "ranking", "forecast", "summary"];
const OUTPUTS: &[&str] = &["chart", "table", "text"];
const GRAIN: &[&str] = &["unknown", "minute", "hour", "day", "week", "month", "quarter", "year"];

impl Default for RequirementLabels {
    fn default() -> Self {
        let own = |s: &[&str]| s.iter().map(|x| x.to_string()).collect();
        RequirementLabels { analysis: own(ANALYSIS), outputs: own(OUTPUTS), grain: own(GRAIN) }
    }
}

impl RequirementLabels {
    /// These sets plus the labels of `extra` (lowercased), in order, without duplicates.
    pub fn extend(&self, extra: &RequirementLabels) -> RequirementLabels {
        let union = |a: &[String], b: &[String]| {
            let lowered: Vec<String> = b.iter().map(|l| l.trim().to_ascii_lowercase()).collect();
            let mut out = a.to_vec();
            let mut seen: StrSet = a.iter().map(String::as_str).collect();
            for l in &lowered {
                if !l.is_empty() && seen.insert(l) {
                    out.push(l.clone());
                }
            }
            out
        };
        RequirementLabels {
            analysis: union(&self.analysis, &extra.analysis),
            outputs: union(&self.outputs, &extra.outputs),
            grain: union(&self.grain, &extra.grain),
        }
    }

    /// Reads `{ analysis?, outputs?, grain? }` (arrays of strings).
    ///
    /// # Errors
    /// `invalid_option` when a field is not an array of strings or an unknown key appears.
    pub fn from_json(value: &JsonValue) -> crate::Result<RequirementLabels> {
        let bad = |m: String| Error::new(ErrorKind::InvalidOption, m);
        let JsonValue::Object(members) = value else {
            return Err(bad("labels must be an object { analysis?, outputs?, grain? }".into()));
        };
        let mut out = RequirementLabels { analysis: vec![], outputs: vec![], grain: vec![] };
        for (k, v) in members {
            let slot = match k.as_str() {
                "analysis" => &mut out.analysis,
                "outputs" => &mut out.outputs,
                "grain" => &mut out.grain,
                _ => return Err(bad(format!("labels: unknown key \"{k}\""))),
            };
            *slot = string_list(v).ok_or_else(|| bad(format!("labels.{k} must be an array of strings")))?;
        }
        Ok(out)
    }

    /// `{"analysis":[…],"outputs":[…],"grain":[…]}`.
    pub fn to_json_value(&self) -> JsonValue {
        let list = JsonValue::strings::<String>;
        JsonValue::Object(vec![
            ("analysis".into(), list(&self.analysis)),
            ("outputs".into(), list(&self.outputs)),
            ("grain".into(), list(&self.grain)),
        ])
    }
}

/// The `time` requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeRequirement {
    /// The time column, when the question names one.
    pub column: Option<String>,
    /// The grain label (`"unknown"` unless the question states one).
    pub grain: String,
    /// The column is already a datetime (then no `parse_datetime` step is needed).
    pub typed: bool,
}

/// Validated requirements: the contract for planning.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Requirements {
    /// Metric columns.
    pub metrics: Vec<String>,
    /// Grouping columns.
    pub group_by: Vec<String>,
    /// The time requirement, if any.
    pub time: Option<TimeRequirement>,
    /// Analysis labels, lowercased, without duplicates.
    pub analysis: Vec<String>,
    /// Output labels, lowercased, without duplicates.
    pub outputs: Vec<String>,
    /// Constraints, as given (strings or objects).
    pub constraints: Vec<JsonValue>,
}

/// One problem found by [`validate_requirements`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequirementIssue {
    /// Where: `"analysis[2]"`, `"time.grain"`, `"metrics"`, `""` for the whole value.
    pub path: String,
    /// The label outside its set, for label problems.
    pub label: Option<String>,
    /// The allowed labels, for label problems.
    pub allowed: Vec<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl RequirementIssue {
    fn shape(path: &str, message: impl Into<String>) -> Self {
        RequirementIssue { path: path.into(), label: None, allowed: vec![], message: message.into() }
    }

    /// `{ path, label, allowed, message }` (`label` null for shape problems).
    pub fn to_json_value(&self) -> JsonValue {
        JsonValue::Object(vec![
            ("path".into(), JsonValue::String(self.path.clone())),
            ("label".into(), self.label.clone().map_or(JsonValue::Null, JsonValue::String)),
            ("allowed".into(), JsonValue::strings(&self.allowed)),
            ("message".into(), JsonValue::String(self.message.clone())),
        ])
    }

    /// Reads `{ path, label?, allowed?, message? }` back (as `reextractionMessage` gets it).
    pub fn from_json(value: &JsonValue) -> Option<RequirementIssue> {
        let path = value.get("path")?.as_str()?.to_string();
        let label = value.get("label").and_then(JsonValue::as_str).map(str::to_string);
        let allowed = value.get("allowed").and_then(string_list).unwrap_or_default();
        let message = value.get("message").and_then(JsonValue::as_str).unwrap_or("").to_string();
        Some(RequirementIssue { path, label, allowed, message })
    }
}

/// The `requirements_invalid` error: every problem, each with its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRequirements {
    /// The problems, in document order.
    pub issues: Vec<RequirementIssue>,
}

impl InvalidRequirements {
    /// The crate error (code `requirements_invalid`), its message listing every problem.
    pub fn error(&self) -> Error {
        let list: Vec<String> = self
            .issues
            .iter()
            .map(|i| if i.path.is_empty() { i.message.clone() } else { format!("{}: {}", i.path, i.message) })
            .collect();
        Error::new(ErrorKind::RequirementsInvalid, format!("invalid requirements: {}", list.join("; ")))
    }
}

impl From<InvalidRequirements> for Error {
    fn from(e: InvalidRequirements) -> Error {
        e.error()
    }
}

/// An array of strings (`null` counts as empty), or `None` for anything else.
pub(crate) fn string_list(v: &JsonValue) -> Option<Vec<String>> {
    match v {
        JsonValue::Null => Some(vec![]),
        JsonValue::Array(items) => items.iter().map(|i| i.as_str().map(str::to_string)).collect(),
        _ => None,
    }
}

/// Reads the schema, collecting shape problems; labels are checked against `labels` when given.
fn read(value: &JsonValue, labels: Option<&RequirementLabels>) -> Result<Requirements, InvalidRequirements> {
    let mut issues = Vec::new();
    let mut req = Requirements::default();
    let JsonValue::Object(members) = value else {
        issues.push(RequirementIssue::shape("", "requirements must be a JSON object"));
        return Err(InvalidRequirements { issues });
    };
    for (key, v) in members {
        match key.as_str() {
            "metrics" => req.metrics = names(key, v, &mut issues),
            "group_by" => req.group_by = names(key, v, &mut issues),
            "analysis" => req.analysis = label_list(key, v, labels.map(|l| &l.analysis[..]), &mut issues),
            "outputs" => req.outputs = label_list(key, v, labels.map(|l| &l.outputs[..]), &mut issues),
            "constraints" => match v {
                JsonValue::Null => req.constraints = vec![],
                JsonValue::Array(items) => req.constraints = items.clone(),
                _ => issues.push(RequirementIssue::shape(key, "must be an array")),
            },
            "time" => req.time = time(v, labels, &mut issues),
            _ => issues.push(RequirementIssue::shape(key, "is not a field of the requirements schema")),
        }
    }
    if issues.is_empty() {
        Ok(req)
    } else {
        Err(InvalidRequirements { issues })
    }
}

fn names(key: &str, v: &JsonValue, issues: &mut Vec<RequirementIssue>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = StrSet::default();
    match v {
        JsonValue::Null => {}
        JsonValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                match item.as_str().map(str::trim) {
                    Some(s) if !s.is_empty() => {
                        if seen.insert(s) {
                            out.push(s.to_string());
                        }
                    }
                    _ => issues.push(RequirementIssue::shape(&format!("{key}[{i}]"), "must be a non-empty string")),
                }
            }
        }
        _ => issues.push(RequirementIssue::shape(key, "must be an array of column names")),
    }
    out
}

fn label_list(key: &str, v: &JsonValue, allowed: Option<&[String]>, issues: &mut Vec<RequirementIssue>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let JsonValue::Array(items) = v else {
        if !matches!(v, JsonValue::Null) {
            issues.push(RequirementIssue::shape(key, "must be an array of labels"));
        }
        return out;
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("{key}[{i}]");
        let Some(label) = item.as_str() else {
            issues.push(RequirementIssue::shape(&path, "must be a label string"));
            continue;
        };
        out.extend(check_label(&path, label, allowed, issues));
    }
    crate::hash::distinct_strings(out)
}

/// The label lowercased and trimmed, or `None` (and an issue) when it is outside `allowed`.
fn check_label(path: &str, label: &str, allowed: Option<&[String]>, issues: &mut Vec<RequirementIssue>) -> Option<String> {
    let norm = label.trim().to_ascii_lowercase();
    match allowed {
        Some(set) if !set.contains(&norm) => {
            issues.push(RequirementIssue {
                path: path.into(),
                label: Some(label.to_string()),
                allowed: set.to_vec(),
                message: format!("\"{label}\" is not an allowed label"),
            });
            None
        }
        _ if norm.is_empty() => {
            issues.push(RequirementIssue::shape(path, "must be a non-empty label"));
            None
        }
        _ => Some(norm),
    }
}

fn time(v: &JsonValue, labels: Option<&RequirementLabels>, issues: &mut Vec<RequirementIssue>) -> Option<TimeRequirement> {
    let members = match v {
        JsonValue::Null => return None,
        JsonValue::Object(m) => m,
        _ => {
            issues.push(RequirementIssue::shape("time", "must be an object { column, grain } or null"));
            return None;
        }
    };
    let mut t = TimeRequirement { column: None, grain: "unknown".into(), typed: false };
    for (k, v) in members {
        match (k.as_str(), v) {
            ("column", JsonValue::Null) => {}
            ("column", JsonValue::String(s)) => {
                let s = s.trim();
                t.column = (!s.is_empty()).then(|| s.to_string());
            }
            ("column", _) => issues.push(RequirementIssue::shape("time.column", "must be a string or null")),
            ("grain", JsonValue::Null) => {}
            ("grain", JsonValue::String(s)) => {
                if let Some(g) = check_label("time.grain", s, labels.map(|l| &l.grain[..]), issues) {
                    t.grain = g;
                }
            }
            ("grain", _) => issues.push(RequirementIssue::shape("time.grain", "must be a grain label")),
            ("typed", JsonValue::Bool(b)) => t.typed = *b,
            ("typed", JsonValue::Null) => {}
            ("typed", _) => issues.push(RequirementIssue::shape("time.typed", "must be a boolean")),
            _ => issues.push(RequirementIssue::shape(&format!("time.{k}"), "is not a field of time")),
        }
    }
    Some(t)
}

/// Validates requirements against the closed label sets `labels` (the defaults, extended as the
/// caller needs): missing fields are empty, labels are lowercased and deduplicated.
///
/// # Errors
/// [`InvalidRequirements`] (code `requirements_invalid`) listing every label outside its set
/// and every shape problem, each with its path.
pub fn validate_requirements(value: &JsonValue, labels: &RequirementLabels) -> Result<Requirements, InvalidRequirements> {
    read(value, Some(labels))
}

impl Requirements {
    /// Reads the schema without checking labels (shape only).
    ///
    /// # Errors
    /// [`InvalidRequirements`] for shape problems.
    pub fn from_json(value: &JsonValue) -> Result<Requirements, InvalidRequirements> {
        read(value, None)
    }

    /// The time column, when one is set.
    pub fn time_column(&self) -> Option<&str> {
        self.time.as_ref().and_then(|t| t.column.as_deref())
    }

    /// The requirement references, in the order the coverage check reports them:
    /// `analysis.<label>`…, `outputs.<label>`…, `group_by`, `time`, `metrics`, `constraints`
    /// (each of the last four only when set).
    pub fn references(&self) -> Vec<String> {
        let mut out: Vec<String> = self.analysis.iter().map(|l| format!("analysis.{l}")).collect();
        out.extend(self.outputs.iter().map(|l| format!("outputs.{l}")));
        if !self.group_by.is_empty() {
            out.push("group_by".into());
        }
        if self.time_column().is_some() {
            out.push("time".into());
        }
        if !self.metrics.is_empty() {
            out.push("metrics".into());
        }
        if !self.constraints.is_empty() {
            out.push("constraints".into());
        }
        out
    }

    /// The normalised JSON form (every field present; `time` null when absent).
    pub fn to_json_value(&self) -> JsonValue {
        let list = JsonValue::strings::<String>;
        let time = match &self.time {
            None => JsonValue::Null,
            Some(t) => JsonValue::Object(vec![
                ("column".into(), t.column.clone().map_or(JsonValue::Null, JsonValue::String)),
                ("grain".into(), JsonValue::String(t.grain.clone())),
                ("typed".into(), JsonValue::Bool(t.typed)),
            ]),
        };
        JsonValue::Object(vec![
            ("metrics".into(), list(&self.metrics)),
            ("group_by".into(), list(&self.group_by)),
            ("time".into(), time),
            ("analysis".into(), list(&self.analysis)),
            ("outputs".into(), list(&self.outputs)),
            ("constraints".into(), JsonValue::Array(self.constraints.clone())),
        ])
    }
}

/// The corrective prompt for a failed extraction: what was wrong, path by path, and the
/// allowed labels to use instead.
pub fn reextraction_message(issues: &[RequirementIssue]) -> String {
    let mut out = String::from(
        "The requirements you extracted are invalid. Extract them again from the question, \
         fixing these problems:\n",
    );
    for i in issues {
        let at = if i.path.is_empty() { "requirements".to_string() } else { i.path.clone() };
        match &i.label {
            Some(label) if !i.allowed.is_empty() => {
                out.push_str(&format!("- {at}: \"{label}\" is not an allowed label; use one of: {}\n", i.allowed.join(", ")))
            }
            _ => out.push_str(&format!("- {at}: {}\n", i.message)),
        }
    }
    out.push_str(
        "Use only the allowed labels. Do not infer analysis the question does not ask for; leave \
         a field empty (or the grain \"unknown\") when the question does not state it. Return \
         only the JSON object.",
    );
    out
}
