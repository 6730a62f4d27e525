//! `build_final_payload`: one `FinalPayload` out of a final action's args and what the run
//! collected, keeping everything that is valid.
//!
//! Rules (final-payload-and-artifacts.md §5, reference-behaviour.md §6, with B19 and B20
//! fixed):
//! 1. The input is the args object of a final action, or a whole action (`{next_node, args}`,
//!    legacy `next_node: null` too), whose args are used. A string is the answer itself.
//! 2. `raw_answer` is `answer`, else `raw_answer` (the first that is a non-blank string), else
//!    the fallback chain on the args, then on `context.last_observation`: the keys of
//!    `ANSWER_KEYS` in order (a nested object searched the same way, a number or boolean
//!    written as text), a nested `args`, then the only string longer than 10 characters.
//!    Never a JSON dump of the args: with no answer anywhere it is `NO_ANSWER` and a
//!    `raw_answer_missing` warning is given.
//! 3. Each optional field is checked with the validator's rules; an invalid one is dropped
//!    (an invalid item of a list alone) with a warning, the rest is kept.
//! 4. `sources`: the model's valid ones, then `context.sources`, deduplicated on
//!    `(title, url, snippet)`. `artifacts`: the model's, with `context.artifacts` merged over
//!    them field by field.
//! 5. `confidence`: `context.reflection_score` when given (the model's value, if any, moves
//!    to `extra.model_confidence`).
//! 6. Keys that are not `FinalPayload` fields move to `extra` (an explicit `extra` key of the
//!    same name wins).
//!
//! Warnings are strings `"<code>: <detail>"` with the codes `field_dropped`, `item_dropped`,
//! `key_ignored`, `answer_conflict`, `extra_conflict`, `raw_answer_missing`,
//! `not_final_response`.

use super::types::{dedup_sources, get, set, Artifacts, FinalPayload, JsonMap, Source};
use super::validate::{self as check, PayloadProblem, FIELDS};
use crate::json::keys::{merge_all, set_all};
use crate::json::JsonValue;
use crate::json::Quoted;
use crate::{Error, ErrorKind, Result};

/// The keys searched for an answer, in order.
pub const ANSWER_KEYS: [&str; 15] = [
    "raw_answer",
    "answer",
    "text",
    "result",
    "output",
    "response",
    "message",
    "content",
    "greeting",
    "joke",
    "reply",
    "summary",
    "explanation",
    "description",
    "body",
];

/// `raw_answer` when neither the args nor the last observation hold an answer.
pub const NO_ANSWER: &str = "No answer produced.";

/// How deep nested objects are searched for an answer.
const MAX_ANSWER_DEPTH: usize = 8;

/// What the run knows besides the final args.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), serde(rename_all = "camelCase"), tsify(rename = "FinalPayloadContext"))]
pub struct PayloadContext {
    /// Artifacts collected from tool outputs (`ArtifactCollector::all`).
    #[cfg_attr(target_arch = "wasm32", tsify(optional, type = "Record<string, Record<string, unknown>>"))]
    pub artifacts: Artifacts,
    /// Sources collected from tool outputs (`collect_sources`).
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub sources: Vec<Source>,
    /// The last tool observation, for the answer fallback.
    #[cfg_attr(target_arch = "wasm32", tsify(optional, type = "unknown"))]
    pub last_observation: Option<JsonValue>,
    /// A reflection score in `0..=1`; overrides the model's confidence.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub reflection_score: Option<f64>,
}

