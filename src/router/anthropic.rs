//! Anthropic Messages streams (`event: <type>` + `data: {"type": ...}`).
//!
//! Routed: `message_start` (usage), `content_block_start` (a `tool_use` block starts a tool
//! call, indexed by its content block index; a text block's initial text), `content_block_delta`
//! (`text_delta`, `thinking_delta` as reasoning, `input_json_delta` as tool arguments,
//! `citations_delta` as a source; `signature_delta` is dropped), `content_block_stop` (ends a
//! tool call), `message_delta` (stop reason and cumulative usage), `message_stop`, `ping` and
//! `error`. `server_tool_use` and `mcp_tool_use` blocks are provider-executed calls, and each
//! `*_tool_result` block is the result of the call it names (`web_search_tool_result`'s
//! results are sources too). Blocks and a stop reason that `message_start` already carries
//! are routed as if they had streamed. Unknown event types are ignored, as Anthropic's
//! versioning policy asks of clients. A content block event whose `index` is not a whole
//! number from 0 to 2^32 - 1 is a `provider_error` and is dropped. No content block after a
//! stop reason is routed, and nothing after `message_stop` is read (decoder.rs).
//! The `type` field of the data decides (the `event:` name is the same by the format).

use super::delta::{DeltaSink, Source, Usage};
use super::jscan::{members, string_of, Json, Kind, R};
use super::openai_chat::read_error;
use super::tools::{event_index, OpenCalls};

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct Anthropic {
    calls: OpenCalls,
    /// Provider-executed calls by id (their position in `server_calls`), for their results.
    servers: crate::hash::Map<Box<str>, usize>,
    /// Each provider-executed call's index and tool name.
    server_calls: Vec<(u32, String)>,
    usage: Usage,
    scratch: String,
    /// `message_stop` (or a stop reason) was seen.
    pub(crate) ended: bool,
    /// A stop reason came: content blocks after it are not routed (usage and errors still are).
    stopped: bool,
}

/// What remembering one provider-executed call costs besides its id and name.
const SERVER_CALL_BYTES: usize = 48;

