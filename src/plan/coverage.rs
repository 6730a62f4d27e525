//! The deterministic coverage check: every requirement met, every step justified.
//!
//! A step's citation (`satisfies`) holds when the plan's requirements contain that reference
//! and the step's tool has a capability of the reference's rule (references without a rule
//! hold by citation alone). A step with no holding citation is unjustified. A requirement is
//! covered when every clause of its rule is met by the justified steps (whichever they cite):
//! a clause is met by a step whose tool has one of its capabilities and that satisfies the
//! clause's conditions (grouping, the required `group_by` columns, coming before the first
//! justified plot step). Analysis and output labels the map has no rule for follow the
//! unknown-requirement policy: a warning and `reextract`, not a failure.

use super::capability::{CapabilityMap, Clause};
use super::index::ToolIndex;
use super::requirements::{string_list, Requirements};
use crate::hash::StrSet;
use crate::json::JsonValue;
use crate::{Error, ErrorKind, Result};

/// One plan step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The tool it calls.
    pub tool: String,
    /// Its params (an object; `{}` when absent).
    pub params: JsonValue,
    /// The requirement references it cites.
    pub satisfies: Vec<String>,
}

/// A plan: `{ steps: [{ tool, params, satisfies }] }`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// The most steps a plan may have.
pub const MAX_STEPS: usize = 4096;

fn bad(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

fn steps_of(value: &JsonValue) -> Result<&[JsonValue]> {
    match value {
        JsonValue::Array(items) => Ok(items),
        JsonValue::Object(_) => match value.get("steps") {
            Some(JsonValue::Array(items)) => Ok(items),
            Some(JsonValue::Null) | None => Ok(&[]),
            Some(_) => Err(bad("plan.steps must be an array")),
        },
        _ => Err(bad("a plan must be { steps: [...] } or an array of steps")),
    }
}

impl Plan {
    /// Reads `{ steps: [...] }` (or a bare array of steps). A step is `{ tool, params?,
    /// satisfies? }`; `satisfies` may be one string.
    ///
    /// # Errors
    /// `invalid_input`, with the step's path, for a malformed step or more than [`MAX_STEPS`].
    pub fn from_json(value: &JsonValue) -> Result<Plan> {
        let items = steps_of(value)?;
        if items.len() > MAX_STEPS {
            return Err(bad(format!("a plan has at most {MAX_STEPS} steps")));
        }
        let mut steps = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("steps[{i}]");
            if !matches!(item, JsonValue::Object(_)) {
                return Err(bad(format!("{at} must be an object")));
            }
            let tool = match item.get("tool") {
                Some(JsonValue::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
                _ => return Err(bad(format!("{at}.tool must be a non-empty string"))),
            };
            let params = match item.get("params") {
                None | Some(JsonValue::Null) => JsonValue::Object(vec![]),
                Some(p @ JsonValue::Object(_)) => p.clone(),
                Some(_) => return Err(bad(format!("{at}.params must be an object"))),
            };
            let satisfies = match item.get("satisfies") {
                None => vec![],
                Some(JsonValue::String(s)) => vec![s.trim().to_string()],
                Some(v) => string_list(v)
                    .ok_or_else(|| bad(format!("{at}.satisfies must be an array of requirement references")))?
                    .into_iter()
                    .map(|s| s.trim().to_string())
                    .collect(),
            };
            steps.push(Step { tool, params, satisfies });
        }
        Ok(Plan { steps })
    }
}

/// How one step's citations fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepCheck {
    /// Position in the plan.
    pub index: usize,
    /// Its tool.
    pub tool: String,
    /// Citations that hold.
    pub valid: Vec<String>,
    /// Citations that do not (not requested, or the tool lacks the capability).
    pub invalid: Vec<String>,
}

