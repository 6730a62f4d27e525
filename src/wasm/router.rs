//! The handle of JS class `StreamRouter`, and the `RoutedEvent` type.
//!
//! Events cross the boundary once per call in the result format of abi.rs: `Packed` writes
//! every event's strings into one UTF-8 text and its shape into op words (a `ROUTE_` opcode,
//! then indices and UTF-16 lengths), and pkg/entry/classes/router.js builds the objects.
//! Values (tool call arguments, the action, usage) travel as JSON text and come out of
//! `JSON.parse`.

use super::abi::*;
use super::de::{options, Size};
use super::handle::{handle, then_end, Io, FAILED};
use super::{js_error, utf16_len};
use crate::budget::{out_of_memory, try_push_str, try_room, try_room_str};
use crate::json::write_json_string;
use crate::{ContentMode, Error, ErrorKind, JsonValue, Provider, RoutedEvent, StreamRouterOptions, ThinkingSource, Usage};
use wasm_bindgen::prelude::*;

options! {
    /// Options of `new StreamRouter(options)`.
    pub struct StreamRouterInit {
        /// The stream format (default `"auto"`: detected from the first bytes and events).
        provider: String = "provider" as "\"auto\" | \"openai-chat\" | \"openai-responses\" | \"anthropic\" | \"gemini\" | \"gemini-interactions\" | \"ollama\" | \"bedrock\" | \"cohere\" | \"text\"",
        /// How the model's text is routed (default `"text"`).
        content: String = "content" as "\"action-json\" | \"tagged\" | \"text\"",
        /// The per-request nonce of the tag contract (`content: "tagged"`).
        nonce: String = "nonce",
        /// The most data bytes of one SSE event (default 8 MiB).
        max_event_bytes: Size = "maxEventBytes" as "number",
        /// The most bytes the router keeps between events, all together: open tool calls, the
        /// action text until it closes and held answer text (default 16 MiB,
        /// `buffer_limit_exceeded`).
        max_buffer_bytes: Size = "maxBufferBytes" as "number",
    }
}

fn bad_option(msg: String) -> JsValue {
    js_error(&Error::new(ErrorKind::InvalidOption, msg))
}

/// The wasm half of `StreamRouter` (pkg/entry/classes/router.js).
#[wasm_bindgen(js_name = StreamRouterHandle, skip_typescript)]
pub struct JsStreamRouter {
    inner: crate::StreamRouter,
    events: Vec<RoutedEvent>,
    out: Packed,
    io: Io,
    /// The events of a call could not be packed (out of memory): every later call repeats it.
    lost: Option<Error>,
}

handle! {
    JsStreamRouter as StreamRouterHandle;
    /// `new StreamRouter({ provider?, content?, nonce?, maxEventBytes?, maxBufferBytes? })`.
    fn new(o: StreamRouterInit) {
        let d = StreamRouterOptions::default();
        let provider = match o.provider.as_deref() {
            None => d.provider,
            Some(p) => Provider::parse(p).map_err(|e| js_error(&e))?,
        };
        let content = match o.content.as_deref() {
            None => d.content,
            Some(c) => ContentMode::parse(c).map_err(|e| js_error(&e))?,
        };
        let max_event_bytes = Size::or(o.max_event_bytes, d.max_event_bytes);
        let max_buffer_bytes = Size::or(o.max_buffer_bytes, d.max_buffer_bytes);
        let opts = StreamRouterOptions { provider, content, nonce: o.nonce, max_event_bytes, max_buffer_bytes };
        let inner = crate::StreamRouter::new(opts).map_err(|e| js_error(&e))?;
        Ok(JsStreamRouter { inner, events: Vec::new(), out: Packed::default(), io: Io::default(), lost: None })
    }
}

