//! Anthropic Messages streams (`event: <type>` + `data: {"type": ...}`).
//!
//! Routed: `message_start` (usage, the execution `container`), `content_block_start` (a
//! `tool_use` block starts a tool call, indexed by its content block index, with its
//! `caller` where it names one; a text block's initial text), `content_block_delta`
//! (`text_delta`, `thinking_delta` as reasoning, `input_json_delta` as tool arguments,
//! `citations_delta` as a source, `signature_delta` gathered for the block's end,
//! `compaction_delta` as compaction text), `content_block_stop` (ends a tool call; a thinking
//! block's whole signature goes out as a `thinking_signature` continuation, a compaction
//! block's opaque fields as a `compaction` one), `message_delta` (stop reason, `stop_details`,
//! `container` and cumulative usage), `message_stop`, `ping` and `error`. `server_tool_use`
//! and `mcp_tool_use` blocks are provider-executed calls, and each `*_tool_result` block is
//! the result of the call it names (`web_search_tool_result`'s results are sources too).
//! `redacted_thinking` and `container_upload` blocks are continuations of their own, a
//! `fallback` block is a model fallback. Blocks and a stop reason that `message_start`
//! already carries are routed as if they had streamed. A second `message_start` while a
//! message is open is a spliced stream: a `provider_error`, and nothing from it on is routed
//! (the same message started again is ignored). Unknown event types are ignored, as
//! Anthropic's versioning policy asks of clients. A content block event whose `index` is not
//! a whole number from 0 to 2^32 - 1 is a `provider_error` and is dropped. No content block
//! after a stop reason is routed, and nothing after `message_stop` is read (decoder.rs).
//! The `type` field of the data decides (the `event:` name is the same by the format).
//!
//! What waits for a block's end (a signature, a compaction block's fields) and the open
//! message's id are charged to the sink's budget while they are kept.

use super::common::read_error;
use super::delta::{DeltaSink, Source, Usage};
use super::jscan::{members, string_of, Json, Kind, R};
use super::tools::{event_index, OpenCalls};
use crate::budget::{try_boxed_str, try_push_str};
use crate::hash::Map;
use crate::json::Quoted;

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct Anthropic {
    calls: OpenCalls,
    /// Provider-executed calls by id (their position in `server_calls`), for their results.
    servers: crate::hash::Map<Box<str>, usize>,
    /// Each provider-executed call's index and tool name.
    server_calls: Vec<(u32, String)>,
    usage: Usage,
    /// The input tokens neither read from nor written to the cache, and those written: the
    /// usage's input is their sum with the cached ones.
    fresh: Option<u64>,
    written: Option<u64>,
    scratch: String,
    /// `message_stop` (or a stop reason) was seen.
    pub(crate) ended: bool,
    /// A stop reason came: content blocks after it are not routed (usage and errors still are).
    stopped: bool,
    /// `message_start` came (and `message_stop` not yet): the open message's id.
    message: Option<Kept>,
    /// The container last routed (its JSON text), so the same one is not routed twice.
    container: Kept,
    /// The block whose end routes a continuation.
    pending: Option<Pending>,
}

/// A content block whose end routes what it gathered.
#[derive(Debug)]
enum Pending {
    /// A thinking block and its signature so far (raw JSON string content, escapes kept).
    Thinking { index: u32, signature: Kept },
    /// A compaction block and its opaque fields (all but `type` and `content`) so far.
    Compaction { index: u32, fields: Fields },
}

