//! Gemini Interactions API streams (`POST /v1beta/interactions` with `stream: true`): one JSON
//! event per SSE event, named by its `event_type` (the SSE `event:` name, when sent, is the
//! same).
//!
//! Advice for hackers: the output is a list of steps, each framed by `step.start` (the step's
//! `type` and what it already holds), `step.delta`s and `step.stop`, all carrying the step's
//! `index`; steps may interleave, so each open step is kept by its index (`open`) until its
//! stop. Routed:
//! - `model_output` steps: `text` deltas as answer text (text already in the start's
//!   `content`, too); `text_annotation_delta` citations as sources.
//! - `thought` steps: `summary` text and `thought_summary` deltas as reasoning; the step's
//!   signature (its start's `signature` or a `thought_signature` delta) is a
//!   `thought_signature` continuation `{signature}` at the step's stop.
//! - `function_call` steps: a client tool call (start with `id` and `name`, `arguments_delta`
//!   text as argument text, end at the stop); a signature is a continuation
//!   `{signature, index}` after the call.
//! - built-in tool steps (`google_search_call`, `code_execution_call`, ... and their
//!   `*_result` steps): provider-executed calls named by the type without `_call` (an MCP
//!   call by its `name`) and their results, matched by `call_id`; the arguments and result
//!   come whole in the start or a delta. URLs in search and URL-context results are sources.
//! - `interaction.status_update` / `interaction.requires_action`: the status, kept;
//!   `interaction.completed`: `usage` and the finish reason (the interaction's `status`:
//!   `completed`, `requires_action` when the client must run the calls, `incomplete`,
//!   `failed`, `cancelled`). Nothing after it is read.
//! - `error` events: `{error: {code, message}}` as errors.
//!
//! What a step holds between its events (a start's arguments or result not yet routed, a
//! signature) is charged to the sink's budget and let go at the stop.