#[wasm_bindgen(js_class = StreamRouterHandle)]
impl JsStreamRouter {
    /// Routes `len` bytes of the input buffer (and ends the stream when `end`: the last
    /// events, then `done`); the events are described in the header (abi.rs).
    fn step(&mut self, len: u32, end: bool) -> u32 {
        if let Some(e) = &self.lost {
            self.io.error = Some(js_error(e));
            return FAILED;
        }
        self.events.clear();
        let r = self.inner.feed(self.io.input.bytes(len), &mut self.events);
        let r = then_end(r, end, || self.inner.finish(&mut self.events));
        self.done(r)
    }

    /// The provider format in force: the configured one, or what `"auto"` detected.
    #[wasm_bindgen(getter, skip_typescript)]
    pub fn provider(&self) -> String {
        self.inner.provider().as_str().to_string()
    }

    /// Packs the call's events and describes them in the header; the count, or `FAILED` with
    /// the error kept. When packing runs out of memory the events are lost, so the router
    /// fails with `memory_limit_exceeded` (and stays failed).
    fn done(&mut self, r: crate::Result<()>) -> u32 {
        let r = match self.out.pack(&self.events) {
            Ok(()) => r,
            Err(e) => {
                self.out = Packed::default();
                self.events = Vec::new();
                self.lost = Some(e.clone());
                Err(e)
            }
        };
        self.io.header.utf8(self.out.text.as_bytes(), &self.out.ops, self.events.len() as u32);
        self.io.status(r, self.events.len() as u32)
    }
}

#[derive(Default)]
struct Packed {
    text: String,
    ops: Vec<u32>,
    json: String,
}

impl Packed {
    fn str(&mut self, s: &str) -> u32 {
        self.text.push_str(s);
        utf16_len(s)
    }

    /// Moves the JSON text written to `json` into the packed text (`memory_limit_exceeded`
    /// when there is no room for it).
    fn json(&mut self) -> crate::Result<u32> {
        let json = std::mem::take(&mut self.json);
        let r = try_push_str(&mut self.text, &json).map(|()| utf16_len(&json));
        self.json = json;
        self.json.clear();
        r
    }

    /// Room for `n` more bytes of JSON text.
    fn json_room(&mut self, n: usize) -> crate::Result<()> {
        self.json.try_reserve(n).map_err(|_| out_of_memory(n))
    }