impl PayloadContext {
    /// Reads `{artifacts?, sources?, lastObservation?, reflectionScore?}` (snake_case names
    /// are accepted too; `null` means absent).
    ///
    /// # Errors
    /// `invalid_input` naming the path of anything malformed.
    pub fn from_value(value: &JsonValue) -> Result<Self> {
        let bad = |p: Vec<PayloadProblem>| {
            let list: Vec<String> = p.iter().map(|p| format!("context.{}: {}", p.path, p.message)).collect();
            Error::new(ErrorKind::InvalidInput, list.join("; "))
        };
        let mut ctx = PayloadContext::default();
        let m = match value {
            JsonValue::Null => return Ok(ctx),
            JsonValue::Object(m) => m,
            _ => return Err(Error::new(ErrorKind::InvalidInput, "context must be an object")),
        };
        let field = |a: &str, b: &str| get(m, a).or_else(|| get(m, b)).filter(|v| !matches!(v, JsonValue::Null));
        if let Some(v) = field("artifacts", "artifacts") {
            ctx.artifacts = check::artifacts(v, "artifacts").map_err(bad)?;
        }
        if let Some(v) = field("sources", "sources") {
            ctx.sources = check::each(v, "sources", |x, p| check::source(x, p, true).map(|(s, _)| s)).map_err(bad)?;
        }
        ctx.last_observation = field("lastObservation", "last_observation").cloned();
        if let Some(v) = field("reflectionScore", "reflection_score") {
            ctx.reflection_score = check::confidence(v, "reflectionScore").map_err(|p| bad(vec![p]))?;
        }
        Ok(ctx)
    }
}

/// A built payload and what was dropped or changed on the way.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(rename = "BuiltFinalPayload"))]
pub struct BuiltPayload {
    /// The payload (always valid: `validate_final_payload` accepts its JSON).
    pub payload: FinalPayload,
    /// One line per dropped or moved field, `"<code>: <detail>"`.
    pub warnings: Vec<String>,
}

/// The warnings of one build. Every warning is made by these few functions, not inline at
/// each of the ~30 places that give one (a `.wasm` size choice: each inlined `push` of a
/// formatted string is its own copy of the allocation and growth code).
struct Warnings(Vec<String>);

impl Warnings {
    #[inline(never)]
    fn text(&mut self, s: &str) {
        self.0.push(s.to_owned());
    }

    #[inline(never)]
    fn fmt(&mut self, a: std::fmt::Arguments<'_>) {
        self.0.push(std::fmt::format(a));
    }

    /// `"<code>: <path>: <message>"`.
    #[inline(never)]
    fn dropped(&mut self, code: &str, p: &PayloadProblem) {
        self.fmt(format_args!("{code}: {}: {}", p.path, p.message));
    }

    /// `r`'s value into `slot`, or a `field_dropped` warning.
    fn keep<T>(&mut self, slot: &mut T, r: Result<T, PayloadProblem>) {
        match r {
            Ok(v) => *slot = v,
            Err(e) => self.dropped("field_dropped", &e),
        }
    }
}

