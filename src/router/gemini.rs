//! Gemini `streamGenerateContent?alt=sse` streams (one `GenerateContentResponse` per event,
//! CRLF framing).
//!
//! Routed: `candidates[0].content.parts[]` (`text`, as reasoning when the part has
//! `"thought": true`; a `functionCall {name, args, id?}` is a whole tool call: start, its
//! `args` as JSON text, end; calls are numbered in stream order; `executableCode` /
//! `codeExecutionResult` and the built-in tools' `toolCall {toolType, args, id}` /
//! `toolResponse {toolType, response, id}` are provider-executed calls and their results; a
//! part's `thoughtSignature` is a `thought_signature` continuation after the part's events,
//! with the call's `index` or the `part` it signs), `candidates[0].finishReason` and
//! `finishMessage`, `usageMetadata`, `promptFeedback.blockReason` (a finish reason) and a
//! top-level `error`. After a finish reason no candidate content is routed; usage and errors
//! still are.

use super::common::{emit_counts, emit_error, Count};
use super::delta::{DeltaSink, Source};
use super::jscan::{members, string_of, Json, Kind, R};
use super::jsonpath::{PathArgs, Refused};
use super::tools::OpenCalls;
use crate::json::JsonValue;

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct Gemini {
    calls: OpenCalls,
    next_call: u32,
    scratch: String,
    text: String,
    /// A finish reason came: later candidates are not routed (usage and errors still are).
    finished: bool,
    /// The function call whose arguments are streaming (`partialArgs`, `willContinue`).
    streaming: Option<StreamingCall>,
    /// The last `executableCode` call (index, id), which a `codeExecutionResult` answers.
    code_call: Option<(u32, String)>,
    /// Built-in tool calls (`toolCall`) by id: their index and tool type, for the
    /// `toolResponse` that answers them. Kept until the stream ends, charged to the sink.
    servers: crate::hash::Map<Box<str>, (u32, Box<str>)>,
    /// The last built-in tool call (id, index, tool type): a `toolResponse` whose id matches
    /// none answers it.
    last_server: Option<(String, u32, String)>,
}

/// What remembering one built-in tool call costs besides its id and tool type (a hash entry).
const SERVER_CALL_BYTES: usize = 48;

/// A function call whose arguments arrive as `partialArgs` over several parts.
#[derive(Debug)]
struct StreamingCall {
    index: u32,
    /// `None`: the call was given up (its arguments could not be assembled); its later parts
    /// are skipped.
    args: Option<PathArgs>,
}

/// Finish reasons that mean a safety or policy filter stopped the output: typed errors.
const BLOCKED: [&str; 7] =
    ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT"];