/// The result of [`check_coverage`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CoverageReport {
    /// No missing requirement and no unjustified step.
    pub ok: bool,
    /// Requirement references not covered, in requirement order.
    pub missing: Vec<String>,
    /// Tool names of the unjustified steps, in plan order.
    pub unjustified: Vec<String>,
    /// Positions of the unjustified steps.
    pub unjustified_steps: Vec<usize>,
    /// The retry payload: `Missing coverage: …` and `Remove unjustified steps: …` lines
    /// (empty when `ok`).
    pub message: String,
    /// One line per requirement: `analysis.total -> aggregate (OK)`.
    pub lines: Vec<String>,
    /// Labels with no rule in the map (unknown-requirement policy).
    pub unknown: Vec<String>,
    /// Re-extract the requirements with the allowed labels (there are unknown labels).
    pub reextract: bool,
    /// Unknown labels and tools, in words.
    pub warnings: Vec<String>,
    /// Per-step citation results.
    pub steps: Vec<StepCheck>,
}

impl CoverageReport {
    /// The report as the JSON object JS gets (the fields by their names).
    pub fn to_json_value(&self) -> JsonValue {
        let r = self;
        let list = JsonValue::strings::<String>;
        let nums = |l: &[usize]| JsonValue::Array(l.iter().map(|i| JsonValue::Number(i.to_string())).collect());
        let steps = r
            .steps
            .iter()
            .map(|s| {
                JsonValue::Object(vec![
                    ("index".into(), JsonValue::Number(s.index.to_string())),
                    ("tool".into(), JsonValue::String(s.tool.clone())),
                    ("valid".into(), list(&s.valid)),
                    ("invalid".into(), list(&s.invalid)),
                ])
            })
            .collect();
        JsonValue::Object(vec![
            ("ok".into(), JsonValue::Bool(r.ok)),
            ("missing".into(), list(&r.missing)),
            ("unjustified".into(), list(&r.unjustified)),
            ("unjustified_steps".into(), nums(&r.unjustified_steps)),
            ("message".into(), JsonValue::String(r.message.clone())),
            ("lines".into(), list(&r.lines)),
            ("unknown".into(), list(&r.unknown)),
            ("reextract".into(), JsonValue::Bool(r.reextract)),
            ("warnings".into(), list(&r.warnings)),
            ("steps".into(), JsonValue::Array(steps)),
        ])
    }
}

/// The grouping columns a step's params name (`group_by` or `by`: a string or strings).
fn grouping_columns(params: &JsonValue) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["group_by", "by"] {
        match params.get(key) {
            Some(JsonValue::String(s)) if !s.trim().is_empty() => out.push(s.trim().to_string()),
            Some(JsonValue::Array(items)) => out.extend(items.iter().filter_map(JsonValue::as_str).map(|s| s.trim().to_string())),
            _ => {}
        }
    }
    out
}

struct Resolved {
    caps: Vec<String>,
    plot: bool,
    groups: Vec<String>,
}

fn clause_caps_match(map: &CapabilityMap, clause: &Clause, caps: &[String]) -> bool {
    caps.iter().any(|c| map.matches(&clause.any_of, c))
}

fn requested(req: &Requirements, reference: &str) -> bool {
    match reference.split_once('.') {
        Some(("analysis", l)) => req.analysis.iter().any(|x| x == l),
        Some(("outputs", l)) => req.outputs.iter().any(|x| x == l),
        Some(_) => false,
        None => match reference {
            "group_by" => !req.group_by.is_empty(),
            "time" => req.time_column().is_some(),
            "metrics" => !req.metrics.is_empty(),
            "constraints" => !req.constraints.is_empty(),
            _ => false,
        },
    }
}

/// The `Missing coverage` item of a reference.
fn missing_item(req: &Requirements, reference: &str, columns: &[String]) -> String {
    match reference {
        "group_by" => format!("group_by=[{}]", columns.join(", ")),
        "time" => format!("time={}", req.time_column().unwrap_or("")),
        "metrics" => format!("metrics=[{}]", req.metrics.join(", ")),
        other => other.to_string(),
    }
}

