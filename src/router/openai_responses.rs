//! OpenAI Responses API streams (`event: response.*` + `data: {"type": "response.*", ...}`),
//! and xAI's Responses-compatible dialect.
//!
//! Routed: `response.output_text.delta` and `response.refusal.delta` (text, with the `phase`
//! of the `message` item it belongs to), `response.reasoning_summary_text.delta` and
//! `response.reasoning_text.delta` (reasoning), `response.output_item.added` /
//! `response.output_item.done` (see [`OpenAiResponses::item`]: tool calls start and end, the
//! outputs of tools the provider ran are their results, and the items the next request may
//! send back are `continuation` deltas), `response.function_call_arguments.delta` /
//! `.done` (its `arguments` only when no delta came), `response.custom_tool_call_input.*`,
//! `response.apply_patch_call_operation_diff.*` and `response.shell_call_command.*` (argument
//! text), `response.completed` / `response.incomplete` (usage and the finish reason:
//! `completed`, or the incomplete reason), `response.failed` and `error` (errors). Everything
//! else is ignored. An item or arguments event whose `output_index` is not a whole number
//! from 0 to 2^32 - 1 is a `provider_error` and is dropped. Nothing after a terminal
//! `response.*` event is read (decoder.rs).
//!
//! Invariants: every call's argument text is valid JSON once its item is done, however the
//! provider cut its pieces (the reader writes the frame of a built-in tool's input around
//! the streamed pieces, escaped as the body of a JSON string where they are text); what the
//! reader keeps between events beyond a few flags per open call (the call ids whose output
//! may follow in the stream) is charged to the sink's budget and let go when matched or at
//! the end.

use std::collections::VecDeque;

use super::common::{emit_error, emit_usage, read_url_citation};
use super::delta::DeltaSink;
use super::jscan::{members, string_of, Json, Kind, R};
use super::tools::{event_index, OpenCalls};
use crate::hash::{Map, Set};

/// Who sends the stream, from the `model` of `response.created`: xAI runs its own tools as
/// `custom_tool_call` items, OpenAI's are the client's.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Vendor {
    #[default]
    Unknown,
    OpenAi,
    Xai,
}

/// A call whose argument text the reader writes around the provider's streamed pieces.
#[derive(Debug, Clone, Copy)]
enum Built {
    /// `apply_patch`: `{"callId":…,"operation":{"type":…,"path":…,"diff":"` is out and the
    /// diff streams as the body of that string; `closed`: `"}}` is out too.
    Patch { had_diff: bool, closed: bool },
    /// `shell`: `{"action":{"commands":` is out; each command streams as a string of the
    /// array (`open`: inside one).
    Shell { commands: u32, open: bool, had_delta: bool },
}

/// xAI's server-side tools that its stream sends as `custom_tool_call` items (recognised by
/// name when the stream does not say who sends it).
const XAI_TOOLS: &[&str] = &[
    "web_search",
    "web_search_with_snippets",
    "browse_page",
    "x_user_search",
    "x_keyword_search",
    "x_semantic_search",
    "x_thread_fetch",
    "view_x_video",
    "view_image",
    "code_execution",
];

/// What a remembered call id costs beside its text.
const KEPT_ID_BYTES: usize = 32;

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct OpenAiResponses {
    calls: OpenCalls,
    /// Calls that received argument deltas.
    had_args: Set<u32>,
    /// Custom tool calls: their free-text input is sent as the body of a JSON string.
    custom: Set<u32>,
    /// Calls whose argument text is built around streamed pieces.
    built: Map<u32, Built>,
    /// Calls whose output may follow in the stream (`shell_call_output`, `program_output`),
    /// by call id.
    by_call_id: Map<String, u32>,
    /// Tool searches the provider ran, in order (index and id): their outputs name no call.
    hosted_searches: VecDeque<(u32, String)>,
    vendor: Vendor,
    scratch: String,
    /// A terminal `response.*` event was seen.
    pub(crate) ended: bool,
}