/// What remembering one provider-executed call costs besides its id and name.
const SERVER_CALL_BYTES: usize = 48;
/// What keeping one opaque field costs besides its key and value.
const FIELD_BYTES: usize = 48;

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
                    self.message_start(msg, sink)?;
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
            "content_block_stop" => self.block_stop(index, sink),
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
                            match key {
                                "stop_reason" => {
                                    let mut reason = std::mem::take(&mut self.scratch);
                                    if let Some(r) = j.str_value(&mut reason)? {
                                        self.end_blocks(sink);
                                        sink.finish(r);
                                        self.stopped = true;
                                    }
                                    self.scratch = reason;
                                }
                                "stop_details" if j.kind()? == Kind::Object => sink.stop_details(j.value_raw()?),
                                "container" if j.kind()? == Kind::Object => self.container(j.value_raw()?, sink),
                                _ => j.skip()?,
                            }
                        }
                    }
                }
            }
            "message_stop" => {
                self.end_blocks(sink);
                if let Some(mut id) = self.message.take() {
                    id.clear(sink);
                }
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

    /// End of stream: open tool calls end. A block still waiting for its end was cut off: what
    /// it gathered (a part of a signature) is no token to send back, and is dropped.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        if let Some(p) = self.pending.take() {
            p.drop_kept(sink);
        }
        self.calls.end_all(sink);
    }

    /// Every block still open ends: the pending one's continuation, then the open calls.
    fn end_blocks(&mut self, sink: &mut dyn DeltaSink) {
        if let Some(p) = self.pending.take() {
            p.route(sink);
        }
        self.calls.end_all(sink);
    }

    fn message_start(&mut self, msg: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(msg);
        if j.kind()? != Kind::Object {
            return Ok(());
        }
        let [id] = members(msg, ["id"])?;
        let id = match id {
            Some(raw) if raw.starts_with('"') => Json::new(raw).string_raw()?,
            _ => "",
        };
        if let Some(open) = &self.message {
            if open.text() != id {
                // A spliced stream: the second message is not merged into the first.
                sink.error(
                    "provider_error",
                    &format!(
                        "message_start for message {} came while message {} was open: its content is ignored, and nothing after it is routed",
                        Quoted(id),
                        Quoted(open.text())
                    ),
                );
                if let Some(p) = self.pending.take() {
                    p.drop_kept(sink);
                }
                self.calls.abandon_all(sink);
                if let Some(mut open) = self.message.take() {
                    open.clear(sink);
                }
                self.ended = true;
            }
            return Ok(()); // the same message started again: nothing new
        }
        let mut kept = Kept::default();
        kept.push(id, "the open message's id", sink);
        self.message = Some(kept);
        let mut stop = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "usage" if j.kind()? == Kind::Object => {
                    self.read_usage(&mut j)?;
                    sink.usage(&self.usage);
                }
                "container" if j.kind()? == Kind::Object => self.container(j.value_raw()?, sink),
                // Blocks already complete (programmatic tool calling): each is routed whole,
                // numbered by its position.
                "content" if j.kind()? == Kind::Array => {
                    let mut a = j.array()?;
                    let mut position = 0u32;
                    while j.next_item(&mut a)? {
                        let block = j.value_raw()?;
                        self.block_start(block, position, sink)?;
                        self.block_stop(position, sink);
                        position = position.saturating_add(1);
                    }
                }
                "stop_reason" => stop = j.str_value(&mut self.scratch)?.map(|r| r.to_owned()),
                "stop_details" if j.kind()? == Kind::Object => sink.stop_details(j.value_raw()?),
                _ => j.skip()?,
            }
        }
        if let Some(r) = stop {
            self.end_blocks(sink);
            sink.finish(&r);
            self.stopped = true;
        }
        Ok(())
    }

    /// The execution container (`{id, expires_at, ...}` as sent), unless it is the one routed
    /// last.
    fn container(&mut self, raw: &str, sink: &mut dyn DeltaSink) {
        if self.container.text() != raw {
            self.container.clear(sink);
            self.container.push(raw, "the execution container", sink);
            sink.container(raw);
        }
    }

    /// Content block `index` ends: its pending continuation goes out, its call ends.
    fn block_stop(&mut self, index: u32, sink: &mut dyn DeltaSink) {
        if self.pending.as_ref().is_some_and(|p| p.index() == index) {
            if let Some(p) = self.pending.take() {
                p.route(sink);
            }
        }
        self.calls.end(index, sink);
    }

    /// Block `index` will route a continuation at its end (one pending at a time: an earlier
    /// one that never ended goes out first).
    fn pend(&mut self, p: Pending, sink: &mut dyn DeltaSink) {
        if let Some(old) = self.pending.replace(p) {
            old.route(sink);
        }
    }

    fn read_usage(&mut self, j: &mut Json<'_>) -> R<()> {
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            let v = match key {
                "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens" => j.u64_value()?,
                "output_tokens_details" if j.kind()? == Kind::Object => {
                    let mut d = j.object()?;
                    while let Some(k) = j.next_key(&mut d)? {
                        if k != "thinking_tokens" {
                            j.skip()?;
                        } else if let Some(n) = j.u64_value()? {
                            self.usage.reasoning_tokens = Some(n);
                        }
                    }
                    continue;
                }
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
                "input_tokens" => self.fresh = v,
                "output_tokens" => self.usage.output_tokens = v,
                "cache_creation_input_tokens" => self.written = v,
                _ => self.usage.cached_input_tokens = v,
            }
        }
        let u = &mut self.usage;
        u.input_tokens = super::common::input_total(self.fresh, u.cached_input_tokens, self.written);
        u.sum_total();
        Ok(())
    }

    fn block_start(&mut self, block: &str, index: u32, sink: &mut dyn DeltaSink) -> R<()> {
        let [kind, id, name, text, thinking, input, tool_use_id, content, caller, signature] =
            members(block, ["type", "id", "name", "text", "thinking", "input", "tool_use_id", "content", "caller", "signature"])?;
        let (kind, id, name) = (string_of(kind)?, string_of(id)?, string_of(name)?);
        let text = string_of(text.or(thinking))?;
        if kind.ends_with("_tool_result") {
            // The result of a provider-executed call (web search, web fetch, code execution,
            // bash and text editor code execution, tool search, advisor, MCP): web search
            // results are sources too.
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
                            sink.source(&Source {
                                id: None,
                                url: Some(url),
                                title: Some(title).filter(|t| !t.is_empty()),
                                snippet: None,
                            });
                        }
                    }
                }
            }
            sink.tool_result(call, &tool_use_id, &tool, content.unwrap_or("null"));
            return Ok(());
        }
        // `{type: "direct"}`, `{type: "code_execution_20250825", tool_id}`, ...: who called.
        let caller = caller.filter(|c| c.starts_with('{'));
        match kind.as_str() {
            "server_tool_use" | "mcp_tool_use" => {
                // Remembered until the stream ends, charged to the sink's budget (a hash entry
                // and the id and name).
                if !self.servers.contains_key(id.as_str())
                    && sink.retain(SERVER_CALL_BYTES + id.len() + name.len(), "the provider-executed calls")
                {
                    self.servers.insert(id.as_str().into(), self.server_calls.len());
                    self.server_calls.push((index, name.clone()));
                }
                self.calls.start_by(index, &id, &name, true, caller, sink);
                if let Some(input) = input.map(str::trim).filter(|i| !i.is_empty() && *i != "{}") {
                    sink.tool_call_delta(index, input);
                }
            }
            "tool_use" => {
                self.calls.start_by(index, &id, &name, false, caller, sink);
                // The start block carries `input: {}`; a non-empty one is the whole input.
                if let Some(input) = input.map(str::trim).filter(|i| !i.is_empty() && *i != "{}") {
                    sink.tool_call_delta(index, input);
                }
            }
            "text" if !text.is_empty() => sink.text(&text),
            "thinking" => {
                let mut kept = Kept::default();
                if let Some(mut j) = signature.map(Json::new) {
                    if j.kind()? == Kind::String {
                        kept.push(j.string_raw()?, "a thinking block's signature", sink);
                    }
                }
                self.pend(Pending::Thinking { index, signature: kept }, sink);
                if !text.is_empty() {
                    sink.reasoning(&text);
                }
            }
            "compaction" => {
                let mut fields = Fields::default();
                fields.read(block, sink)?;
                self.pend(Pending::Compaction { index, fields }, sink);
                if let Some(mut j) = content.map(Json::new) {
                    if let Some(t) = j.str_value(&mut self.scratch)? {
                        sink.compaction(t);
                    }
                }
            }
            // Complete as they start: continuations of their own.
            "redacted_thinking" | "container_upload" => sink.continuation(&kind, &without_type(block)?),
            "fallback" => {
                let [from, to] = members(block, ["from", "to"])?;
                sink.model_fallback(from.unwrap_or("null"), to.unwrap_or("null"));
            }
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
                "text" | "thinking" | "partial_json" | "signature" | "content" if j.kind()? == Kind::String => {
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
        if kind == "compaction_delta" {
            // Its opaque fields replace the block's; `content` is more compaction text.
            if let Some(Pending::Compaction { index: at, fields }) = &mut self.pending {
                if *at == index {
                    fields.read(delta, sink)?;
                }
            }
        }
        let Some((field, raw)) = payload else { return Ok(()) };
        let wanted = match kind.as_str() {
            "text_delta" => "text",
            "thinking_delta" => "thinking",
            "input_json_delta" => "partial_json",
            "signature_delta" => "signature",
            "compaction_delta" => "content",
            _ => return Ok(()),
        };
        if field != wanted {
            return Ok(());
        }
        let mut j = Json::new(raw);
        if kind == "signature_delta" {
            // Signatures belong to thinking blocks only; kept as sent until the block ends.
            if let Some(Pending::Thinking { index: at, signature }) = &mut self.pending {
                if *at == index {
                    signature.push(j.string_raw()?, "a thinking block's signature", sink);
                }
            }
            return Ok(());
        }
        let Some(t) = j.str_value(&mut self.scratch)? else { return Ok(()) };
        if t.is_empty() {
            return Ok(());
        }
        match kind.as_str() {
            "text_delta" => sink.text(t),
            "thinking_delta" => sink.reasoning(t),
            "compaction_delta" => sink.compaction(t),
            _ if self.calls.is_open(index) => sink.tool_call_delta(index, t),
            _ => {}
        }
        Ok(())
    }
}

