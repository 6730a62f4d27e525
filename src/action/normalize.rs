//! Shape rules: one mapping (a JSON object) to one canonical `PlannerAction`.
//!
//! Canonical opcodes (unified-action-format.md): `final_response`, `plan` (input alias
//! `parallel`), `task` (input aliases `task.subagent` → `mode: "subagent"`, `task.tool` →
//! `mode: "job"`), anything else a tool name (trimmed, case kept). Opcodes are matched
//! trimmed and ignoring ASCII case (`FINAL_RESPONSE` is a final response). Legacy
//! (`thought`/`plan`/`join`/`next_node: null`), unified and hybrid shapes all map the same
//! way: a `thought` key never changes what the opcode means (fixes the reference's B2).
//!
//! - Keys: a repeated key counts once, its first occurrence (as in the streaming extractor).
//!   An `action` object (or JSON string holding one) overrides the outer keys it has, unless
//!   the outer object has a string `next_node`: then the outer keys win and the wrapper only
//!   fills in the ones they lack.
//! - `next_node`: a string opcode or tool name. `null` (or the string `"null"`/`"None"`),
//!   blank, or absent, with a top-level `plan` array holding a usable step: a plan.
//!   Otherwise `null` is a final response, and absent is one when the object carries an
//!   answer. Empty/blank, a non-string, or absent without an answer:
//!   `action_missing_next_node`.
//! - `args`: an object; a JSON string holding an object (for `final_response` only when that
//!   object has `answer`/`raw_answer`, else the string is the answer text); an array holding
//!   exactly one object is that object (except for `plan`, where an array is the steps).
//!   Anything else is `{}` for tools.
//! - Final responses (the answer rules are `candidate.rs`'s, shared with the extractor): the
//!   answer is the first non-blank `answer`/`raw_answer` string of the args in written order
//!   (else the first blank one), else string args trimmed, else the non-blank string items of
//!   array args (blank and non-string items skipped) joined with `\n` and trimmed, else a
//!   top-level `answer`/`raw_answer` (a bare `{answer, confidence, …}` object, whose other
//!   keys become args too); a non-blank answer beats a blank one wherever it is. Blank and
//!   trimmed mean ASCII whitespace. The answer
//!   goes to `args.answer` (in place of `answer`, else of `raw_answer`, else appended);
//!   `raw_answer` is then dropped as a synonym. Other keys are kept in order.
//! - Plans: `{steps: [{node, args}], join?: {node, args, inject}}`; steps and a join without
//!   a non-blank string `node` are dropped; step/join `args` default to `{}`, `inject` to
//!   `null`; a legacy top-level `plan`/`join` moves in when `args` lacks `steps`/`join`.
//! - Tasks: `tool_name` is renamed `tool` (the RFC's key); `merge_strategy` and
//!   `group_merge_strategy` are upper-cased (`APPEND`, `REPLACE`, `HUMAN_GATED`, anything
//!   starting with `human`); the mode comes from the opcode alias, else a valid `args.mode`,
//!   else `query` (a string: `subagent`) or `tool` (`job`); a subagent loses
//!   `tool`/`tool_args`, a job loses `query`. Plain string args are the `query`.

use super::candidate::{blank as answer_blank, classify, trim, NodeName};
use crate::json::keys::{first_keys, merge_all, set_all};
use crate::json::JsonValue;
use crate::{Error, ErrorKind, Result};

/// The canonical action.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(missing_as_null))]
pub struct PlannerAction {
    /// `final_response`, `plan`, `task`, or a tool name.
    pub next_node: String,
    /// The arguments, always an object (members in written order).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub args: Vec<(String, JsonValue)>,
    /// The legacy `thought`, trimmed, when the model wrote one.
    pub thought: Option<String>,
    /// Reasoning written around the JSON (`<think>` blocks, prose before it), trimmed.
    pub reasoning: Option<String>,
}