impl Anthropic {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, index, delta, block, usage, message, error] =
            members(data, ["type", "index", "delta", "content_block", "usage", "message", "error"])?;
        let kind = string_of(kind)?;
        let block_event = matches!(kind.as_str(), "content_block_start" | "content_block_delta" | "content_block_stop");
        if block_event && self.stopped {
            return Ok(());
        }
        let Some(index) = event_index(index, block_event, sink) else { return Ok(()) };
        match kind.as_str() {
            "message_start" => {
                if let Some(msg) = message {
                    let mut j = Json::new(msg);
                    if j.kind()? == Kind::Object {
                        let mut stop = None;
                        let mut m = j.object()?;
                        while let Some(key) = j.next_key(&mut m)? {
                            match key {
                                "usage" if j.kind()? == Kind::Object => {
                                    self.read_usage(&mut j)?;
                                    sink.usage(&self.usage);
                                }
                                // Blocks already complete (programmatic tool calling): each
                                // is routed whole, numbered by its position.
                                "content" if j.kind()? == Kind::Array => {
                                    let mut a = j.array()?;
                                    let mut position = 0u32;
                                    while j.next_item(&mut a)? {
                                        let block = j.value_raw()?;
                                        self.block_start(block, position, sink)?;
                                        self.calls.end(position, sink);
                                        position = position.saturating_add(1);
                                    }
                                }
                                "stop_reason" => stop = j.str_value(&mut self.scratch)?.map(|r| r.to_owned()),
                                _ => j.skip()?,
                            }
                        }
                        if let Some(r) = stop {
                            self.calls.end_all(sink);
                            sink.finish(&r);
                            self.stopped = true;
                        }
                    }
                }
            }
            "content_block_start" => {
                if let Some(block) = block {
                    self.block_start(block, index, sink)?;
                }
            }
            "content_block_delta" => {
                if let Some(delta) = delta {
                    self.block_delta(delta, index, sink)?;
                }
            }
            "content_block_stop" => self.calls.end(index, sink),
            "message_delta" => {
                if let Some(usage) = usage {
                    let mut j = Json::new(usage);
                    if j.kind()? == Kind::Object {
                        self.read_usage(&mut j)?;
                        sink.usage(&self.usage);
                    }
                }
                if let Some(delta) = delta {
                    let mut j = Json::new(delta);
                    if j.kind()? == Kind::Object {
                        let mut m = j.object()?;
                        while let Some(key) = j.next_key(&mut m)? {
                            if key == "stop_reason" {
                                if let Some(r) = j.str_value(&mut self.scratch)? {
                                    self.calls.end_all(sink);
                                    sink.finish(r);
                                    self.stopped = true;
                                }
                            } else {
                                j.skip()?;
                            }
                        }
                    }
                }
            }
            "message_stop" => {
                self.calls.end_all(sink);
                self.ended = true;
            }
            "error" => {
                let (code, message) = match error {
                    Some(e) => {
                        let mut j = Json::new(e);
                        if j.kind()? == Kind::Object {
                            read_error(&mut j, &mut self.scratch)?
                        } else {
                            ("provider_error".to_string(), e.to_string())
                        }
                    }
                    None => ("provider_error".to_string(), String::new()),
                };
                sink.error(&code, &message);
            }
            _ => {} // ping, and types added after this was written
        }
        Ok(())
    }

    /// End of stream: open tool calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        self.calls.end_all(sink);
    }

    fn read_usage(&mut self, j: &mut Json<'_>) -> R<()> {
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            let v = match key {
                "input_tokens" | "output_tokens" | "cache_read_input_tokens" => j.u64_value()?,
                _ => {
                    j.skip()?;
                    continue;
                }
            };
            // `message_delta` counts are cumulative; a missing one keeps the earlier value.
            if v.is_none() {
                continue;
            }
            match key {
                "input_tokens" => self.usage.input_tokens = v,
                "output_tokens" => self.usage.output_tokens = v,
                _ => self.usage.cached_input_tokens = v,
            }
        }
        self.usage.total_tokens = match (self.usage.input_tokens, self.usage.output_tokens) {
            (Some(i), Some(o)) => Some(i.saturating_add(o)),
            _ => None,
        };
        Ok(())
    }

    fn block_start(&mut self, block: &str, index: u32, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, id, name, text, thinking, input, tool_use_id, content] =
            members(block, ["type", "id", "name", "text", "thinking", "input", "tool_use_id", "content"])?;
        let (kind, id, name) = (string_of(kind)?, string_of(id)?, string_of(name)?);
        let text = string_of(text.or(thinking))?;
        if kind.ends_with("_tool_result") {
            // The result of a provider-executed call (web search, web fetch, code execution,
            // MCP): web search results are sources too.
            let tool_use_id = string_of(tool_use_id)?;
            let found = self.servers.get(tool_use_id.as_str()).map(|&at| self.server_calls[at].clone());
            let (call, tool) = found.unwrap_or((index, kind.strip_suffix("_tool_result").unwrap_or(&kind).to_string()));
            if kind == "web_search_tool_result" {
                if let Some(content) = content.filter(|c| c.starts_with('[')) {
                    let mut j = Json::new(content);
                    let mut a = j.array()?;
                    while j.next_item(&mut a)? {
                        let [url, title] = members(j.value_raw()?, ["url", "title"])?;
                        let (url, title) = (string_of(url)?, string_of(title)?);
                        if !url.is_empty() {
                            sink.source(&Source { id: None, url: Some(url), title: Some(title).filter(|t| !t.is_empty()), snippet: None });
                        }
                    }
                }
            }
            sink.tool_result(call, &tool_use_id, &tool, content.unwrap_or("null"));
            return Ok(());
        }
        match kind.as_str() {
            "server_tool_use" | "mcp_tool_use" => {
                // Remembered until the stream ends, charged to the sink's budget (a hash entry
                // and the id and name).
                if !self.servers.contains_key(id.as_str()) && sink.retain(SERVER_CALL_BYTES + id.len() + name.len(), "the provider-executed calls") {
                    self.servers.insert(id.as_str().into(), self.server_calls.len());
                    self.server_calls.push((index, name.clone()));
                }
                self.calls.start(index, &id, &name, true, sink);
                if let Some(input) = input.map(str::trim).filter(|i| !i.is_empty() && *i != "{}") {
                    sink.tool_call_delta(index, input);
                }
            }
            "tool_use" => {
                self.calls.start_if_new(index, &id, &name, sink);
                // The start block carries `input: {}`; a non-empty one is the whole input.
                if let Some(input) = input.map(str::trim).filter(|i| !i.is_empty() && *i != "{}") {
                    sink.tool_call_delta(index, input);
                }
            }
            "text" if !text.is_empty() => sink.text(&text),
            "thinking" if !text.is_empty() => sink.reasoning(&text),
            _ => {}
        }
        Ok(())
    }

    fn block_delta(&mut self, delta: &str, index: u32, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(delta);
        if j.kind()? != Kind::Object {
            return Ok(());
        }
        // `type` comes first in practice; the payload is kept raw until it is known.
        let mut kind = String::new();
        let mut payload: Option<(&str, &str)> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "type" => {
                    j.string_into(&mut kind)?;
                }
                "text" | "thinking" | "partial_json" if j.kind()? == Kind::String => {
                    payload = Some((key, j.value_raw()?));
                }
                "citation" if j.kind()? == Kind::Object => {
                    let [url, title, document_title, cited_text] =
                        members(j.value_raw()?, ["url", "title", "document_title", "cited_text"])?;
                    let title = string_of(title.or(document_title))?;
                    let source = Source {
                        id: None,
                        url: Some(string_of(url)?).filter(|u| !u.is_empty()),
                        title: Some(title).filter(|t| !t.is_empty()),
                        snippet: Some(string_of(cited_text)?).filter(|t| !t.is_empty()),
                    };
                    sink.source(&source);
                }
                _ => j.skip()?,
            }
        }
        let Some((field, raw)) = payload else { return Ok(()) };
        let wanted = match kind.as_str() {
            "text_delta" => "text",
            "thinking_delta" => "thinking",
            "input_json_delta" => "partial_json",
            _ => return Ok(()),
        };
        if field != wanted {
            return Ok(());
        }
        let mut j = Json::new(raw);
        let Some(t) = j.str_value(&mut self.scratch)? else { return Ok(()) };
        if t.is_empty() {
            return Ok(());
        }
        match kind.as_str() {
            "text_delta" => sink.text(t),
            "thinking_delta" => sink.reasoning(t),
            _ if self.calls.is_open(index) => sink.tool_call_delta(index, t),
            _ => {}
        }
        Ok(())
    }
}