impl OpenAiResponses {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, output_index, delta, item, response, arguments, raw_code, raw_message] =
            members(data, ["type", "output_index", "delta", "item", "response", "arguments", "code", "message"])?;
        let kind = string_of(kind)?;
        let call_event = kind.starts_with("response.output_item.")
            || kind.starts_with("response.function_call_arguments.")
            || kind.starts_with("response.apply_patch_call_operation_diff.")
            || kind.starts_with("response.shell_call_command.");
        let Some(index) = event_index(output_index, call_event, sink) else { return Ok(()) };
        match kind.as_str() {
            "response.created" | "response.in_progress" if self.vendor == Vendor::Unknown => {
                if let Some(resp) = response.filter(|r| r.starts_with('{')) {
                    let model = string_of(members(resp, ["model"])?[0])?;
                    if model.starts_with("grok") {
                        self.vendor = Vendor::Xai;
                    } else if !model.is_empty() {
                        self.vendor = Vendor::OpenAi;
                    }
                }
            }
            "response.output_text.delta" => self.text(delta, |s, t| s.text(t), sink)?,
            "response.refusal.delta" => self.text(delta, |s, t| s.refusal(t), sink)?,
            "response.output_text.annotation.added" => {
                let [annotation] = members(data, ["annotation"])?;
                if let Some(a) = annotation {
                    read_url_citation(a, sink)?;
                }
            }
            "response.custom_tool_call_input.delta" if self.calls.is_open(index) => {
                if let Some(raw) = delta {
                    let mut j = Json::new(raw);
                    if let Some(t) = j.str_value(&mut self.scratch)?.filter(|t| !t.is_empty()) {
                        self.had_args.insert(index);
                        if self.custom.contains(&index) {
                            sink.tool_call_delta(index, &escaped(t));
                        } else {
                            sink.tool_call_delta(index, t);
                        }
                    }
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.text(delta, |s, t| s.reasoning(t), sink)?;
            }
            "response.output_item.added" => {
                if let Some(item) = item {
                    self.item(item, index, false, sink)?;
                }
            }
            "response.function_call_arguments.delta" if self.calls.is_open(index) => {
                if let Some(raw) = delta {
                    let mut j = Json::new(raw);
                    if let Some(t) = j.str_value(&mut self.scratch)? {
                        if !t.is_empty() {
                            self.had_args.insert(index);
                            sink.tool_call_delta(index, t);
                        }
                    }
                }
            }
            "response.function_call_arguments.done" if self.calls.is_open(index) && !self.had_args.contains(&index) => {
                if let Some(raw) = arguments {
                    self.whole_arguments(raw, index, sink)?;
                }
            }
            "response.apply_patch_call_operation_diff.delta" => self.patch_diff(index, delta, false, sink)?,
            "response.apply_patch_call_operation_diff.done" => {
                let [diff] = members(data, ["diff"])?;
                self.patch_diff(index, diff, true, sink)?;
            }
            "response.shell_call_command.delta" => self.shell_command(index, Step::Delta, delta, sink)?,
            "response.shell_call_command.added" | "response.shell_call_command.done" => {
                let [command] = members(data, ["command"])?;
                let step = if kind.ends_with(".added") { Step::Added } else { Step::Done };
                self.shell_command(index, step, command, sink)?;
            }
            "response.output_item.done" => {
                if let Some(item) = item {
                    self.item(item, index, true, sink)?;
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.calls.end_all(sink);
                self.forget_all(sink);
                if let Some(resp) = response {
                    self.response(resp, &kind, sink)?;
                }
                self.ended = true;
            }
            "error"
                if crate::text::find(data.as_bytes(), b"\"error\"").is_some()
                    && members(data, ["error"])?[0].is_some_and(|e| e.starts_with('{')) =>
            {
                // `{"type": "error", "error": {"code", "message"}}`
                let [e] = members(data, ["error"])?;
                let mut j = Json::new(e.unwrap_or("{}"));
                emit_error(&mut j, &mut self.scratch, sink)?;
            }
            "error" => {
                let mut code = String::from("provider_error");
                if let Some(raw) = raw_code {
                    let mut j = Json::new(raw);
                    if let Some(c) = j.str_value(&mut self.scratch)? {
                        if !c.is_empty() {
                            code = c.to_owned();
                        }
                    }
                }
                let mut message = String::new();
                if let Some(raw) = raw_message {
                    let mut j = Json::new(raw);
                    j.string_into(&mut message)?;
                }
                sink.error(&code, &message);
            }
            _ => {}
        }
        Ok(())
    }

    /// End of stream: open tool calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        self.calls.end_all(sink);
        self.forget_all(sink);
    }

    fn text(&mut self, raw: Option<&str>, emit: fn(&mut dyn DeltaSink, &str), sink: &mut dyn DeltaSink) -> R<()> {
        let Some(raw) = raw else { return Ok(()) };
        let mut j = Json::new(raw);
        if let Some(t) = j.str_value(&mut self.scratch)? {
            if !t.is_empty() {
                emit(sink, t);
            }
        }
        Ok(())
    }

    fn whole_arguments(&mut self, raw: &str, index: u32, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(raw);
        if let Some(t) = j.str_value(&mut self.scratch)? {
            if !t.is_empty() {
                self.had_args.insert(index);
                if self.custom.contains(&index) {
                    sink.tool_call_delta(index, &escaped(t));
                } else {
                    sink.tool_call_delta(index, t);
                }
            }
        }
        Ok(())
    }

    /// A string member decoded and escaped as the body of a JSON string (`None`: absent,
    /// not a string, or empty).
    fn piece(&mut self, raw: Option<&str>) -> R<Option<String>> {
        let Some(raw) = raw else { return Ok(None) };
        let mut j = Json::new(raw);
        Ok(j.str_value(&mut self.scratch)?.filter(|t| !t.is_empty()).map(escaped))
    }

    /// A piece of an `apply_patch` call's diff (`done`: the whole diff, which closes it).
    fn patch_diff(&mut self, index: u32, raw: Option<&str>, done: bool, sink: &mut dyn DeltaSink) -> R<()> {
        let piece = self.piece(raw)?;
        let Some(Built::Patch { had_diff, closed }) = self.built.get_mut(&index) else { return Ok(()) };
        if *closed {
            return Ok(());
        }
        if let Some(p) = piece.filter(|_| !done || !*had_diff) {
            sink.tool_call_delta(index, &p);
        }
        *had_diff = true;
        if done {
            sink.tool_call_delta(index, "\"}}");
            *closed = true;
        }
        Ok(())
    }

    /// A `shell` call's command begins, grows or is complete.
    fn shell_command(&mut self, index: u32, step: Step, raw: Option<&str>, sink: &mut dyn DeltaSink) -> R<()> {
        let piece = self.piece(raw)?;
        let Some(Built::Shell { commands, open, had_delta }) = self.built.get_mut(&index) else { return Ok(()) };
        match step {
            Step::Added => {
                if *open {
                    sink.tool_call_delta(index, "\"");
                }
                sink.tool_call_delta(index, if *commands == 0 { "[\"" } else { ",\"" });
                *commands += 1;
                *open = true;
                *had_delta = piece.is_some();
                if let Some(p) = piece {
                    sink.tool_call_delta(index, &p);
                }
            }
            Step::Delta if *open => {
                if let Some(p) = piece {
                    *had_delta = true;
                    sink.tool_call_delta(index, &p);
                }
            }
            Step::Done if *open => {
                if let Some(p) = piece.filter(|_| !*had_delta) {
                    sink.tool_call_delta(index, &p);
                }
                sink.tool_call_delta(index, "\"");
                *open = false;
            }
            _ => {}
        }
        Ok(())
    }

    /// Remembers that the output of call `index` may follow under `call_id`.
    fn remember(&mut self, call_id: &str, index: u32, sink: &mut dyn DeltaSink) {
        if call_id.is_empty() || self.by_call_id.contains_key(call_id) {
            return;
        }
        if sink.retain(call_id.len() + KEPT_ID_BYTES, "the tool calls whose output may follow") {
            self.by_call_id.insert(call_id.to_string(), index);
        }
    }

    /// The call an output names (forgotten then), else `own` (the output item's index).
    fn recall(&mut self, call_id: &str, own: u32, sink: &mut dyn DeltaSink) -> u32 {
        match self.by_call_id.remove(call_id) {
            Some(index) => {
                sink.release(call_id.len() + KEPT_ID_BYTES);
                index
            }
            None => own,
        }
    }

    fn forget_all(&mut self, sink: &mut dyn DeltaSink) {
        let kept: usize = self.by_call_id.keys().map(|k| k.len() + KEPT_ID_BYTES).sum::<usize>()
            + self.hosted_searches.iter().map(|(_, id)| id.len() + KEPT_ID_BYTES).sum::<usize>();
        self.by_call_id.clear();
        self.hosted_searches.clear();
        if kept > 0 {
            sink.release(kept);
        }
    }

    /// Is a `custom_tool_call` named `name` one of xAI's server-side tools?
    fn xai_tool(&self, name: &str) -> bool {
        match self.vendor {
            Vendor::Xai => true,
            Vendor::OpenAi => false,
            Vendor::Unknown => XAI_TOOLS.contains(&name),
        }
    }

    /// An output item, added (`done: false`) or done:
    /// - `function_call` (its `caller` carried on the call; at done an `item` continuation
    ///   with its ids); `custom_tool_call` (its free-text input becomes a JSON string; in an
    ///   xAI stream a server-side tool whose input is JSON text);
    /// - tools the client runs: `local_shell_call` (`local_shell`: `{action}`), `shell_call`
    ///   (`shell`: `{action: {commands}}`, streamed command by command; provider-executed in
    ///   a container environment), `apply_patch_call` (`apply_patch`: `{callId, operation}`,
    ///   the diff streamed), `computer_call` (`computer`: `{actions, pendingSafetyChecks,
    ///   status}`; without a call id the provider ran it: `computer_use`), `tool_search_call`
    ///   with `execution: "client"` (`tool_search`: `{arguments, call_id}`);
    /// - tools the provider runs (a provider-executed call whose input is what the item says
    ///   it did, whose result is the done item): `web_search_call`, `file_search_call`,
    ///   `code_interpreter_call`, `image_generation_call`, `mcp_call`, xAI's `x_search_call`,
    ///   `code_execution_call`, `view_image_call`, `view_x_video_call` (an `arguments` string
    ///   is the input), a server `tool_search_call`, `program` (`programmatic_tool_calling`:
    ///   `{code, fingerprint}`);
    /// - `mcp_approval_request` (an MCP call waiting for the user's approval): a
    ///   provider-executed call with its arguments and a `tool_approval_request` continuation;
    /// - outputs in the stream, results of the call they name: `shell_call_output`,
    ///   `tool_search_output`, `program_output`;
    /// - `message` (its `phase` on the text that follows; at done an `item` continuation),
    ///   `reasoning` and `compaction` (at done a continuation of their own fields).
    fn item(&mut self, item: &str, index: u32, done: bool, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, item_id, call_id, name] = members(item, ["type", "id", "call_id", "name"])?;
        let (kind, item_id, call_id, name) = (string_of(kind)?, string_of(item_id)?, string_of(call_id)?, string_of(name)?);
        let id = if call_id.is_empty() { item_id.clone() } else { call_id.clone() };
        match kind.as_str() {
            "message" => {
                if done {
                    let fields = format!("{{\"item_type\":\"message\",\"id\":{}}}", quoted(&item_id));
                    sink.continuation("item", &fields);
                } else {
                    let phase = string_of(members(item, ["phase"])?[0])?;
                    sink.phase(Some(phase.as_str()).filter(|p| !p.is_empty()));
                }
                return Ok(());
            }
            "reasoning" | "compaction" => {
                if done {
                    sink.continuation(&kind, &fields_without_type(item)?);
                }
                return Ok(());
            }
            "function_call" => {
                let [arguments, caller] = members(item, ["arguments", "caller"])?;
                let caller = caller.filter(|c| c.starts_with('{'));
                self.calls.start_by(index, &id, &name, false, caller, sink);
                if self.calls.is_open(index) && !self.had_args.contains(&index) {
                    if let Some(raw) = arguments {
                        self.whole_arguments(raw, index, sink)?;
                    }
                }
                if done {
                    self.calls.end(index, sink);
                    let fields = format!(
                        "{{\"item_type\":\"function_call\",\"id\":{},\"call_id\":{},\"index\":{index}}}",
                        quoted(&item_id),
                        quoted(&call_id)
                    );
                    sink.continuation("item", &fields);
                }
                return Ok(());
            }
            "custom_tool_call" if self.xai_tool(&name) => {
                let tool = server_tool_name(&kind, &name, self.vendor);
                self.calls.start(index, &item_id, tool, true, sink);
                if done && self.calls.is_open(index) {
                    if !self.had_args.contains(&index) {
                        if let Some(raw) = members(item, ["input"])?[0] {
                            self.whole_arguments(raw, index, sink)?;
                        }
                    }
                    self.calls.end(index, sink);
                    sink.tool_result(index, &item_id, tool, item);
                }
                return Ok(());
            }
            "custom_tool_call" => {
                if self.calls.start_if_new(index, &id, &name, sink) {
                    self.custom.insert(index);
                    sink.tool_call_delta(index, "\"");
                }
                if done && self.calls.is_open(index) {
                    if !self.had_args.contains(&index) {
                        if let Some(raw) = members(item, ["input"])?[0] {
                            self.whole_arguments(raw, index, sink)?;
                        }
                    }
                    sink.tool_call_delta(index, "\"");
                }
            }
            "web_search_call"
            | "file_search_call"
            | "code_interpreter_call"
            | "image_generation_call"
            | "mcp_call"
            | "x_search_call"
            | "code_execution_call"
            | "view_image_call"
            | "view_x_video_call" => {
                let tool = server_tool_name(&kind, &name, self.vendor);
                self.calls.start(index, &id, tool, true, sink);
                if done && self.calls.is_open(index) {
                    let [arguments, action, code, queries] = members(item, ["arguments", "action", "code", "queries"])?;
                    let input = match (kind.as_str(), arguments) {
                        (_, Some(a)) if a.starts_with('"') => string_of(Some(a))?,
                        // xAI's `action` of a search is a placeholder (an empty query).
                        ("web_search_call", _) if self.vendor != Vendor::Xai => action.unwrap_or("{}").to_string(),
                        ("code_interpreter_call", _) => format!("{{\"code\":{}}}", code.unwrap_or("null")),
                        ("file_search_call", _) => format!("{{\"queries\":{}}}", queries.unwrap_or("[]")),
                        _ => String::new(),
                    };
                    if !input.is_empty() {
                        sink.tool_call_delta(index, &input);
                    }
                    self.calls.end(index, sink);
                    sink.tool_result(index, &id, tool, item);
                }
            }
            "mcp_approval_request" => {
                // An MCP call the provider runs once the user approves it: a provider-executed
                // call with its arguments and no result, then what the next request answers
                // with an `mcp_approval_response` (its `approval_request_id` is `approvalId`).
                self.calls.start(index, &item_id, &name, true, sink);
                if done && self.calls.is_open(index) {
                    let [arguments, label] = members(item, ["arguments", "server_label"])?;
                    if let Some(raw) = arguments {
                        self.whole_arguments(raw, index, sink)?;
                    }
                    self.calls.end(index, sink);
                    let fields = format!(
                        "{{\"approvalId\":{},\"toolCallId\":{},\"index\":{index},\"server_label\":{}}}",
                        quoted(&item_id),
                        quoted(&item_id),
                        label.filter(|l| l.starts_with('"')).unwrap_or("null")
                    );
                    sink.continuation("tool_approval_request", &fields);
                }
            }
            "local_shell_call" => {
                self.calls.start_if_new(index, &id, "local_shell", sink);
                if done && self.calls.is_open(index) {
                    let [action] = members(item, ["action"])?;
                    let mut input = String::from("{\"action\":");
                    local_shell_action(action, &mut input)?;
                    input.push('}');
                    sink.tool_call_delta(index, &input);
                }
            }
            "shell_call" => {
                let [environment, action] = members(item, ["environment", "action"])?;
                let in_container = match environment.filter(|e| e.starts_with('{')) {
                    Some(e) => string_of(members(e, ["type"])?[0])?.starts_with("container"),
                    None => false,
                };
                if self.calls.start(index, &id, "shell", in_container, sink) {
                    self.built.insert(index, Built::Shell { commands: 0, open: false, had_delta: false });
                    sink.tool_call_delta(index, "{\"action\":{\"commands\":");
                    self.remember(&call_id, index, sink);
                }
                if done {
                    if let Some(Built::Shell { commands, open, .. }) = self.built.remove(&index) {
                        if commands == 0 {
                            let all = match action.filter(|a| a.starts_with('{')) {
                                Some(a) => members(a, ["commands"])?[0].filter(|c| c.starts_with('[')),
                                None => None,
                            };
                            sink.tool_call_delta(index, all.unwrap_or("[]"));
                            sink.tool_call_delta(index, "}}");
                        } else {
                            sink.tool_call_delta(index, if open { "\"]}}" } else { "]}}" });
                        }
                    }
                }
            }
            "apply_patch_call" => {
                if self.calls.start_if_new(index, &id, "apply_patch", sink) {
                    let [operation] = members(item, ["operation"])?;
                    let operation = operation.filter(|o| o.starts_with('{')).unwrap_or("{}");
                    let [op_type, path] = members(operation, ["type", "path"])?;
                    if string_of(op_type)? == "delete_file" {
                        sink.tool_call_delta(index, &format!("{{\"callId\":{},\"operation\":{operation}}}", quoted(&id)));
                        self.built.insert(index, Built::Patch { had_diff: true, closed: true });
                    } else {
                        let start = format!(
                            "{{\"callId\":{},\"operation\":{{\"type\":{},\"path\":{},\"diff\":\"",
                            quoted(&id),
                            op_type.filter(|t| t.starts_with('"')).unwrap_or("\"\""),
                            path.unwrap_or("null"),
                        );
                        sink.tool_call_delta(index, &start);
                        self.built.insert(index, Built::Patch { had_diff: false, closed: false });
                    }
                }
                if done {
                    let [operation] = members(item, ["operation"])?;
                    let diff = match operation.filter(|o| o.starts_with('{')) {
                        Some(o) => members(o, ["diff"])?[0],
                        None => None,
                    };
                    self.patch_diff(index, diff, true, sink)?;
                    self.built.remove(&index);
                }
            }
            "computer_call" if call_id.is_empty() => {
                self.calls.start(index, &item_id, "computer_use", true, sink);
                if done && self.calls.is_open(index) {
                    self.calls.end(index, sink);
                    let [status] = members(item, ["status"])?;
                    let result = format!("{{\"type\":\"computer_use_tool_result\",\"status\":{}}}", status.unwrap_or("null"));
                    sink.tool_result(index, &item_id, "computer_use", &result);
                }
            }
            "computer_call" => {
                self.calls.start_if_new(index, &id, "computer", sink);
                if done && self.calls.is_open(index) {
                    sink.tool_call_delta(index, &computer_input(item)?);
                }
            }
            "tool_search_call" => {
                let [execution, arguments] = members(item, ["execution", "arguments"])?;
                let arguments = arguments.unwrap_or("{}");
                if string_of(execution)? == "client" {
                    // Started when done: the call id of the added item is not the one sent
                    // back.
                    if done && self.calls.start_if_new(index, &id, "tool_search", sink) {
                        let input = format!("{{\"arguments\":{arguments},\"call_id\":{}}}", quoted(&id));
                        sink.tool_call_delta(index, &input);
                    }
                } else {
                    self.calls.start(index, &item_id, "tool_search", true, sink);
                    if done && self.calls.is_open(index) {
                        sink.tool_call_delta(index, &format!("{{\"arguments\":{arguments},\"call_id\":null}}"));
                        if sink.retain(item_id.len() + KEPT_ID_BYTES, "the tool searches whose output may follow") {
                            self.hosted_searches.push_back((index, item_id.clone()));
                        }
                    }
                }
            }
            "program" => {
                if self.calls.start(index, &id, "programmatic_tool_calling", true, sink) {
                    self.remember(&call_id, index, sink);
                }
                if done && self.calls.is_open(index) {
                    let [code, fingerprint] = members(item, ["code", "fingerprint"])?;
                    let mut input = String::from("{");
                    let mut first = true;
                    member(&mut input, &mut first, "code", code);
                    member(&mut input, &mut first, "fingerprint", fingerprint);
                    input.push('}');
                    sink.tool_call_delta(index, &input);
                }
            }
            "shell_call_output" | "program_output" | "tool_search_output" if done => {
                let (call, id, tool, result) = match kind.as_str() {
                    "shell_call_output" => {
                        let [output] = members(item, ["output"])?;
                        (self.recall(&call_id, index, sink), id, "shell", shell_output(output)?)
                    }
                    "program_output" => {
                        let [result, status] = members(item, ["result", "status"])?;
                        let mut r = String::from("{");
                        let mut first = true;
                        member(&mut r, &mut first, "result", result);
                        member(&mut r, &mut first, "status", status);
                        r.push('}');
                        (self.recall(&call_id, index, sink), id, "programmatic_tool_calling", r)
                    }
                    _ => {
                        let [tools] = members(item, ["tools"])?;
                        let result = format!("{{\"tools\":{}}}", tools.unwrap_or("[]"));
                        let (call, id) = if !call_id.is_empty() {
                            (self.recall(&call_id, index, sink), call_id.clone())
                        } else if let Some((call, hosted)) = self.hosted_searches.pop_front() {
                            sink.release(hosted.len() + KEPT_ID_BYTES);
                            (call, hosted)
                        } else {
                            (index, item_id.clone())
                        };
                        (call, id, "tool_search", result)
                    }
                };
                sink.tool_result(call, &id, tool, &result);
                return Ok(());
            }
            _ => return Ok(()),
        }
        if done {
            self.calls.end(index, sink);
        }
        Ok(())
    }

    fn response(&mut self, resp: &str, kind: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(resp);
        if j.kind()? != Kind::Object {
            return Ok(());
        }
        let mut reason = match kind {
            "response.completed" => "completed".to_string(),
            "response.failed" => "failed".to_string(),
            _ => "incomplete".to_string(),
        };
        let mut had_error = false;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "usage" if j.kind()? == Kind::Object => emit_usage(&mut j, sink)?,
                "error" if j.kind()? == Kind::Object => {
                    emit_error(&mut j, &mut self.scratch, sink)?;
                    had_error = true;
                }
                "incomplete_details" if j.kind()? == Kind::Object => {
                    let mut d = j.object()?;
                    while let Some(k) = j.next_key(&mut d)? {
                        if k == "reason" {
                            if let Some(r) = j.str_value(&mut self.scratch)? {
                                reason = r.to_owned();
                            }
                        } else {
                            j.skip()?;
                        }
                    }
                }
                _ => j.skip()?,
            }
        }
        if kind == "response.failed" && !had_error {
            sink.error("provider_error", "the response failed");
        }
        sink.finish(&reason);
        Ok(())
    }
}

