//! OpenAI Responses API streams (`event: response.*` + `data: {"type": "response.*", ...}`).
//!
//! Routed: `response.output_text.delta` and `response.refusal.delta` (text),
//! `response.reasoning_summary_text.delta` and `response.reasoning_text.delta` (reasoning),
//! `response.output_item.added` with a `function_call` item (a tool call starts, indexed by
//! `output_index`, its id is the item's `call_id`), `response.function_call_arguments.delta`,
//! `response.function_call_arguments.done` (its `arguments` only when no delta came),
//! `response.output_item.done` (the call ends), `response.completed` /
//! `response.incomplete` (usage and the finish reason: `completed`, or the incomplete
//! reason), `response.failed` and `error` (errors). Everything else is ignored. An item or
//! arguments event whose `output_index` is not a whole number from 0 to 2^32 - 1 is a
//! `provider_error` and is dropped. Nothing after a terminal `response.*` event is read
//! (decoder.rs).

use super::delta::DeltaSink;
use super::jscan::{members, string_of, Json, Kind, R};
use super::openai_chat::{emit_error, emit_usage, read_url_citation};
use super::tools::{event_index, OpenCalls};

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct OpenAiResponses {
    calls: OpenCalls,
    /// Calls that received argument deltas.
    had_args: crate::hash::Set<u32>,
    /// Custom tool calls: their free-text input is sent as the body of a JSON string.
    custom: crate::hash::Set<u32>,
    scratch: String,
    /// A terminal `response.*` event was seen.
    pub(crate) ended: bool,
}

impl OpenAiResponses {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, output_index, delta, item, response, arguments, raw_code, raw_message] = members(
            data,
            ["type", "output_index", "delta", "item", "response", "arguments", "code", "message"],
        )?;
        let kind = string_of(kind)?;
        let call_event = kind.starts_with("response.output_item.") || kind.starts_with("response.function_call_arguments.");
        let Some(index) = event_index(output_index, call_event, sink) else { return Ok(()) };
        match kind.as_str() {
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
                        if !self.had_args.contains(&index) {
                            self.had_args.insert(index);
                        }
                        sink.tool_call_delta(index, &escaped(t));
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
            "response.output_item.done" => {
                if let Some(item) = item {
                    self.item(item, index, true, sink)?;
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.calls.end_all(sink);
                if let Some(resp) = response {
                    self.response(resp, &kind, sink)?;
                }
                self.ended = true;
            }
            "error" if crate::text::find(data.as_bytes(), b"\"error\"").is_some() && members(data, ["error"])?[0].is_some_and(|e| e.starts_with('{')) => {
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

    /// An output item, added (`done: false`) or done: a `function_call`; a `custom_tool_call`
    /// (its free-text input becomes a JSON string, so the call's arguments are that string); a
    /// built-in tool the provider runs (`web_search_call`, `file_search_call`,
    /// `code_interpreter_call`, `image_generation_call`, `mcp_call`: a provider-executed call
    /// whose input is what the item says it did, and whose result is the done item); a
    /// `local_shell_call`, which the client runs (its `action` is the input).
    fn item(&mut self, item: &str, index: u32, done: bool, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, id, call_id, name, arguments, input, action, code, queries] =
            members(item, ["type", "id", "call_id", "name", "arguments", "input", "action", "code", "queries"])?;
        let (kind, id, call_id, name) = (string_of(kind)?, string_of(id)?, string_of(call_id)?, string_of(name)?);
        let id = if call_id.is_empty() { id } else { call_id };
        match kind.as_str() {
            "function_call" => {
                self.calls.start_if_new(index, &id, &name, sink);
                if self.calls.is_open(index) && !self.had_args.contains(&index) {
                    if let Some(raw) = arguments {
                        self.whole_arguments(raw, index, sink)?;
                    }
                }
            }
            "custom_tool_call" => {
                if self.calls.start_if_new(index, &id, &name, sink) {
                    self.custom.insert(index);
                    sink.tool_call_delta(index, "\"");
                }
                if done && self.calls.is_open(index) {
                    if !self.had_args.contains(&index) {
                        if let Some(raw) = input {
                            self.whole_arguments(raw, index, sink)?;
                        }
                    }
                    sink.tool_call_delta(index, "\"");
                }
            }
            "web_search_call" | "file_search_call" | "code_interpreter_call" | "image_generation_call" | "mcp_call" => {
                let tool = if kind == "mcp_call" { name.as_str() } else { kind.strip_suffix("_call").unwrap_or(&kind) };
                self.calls.start(index, &id, tool, true, sink);
                if done && self.calls.is_open(index) {
                    let input = match kind.as_str() {
                        "mcp_call" => string_of(arguments)?,
                        "web_search_call" => action.unwrap_or("{}").to_string(),
                        "code_interpreter_call" => format!("{{\"code\":{}}}", code.unwrap_or("null")),
                        "file_search_call" => format!("{{\"queries\":{}}}", queries.unwrap_or("[]")),
                        _ => String::new(),
                    };
                    if !input.is_empty() {
                        sink.tool_call_delta(index, &input);
                    }
                    self.calls.end(index, sink);
                    sink.tool_result(index, &id, tool, item);
                }
            }
            "local_shell_call" => {
                self.calls.start_if_new(index, &id, "local_shell", sink);
                if done && self.calls.is_open(index) {
                    sink.tool_call_delta(index, action.unwrap_or("{}"));
                }
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

/// Text as the inside of a JSON string literal (no quotes).
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    crate::json::write_json_escaped(text, &mut out);
    out
}
