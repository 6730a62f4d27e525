//! The candidate rule: which object of model text is THE action and what its answer is.
//! The streaming `AnswerExtractor` and the one-shot normaliser both read these rules, so the
//! answer a caller saw streamed is never contradicted by the action that follows.
//!
//! - **The opcode** (`classify`): `next_node` is matched trimmed and ignoring ASCII case;
//!   `final_response` and the legacy `null` (also written `"null"`/`"None"`) are terminal,
//!   so the extractor streams exactly the actions the normaliser calls final responses
//!   (a legacy `null` with a usable top-level `plan` aside: see the last rule).
//! - **Answer whitespace** (`is_space`, `trim`, `blank`): ASCII whitespace. A blank
//!   `answer`/`raw_answer` never shadows a later non-blank one; string `args` and the joined
//!   string items of list `args` are trimmed, blank items skipped. The extractor holds
//!   whitespace until the next non-blank byte decides whether it belongs to the answer.
//! - **Double-encoded args** (`encoded_answer`): string `args` holding a JSON object with an
//!   `answer`/`raw_answer` key are that object; the extractor holds string args that open
//!   with `{` until they end to tell.
//! - **The streamed candidate wins** (`settle`): once the extractor has streamed answer
//!   text, the action is the object that text came from (the `{` at `Streamed::start`,
//!   repaired if it broke), as a `final_response` whose answer begins with exactly the
//!   streamed text, and equals it when the object closed. Another object later in the
//!   text (a trailing tool call, a fenced example) never replaces it.

pub(crate) use super::normalize::encoded_answer;
use super::normalize::PlannerAction;
use crate::json::JsonValue;
use crate::{AnswerExtractor, AnswerExtractorOptions, Result};

/// What `next_node` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeName {
    /// `final_response`.
    Final,
    /// The legacy `null`, written as a string (`"null"`, `"None"`).
    Null,
    /// `plan` or its alias `parallel`.
    Plan,
    /// `task`, `task.subagent` (mode `subagent`) or `task.tool` (mode `job`).
    Task(Option<&'static str>),
    /// Empty or blank.
    Empty,
    /// Any other name: a tool (the trimmed name).
    Tool,
}

/// Classifies a `next_node` string (trimmed, ASCII case ignored).
pub(crate) fn classify(name: &str) -> NodeName {
    let name = name.trim();
    let is = |s: &str| name.eq_ignore_ascii_case(s);
    if name.is_empty() {
        NodeName::Empty
    } else if is("final_response") {
        NodeName::Final
    } else if is("null") || is("none") {
        NodeName::Null
    } else if is("plan") || is("parallel") {
        NodeName::Plan
    } else if is("task") {
        NodeName::Task(None)
    } else if is("task.subagent") {
        NodeName::Task(Some("subagent"))
    } else if is("task.tool") {
        NodeName::Task(Some("job"))
    } else {
        NodeName::Tool
    }
}

/// Whether a `next_node` string makes the action terminal (its answer streams).
pub(crate) fn is_terminal(name: &str) -> bool {
    matches!(classify(name), NodeName::Final | NodeName::Null)
}

/// Whitespace around and between answers.
pub(crate) fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace()
}

/// An answer with its surrounding whitespace removed.
pub(crate) fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

/// An answer with nothing but whitespace.
pub(crate) fn blank(s: &str) -> bool {
    s.bytes().all(is_space)
}

/// What the extractor streamed of one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Streamed {
    /// The byte offset of the candidate's `{`.
    pub start: usize,
    /// Where it ends: just past its `}` when it closed, else the end of the text.
    pub end: usize,
    /// The answer text streamed (never empty).
    pub text: String,
    /// The object closed.
    pub complete: bool,
}

/// Runs the extractor over `text`: the candidate it streamed an answer from, if any.
pub(crate) fn streamed(text: &str) -> Option<Streamed> {
    let mut x = AnswerExtractor::new(AnswerExtractorOptions { max_buffer_bytes: usize::MAX });
    let mut out = String::new();
    x.feed_into(text.as_bytes(), &mut out).ok()?;
    out.push_str(&x.finish().ok()?);
    if out.is_empty() {
        return None;
    }
    let start = usize::try_from(x.action_start()?).ok()?;
    let end = x.action_end().and_then(|e| usize::try_from(e).ok());
    Some(Streamed { start, end: end.unwrap_or(text.len()).min(text.len()), text: out, complete: end.is_some() })
}

/// The action of a candidate an answer was streamed from (see the module docs): the
/// normaliser's reading of it, made a final response whose answer starts with the text.
pub(crate) fn settle(normalised: Result<PlannerAction>, s: &Streamed) -> PlannerAction {
    let mut a = match normalised {
        Ok(a) if a.next_node == "final_response" => a,
        Ok(a) => PlannerAction { next_node: "final_response".into(), args: Vec::new(), ..a },
        Err(_) => PlannerAction { next_node: "final_response".into(), args: Vec::new(), thought: None, reasoning: None },
    };
    let keep = !s.complete && a.answer().is_some_and(|t| t.starts_with(&s.text));
    if !keep {
        let answer = JsonValue::String(s.text.clone());
        match a.args.iter_mut().find(|(k, _)| k == "answer") {
            Some(slot) => slot.1 = answer,
            None => a.args.push(("answer".into(), answer)),
        }
    }
    a
}