/// Where a `shell_call_command` event is in its command.
#[derive(Debug, Clone, Copy)]
enum Step {
    Added,
    Delta,
    Done,
}

/// The tool name of a call the provider runs: an MCP tool's own name; xAI's search and code
/// tools under the name of the tool they belong to (`x_keyword_search` is `x_search`);
/// otherwise the item type without `_call`.
fn server_tool_name<'a>(kind: &'a str, name: &'a str, vendor: Vendor) -> &'a str {
    if kind == "mcp_call" {
        return name;
    }
    match (kind, name) {
        (_, "web_search" | "web_search_with_snippets" | "browse_page") | ("web_search_call", _) => "web_search",
        (_, "x_user_search" | "x_keyword_search" | "x_semantic_search" | "x_thread_fetch") | ("x_search_call", _) => "x_search",
        (_, "code_execution") | ("code_execution_call", _) => "code_execution",
        ("code_interpreter_call", _) if vendor == Vendor::Xai => "code_execution",
        (_, n) if !n.is_empty() => n,
        (k, _) => k.strip_suffix("_call").unwrap_or(k),
    }
}

/// Text as the inside of a JSON string literal (no quotes).
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    crate::json::write_json_escaped(text, &mut out);
    out
}

/// Text as a JSON string literal.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    crate::json::write_json_escaped(text, &mut out);
    out.push('"');
    out
}