use super::common::{emit_counts, read_error, Count};
use super::delta::{DeltaSink, Source};
use super::jscan::{members, string_of, Json, Kind, R};
use super::tools::{call_index, OpenCalls};
use crate::hash::Map;

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct GeminiInteractions {
    /// Open steps by the provider's step index.
    open: Map<u32, Step>,
    calls: OpenCalls,
    next_call: u32,
    /// Built-in tool calls by id (their index and tool name), for their results. Kept until
    /// the stream ends, charged to the sink.
    servers: Map<Box<str>, (u32, Box<str>)>,
    /// The last built-in call (id, index, name): a result whose `call_id` matches none answers
    /// it.
    last_server: Option<(String, u32, String)>,
    /// The last status a status event named.
    status: Option<String>,
    scratch: String,
    /// `interaction.completed` came: nothing after it is read.
    pub(crate) ended: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepKind {
    Output,
    Thought,
    /// A client function call.
    Call,
    /// A built-in tool call (the provider runs it).
    Builtin,
    /// A built-in tool's result.
    Result,
    Other,
}

/// An open step.
#[derive(Debug)]
struct Step {
    kind: StepKind,
    /// `Call`, `Builtin`, `Result`: the routed call's index.
    call: u32,
    /// `Result`: the call's id and tool name.
    id: String,
    name: String,
    /// The start's arguments (`Builtin`, `Call`) or result (`Result`) not routed yet, as JSON
    /// text (empty: none).
    held: String,
    /// The latest non-empty signature, as its JSON string text.
    signature: String,
    /// `Call`: argument text came; `Builtin`: the call was routed whole; `Result`: the result
    /// was routed.
    routed: bool,
    /// Bytes charged to the sink for this step.
    kept: usize,
}

/// What keeping one open step or one remembered call costs besides its strings.
const STEP_BYTES: usize = 96;
const SERVER_CALL_BYTES: usize = 48;

impl GeminiInteractions {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let [event_type, index, step, delta, interaction, error, status] =
            members(data, ["event_type", "index", "step", "delta", "interaction", "error", "status"])?;
        let index = index.and_then(call_index);
        let event_type = string_of(event_type)?;
        match event_type.as_str() {
            "step.start" => {
                if let (Some(index), Some(step)) = (index, step.filter(|s| s.starts_with('{'))) {
                    self.step_start(index, step, sink)?;
                }
            }
            "step.delta" => {
                if let (Some(index), Some(delta)) = (index, delta.filter(|d| d.starts_with('{'))) {
                    self.step_delta(index, delta, sink)?;
                }
            }
            "step.stop" => {
                if let Some(index) = index {
                    self.step_stop(index, sink);
                }
            }
            "interaction.status_update" | "interaction.in_progress" | "interaction.requires_action" => {
                let status = string_of(status)?;
                if !status.is_empty() {
                    self.status = Some(status);
                } else if event_type == "interaction.requires_action" {
                    self.status = Some("requires_action".into());
                }
            }
            "interaction.completed" => self.completed(interaction, sink)?,
            "error" => match error.filter(|e| e.starts_with('{')) {
                Some(error) => {
                    let (code, message) = read_error(&mut Json::new(error), &mut self.scratch)?;
                    sink.error(&code, &message);
                }
                None => sink.error("provider_error", "the interaction failed"),
            },
            _ => {}
        }
        Ok(())
    }

    /// The stream ended (or the interaction completed): the steps whose stop never came stop,
    /// in index order, and open calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        let mut open: Vec<u32> = self.open.keys().copied().collect();
        crate::sort::sort_by_key(&mut open, |&i| i);
        for index in open {
            self.step_stop(index, sink);
        }
        self.calls.end_all(sink);
    }

    /// `interaction.completed`: usage, then every open call ends and the status is the finish
    /// reason.
    fn completed(&mut self, interaction: Option<&str>, sink: &mut dyn DeltaSink) -> R<()> {
        self.ended = true;
        let mut status = None;
        if let Some(interaction) = interaction.filter(|i| i.starts_with('{')) {
            let mut j = Json::new(interaction);
            let mut m = j.object()?;
            while let Some(key) = j.next_key(&mut m)? {
                match key {
                    "status" => status = j.str_value(&mut self.scratch)?.filter(|s| !s.is_empty()).map(str::to_owned),
                    "usage" if j.kind()? == Kind::Object => emit_counts(&mut j, &INTERACTION_COUNTS, sink)?,
                    _ => j.skip()?,
                }
            }
        }
        self.finish(sink);
        let status = status.or_else(|| self.status.take()).unwrap_or_else(|| "completed".into());
        self.calls.finish(Some(status), sink);
        Ok(())
    }

    fn step_start(&mut self, index: u32, raw: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, id, name, arguments, signature, call_id, result, summary, content, error] =
            members(raw, ["type", "id", "name", "arguments", "signature", "call_id", "result", "summary", "content", "error"])?;
        let kind = string_of(kind)?;
        // A step index started again: the earlier step is over.
        self.step_stop(index, sink);
        let mut step = Step {
            kind: StepKind::Other,
            call: 0,
            id: String::new(),
            name: String::new(),
            held: String::new(),
            signature: String::new(),
            routed: false,
            kept: 0,
        };
        match kind.as_str() {
            "model_output" => {
                step.kind = StepKind::Output;
                if let Some(content) = content.filter(|c| c.starts_with('[')) {
                    self.contents(content, false, sink)?;
                }
                if let Some(error) = error.filter(|e| e.starts_with('{')) {
                    let (code, message) = read_error(&mut Json::new(error), &mut self.scratch)?;
                    sink.error(&code, &message);
                }
            }
            "thought" => {
                step.kind = StepKind::Thought;
                if let Some(summary) = summary.filter(|s| s.starts_with('[')) {
                    self.contents(summary, true, sink)?;
                }
            }
            "function_call" => {
                step.kind = StepKind::Call;
                step.call = self.new_call();
                self.calls.start_if_new(step.call, &string_of(id)?, &string_of(name)?, sink);
                // The start holds `arguments: {}`; a non-empty one is the whole input unless
                // argument text follows.
                if let Some(args) = arguments.map(str::trim).filter(|a| a.starts_with('{') && *a != "{}") {
                    step.held.push_str(args);
                }
            }
            "function_result" | "user_input" => {}
            k if k.ends_with("_call") => {
                step.kind = StepKind::Builtin;
                step.call = self.new_call();
                let name = match string_of(name)? {
                    n if k == "mcp_server_tool_call" && !n.is_empty() => n,
                    _ => k.strip_suffix("_call").unwrap_or(k).to_string(),
                };
                let id = string_of(id)?;
                let id = if id.is_empty() { format!("call_{}", step.call) } else { id };
                self.calls.start(step.call, &id, &name, true, sink);
                if !self.servers.contains_key(id.as_str())
                    && sink.retain(SERVER_CALL_BYTES + id.len() + name.len(), "the provider-executed calls")
                {
                    self.servers.insert(id.as_str().into(), (step.call, name.as_str().into()));
                }
                self.last_server = Some((id, step.call, name));
                if let Some(args) = arguments.map(str::trim).filter(|a| a.starts_with('{')) {
                    step.held.push_str(args);
                }
            }
            k if k.ends_with("_result") => {
                step.kind = StepKind::Result;
                let (id, call, name) = self.answered(&string_of(call_id)?, k, sink);
                (step.id, step.call, step.name) = (id, call, name);
                if let Some(result) = result.map(str::trim).filter(|r| !r.is_empty() && *r != "null") {
                    step.held.push_str(result);
                }
            }
            _ => {}
        }
        if let Some(signature) = signature.filter(|s| s.len() > 2 && s.starts_with('"')) {
            step.signature.push_str(signature);
        }
        step.kept = STEP_BYTES + step.held.len() + step.signature.len() + step.id.len() + step.name.len();
        if sink.retain(step.kept, "an open step") {
            self.open.insert(index, step);
        }
        Ok(())
    }

    fn new_call(&mut self) -> u32 {
        let index = self.next_call;
        self.next_call = self.next_call.saturating_add(1);
        index
    }

    /// The built-in call a `*_result` step answers: (id, index, name). One with that id, else
    /// the last one, else a call started for it.
    fn answered(&mut self, call_id: &str, kind: &str, sink: &mut dyn DeltaSink) -> (String, u32, String) {
        if let Some((index, name)) = self.servers.get(call_id) {
            return (call_id.to_string(), *index, name.to_string());
        }
        if let Some(last) = self.last_server.take() {
            return last;
        }
        let index = self.new_call();
        let name = kind.strip_suffix("_result").unwrap_or(kind).to_string();
        let id = if call_id.is_empty() { format!("call_{index}") } else { call_id.to_string() };
        self.calls.start(index, &id, &name, true, sink);
        sink.tool_call_delta(index, "{}");
        self.calls.end(index, sink);
        (id, index, name)
    }

    fn step_delta(&mut self, index: u32, raw: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let Some(step) = self.open.get_mut(&index) else { return Ok(()) };
        let [kind, text, content, signature, arguments, annotations, result] =
            members(raw, ["type", "text", "content", "signature", "arguments", "annotations", "result"])?;
        let kind = string_of(kind)?;
        if let Some(signature) = signature.filter(|s| s.len() > 2 && s.starts_with('"')) {
            let grown = signature.len().saturating_sub(step.signature.len());
            if sink.retain(grown, "an open step") {
                step.kept += grown;
                step.signature.clear();
                step.signature.push_str(signature);
            }
        }
        match (step.kind, kind.as_str()) {
            (StepKind::Output, "text") => {
                let text = string_of(text)?;
                if !text.is_empty() {
                    sink.text(&text);
                }
            }
            (StepKind::Output, "text_annotation_delta" | "text_annotation") => {
                if let Some(annotations) = annotations.filter(|a| a.starts_with('[')) {
                    annotation_sources(annotations, sink)?;
                }
            }
            (StepKind::Thought, "thought_summary") => {
                if let Some(content) = content.filter(|c| c.starts_with('{')) {
                    let [t, text] = members(content, ["type", "text"])?;
                    let text = string_of(text)?;
                    if string_of(t)? == "text" && !text.is_empty() {
                        sink.reasoning(&text);
                    }
                }
            }
            (StepKind::Call, "arguments_delta") => {
                let args = string_of(arguments)?;
                if !args.is_empty() {
                    step.routed = true;
                    sink.tool_call_delta(step.call, &args);
                }
            }
            (StepKind::Builtin, k) if k.ends_with("_call") && !step.routed => {
                if let Some(args) = arguments.map(str::trim).filter(|a| a.starts_with('{')) {
                    step.routed = true;
                    sink.tool_call_delta(step.call, args);
                    self.calls.end(step.call, sink);
                }
            }
            (StepKind::Result, k) if k.ends_with("_result") && !step.routed => {
                if let Some(result) = result.map(str::trim).filter(|r| !r.is_empty() && *r != "null") {
                    step.routed = true;
                    result_sources(k, result, sink)?;
                    sink.tool_result(step.call, &step.id, &step.name, result);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A step stops: what it held goes out, then its signature.
    fn step_stop(&mut self, index: u32, sink: &mut dyn DeltaSink) {
        let Some(step) = self.open.remove(&index) else { return };
        match step.kind {
            StepKind::Call | StepKind::Builtin => {
                if !step.routed {
                    let args = if step.held.is_empty() { "{}" } else { step.held.as_str() };
                    sink.tool_call_delta(step.call, args);
                }
                self.calls.end(step.call, sink);
            }
            StepKind::Result if !step.routed && !step.held.is_empty() => {
                sink.tool_result(step.call, &step.id, &step.name, &step.held);
            }
            _ => {}
        }
        if !step.signature.is_empty() {
            let fields = match step.kind {
                StepKind::Call | StepKind::Builtin | StepKind::Result => {
                    format!(r#"{{"signature":{},"index":{}}}"#, step.signature, step.call)
                }
                _ => format!(r#"{{"signature":{}}}"#, step.signature),
            };
            sink.continuation("thought_signature", &fields);
        }
        sink.release(step.kept);
    }

    /// Content items (`[{type: "text", text}, ...]`) as answer text or reasoning.
    fn contents(&mut self, items: &str, reasoning: bool, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(items);
        let mut a = j.array()?;
        while j.next_item(&mut a)? {
            if j.kind()? != Kind::Object {
                j.skip()?;
                continue;
            }
            let [t, text, annotations] = members(j.value_raw()?, ["type", "text", "annotations"])?;
            if string_of(t)? != "text" {
                continue;
            }
            let text = string_of(text)?;
            if !text.is_empty() {
                if reasoning {
                    sink.reasoning(&text);
                } else {
                    sink.text(&text);
                }
            }
            if let Some(annotations) = annotations.filter(|a| a.starts_with('[')) {
                annotation_sources(annotations, sink)?;
            }
        }
        Ok(())
    }
}

/// Citations (`url_citation {url, title}`, `place_citation {url, name}`, `file_citation
/// {document_uri, file_name}`) as sources.
fn annotation_sources(annotations: &str, sink: &mut dyn DeltaSink) -> R<()> {
    let mut j = Json::new(annotations);
    let mut a = j.array()?;
    while j.next_item(&mut a)? {
        if j.kind()? != Kind::Object {
            j.skip()?;
            continue;
        }
        let [url, title, name, uri, file] = members(j.value_raw()?, ["url", "title", "name", "document_uri", "file_name"])?;
        let url = Some(string_of(url.or(uri))?).filter(|u| !u.is_empty());
        let title = Some(string_of(title.or(name).or(file))?).filter(|t| !t.is_empty());
        if url.is_some() || title.is_some() {
            sink.source(&Source { id: None, url, title, snippet: None });
        }
    }
    Ok(())
}

/// The URLs of a search or URL-context result (`[{url, title?, status?}]`) as sources (a URL
/// context entry only when fetched: `status` absent or `success`).
fn result_sources(kind: &str, result: &str, sink: &mut dyn DeltaSink) -> R<()> {
    if !matches!(kind, "google_search_result" | "url_context_result") || !result.starts_with('[') {
        return Ok(());
    }
    let mut j = Json::new(result);
    let mut a = j.array()?;
    while j.next_item(&mut a)? {
        if j.kind()? != Kind::Object {
            j.skip()?;
            continue;
        }
        let [url, title, status] = members(j.value_raw()?, ["url", "title", "status"])?;
        let (url, status) = (string_of(url)?, string_of(status)?);
        if !url.is_empty() && (status.is_empty() || status == "success") {
            let title = Some(string_of(title)?).filter(|t| !t.is_empty());
            sink.source(&Source { id: None, url: Some(url), title, snippet: None });
        }
    }
    Ok(())
}

const INTERACTION_COUNTS: [(&str, Count); 5] = [
    ("total_input_tokens", Count::Input),
    ("total_output_tokens", Count::Output),
    ("total_tokens", Count::Total),
    ("total_thought_tokens", Count::Reasoning),
    ("total_cached_tokens", Count::Cached),
];