impl PlannerAction {
    /// The argument `key`.
    pub fn arg(&self, key: &str) -> Option<&JsonValue> {
        self.args.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The answer text of a final response (`args.answer`).
    pub fn answer(&self) -> Option<&str> {
        if self.next_node != "final_response" {
            return None;
        }
        self.arg("answer").and_then(JsonValue::as_str)
    }

    /// The arguments as a JSON object value.
    pub fn args_value(&self) -> JsonValue {
        JsonValue::Object(self.args.clone())
    }

    /// `{ next_node, args, thought, reasoning }` (`null` for an absent thought or reasoning).
    pub fn to_json_value(&self) -> JsonValue {
        let opt = |s: &Option<String>| s.clone().map_or(JsonValue::Null, JsonValue::String);
        JsonValue::Object(vec![
            ("next_node".into(), JsonValue::String(self.next_node.clone())),
            ("args".into(), self.args_value()),
            ("thought".into(), opt(&self.thought)),
            ("reasoning".into(), opt(&self.reasoning)),
        ])
    }

    /// The legacy `{thought, next_node, args, plan, join}` shape: a final response has
    /// `next_node: null` and `raw_answer` mirrored from `answer`; a plan has `next_node: null`,
    /// `args: null` and its steps/join at the top level.
    pub fn to_legacy(&self) -> JsonValue {
        let thought = JsonValue::String(self.thought.clone().unwrap_or_else(|| "planning next step".to_string()));
        let mut out = vec![("thought".to_string(), thought)];
        match self.next_node.as_str() {
            "final_response" => {
                let mut args = self.args.clone();
                if !args.iter().any(|(k, _)| k == "raw_answer") {
                    if let Some(a) = self.answer() {
                        args.push(("raw_answer".into(), JsonValue::String(a.to_string())));
                    }
                }
                out.push(("next_node".into(), JsonValue::Null));
                out.push(("args".into(), JsonValue::Object(args)));
                out.push(("plan".into(), JsonValue::Null));
                out.push(("join".into(), JsonValue::Null));
            }
            "plan" => {
                out.push(("next_node".into(), JsonValue::Null));
                out.push(("args".into(), JsonValue::Null));
                out.push(("plan".into(), self.arg("steps").cloned().unwrap_or(JsonValue::Array(vec![]))));
                out.push(("join".into(), self.arg("join").cloned().unwrap_or(JsonValue::Null)));
            }
            _ => {
                out.push(("next_node".into(), JsonValue::String(self.next_node.clone())));
                out.push(("args".into(), self.args_value()));
                out.push(("plan".into(), JsonValue::Null));
                out.push(("join".into(), JsonValue::Null));
            }
        }
        JsonValue::Object(out)
    }
}

/// Keys that make an object action-shaped.
pub(crate) fn is_action_shaped(m: &[(String, JsonValue)]) -> bool {
    m.iter().any(|(k, v)| match k.as_str() {
        "next_node" | "thought" | "plan" | "join" => true,
        "action" => object_of(v).is_some(),
        _ => false,
    })
}

/// Keys that make an object answer-shaped (a bare final answer).
pub(crate) fn is_answer_shaped(m: &[(String, JsonValue)]) -> bool {
    m.iter().any(|(k, v)| {
        matches!(k.as_str(), "answer" | "raw_answer")
            || (k == "args"
                && match args_mapping(v, true) {
                    Some(a) => has_answer_key(&a),
                    None => text_of(v).is_some(),
                })
    })
}

fn has_answer_key(m: &[(String, JsonValue)]) -> bool {
    m.iter().any(|(k, _)| k == "answer" || k == "raw_answer")
}

fn get<'a>(m: &'a [(String, JsonValue)], key: &str) -> Option<&'a JsonValue> {
    m.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn set(m: &mut Vec<(String, JsonValue)>, key: &str, v: JsonValue) {
    match m.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = v,
        None => m.push((key.to_string(), v)),
    }
}

fn remove(m: &mut Vec<(String, JsonValue)>, key: &str) -> Option<JsonValue> {
    let i = m.iter().position(|(k, _)| k == key)?;
    Some(m.remove(i).1)
}