    /// Packs `events`; the text is reserved first (the deltas, what can be large), so running
    /// out of memory is `memory_limit_exceeded`, not a trap.
    fn pack(&mut self, events: &[RoutedEvent]) -> crate::Result<()> {
        self.text.clear();
        self.ops.clear();
        let need = events.iter().map(text_len).sum::<usize>();
        try_room_str(&mut self.text, need)?;
        try_room(&mut self.ops, events.len() * 8)?;
        for e in events {
            match e {
                RoutedEvent::AnswerDelta { text, phase: None } => self.text_op(ROUTE_ANSWER, text),
                RoutedEvent::AnswerDelta { text, phase: Some(phase) } => {
                    let a = self.str(phase);
                    let b = self.str(text);
                    self.ops.extend_from_slice(&[ROUTE_ANSWER_PHASE, a, b]);
                }
                RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Reasoning } => self.text_op(ROUTE_REASONING, text),
                RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Thought } => self.text_op(ROUTE_THOUGHT, text),
                RoutedEvent::ArtifactDelta { text } => self.text_op(ROUTE_ARTIFACT, text),
                RoutedEvent::UserDelta { text } => self.text_op(ROUTE_USER, text),
                RoutedEvent::ToolCallStart { index, id, name, provider_executed, caller } => {
                    let (a, b) = (self.str(id), self.str(name));
                    let c = self.more(&[("caller", caller.as_ref())])?;
                    self.ops.extend_from_slice(&[ROUTE_TOOL_START, *index, a, b, u32::from(*provider_executed), c]);
                }
                RoutedEvent::ToolCallDelta { index, arguments } => {
                    let n = self.str(arguments);
                    self.ops.extend_from_slice(&[ROUTE_TOOL_DELTA, *index, n]);
                }
                RoutedEvent::ToolCall { index, id, name, arguments, repaired, provider_executed, caller } => {
                    let (a, b) = (self.str(id), self.str(name));
                    arguments.try_write_json(&mut self.json)?;
                    let c = self.json()?;
                    let d = self.more(&[("caller", caller.as_ref())])?;
                    self.ops.extend_from_slice(&[
                        ROUTE_TOOL_CALL,
                        *index,
                        a,
                        b,
                        c,
                        u32::from(*repaired),
                        u32::from(*provider_executed),
                        d,
                    ]);
                }
                RoutedEvent::ToolResult { index, id, name, result } => {
                    let (a, b) = (self.str(id), self.str(name));
                    result.try_write_json(&mut self.json)?;
                    let c = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_TOOL_RESULT, *index, a, b, c]);
                }
                RoutedEvent::Source(src) => {
                    // Each byte escapes to at most 6 (`\u001f`); keys, quotes and nulls fit in 64.
                    let fields = [&src.id, &src.url, &src.title, &src.snippet];
                    self.json_room(64 + 6 * fields.iter().map(|v| v.as_ref().map_or(0, String::len)).sum::<usize>())?;
                    self.json.push('{');
                    for (i, (k, v)) in [("id", &src.id), ("url", &src.url), ("title", &src.title), ("snippet", &src.snippet)]
                        .into_iter()
                        .enumerate()
                    {
                        if i > 0 {
                            self.json.push(',');
                        }
                        write_json_string(k, &mut self.json);
                        self.json.push(':');
                        match v {
                            Some(v) => write_json_string(v, &mut self.json),
                            None => self.json.push_str("null"),
                        }
                    }
                    self.json.push('}');
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_SOURCE, n]);
                }
                RoutedEvent::RefusalDelta { text } => self.text_op(ROUTE_REFUSAL, text),
                RoutedEvent::Action { action } => {
                    action.to_json_value().try_write_json(&mut self.json)?;
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_ACTION, n]);
                }
                RoutedEvent::Usage(u) => {
                    self.json_room(USAGE_JSON_ROOM)?;
                    usage_json(u, &mut self.json);
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_USAGE, n]);
                }
                RoutedEvent::Done { ok, parse_ok, finish_reason, finish, violations, stop_details, finish_message } => {
                    let n = finish_reason.as_deref().map_or(0, |r| self.str(r));
                    let f = self.str(finish.as_str());
                    let violations = (!violations.is_empty())
                        .then(|| JsonValue::Array(violations.iter().map(crate::TagViolation::to_json_value).collect()));
                    let message = finish_message.clone().map(JsonValue::String);
                    let fields = [
                        ("violations", violations.as_ref()),
                        ("stop_details", stop_details.as_ref()),
                        ("finish_message", message.as_ref()),
                    ];
                    let v = self.more(&fields)?;
                    self.ops.extend_from_slice(&[
                        ROUTE_DONE,
                        u32::from(*ok),
                        u32::from(*parse_ok),
                        u32::from(finish_reason.is_some()),
                        n,
                        f,
                        v,
                    ]);
                }
                RoutedEvent::Continuation { kind, fields } => {
                    let kind = JsonValue::String(kind.clone());
                    self.object("continuation", &[("kind", Some(&kind))], Some(fields))?;
                }
                RoutedEvent::Compaction { text } => {
                    let text = JsonValue::String(text.clone());
                    self.object("compaction", &[("text", Some(&text))], None)?;
                }
                RoutedEvent::ModelFallback { from, to } => {
                    self.object("model_fallback", &[("from", Some(from)), ("to", Some(to))], None)?;
                }
                RoutedEvent::Container { fields } => self.object("container", &[], Some(fields))?,
                RoutedEvent::Error { code, message, provider_code } => {
                    let (a, b) = (self.str(code), self.str(message));
                    let c = provider_code.as_deref().map_or(0, |p| self.str(p));
                    self.ops.extend_from_slice(&[ROUTE_ERROR, a, b, u32::from(provider_code.is_some()), c]);
                }
            }
        }
        Ok(())
    }
}