/// Checks `plan` against `req` with the rules of `map` and the tools of `catalog`.
pub fn check_coverage(req: &Requirements, plan: &Plan, map: &CapabilityMap, catalog: &ToolIndex) -> CoverageReport {
    let mut r = CoverageReport::default();
    // Each missing tool is warned about once (a set: a plan may name thousands).
    let mut missing = StrSet::default();
    let steps: Vec<Resolved> = plan
        .steps
        .iter()
        .map(|s| {
            let caps: Vec<String> = match catalog.position(&s.tool).and_then(|i| catalog.tool(i)) {
                Some(t) => t.capabilities.iter().map(|c| map.canonical(c)).collect(),
                None => {
                    if missing.insert(&s.tool) {
                        r.warnings.push(format!("tool \"{}\" is not in the catalog", s.tool));
                    }
                    vec![]
                }
            };
            let plot = caps.iter().any(|c| map.is_plot(c));
            Resolved { caps, plot, groups: grouping_columns(&s.params) }
        })
        .collect();

    // Citations and justification.
    let mut justified = vec![false; plan.steps.len()];
    for (i, (step, res)) in plan.steps.iter().zip(&steps).enumerate() {
        let mut check = StepCheck { index: i, tool: step.tool.clone(), valid: vec![], invalid: vec![] };
        for cite in &step.satisfies {
            let holds = requested(req, cite)
                && map.rule(cite).is_none_or(|rule| rule.clauses.iter().any(|c| clause_caps_match(map, c, &res.caps)));
            if holds {
                check.valid.push(cite.clone());
            } else {
                check.invalid.push(cite.clone());
            }
        }
        justified[i] = !check.valid.is_empty();
        if !justified[i] {
            r.unjustified.push(step.tool.clone());
            r.unjustified_steps.push(i);
        }
        r.steps.push(check);
    }
    // Grouping must come before the first plot that stays: an unjustified plot is removed
    // anyway, so it orders nothing.
    let first_plot = steps.iter().enumerate().position(|(i, s)| s.plot && justified[i]);

    // Coverage, requirement by requirement.
    let mut missing_items = Vec::new();
    let typed = req.time.as_ref().is_some_and(|t| t.typed);
    for reference in req.references() {
        let Some(rule) = map.rule(&reference) else {
            if reference.starts_with("analysis.") || reference.starts_with("outputs.") {
                r.unknown.push(reference.clone());
                r.warnings.push(format!(
                    "requirement {reference} has no rule in capability map v{}: re-extract with the allowed labels",
                    map.version()
                ));
            }
            continue;
        };
        let mut parts = Vec::new();
        let mut ok = true;
        let mut missing_cols: Vec<String> = Vec::new();
        let mut note = None;
        for clause in &rule.clauses {
            if clause.unless_typed && typed {
                continue;
            }
            let mut names: Vec<&str> = Vec::new();
            let mut meeting: Vec<usize> = Vec::new();
            let mut cols: Vec<String> = Vec::new();
            let mut late = None;
            for (i, res) in steps.iter().enumerate() {
                if !justified[i] || !clause_caps_match(map, clause, &res.caps) {
                    continue;
                }
                if clause.grouping && res.groups.is_empty() {
                    continue;
                }
                if clause.group_by_columns && res.groups.is_empty() {
                    continue;
                }
                if clause.before_plot && first_plot.is_some_and(|p| i > p) {
                    late = Some(i);
                    continue;
                }
                cols.extend(res.groups.iter().cloned());
                meeting.push(i);
            }
            // The evidence: the meeting steps that cite the requirement, or all of them when
            // none does.
            let citing = |i: &usize| plan.steps[*i].satisfies.contains(&reference);
            let any_cites = meeting.iter().any(citing);
            names.extend(distinct(meeting.iter().filter(|i| !any_cites || citing(i)).map(|i| plan.steps[*i].tool.as_str())));
            let mut met = !names.is_empty();
            if clause.group_by_columns {
                let absent: Vec<String> =
                    req.group_by.iter().filter(|g| !cols.iter().any(|c| c.eq_ignore_ascii_case(g))).cloned().collect();
                met &= absent.is_empty();
                missing_cols = absent;
                if let (Some(l), Some(p)) = (late, first_plot) {
                    note = Some(format!("{} must come before {}", plan.steps[l].tool, plan.steps[p].tool));
                }
            }
            ok &= met;
            let mut part = if names.is_empty() { "none".to_string() } else { join(&names, "/") };
            if clause.group_by_columns {
                part.push_str(" with group_by");
            }
            if clause.grouping {
                part.push_str(" + grouping");
            }
            parts.push(part);
        }
        let evidence = parts.join(" + ");
        if ok {
            r.lines.push(format!("{reference} -> {evidence} (OK)"));
        } else {
            let why = note.map(|n| format!(": {n}")).unwrap_or_default();
            r.lines.push(format!("{reference} -> {evidence} (MISSING{why})"));
            let cols = if missing_cols.is_empty() { req.group_by.clone() } else { missing_cols };
            missing_items.push(missing_item(req, &reference, &cols));
            r.missing.push(reference);
        }
    }
    r.reextract = !r.unknown.is_empty();
    r.ok = r.missing.is_empty() && r.unjustified.is_empty();
    let mut msg = Vec::new();
    if !missing_items.is_empty() {
        msg.push(format!("Missing coverage: {}", missing_items.join(", ")));
    }
    if !r.unjustified.is_empty() {
        let names = distinct(r.unjustified.iter().map(String::as_str));
        msg.push(format!("Remove unjustified steps: {}", join(&names, ", ")));
    }
    r.message = msg.join("\n");
    r
}

