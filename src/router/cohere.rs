//! Cohere v2 chat streams (`/v2/chat` with `stream: true`): one JSON object per SSE event,
//! its kind in `type` (and, from some servers, in the `event:` line as well).
//!
//! Read per event, on known paths under `delta.message`:
//! - `content-start` / `content-delta`: `content.text` is text, `content.thinking` reasoning;
//! - `tool-plan-delta`: `tool_plan`, the model's plan before its tool calls, is reasoning;
//! - `tool-call-start` (`tool_calls.id`, `tool_calls.function.name`, any first
//!   `function.arguments`), `tool-call-delta` (`function.arguments`), `tool-call-end`: client
//!   tool calls keyed by the event's `index`;
//! - `citation-start`: `citations.sources[]`, each document source as a source (its `id`, the
//!   document's `title`, `url` and `snippet` or `text`); tool sources cite no document and
//!   are skipped;
//! - `message-end`: `delta.error` (an error), `delta.usage` (`tokens.input_tokens`,
//!   `tokens.output_tokens`, `cached_tokens`; `billed_units` count something else and are
//!   not read) and `delta.finish_reason`. It is the stream's end marker.
//!
//! `message-start`, `content-end`, `citation-end` and `debug` carry nothing routed. An event
//! whose `type` is none of these is skipped.

use super::common::emit_string;
use super::delta::{DeltaSink, Source, Usage};
use super::jscan::{members, string_of, Json, Kind, R};
use super::tools::{event_index, OpenCalls};

/// The event kinds of a Cohere v2 chat stream.
pub(crate) const COHERE_EVENTS: [&str; 12] = [
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
    "debug",
];

/// The reader state.
#[derive(Debug, Default)]
pub(crate) struct Cohere {
    calls: OpenCalls,
    scratch: String,
    /// `message-end` was seen.
    pub(crate) ended: bool,
}