/// The bytes of strings `e` puts in the packed text as they are (JSON values come on top).
fn text_len(e: &RoutedEvent) -> usize {
    match e {
        RoutedEvent::AnswerDelta { text, phase } => text.len() + phase.as_ref().map_or(0, String::len),
        RoutedEvent::ThinkingDelta { text, .. }
        | RoutedEvent::ArtifactDelta { text }
        | RoutedEvent::UserDelta { text }
        | RoutedEvent::RefusalDelta { text } => text.len(),
        RoutedEvent::ToolCallStart { id, name, .. }
        | RoutedEvent::ToolCall { id, name, .. }
        | RoutedEvent::ToolResult { id, name, .. } => id.len() + name.len(),
        RoutedEvent::ToolCallDelta { arguments, .. } => arguments.len(),
        RoutedEvent::Error { code, message, provider_code } => {
            code.len() + message.len() + provider_code.as_ref().map_or(0, String::len)
        }
        RoutedEvent::Done { finish_reason, finish, .. } => finish_reason.as_ref().map_or(0, String::len) + finish.as_str().len(),
        _ => 0,
    }
}

impl Packed {
    /// The fields of an event beyond its op words, as packed JSON object text (`{"k":v,…}`
    /// of the present ones); 0 (no text) when none is present.
    fn more(&mut self, fields: &[(&str, Option<&JsonValue>)]) -> crate::Result<u32> {
        if fields.iter().all(|(_, v)| v.is_none()) {
            return Ok(0);
        }
        self.object_text(None, fields, None)?;
        self.json()
    }

    /// A whole event as packed JSON (`ROUTE_OBJECT`): its `type`, `fields`, then the members
    /// of `spread` (an object; its own `type` member is left out).
    fn object(&mut self, kind: &str, fields: &[(&str, Option<&JsonValue>)], spread: Option<&JsonValue>) -> crate::Result<()> {
        self.object_text(Some(kind), fields, spread)?;
        let n = self.json()?;
        self.ops.extend_from_slice(&[ROUTE_OBJECT, n]);
        Ok(())
    }

    fn object_text(
        &mut self,
        kind: Option<&str>,
        fields: &[(&str, Option<&JsonValue>)],
        spread: Option<&JsonValue>,
    ) -> crate::Result<()> {
        let mut members: Vec<(&str, &JsonValue)> = fields.iter().filter_map(|(k, v)| v.map(|v| (*k, v))).collect();
        if let Some(JsonValue::Object(m)) = spread {
            members.extend(
                m.iter().filter(|(k, _)| k != "type" && !fields.iter().any(|(f, _)| f == k)).map(|(k, v)| (k.as_str(), v)),
            );
        }
        let type_value = kind.map(|k| JsonValue::String(k.to_string()));
        if let Some(t) = &type_value {
            members.insert(0, ("type", t));
        }
        self.json_room(2 + members.iter().map(|(k, v)| 8 + 6 * k.len() + v.json_len()).sum::<usize>())?;
        self.json.push('{');
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                self.json.push(',');
            }
            write_json_string(k, &mut self.json);
            self.json.push(':');
            v.write_json(&mut self.json);
        }
        self.json.push('}');
        Ok(())
    }

    fn text_op(&mut self, code: u32, text: &str) {
        let n = self.str(text);
        self.ops.extend_from_slice(&[code, n]);
    }
}

/// Room enough for [`usage_json`]'s text: five keys, five 20-digit numbers, punctuation.
const USAGE_JSON_ROOM: usize = 256;