/// `parts` with `sep` between them (`[&str]::join` would link a second copy of std's join
/// beside the one for `[String]`).
fn join(parts: &[&str], sep: &str) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(p);
    }
    out
}

/// `names` without repeats, in order of first appearance (a set: no scan per name).
fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = StrSet::default();
    names.filter(|n| seen.insert(n)).collect()
}

/// The plan without the steps the report calls unjustified (by position when the report has
/// `unjustified_steps`, else by tool name); everything else in the plan is kept as it is.
///
/// # Errors
/// `invalid_input` when `plan` is not a plan.
pub fn apply_removals(plan: &JsonValue, unjustified_steps: Option<&[usize]>, unjustified: &[String]) -> Result<JsonValue> {
    let steps = steps_of(plan)?;
    // The positions to drop, as one flag per step (positions past the end name no step).
    let positions: Option<Vec<bool>> = unjustified_steps.map(|idx| {
        let mut drop = vec![false; steps.len()];
        for &i in idx {
            if let Some(d) = drop.get_mut(i) {
                *d = true;
            }
        }
        drop
    });
    let names: StrSet = unjustified.iter().map(|u| u.trim()).collect();
    let keep: Vec<JsonValue> = steps
        .iter()
        .enumerate()
        .filter(|(i, s)| match &positions {
            Some(drop) => !drop.get(*i).copied().unwrap_or(false),
            None => !s.get("tool").and_then(JsonValue::as_str).is_some_and(|t| names.contains(t.trim())),
        })
        .map(|(_, s)| s.clone())
        .collect();
    Ok(match plan {
        JsonValue::Object(members) => {
            let mut m = members.clone();
            match m.iter_mut().rev().find(|(k, _)| k == "steps") {
                Some((_, v)) => *v = JsonValue::Array(keep),
                None => m.push(("steps".into(), JsonValue::Array(keep))),
            }
            JsonValue::Object(m)
        }
        _ => JsonValue::Array(keep),
    })
}