/// Appends member `key` (a plain name) with raw JSON value `raw` to an object being written,
/// when there is a value.
fn member(out: &mut String, first: &mut bool, key: &str, raw: Option<&str>) {
    let Some(raw) = raw else { return };
    if !*first {
        out.push(',');
    }
    *first = false;
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
    out.push_str(raw);
}

/// The members of object `raw` in order, as raw key text and raw value text.
fn raw_members(raw: &str) -> R<Vec<(&str, &str)>> {
    let mut out = Vec::new();
    let mut j = Json::new(raw);
    let mut m = j.object()?;
    while let Some(key) = j.next_key(&mut m)? {
        out.push((key, j.value_raw()?));
    }
    Ok(out)
}

/// An item's own fields but `type`, as a JSON object text (values as sent).
fn fields_without_type(item: &str) -> R<String> {
    let mut out = String::with_capacity(item.len());
    out.push('{');
    let mut first = true;
    for (key, value) in raw_members(item)? {
        if key != "type" {
            member(&mut out, &mut first, key, Some(value));
        }
    }
    out.push('}');
    Ok(out)
}

/// Copies the members of object `raw` named in `names` (`(sent, written)` pairs) that are
/// present; `keys` only when it is not `null`.
fn copy_members(raw: &[(&str, &str)], names: &[(&str, &str)], out: &mut String, first: &mut bool) {
    for (from, to) in names {
        if let Some((_, v)) = raw.iter().find(|(k, _)| k == from) {
            if *from == "keys" && *v == "null" {
                continue;
            }
            member(out, first, to, Some(v));
        }
    }
}