impl Gemini {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(data);
        let mut finish: Option<String> = None;
        let mut prompt_blocked = false;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "candidates" if !self.finished && j.kind()? == Kind::Array => {
                    j.first_item(|j| self.candidate(j, &mut finish, sink))?;
                }
                "usageMetadata" if j.kind()? == Kind::Object => emit_counts(&mut j, &GEMINI_COUNTS, sink)?,
                "promptFeedback" if j.kind()? == Kind::Object => {
                    let mut p = j.object()?;
                    while let Some(k) = j.next_key(&mut p)? {
                        if k == "blockReason" {
                            if let Some(r) = j.str_value(&mut self.scratch)? {
                                sink.error(r, &format!("the prompt was blocked ({r})"));
                                prompt_blocked = true;
                                finish = Some(r.to_owned());
                            }
                        } else {
                            j.skip()?;
                        }
                    }
                }
                "error" if j.kind()? == Kind::Object => emit_error(&mut j, &mut self.scratch, sink)?,
                _ => j.skip()?,
            }
        }
        j.end()?;
        if let Some(r) = finish.as_deref().filter(|r| BLOCKED.contains(r) && !prompt_blocked) {
            sink.error(r, &format!("the response was blocked ({r})"));
        }
        if finish.is_some() {
            self.end_streaming(sink);
        }
        self.finished |= self.calls.finish(finish, sink);
        Ok(())
    }

    /// The streaming call (if any) is complete: its arguments go out whole, and it ends.
    fn end_streaming(&mut self, sink: &mut dyn DeltaSink) {
        if let Some(StreamingCall { index, args: Some(args) }) = self.streaming.take() {
            let text = args.finish(sink);
            sink.tool_call_delta(index, &text);
            self.calls.end(index, sink);
        }
    }

    /// `groundingMetadata.groundingChunks[]`: `{web | retrievedContext: {uri, title}}` as sources.
    fn grounding(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        let mut m = j.object()?;
        while let Some(k) = j.next_key(&mut m)? {
            if k != "groundingChunks" || j.kind()? != Kind::Array {
                j.skip()?;
                continue;
            }
            let mut a = j.array()?;
            while j.next_item(&mut a)? {
                let [web, retrieved] = members(j.value_raw()?, ["web", "retrievedContext"])?;
                if let Some(chunk) = web.or(retrieved) {
                    let [uri, title, text] = members(chunk, ["uri", "title", "text"])?;
                    let source = Source {
                        id: None,
                        url: Some(string_of(uri)?).filter(|u| !u.is_empty()),
                        title: Some(string_of(title)?).filter(|t| !t.is_empty()),
                        snippet: Some(string_of(text)?).filter(|t| !t.is_empty()),
                    };
                    if source.url.is_some() || source.title.is_some() {
                        sink.source(&source);
                    }
                }
            }
        }
        Ok(())
    }

    fn candidate(&mut self, j: &mut Json<'_>, finish: &mut Option<String>, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "content" if j.kind()? == Kind::Object => {
                    let mut c = j.object()?;
                    while let Some(k) = j.next_key(&mut c)? {
                        if k == "parts" && j.kind()? == Kind::Array {
                            let mut a = j.array()?;
                            while j.next_item(&mut a)? {
                                self.part(j, sink)?;
                            }
                        } else {
                            j.skip()?;
                        }
                    }
                }
                "groundingMetadata" if j.kind()? == Kind::Object => self.grounding(j, sink)?,
                "finishReason" => {
                    if let Some(r) = j.str_value(&mut self.scratch)? {
                        *finish = Some(r.to_owned());
                    }
                }
                "finishMessage" => {
                    if let Some(m) = j.str_value(&mut self.scratch)?.filter(|m| !m.is_empty()) {
                        sink.finish_message(m);
                    }
                }
                _ => j.skip()?,
            }
        }
        Ok(())
    }

    fn part(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        // `thought: true` may come after the text, so the text is held until the part ends.
        self.text.clear();
        let mut thought = false;
        let mut call: Option<&str> = None;
        let (mut server_call, mut server_response): (Option<&str>, Option<&str>) = (None, None);
        let mut signature: Option<&str> = None;
        // The routed tool call the part is (its signature names it).
        let mut signed_call: Option<u32> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "text" if j.kind()? == Kind::String => {
                    j.string_into(&mut self.text)?;
                }
                "thought" => thought = j.bool_value()?,
                "thoughtSignature" if j.kind()? == Kind::String => signature = Some(j.value_raw()?),
                "functionCall" if j.kind()? == Kind::Object => call = Some(j.value_raw()?),
                "toolCall" if j.kind()? == Kind::Object => server_call = Some(j.value_raw()?),
                "toolResponse" if j.kind()? == Kind::Object => server_response = Some(j.value_raw()?),
                // Code the model ran (code execution): a provider-executed call, then its result.
                "executableCode" if j.kind()? == Kind::Object => {
                    let code = j.value_raw()?;
                    let index = self.next_call;
                    self.next_call = self.next_call.saturating_add(1);
                    let id = format!("code_{index}");
                    self.calls.start(index, &id, "code_execution", true, sink);
                    sink.tool_call_delta(index, code);
                    self.calls.end(index, sink);
                    self.code_call = Some((index, id));
                    signed_call = Some(index);
                }
                "codeExecutionResult" if j.kind()? == Kind::Object => {
                    let result = j.value_raw()?;
                    if let Some((index, id)) = self.code_call.take() {
                        sink.tool_result(index, &id, "code_execution", result);
                        signed_call = Some(index);
                    }
                }
                _ => j.skip()?,
            }
        }
        if let Some(call) = call {
            signed_call = Some(self.function_call(call, sink)?);
        }
        if let Some(raw) = server_call {
            signed_call = Some(self.server_call(raw, sink)?);
        }
        if let Some(raw) = server_response {
            signed_call = Some(self.server_response(raw, sink)?);
        }
        if !self.text.is_empty() {
            if thought {
                sink.reasoning(&self.text);
            } else {
                sink.text(&self.text);
            }
        }
        // The signature as sent (its JSON string text), after what it signs.
        if let Some(signature) = signature {
            let fields = match signed_call {
                Some(index) => format!(r#"{{"thoughtSignature":{signature},"index":{index}}}"#),
                None => format!(r#"{{"thoughtSignature":{signature},"part":"{}"}}"#, if thought { "thought" } else { "text" }),
            };
            sink.continuation("thought_signature", &fields);
        }
        Ok(())
    }

    /// A built-in tool's `toolCall {toolType, args, id}`: a whole provider-executed call
    /// named by its tool type. Returns its index.
    fn server_call(&mut self, raw: &str, sink: &mut dyn DeltaSink) -> R<u32> {
        let [tool_type, args, id] = members(raw, ["toolType", "args", "id"])?;
        let (tool_type, id) = (string_of(tool_type)?, string_of(id)?);
        let index = self.next_call;
        self.next_call = self.next_call.saturating_add(1);
        let id = if id.is_empty() { format!("call_{index}") } else { id };
        self.calls.start(index, &id, &tool_type, true, sink);
        match args.map(str::trim).filter(|a| !a.is_empty() && *a != "null") {
            Some(args) => sink.tool_call_delta(index, args),
            None => sink.tool_call_delta(index, "{}"),
        }
        self.calls.end(index, sink);
        if !self.servers.contains_key(id.as_str())
            && sink.retain(SERVER_CALL_BYTES + id.len() + tool_type.len(), "the provider-executed calls")
        {
            self.servers.insert(id.as_str().into(), (index, tool_type.as_str().into()));
        }
        self.last_server = Some((id, index, tool_type));
        Ok(index)
    }

    /// A built-in tool's `toolResponse {toolType, response, id}`: the result of the call with
    /// that id (else of the last built-in call; else of a call started for it). Returns the
    /// call's index.
    fn server_response(&mut self, raw: &str, sink: &mut dyn DeltaSink) -> R<u32> {
        let [tool_type, response, id] = members(raw, ["toolType", "response", "id"])?;
        let (tool_type, id) = (string_of(tool_type)?, string_of(id)?);
        let found = match self.servers.get(id.as_str()) {
            Some((index, name)) => Some((id.clone(), *index, name.to_string())),
            None => self.last_server.clone(),
        };
        let (id, index, name) = match found {
            Some(call) => call,
            None => {
                let index = self.next_call;
                self.next_call = self.next_call.saturating_add(1);
                let id = if id.is_empty() { format!("call_{index}") } else { id };
                self.calls.start(index, &id, &tool_type, true, sink);
                sink.tool_call_delta(index, "{}");
                self.calls.end(index, sink);
                (id, index, tool_type)
            }
        };
        if self.last_server.as_ref().is_some_and(|(_, i, _)| *i == index) {
            self.last_server = None;
        }
        sink.tool_result(index, &id, &name, response.unwrap_or("{}"));
        Ok(index)
    }

    /// A `functionCall` part; returns the index of the call it is (part of).
    fn function_call(&mut self, call: &str, sink: &mut dyn DeltaSink) -> R<u32> {
        let [partial, will_continue] = members(call, ["partialArgs", "willContinue"])?;
        let will_continue = will_continue.map(str::trim) == Some("true");
        if partial.is_some() || will_continue || self.streaming.is_some() {
            return self.streamed_call(call, partial, will_continue, sink);
        }
        let (mut id, mut name) = (String::new(), String::new());
        let mut args: Option<&str> = None;
        let mut j = Json::new(call);
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "id" if j.kind()? == Kind::String => {
                    j.string_into(&mut id)?;
                }
                "name" if j.kind()? == Kind::String => {
                    j.string_into(&mut name)?;
                }
                "args" => args = Some(j.value_raw()?),
                _ => j.skip()?,
            }
        }
        let index = self.next_call;
        self.next_call = self.next_call.saturating_add(1);
        self.calls.start_if_new(index, &id, &name, sink);
        sink.tool_call_delta(index, args.unwrap_or("{}"));
        self.calls.end(index, sink);
        Ok(index)
    }
}