/// Renames `from` to `to` in place (when `to` is absent).
fn rename(m: &mut [(String, JsonValue)], from: &str, to: &str) {
    if get(m, to).is_none() {
        if let Some(slot) = m.iter_mut().find(|(k, _)| k == from) {
            slot.0 = to.to_string();
        }
    }
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// Normalises one mapping.
///
/// # Errors
/// `action_missing_next_node` when the object names no usable `next_node` (empty, blank or
/// not a string, or none and no answer).
pub(crate) fn normalize_mapping(mapping: &[(String, JsonValue)], reasoning: Option<String>) -> Result<PlannerAction> {
    let mut m = first_keys(mapping);
    // A nested `action` wrapper (object or JSON string) overrides the outer keys it has,
    // unless the outer object names its own string `next_node`: then the outer keys win and
    // the wrapper only fills in the keys they lack.
    if let Some(inner) = get(&m, "action").and_then(object_of) {
        remove(&mut m, "action");
        let outer_wins = matches!(get(&m, "next_node"), Some(JsonValue::String(_)));
        if outer_wins {
            merge_all(&mut m, first_keys(&inner), |_, _, _| {});
        } else {
            set_all(&mut m, first_keys(&inner));
        }
    }
    let thought = match get(&m, "thought") {
        Some(JsonValue::String(t)) if !blank(t) => Some(t.trim().to_string()),
        _ => None,
    };
    let plan = get(&m, "plan").cloned();
    let join = get(&m, "join").cloned();
    // A legacy top-level plan counts when it has at least one usable step.
    let has_plan = matches!(&plan, Some(JsonValue::Array(a)) if a.iter().any(|s| step(s).is_some()));
    let args = get(&m, "args").cloned();

    let next_node = match get(&m, "next_node") {
        // `"null"` / `"None"` written as a string mean the legacy `null`.
        Some(JsonValue::String(s)) if classify(s) == NodeName::Null => Some(JsonValue::Null),
        other => other.cloned(),
    };
    let opcode = match &next_node {
        Some(JsonValue::String(s)) => match classify(s) {
            NodeName::Final => Opcode::Final,
            NodeName::Plan => Opcode::Plan,
            NodeName::Task(mode) => Opcode::Task(mode),
            NodeName::Empty | NodeName::Null if has_plan => Opcode::Plan,
            NodeName::Empty | NodeName::Null => {
                return Err(Error::new(ErrorKind::ActionMissingNextNode, "next_node is an empty string"))
            }
            NodeName::Tool => Opcode::Tool(s.trim().to_string()),
        },
        Some(JsonValue::Null) if has_plan => Opcode::Plan,
        Some(JsonValue::Null) => Opcode::Final,
        Some(other) => {
            return Err(Error::new(
                ErrorKind::ActionMissingNextNode,
                format!("next_node must be a string or null, got {}", kind_name(other)),
            ))
        }
        None if has_plan => Opcode::Plan,
        None if final_answer(&m, args.as_ref()).is_some() => Opcode::Final,
        None => return Err(Error::new(ErrorKind::ActionMissingNextNode, "the action has no next_node and no answer")),
    };

    let args = match opcode {
        Opcode::Final => final_args(&m, args.as_ref()),
        Opcode::Plan => {
            // Array args are the steps; legacy top-level plan/join move in where args lack them.
            let mut a = match &args {
                Some(JsonValue::Array(items)) => vec![("steps".to_string(), JsonValue::Array(items.clone()))],
                Some(v) => args_mapping(v, false).unwrap_or_default(),
                None => Vec::new(),
            };
            if get(&a, "steps").is_none() {
                if let Some(p) = plan {
                    a.push(("steps".into(), p));
                }
            }
            if get(&a, "join").is_none() {
                if let Some(j) = join {
                    a.push(("join".into(), j));
                }
            }
            plan_args(&a)
        }
        Opcode::Task(mode) => task_args(args.as_ref(), mode),
        Opcode::Tool(_) => args.as_ref().and_then(|v| args_mapping(v, false)).unwrap_or_default(),
    };
    let next_node = match opcode {
        Opcode::Final => "final_response".to_string(),
        Opcode::Plan => "plan".to_string(),
        Opcode::Task(_) => "task".to_string(),
        Opcode::Tool(name) => name,
    };
    Ok(PlannerAction { next_node, args, thought, reasoning })
}

enum Opcode {
    Final,
    Plan,
    Task(Option<&'static str>),
    Tool(String),
}

fn kind_name(v: &JsonValue) -> &'static str {
    match v {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "a boolean",
        JsonValue::Number(_) => "a number",
        JsonValue::String(_) => "a string",
        JsonValue::Array(_) => "an array",
        JsonValue::Object(_) => "an object",
    }
}

/// An object, or a JSON string holding one (double-encoded).
fn object_of(v: &JsonValue) -> Option<Vec<(String, JsonValue)>> {
    match v {
        JsonValue::Object(m) => Some(m.clone()),
        JsonValue::String(s) if trim(s).starts_with('{') => match crate::json::parse_strict(trim(s).as_bytes()) {
            Ok(JsonValue::Object(m)) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

/// `args` as an object: an object, a JSON string holding one (for a final response only
/// when it has an answer key), or an array holding exactly one object.
fn args_mapping(v: &JsonValue, final_response: bool) -> Option<Vec<(String, JsonValue)>> {
    let m = match v {
        JsonValue::Object(m) => m.clone(),
        JsonValue::String(_) => {
            let m = object_of(v)?;
            if final_response && !has_answer_key(&m) {
                return None;
            }
            m
        }
        JsonValue::Array(items) => match items.as_slice() {
            [JsonValue::Object(m)] => m.clone(),
            _ => return None,
        },
        _ => return None,
    };
    Some(first_keys(&m))
}

/// String `args` of a final response holding a JSON object with an answer key
/// (double-encoded): that object's answer (`""` when it has no string one). `None` when the
/// string is answer text itself.
pub(crate) fn encoded_answer(s: &str) -> Option<String> {
    let m = args_mapping(&JsonValue::String(s.to_string()), true)?;
    Some(pick_answer(&m).unwrap_or_default())
}

/// The answer text of non-object args (the candidate rule, as the streaming extractor emits
/// it): a string, trimmed; for an array, its non-blank string items joined with `\n` and
/// trimmed (blank and non-string items are skipped).
fn text_of(args: &JsonValue) -> Option<String> {
    match args {
        JsonValue::String(s) => Some(trim(s).to_string()),
        JsonValue::Array(items) => {
            let mut joined: Option<String> = None;
            for item in items {
                if let JsonValue::String(s) = item {
                    if !answer_blank(s) {
                        match &mut joined {
                            Some(j) => {
                                j.push('\n');
                                j.push_str(s);
                            }
                            None => joined = Some(s.clone()),
                        }
                    }
                }
            }
            joined.map(|j| trim(&j).to_string())
        }
        _ => None,
    }
}

/// The answer among `answer`/`raw_answer` of `m`: the first non-blank string in written
/// order, else the first string (so an empty `answer` never shadows a real `raw_answer`).
fn pick_answer(m: &[(String, JsonValue)]) -> Option<String> {
    let mut first: Option<&String> = None;
    for (k, v) in m {
        if let ("answer" | "raw_answer", JsonValue::String(s)) = (k.as_str(), v) {
            if !answer_blank(s) {
                return Some(s.clone());
            }
            first.get_or_insert(s);
        }
    }
    first.cloned()
}

/// The args of a final response as an object, and the answer found in the args.
fn args_answer(args: Option<&JsonValue>) -> (Vec<(String, JsonValue)>, Option<String>) {
    match args {
        Some(v) => match args_mapping(v, true) {
            Some(o) => {
                let a = pick_answer(&o);
                (o, a)
            }
            None => (Vec::new(), text_of(v)),
        },
        None => (Vec::new(), None),
    }
}

/// The answer in the args, unless blank and a top-level one is not.
fn best(in_args: Option<String>, top: Option<String>) -> Option<String> {
    match (in_args, top) {
        (Some(a), _) if !answer_blank(&a) => Some(a),
        (_, Some(t)) if !answer_blank(&t) => Some(t),
        (a, t) => a.or(t),
    }
}

/// The final answer an action carries, if any.
fn final_answer(m: &[(String, JsonValue)], args: Option<&JsonValue>) -> Option<String> {
    best(args_answer(args).1, pick_answer(m))
}

const ACTION_KEYS: [&str; 6] = ["next_node", "args", "thought", "plan", "join", "action"];

fn final_args(m: &[(String, JsonValue)], args: Option<&JsonValue>) -> Vec<(String, JsonValue)> {
    let (mut out, in_args) = args_answer(args);
    let top = pick_answer(m);
    let from_top = in_args.as_deref().is_none_or(answer_blank) && top.is_some();
    if from_top {
        // A bare `{answer, confidence, …}` object: its other keys are args too.
        let top_keys = m.iter().filter(|(k, _)| !ACTION_KEYS.contains(&k.as_str())).cloned();
        merge_all(&mut out, top_keys, |_, _, _| {});
    }
    if let Some(a) = best(in_args, top) {
        rename(&mut out, "raw_answer", "answer");
        set(&mut out, "answer", JsonValue::String(a));
        remove(&mut out, "raw_answer");
    }
    out
}

fn plan_args(a: &[(String, JsonValue)]) -> Vec<(String, JsonValue)> {
    let steps: Vec<JsonValue> = match get(a, "steps") {
        Some(JsonValue::Array(items)) => items.iter().filter_map(step).collect(),
        _ => Vec::new(),
    };
    let mut out = vec![("steps".to_string(), JsonValue::Array(steps))];
    if let Some(JsonValue::Object(j)) = get(a, "join") {
        let j = first_keys(j);
        if let Some(JsonValue::String(node)) = get(&j, "node") {
            if !blank(node) {
                let args = get(&j, "args").and_then(|v| args_mapping(v, false)).unwrap_or_default();
                let inject = match get(&j, "inject") {
                    Some(JsonValue::Object(x)) => JsonValue::Object(x.clone()),
                    _ => JsonValue::Null,
                };
                out.push((
                    "join".into(),
                    JsonValue::Object(vec![
                        ("node".into(), JsonValue::String(node.trim().to_string())),
                        ("args".into(), JsonValue::Object(args)),
                        ("inject".into(), inject),
                    ]),
                ));
            }
        }
    }
    out
}

fn step(v: &JsonValue) -> Option<JsonValue> {
    let JsonValue::Object(s) = v else { return None };
    let s = first_keys(s);
    let JsonValue::String(node) = get(&s, "node")? else { return None };
    if blank(node) {
        return None;
    }
    let args = get(&s, "args").and_then(|v| args_mapping(v, false)).unwrap_or_default();
    Some(JsonValue::Object(vec![
        ("node".into(), JsonValue::String(node.trim().to_string())),
        ("args".into(), JsonValue::Object(args)),
    ]))
}

fn merge_strategy(v: &JsonValue) -> JsonValue {
    let JsonValue::String(s) = v else { return v.clone() };
    let t: String = s.trim().chars().map(|c| if c == '-' || c == ' ' { '_' } else { c.to_ascii_uppercase() }).collect();
    let canon = match t.as_str() {
        "APPEND" | "REPLACE" | "HUMAN_GATED" => t,
        _ if t.starts_with("HUMAN") => "HUMAN_GATED".to_string(),
        _ => return v.clone(),
    };
    JsonValue::String(canon)
}

fn task_args(args: Option<&JsonValue>, mode: Option<&'static str>) -> Vec<(String, JsonValue)> {
    let mut a = match args {
        // Plain text args are the subagent's query.
        Some(JsonValue::String(s)) if object_of(&JsonValue::String(s.clone())).is_none() && !blank(s) => {
            vec![("query".to_string(), JsonValue::String(s.trim().to_string()))]
        }
        Some(v) => args_mapping(v, false).unwrap_or_default(),
        None => Vec::new(),
    };
    // `tool_name` is an accepted spelling of the RFC's `tool`.
    rename(&mut a, "tool_name", "tool");
    for key in ["merge_strategy", "group_merge_strategy"] {
        if let Some(v) = get(&a, key).cloned() {
            set(&mut a, key, merge_strategy(&v));
        }
    }
    let given = match get(&a, "mode") {
        Some(JsonValue::String(m)) if m == "subagent" || m == "job" => Some(m.clone()),
        _ => None,
    };
    let mode = mode.map(str::to_string).or(given).or_else(|| {
        if matches!(get(&a, "query"), Some(JsonValue::String(_))) {
            Some("subagent".into())
        } else if get(&a, "tool").is_some() {
            Some("job".into())
        } else {
            None
        }
    });
    match mode.as_deref() {
        Some("subagent") => {
            remove(&mut a, "tool");
            remove(&mut a, "tool_args");
            remove(&mut a, "tool_name");
        }
        Some("job") => {
            remove(&mut a, "query");
        }
        _ => {}
    }
    if let Some(m) = mode {
        set(&mut a, "mode", JsonValue::String(m));
    }
    a
}