/// A `local_shell_call`'s action as the client's tool reads it: `{type: "exec", command,
/// timeoutMs, user, workingDirectory, env}` (the members sent).
fn local_shell_action(action: Option<&str>, out: &mut String) -> R<()> {
    out.push_str("{\"type\":\"exec\"");
    if let Some(a) = action.filter(|a| a.starts_with('{')) {
        let raw = raw_members(a)?;
        let mut first = false;
        let names = [
            ("command", "command"),
            ("timeout_ms", "timeoutMs"),
            ("user", "user"),
            ("working_directory", "workingDirectory"),
            ("env", "env"),
        ];
        copy_members(&raw, &names, out, &mut first);
    }
    out.push('}');
    Ok(())
}

/// A `computer_call`'s input as the client's tool reads it: `{actions, pendingSafetyChecks,
/// status}`, each action with camel-case scroll amounts (`actions`, else the one `action`).
fn computer_input(item: &str) -> R<String> {
    let [actions, action, checks, status] = members(item, ["actions", "action", "pending_safety_checks", "status"])?;
    let mut out = String::from("{\"actions\":[");
    let mut first_action = true;
    let mut one = |out: &mut String, a: &str| -> R<()> {
        if !first_action {
            out.push(',');
        }
        first_action = false;
        computer_action(a, out)
    };
    if let Some(list) = actions.filter(|a| a.starts_with('[')) {
        let mut j = Json::new(list);
        let mut m = j.array()?;
        while j.next_item(&mut m)? {
            let a = j.value_raw()?;
            one(&mut out, a)?;
        }
    } else if let Some(a) = action.filter(|a| a.starts_with('{')) {
        one(&mut out, a)?;
    }
    out.push_str("],\"pendingSafetyChecks\":[");
    if let Some(list) = checks.filter(|c| c.starts_with('[')) {
        let mut j = Json::new(list);
        let mut m = j.array()?;
        let mut first_check = true;
        while j.next_item(&mut m)? {
            let c = j.value_raw()?;
            if !c.starts_with('{') {
                continue;
            }
            if !first_check {
                out.push(',');
            }
            first_check = false;
            let raw = raw_members(c)?;
            out.push('{');
            let mut first = true;
            let present = |k: &str| raw.iter().any(|(key, v)| *key == k && *v != "null");
            let names: Vec<(&str, &str)> = [("id", "id"), ("code", "code"), ("message", "message")]
                .into_iter()
                .filter(|(k, _)| *k == "id" || present(k))
                .collect();
            copy_members(&raw, &names, &mut out, &mut first);
            out.push('}');
        }
    }
    out.push_str("],\"status\":");
    out.push_str(status.unwrap_or("null"));
    out.push('}');
    Ok(out)
}