impl Pending {
    fn index(&self) -> u32 {
        match self {
            Pending::Thinking { index, .. } | Pending::Compaction { index, .. } => *index,
        }
    }

    /// The block ended: its continuation goes out (when it gathered anything), and what it
    /// kept is let go.
    fn route(self, sink: &mut dyn DeltaSink) {
        match self {
            Pending::Thinking { mut signature, .. } => {
                if !signature.text().is_empty() {
                    let json = format!("{{\"signature\":\"{}\"}}", signature.text());
                    sink.continuation("thinking_signature", &json);
                }
                signature.clear(sink);
            }
            Pending::Compaction { mut fields, .. } => {
                if !fields.order.is_empty() {
                    let mut json = String::from("{");
                    for (k, (key, value)) in fields.order.iter().enumerate() {
                        if k > 0 {
                            json.push(',');
                        }
                        json.push('"');
                        json.push_str(key);
                        json.push_str("\":");
                        json.push_str(value);
                    }
                    json.push('}');
                    sink.continuation("compaction", &json);
                }
                fields.clear(sink);
            }
        }
    }

    /// The block will never end (the stream was cut or spliced): what it kept is let go.
    fn drop_kept(self, sink: &mut dyn DeltaSink) {
        match self {
            Pending::Thinking { mut signature, .. } => signature.clear(sink),
            Pending::Compaction { mut fields, .. } => fields.clear(sink),
        }
    }
}