/// Builds the `FinalPayload` of a finished run.
///
/// # Errors
/// `invalid_input` when `context.reflection_score` is outside `0..=1` or not finite.
pub fn build_final_payload(args: &JsonValue, context: &PayloadContext) -> Result<BuiltPayload> {
    if let Some(s) = context.reflection_score {
        if !(0.0..=1.0).contains(&s) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("reflectionScore must be between 0 and 1 (got {})", crate::num::show(s)),
            ));
        }
    }
    let w = &mut Warnings(Vec::new());
    let args = unwrap_action(args, w);
    let empty = Vec::new();
    let map: &JsonMap = match args {
        JsonValue::Object(m) => m,
        _ => &empty,
    };
    let mut p = FinalPayload::new(String::new());

    // 2. The answer.
    let (answer, used) = match args {
        JsonValue::Object(_) => top_answer(map, w),
        other => (scalar_answer(other), None),
    };
    if matches!(args, JsonValue::Array(_)) {
        w.text("field_dropped: args: an array is not a final response's args");
    }
    p.raw_answer = match answer.or_else(|| context.last_observation.as_ref().and_then(|o| answer_in(o, 0))) {
        Some(a) => a,
        None => {
            w.text("raw_answer_missing: no answer in the args or the last observation");
            NO_ANSWER.into()
        }
    };

    // 3. The optional fields.
    let present = |k: &str| get(map, k).filter(|v| !matches!(v, JsonValue::Null));
    let mut model_artifacts = Artifacts::new();
    if let Some(v) = present("artifacts") {
        match check::object(v, "artifacts") {
            Ok(nodes) => {
                for (node, fields) in nodes {
                    match check::object(&fields, &format!("artifacts.{node}")) {
                        // Nodes are distinct: `check::object` keeps the first of a repeated key.
                        Ok(f) => model_artifacts.push((node, f)),
                        Err(e) => w.dropped("item_dropped", &e),
                    }
                }
            }
            Err(e) => w.dropped("field_dropped", &e),
        }
    }
    merge_nodes(&mut model_artifacts, context.artifacts.iter().cloned());
    p.artifacts = model_artifacts;

    let model_confidence = get(map, "confidence").filter(|v| !matches!(v, JsonValue::Null));
    if let Some(v) = model_confidence {
        w.keep(&mut p.confidence, check::confidence(v, "confidence"));
    }
    if let Some(score) = context.reflection_score {
        p.confidence = Some(score);
        if let Some(v) = model_confidence {
            set(&mut p.extra, "model_confidence", v.clone());
        }
    }

    let mut sources = Vec::new();
    if let Some(v) = present("sources") {
        lenient_list(v, "sources", w, &mut |x, path, w| {
            let (s, ignored) = check::source(x, path.clone(), false)?;
            note_ignored(&path, &ignored, w);
            sources.push(s);
            Ok(())
        });
    }
    sources.extend(context.sources.iter().cloned());
    p.sources = dedup_sources(sources);

    if let Some(v) = present("route") {
        w.keep(&mut p.route, check::nullable_string(v, "route"));
    }
    if let Some(v) = present("suggested_actions") {
        let mut actions = Vec::new();
        lenient_list(v, "suggested_actions", w, &mut |x, path, w| {
            let (a, ignored) = check::suggested_action(x, path.clone(), false)?;
            note_ignored(&path, &ignored, w);
            actions.push(a);
            Ok(())
        });
        p.suggested_actions = actions;
    }
    if let Some(v) = present("requires_followup") {
        w.keep(&mut p.requires_followup, check::boolean(v, "requires_followup"));
    }
    if let Some(v) = present("warnings") {
        let mut list = Vec::new();
        lenient_list(v, "warnings", w, &mut |x, path, _| {
            list.push(check::string(x, &path).map_err(|e| vec![e])?);
            Ok(())
        });
        p.warnings = list;
    }
    if let Some(v) = present("language") {
        w.keep(&mut p.language, check::language(v, "language"));
    }

    // 6. Extra: the explicit object, then the unknown keys.
    let mut extra = Vec::new();
    if let Some(v) = present("extra") {
        w.keep(&mut extra, check::object(v, "extra"));
    }
    let unknown = map
        .iter()
        .filter(|(k, _)| !(FIELDS.contains(&k.as_str()) || k == "answer" || used.as_deref() == Some(k.as_str())))
        .cloned();
    merge_all(&mut extra, unknown, |k, _, _| {
        w.fmt(format_args!("extra_conflict: {k}: extra.{k} is kept, the top-level {k} is dropped"));
    });
    set_all(&mut extra, std::mem::take(&mut p.extra));
    p.extra = extra;
    Ok(BuiltPayload { payload: p, warnings: std::mem::take(&mut w.0) })
}

/// The args of a whole action (`{next_node, args}`), or the input itself.
fn unwrap_action<'v>(input: &'v JsonValue, w: &mut Warnings) -> &'v JsonValue {
    let JsonValue::Object(m) = input else {
        return input;
    };
    let node = get(m, "next_node");
    let (Some(node), Some(args)) = (node, get(m, "args")) else {
        return input;
    };
    match node {
        JsonValue::String(n) if n == "final_response" => args,
        JsonValue::Null => args,
        JsonValue::String(n) => {
            w.fmt(format_args!("not_final_response: the action's next_node is {}; its args are used", Quoted(n)));
            args
        }
        _ => input,
    }
}