/// One computer action: `click`, `double_click`, `drag`, `move` and `scroll` keep their own
/// members (`keys` when not `null`; `scroll_x`/`scroll_y` as `scrollX`/`scrollY`); the
/// others go as sent.
fn computer_action(a: &str, out: &mut String) -> R<()> {
    if !a.starts_with('{') {
        out.push_str(a);
        return Ok(());
    }
    let raw = raw_members(a)?;
    let kind = raw.iter().find(|(k, _)| *k == "type").map(|(_, v)| *v).unwrap_or("null");
    let names: &[(&str, &str)] = match kind {
        "\"click\"" => &[("button", "button"), ("x", "x"), ("y", "y"), ("keys", "keys")],
        "\"double_click\"" | "\"move\"" => &[("x", "x"), ("y", "y"), ("keys", "keys")],
        "\"drag\"" => &[("path", "path"), ("keys", "keys")],
        "\"scroll\"" => &[("x", "x"), ("y", "y"), ("scroll_x", "scrollX"), ("scroll_y", "scrollY"), ("keys", "keys")],
        _ => {
            out.push_str(a);
            return Ok(());
        }
    };
    out.push_str("{\"type\":");
    out.push_str(kind);
    let mut first = false;
    copy_members(&raw, names, out, &mut first);
    out.push('}');
    Ok(())
}