/// Text a reader keeps between events, charged to the sink's budget while it is kept. When
/// the budget (the sink has then failed) or memory refuses more, nothing is kept from then on.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    text: String,
    refused: bool,
}

impl Kept {
    /// Appends `more` (`what` names it for the budget's error).
    pub(crate) fn push(&mut self, more: &str, what: &str, sink: &mut dyn DeltaSink) {
        if self.refused || more.is_empty() {
            return;
        }
        if !sink.retain(more.len(), what) {
            self.refuse(sink);
            return;
        }
        if try_push_str(&mut self.text, more).is_err() {
            sink.release(more.len());
            self.refuse(sink);
            sink.error("memory_limit_exceeded", &format!("out of memory keeping {what}"));
        }
    }

    /// What is kept.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Lets what is kept go; more may be kept again.
    pub(crate) fn clear(&mut self, sink: &mut dyn DeltaSink) {
        sink.release(self.text.len());
        self.text = String::new();
        self.refused = false;
    }

    fn refuse(&mut self, sink: &mut dyn DeltaSink) {
        sink.release(self.text.len());
        self.text = String::new();
        self.refused = true;
    }
}

/// A block's opaque fields (raw key and raw JSON value, in first-seen order; a later value of
/// a key replaces the earlier one), charged to the sink's budget.
#[derive(Debug, Default)]
struct Fields {
    order: Vec<(Box<str>, Box<str>)>,
    at: Map<Box<str>, usize>,
    kept: usize,
    refused: bool,
}

impl Fields {
    /// Reads the members of object `raw` other than `type` and `content` that are not `null`.
    fn read(&mut self, raw: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(raw);
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            if matches!(key, "type" | "content") || j.kind()? == Kind::Null {
                j.skip()?;
                continue;
            }
            let value = j.value_raw()?;
            if self.refused {
                continue;
            }
            let old = self.at.get(key).map(|&k| (k, self.order[k].1.len()));
            let cost = match old {
                Some(_) => value.len(),
                None => FIELD_BYTES + key.len() + value.len(),
            };
            if !sink.retain(cost, "a compaction block's fields") {
                self.refuse(sink);
                continue;
            }
            self.kept += cost;
            let copied = match try_boxed_str(value) {
                Ok(v) => v,
                Err(_) => {
                    self.refuse(sink);
                    sink.error("memory_limit_exceeded", "out of memory keeping a compaction block's fields");
                    continue;
                }
            };
            match old {
                Some((k, len)) => {
                    sink.release(len);
                    self.kept -= len;
                    self.order[k].1 = copied;
                }
                None => {
                    self.at.insert(key.into(), self.order.len());
                    self.order.push((key.into(), copied));
                }
            }
        }
        Ok(())
    }

    fn refuse(&mut self, sink: &mut dyn DeltaSink) {
        self.clear(sink);
        self.refused = true;
    }

    fn clear(&mut self, sink: &mut dyn DeltaSink) {
        sink.release(self.kept);
        *self = Fields::default();
    }
}

/// The members of object `raw` but `type`, as a JSON object text.
fn without_type(raw: &str) -> R<String> {
    let mut out = String::from("{");
    let mut j = Json::new(raw);
    let mut m = j.object()?;
    while let Some(key) = j.next_key(&mut m)? {
        if key == "type" {
            j.skip()?;
            continue;
        }
        if out.len() > 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        out.push_str(j.value_raw()?);
    }
    out.push('}');
    Ok(out)
}