impl Gemini {
    /// A `functionCall` part of a call whose arguments stream (Vertex AI's
    /// `streamFunctionCallArguments`): the part with a `name` starts the call; each
    /// `partialArgs` entry sets the value at its `jsonPath` (string values that continue are
    /// appended; `jsonpath.rs`); the part without `willContinue: true` completes it. One call
    /// per function call, however many parts it takes. An entry the assembly refuses (too
    /// deep, too far past an array's end) is a `provider_error` and drops the call.
    fn streamed_call(&mut self, call: &str, partial: Option<&str>, will_continue: bool, sink: &mut dyn DeltaSink) -> R<u32> {
        let [id, name, args] = members(call, ["id", "name", "args"])?;
        let (id, name) = (string_of(id)?, string_of(name)?);
        if !name.is_empty() || self.streaming.is_none() {
            self.end_streaming(sink);
            let index = self.next_call;
            self.next_call = self.next_call.saturating_add(1);
            self.calls.start_if_new(index, &id, &name, sink);
            self.streaming = Some(StreamingCall { index, args: PathArgs::new(sink) });
        }
        let index = self.streaming.as_ref().map_or(self.next_call.saturating_sub(1), |c| c.index);
        let r = self.assemble(partial, args, sink);
        if let (Err(refused), Some(call)) = (r?, self.streaming.as_mut()) {
            // The call cannot be what the model sent: given up, never run with less.
            if let Some(args) = call.args.take() {
                args.finish(sink);
            }
            self.calls.abandon(call.index, sink);
            match refused {
                Refused::Spent => {}
                Refused::OutOfMemory => sink.error("memory_limit_exceeded", &refused.message()),
                _ => sink.error("provider_error", &format!("{}: the call was dropped", refused.message())),
            }
        }
        if !will_continue {
            self.end_streaming(sink);
        }
        Ok(index)
    }