/// A `shell_call_output`'s result as the client's tool reads it: `{output: [{stdout, stderr,
/// outcome: {type: "exit", exitCode} | {type: "timeout"}}]}`.
fn shell_output(output: Option<&str>) -> R<String> {
    let mut out = String::from("{\"output\":[");
    if let Some(list) = output.filter(|o| o.starts_with('[')) {
        let mut j = Json::new(list);
        let mut m = j.array()?;
        let mut first_entry = true;
        while j.next_item(&mut m)? {
            let e = j.value_raw()?;
            if !e.starts_with('{') {
                continue;
            }
            if !first_entry {
                out.push(',');
            }
            first_entry = false;
            let [stdout, stderr, outcome] = members(e, ["stdout", "stderr", "outcome"])?;
            out.push('{');
            let mut first = true;
            member(&mut out, &mut first, "stdout", stdout);
            member(&mut out, &mut first, "stderr", stderr);
            let outcome = match outcome.filter(|o| o.starts_with('{')) {
                Some(o) => {
                    let [t, code] = members(o, ["type", "exit_code"])?;
                    if string_of(t)? == "exit" {
                        format!("{{\"type\":\"exit\",\"exitCode\":{}}}", code.unwrap_or("null"))
                    } else {
                        "{\"type\":\"timeout\"}".to_string()
                    }
                }
                None => "{\"type\":\"timeout\"}".to_string(),
            };
            member(&mut out, &mut first, "outcome", Some(&outcome));
            out.push('}');
        }
    }
    out.push_str("]}");
    Ok(out)
}