impl Cohere {
    /// One SSE event: its `event:` name (empty when the line was left out) and its data.
    pub(crate) fn event(&mut self, event: &str, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(data);
        let mut kind = String::new();
        let mut index: Option<&str> = None;
        let mut delta: Option<(usize, &str)> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "type" if j.kind()? == Kind::String => {
                    j.string_into(&mut kind)?;
                }
                "index" => index = Some(j.value_raw()?),
                "delta" if j.kind()? == Kind::Object => delta = Some((j.pos(), j.value_raw()?)),
                _ => j.skip()?,
            }
        }
        j.end()?;
        let kind = if kind.is_empty() { event } else { kind.as_str() };
        let Some((at, delta)) = delta else {
            if kind == "tool-call-end" {
                if let Some(i) = event_index(index, true, sink) {
                    self.calls.end(i, sink);
                }
            }
            return Ok(());
        };
        self.delta(kind, index, delta, sink).map_err(|b| b.shifted(at))
    }

    /// End of stream: open tool calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        self.calls.end_all(sink);
    }

    /// The `delta` object of an event of `kind`.
    fn delta(&mut self, kind: &str, index: Option<&str>, delta: &str, sink: &mut dyn DeltaSink) -> R<()> {
        if kind == "message-end" {
            return self.message_end(delta, sink);
        }
        let [message] = members(delta, ["message"])?;
        let Some(message) = message.filter(|m| m.starts_with('{')) else { return Ok(()) };
        match kind {
            "content-start" | "content-delta" => {
                let [content] = members(message, ["content"])?;
                if let Some(content) = content.filter(|c| c.starts_with('{')) {
                    let mut c = Json::new(content);
                    let mut m = c.object()?;
                    while let Some(k) = c.next_key(&mut m)? {
                        match k {
                            "text" | "thinking" => emit_string(&mut c, &mut self.scratch, k == "thinking", sink)?,
                            _ => c.skip()?,
                        }
                    }
                }
            }
            "tool-plan-delta" => {
                let [plan] = members(message, ["tool_plan"])?;
                if let Some(plan) = plan {
                    emit_string(&mut Json::new(plan), &mut self.scratch, true, sink)?;
                }
            }
            "tool-call-start" | "tool-call-delta" | "tool-call-end" => {
                let Some(i) = event_index(index, true, sink) else { return Ok(()) };
                let [call] = members(message, ["tool_calls"])?;
                let (id, name, args) = match call.filter(|c| c.starts_with('{')) {
                    Some(call) => {
                        let [id, function] = members(call, ["id", "function"])?;
                        let (name, args) = match function.filter(|f| f.starts_with('{')) {
                            Some(f) => {
                                let [name, args] = members(f, ["name", "arguments"])?;
                                (string_of(name)?, string_of(args)?)
                            }
                            None => (String::new(), String::new()),
                        };
                        (string_of(id)?, name, args)
                    }
                    None => (String::new(), String::new(), String::new()),
                };
                if kind == "tool-call-start" {
                    self.calls.start_if_new(i, &id, &name, sink);
                }
                if !args.is_empty() && self.calls.is_open(i) {
                    sink.tool_call_delta(i, &args);
                }
                if kind == "tool-call-end" {
                    self.calls.end(i, sink);
                }
            }
            "citation-start" => {
                let [citation] = members(message, ["citations"])?;
                if let Some(citation) = citation.filter(|c| c.starts_with('{')) {
                    let [sources] = members(citation, ["sources"])?;
                    if let Some(sources) = sources.filter(|s| s.starts_with('[')) {
                        let mut a = Json::new(sources);
                        let mut items = a.array()?;
                        while a.next_item(&mut items)? {
                            let item = a.value_raw()?;
                            if item.starts_with('{') {
                                document_source(item, sink)?;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `message-end`'s delta: an error, the usage, the finish reason.
    fn message_end(&mut self, delta: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let [error, reason, usage] = members(delta, ["error", "finish_reason", "usage"])?;
        let error = string_of(error)?;
        if !error.is_empty() {
            sink.error("provider_error", &error);
        }
        if let Some(usage) = usage.filter(|u| u.starts_with('{')) {
            let [tokens, cached] = members(usage, ["tokens", "cached_tokens"])?;
            let mut u = Usage { cached_input_tokens: cached.and_then(|c| c.parse().ok()), ..Usage::default() };
            if let Some(tokens) = tokens.filter(|t| t.starts_with('{')) {
                let [input, output] = members(tokens, ["input_tokens", "output_tokens"])?;
                u.input_tokens = input.and_then(|c| c.parse().ok());
                u.output_tokens = output.and_then(|c| c.parse().ok());
            }
            u.sum_total();
            if !u.is_empty() {
                sink.usage(&u);
            }
        }
        self.calls.end_all(sink);
        let reason = string_of(reason)?;
        sink.finish(if reason.is_empty() { "COMPLETE" } else { &reason });
        self.ended = true;
        Ok(())
    }
}

/// A citation source `{type: "document", id, document: {id?, title?, url?, snippet?, text?}}`
/// as a source; a tool source (`tool_output`, no document) is skipped.
fn document_source(raw: &str, sink: &mut dyn DeltaSink) -> R<()> {
    let [id, document] = members(raw, ["id", "document"])?;
    let Some(document) = document.filter(|d| d.starts_with('{')) else { return Ok(()) };
    let [doc_id, title, url, snippet, text] = members(document, ["id", "title", "url", "snippet", "text"])?;
    let id = Some(string_of(id)?).filter(|i| !i.is_empty());
    let id = match id {
        Some(id) => Some(id),
        None => Some(string_of(doc_id)?).filter(|i| !i.is_empty()),
    };
    let snippet = Some(string_of(snippet)?).filter(|s| !s.is_empty());
    let snippet = match snippet {
        Some(s) => Some(s),
        None => Some(string_of(text)?).filter(|s| !s.is_empty()),
    };
    let source = Source {
        id,
        url: Some(string_of(url)?).filter(|u| !u.is_empty()),
        title: Some(string_of(title)?).filter(|t| !t.is_empty()),
        snippet,
    };
    if source.id.is_some() || source.url.is_some() || source.title.is_some() {
        sink.source(&source);
    }
    Ok(())
}