    /// Applies a part's `partialArgs` entries and whole `args` to the streaming call.
    fn assemble(&mut self, partial: Option<&str>, args: Option<&str>, sink: &mut dyn DeltaSink) -> R<Result<(), Refused>> {
        let Some(call) = self.streaming.as_mut().and_then(|c| c.args.as_mut()) else { return Ok(Ok(())) };
        if let Some(partial) = partial {
            let mut j = Json::new(partial);
            if j.kind()? == Kind::Array {
                let mut a = j.array()?;
                while j.next_item(&mut a)? {
                    let [path, s, n, b, null] =
                        members(j.value_raw()?, ["jsonPath", "stringValue", "numberValue", "boolValue", "nullValue"])?;
                    let path = string_of(path)?;
                    let (value, append) = if s.is_some() {
                        (JsonValue::String(string_of(s)?), true)
                    } else if let Some(n) = n.map(str::trim).filter(|n| crate::parse_strict(n.as_bytes()).is_ok()) {
                        (JsonValue::Number(n.to_string()), false)
                    } else if let Some(b) = b {
                        (JsonValue::Bool(b.trim() == "true"), false)
                    } else if null.is_some() {
                        (JsonValue::Null, false)
                    } else {
                        continue;
                    };
                    if let Err(refused) = call.set(&path, value, append, sink) {
                        return Ok(Err(refused));
                    }
                }
            }
        }
        if let Some(Ok(v)) = args.map(|a| crate::parse_strict(a.as_bytes())) {
            return Ok(call.replace(v, sink));
        }
        Ok(Ok(()))
    }
}

const GEMINI_COUNTS: [(&str, Count); 5] = [
    ("promptTokenCount", Count::Input),
    ("candidatesTokenCount", Count::Output),
    ("totalTokenCount", Count::Total),
    ("thoughtsTokenCount", Count::Reasoning),
    ("cachedContentTokenCount", Count::Cached),
];