fn usage_json(u: &Usage, out: &mut String) {
    let fields = [
        ("input_tokens", u.input_tokens),
        ("output_tokens", u.output_tokens),
        ("total_tokens", u.total_tokens),
        ("reasoning_tokens", u.reasoning_tokens),
        ("cached_input_tokens", u.cached_input_tokens),
    ];
    out.push('{');
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(k, out);
        out.push(':');
        match v {
            Some(n) => {
                let _ = std::fmt::Write::write_fmt(out, format_args!("{n}"));
            }
            None => out.push_str("null"),
        }
    }
    out.push('}');
}

fn provider_of(name: &str) -> Result<Provider, JsValue> {
    Provider::parse(name).map_err(|e| js_error(&e))
}

options! {
    /// Options of `structuredRequest(provider, options)` (declared in pkg/types).
    struct StructuredRequestInit {
        messages: JsValue = "messages",
        schema: JsValue = "schema",
        name: String = "name",
        stream: bool = "stream",
        mode: String = "mode",
        model: String = "model",
    }
}

/// The request body that asks `provider` for output matching `options.schema`, in the
/// strongest way it supports (forced tool call, JSON-schema response format, JSON mode, or
/// prompt-only; see `structuredModes`). Throws `invalid_option` (a value out of range or of
/// the wrong type), `invalid_input` (a key that is not an option, a value `JSON.stringify`
/// cannot encode), `input_too_large` (`messages` or `schema` past 64 MiB of JSON text) or
/// `json_too_deep`.
#[wasm_bindgen(js_name = structuredRequest, unchecked_return_type = "Record<string, unknown>")]
pub fn structured_request(
    #[wasm_bindgen(
        unchecked_param_type = "\"openai-chat\" | \"openai-responses\" | \"anthropic\" | \"gemini\" | \"gemini-interactions\" | \"ollama\" | \"bedrock\" | \"cohere\" | \"text\""
    )]
    provider: JsValue,
    #[wasm_bindgen(unchecked_param_type = "StructuredRequestInit")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let provider = provider_of(&super::text_arg(&provider, "provider")?)?;
    let StructuredRequestInit { messages, schema, name, stream, mode, model } = StructuredRequestInit::from_js(Some(options))?;
    let messages = match messages.map(|m| json_option(&m, "messages")).transpose()? {
        Some(crate::JsonValue::Array(m)) => m,
        Some(_) => return Err(bad_option("invalid options: messages: expected an array".into())),
        None => return Err(bad_option("options.messages must be an array".into())),
    };
    let schema = json_option(&schema.ok_or_else(|| bad_option("options.schema is required".into()))?, "schema")?;
    let mode = match mode {
        Some(m) => Some(crate::StructuredMode::parse(&m).map_err(|e| js_error(&e))?),
        None => None,
    };
    let name = name.unwrap_or_else(|| "output".into());
    let req = crate::StructuredRequest { messages, schema, name, stream: stream.unwrap_or(true), mode, model };
    let (body, _) = crate::structured_request(provider, &req).map_err(|e| js_error(&e))?;
    Ok(super::host::to_js_value(&body))
}

/// The JSON value of option `what` (`JSON.stringify`, within the one-shot input cap).
fn json_option(value: &JsValue, what: &str) -> Result<crate::JsonValue, JsValue> {
    let text = super::stringify(value, what, ErrorKind::InvalidInput)?;
    crate::parse_strict(text.as_bytes()).map_err(|e| js_error(&e))
}

/// The structured-output modes `provider` supports, strongest first (the capability table).
#[wasm_bindgen(js_name = structuredModes, unchecked_return_type = "(\"tool\" | \"json_schema\" | \"json_object\" | \"prompt\")[]")]
pub fn structured_modes(#[wasm_bindgen(unchecked_param_type = "string")] provider: JsValue) -> Result<Vec<String>, JsValue> {
    let provider = provider_of(&super::text_arg(&provider, "provider")?)?;
    Ok(crate::structured_modes(provider).iter().map(|m| m.as_str().to_string()).collect())
}