/// The answer of a non-object args value: a string as it is, numbers and booleans as text.
fn scalar_answer(v: &JsonValue) -> Option<String> {
    match v {
        JsonValue::String(s) if !s.trim().is_empty() => Some(s.clone()),
        JsonValue::Number(n) => Some(n.clone()),
        JsonValue::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The answer of an args object and the top-level key it came from (consumed, not moved to
/// `extra`).
fn top_answer(m: &JsonMap, w: &mut Warnings) -> (Option<String>, Option<String>) {
    let text = |k: &str| match get(m, k) {
        Some(JsonValue::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    };
    match (text("answer"), text("raw_answer")) {
        (Some(a), Some(r)) => {
            if a != r {
                w.text("answer_conflict: answer and raw_answer differ; answer is used");
            }
            return (Some(a), None);
        }
        (Some(a), None) | (None, Some(a)) => return (Some(a), None),
        (None, None) => {}
    }
    for key in ["answer", "raw_answer"] {
        if let Some(v) = get(m, key).filter(|v| !matches!(v, JsonValue::Null | JsonValue::String(_))) {
            w.fmt(format_args!("field_dropped: {key}: must be a string (got {})", check::kind(v)));
        }
    }
    for key in ANSWER_KEYS {
        if let Some(a) = get(m, key).and_then(|v| answer_in(v, 1)) {
            let direct = !matches!(get(m, key), Some(JsonValue::Object(_)));
            return (Some(a), direct.then(|| key.to_string()));
        }
    }
    if let Some(a) = get(m, "args").and_then(|v| answer_in(v, 1)) {
        return (Some(a), None);
    }
    match sole_long_string(m) {
        Some((k, s)) => (Some(s), Some(k)),
        None => (None, None),
    }
}

/// The fallback chain on any value.
fn answer_in(v: &JsonValue, depth: usize) -> Option<String> {
    match v {
        JsonValue::Object(m) if depth <= MAX_ANSWER_DEPTH => ANSWER_KEYS
            .iter()
            .find_map(|k| get(m, k).and_then(|x| answer_in(x, depth + 1)))
            .or_else(|| get(m, "args").and_then(|x| answer_in(x, depth + 1)))
            .or_else(|| sole_long_string(m).map(|(_, s)| s)),
        other => scalar_answer(other),
    }
}

/// The only string member longer than 10 characters (thought/next_node/plan/join aside).
fn sole_long_string(m: &JsonMap) -> Option<(String, String)> {
    let mut found = m.iter().filter(|(k, v)| {
        !matches!(k.as_str(), "thought" | "next_node" | "plan" | "join")
            && matches!(v, JsonValue::String(s) if s.trim().chars().count() > 10)
    });
    match (found.next(), found.next()) {
        (Some((k, JsonValue::String(s))), None) => Some((k.clone(), s.clone())),
        _ => None,
    }
}

/// Merges artifact nodes into `into`: a node already there takes the new node's fields over
/// its own.
fn merge_nodes(into: &mut Artifacts, nodes: impl IntoIterator<Item = (String, JsonMap)>) {
    merge_all(into, nodes, |_, existing, fields| set_all(existing, fields));
}

/// Checks one item of a list field (its value and path); keeps it or gives its problems.
type ItemCheck<'a> = dyn FnMut(&JsonValue, String, &mut Warnings) -> Result<(), Vec<PayloadProblem>> + 'a;

/// Checks the items of a list field one by one: a non-array drops the field, an invalid item
/// drops the item, each with a warning.
fn lenient_list(v: &JsonValue, path: &str, w: &mut Warnings, item: &mut ItemCheck<'_>) {
    let JsonValue::Array(items) = v else {
        w.fmt(format_args!("field_dropped: {path}: must be an array (got {})", check::kind(v)));
        return;
    };
    for (i, x) in items.iter().enumerate() {
        if let Err(problems) = item(x, format!("{path}[{i}]"), w) {
            let list: Vec<String> = problems.iter().map(|p| format!("{}: {}", p.path, p.message)).collect();
            w.fmt(format_args!("item_dropped: {path}[{i}]: {}", list.join("; ")));
        }
    }
}

fn note_ignored(path: &str, ignored: &[String], w: &mut Warnings) {
    for k in ignored {
        w.fmt(format_args!("key_ignored: {path}.{k}: not a field of its type"));
    }
}
