//! JS class `StreamRouter` and the `RoutedEvent` type.
//!
//! Events cross the boundary once per call: `Packed` writes every event's strings into one
//! UTF-8 text and its shape into a list of numbers (an opcode, then indices and UTF-16
//! lengths), and `routedEventsFrom` in runtime.js builds the objects. Values (tool call
//! arguments, the action, usage) travel as JSON text and come out of `JSON.parse`. The fast
//! path (`__inPtr` / `__feedIn` / `__infoPtr`, see fast.rs) lets JS write the chunk into wasm
//! memory and read the packed result straight out of it.

use super::fast::{fast_io, FastInput, FAILED};
use super::input::ChunkInput;
use super::limit;
use super::{js_error, options, utf16_len};
use crate::budget::{out_of_memory, try_push_str, try_room, try_room_str};
use crate::json::write_json_string;
use crate::{ContentMode, Error, ErrorKind, Provider, RoutedEvent, StreamRouterOptions, ThinkingSource, Usage};
use serde::Deserialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/wasm/runtime.js")]
extern "C" {
    fn __sr_routed_events(text: &str, ops: &[u32]) -> JsValue;
}

/// Options of `new StreamRouter(options)`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct StreamRouterInit {
    /// The stream format (default `"auto"`: detected from the first bytes and events).
    #[tsify(optional, type = "\"auto\" | \"openai-chat\" | \"openai-responses\" | \"anthropic\" | \"gemini\" | \"ollama\" | \"bedrock\" | \"text\"")]
    provider: Option<String>,
    /// How the model's text is routed (default `"text"`).
    #[tsify(optional, type = "\"action-json\" | \"tagged\" | \"text\"")]
    content: Option<String>,
    /// The per-request nonce of the tag contract (`content: "tagged"`).
    #[tsify(optional)]
    nonce: Option<String>,
    /// The most data bytes of one SSE event (default 8 MiB).
    #[tsify(optional)]
    max_event_bytes: Option<f64>,
    /// The most bytes the router keeps between events, all together: open tool calls, the
    /// action text until it closes and held answer text (default 16 MiB,
    /// `buffer_limit_exceeded`).
    #[tsify(optional)]
    max_buffer_bytes: Option<f64>,
}

// `RoutedEventType` is the TypeScript declaration of `crate::RoutedEvent` (src/router/route.rs).
#[wasm_bindgen(typescript_custom_section)]
const ROUTED_EVENT_TS: &str = r#"
/** What `StreamRouter.feed` / `finish` return. */
export type RoutedEvent =
  | Exclude<RoutedEventType, { type: "tool_result" }>
  | (Extract<RoutedEventType, { type: "tool_result" }> & { provider_executed: true });
"#;

fn bad_option(msg: String) -> JsValue {
    js_error(&Error::new(ErrorKind::InvalidOption, msg))
}

/// Turns a raw provider stream into routed events, in one pass.
#[wasm_bindgen(js_name = StreamRouter)]
pub struct JsStreamRouter {
    inner: crate::StreamRouter,
    input: ChunkInput,
    events: Vec<RoutedEvent>,
    out: Packed,
    /// After `__feedIn`: text pointer, text byte length, ops pointer, ops length.
    info: Box<[u32; 4]>,
    fast: FastInput,
    error: Option<JsValue>,
    /// The events of a call could not be packed (out of memory): every later call repeats it.
    lost: Option<Error>,
}

// `__infoPtr()`: where `__feedIn` leaves
// `[text pointer, text byte length, ops pointer, ops count]`.
fast_io!(JsStreamRouter, StreamRouter, info);

#[wasm_bindgen(js_class = StreamRouter)]
impl JsStreamRouter {
    /// `new StreamRouter({ provider?, content?, nonce?, maxEventBytes?, maxBufferBytes? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "StreamRouterInit")] options_value: Option<JsValue>,
    ) -> Result<JsStreamRouter, JsValue> {
        let o: StreamRouterInit = options(options_value)?;
        let d = StreamRouterOptions::default();
        let provider = match o.provider.as_deref() {
            None => d.provider,
            Some(p) => Provider::parse(p).map_err(|e| js_error(&e))?,
        };
        let content = match o.content.as_deref() {
            None => d.content,
            Some(c) => ContentMode::parse(c).map_err(|e| js_error(&e))?,
        };
        let max_event_bytes = limit(o.max_event_bytes, d.max_event_bytes, "maxEventBytes")?;
        let max_buffer_bytes = limit(o.max_buffer_bytes, d.max_buffer_bytes, "maxBufferBytes")?;
        let opts = StreamRouterOptions { provider, content, nonce: o.nonce, max_event_bytes, max_buffer_bytes };
        let inner = crate::StreamRouter::new(opts).map_err(|e| js_error(&e))?;
        Ok(JsStreamRouter {
            inner,
            input: ChunkInput::default(),
            events: Vec::new(),
            out: Packed::default(),
            info: Box::new([0; 4]),
            fast: FastInput::default(),
            error: None,
            lost: None,
        })
    }

    /// Routes a chunk; returns the events it completed. Throws `StreamrouteError`
    /// (`sse_event_too_large`, `buffer_limit_exceeded`, `invalid_state`) with the events
    /// completed before the failure on `error.events`.
    #[wasm_bindgen(unchecked_return_type = "RoutedEvent[]")]
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.check()?;
        let bytes = self.input.read(&chunk)?;
        self.events.clear();
        let r = self.inner.feed(bytes, &mut self.events);
        self.deliver(r)
    }

    /// Ends the stream: the last events, then `done`.
    #[wasm_bindgen(unchecked_return_type = "RoutedEvent[]")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        self.check()?;
        self.events.clear();
        let tail = self.input.finish();
        let mut r = self.inner.feed(tail, &mut self.events);
        if r.is_ok() {
            r = self.inner.finish(&mut self.events);
        }
        self.deliver(r)
    }

    /// The provider format in force: the configured one, or what `"auto"` detected
    /// (`"auto"` until an event showed it).
    #[wasm_bindgen(getter, unchecked_return_type = "\"auto\" | \"openai-chat\" | \"openai-responses\" | \"anthropic\" | \"gemini\" | \"ollama\" | \"bedrock\" | \"text\"")]
    pub fn provider(&self) -> String {
        self.inner.provider().as_str().to_string()
    }

    /// Routes `len` bytes of the input buffer; returns how many events are packed at the
    /// place `__infoPtr()` names, or `FAILED`.
    #[doc(hidden)]
    #[wasm_bindgen(js_name = "__feedIn", skip_typescript)]
    pub fn feed_in(&mut self, len: u32) -> u32 {
        if let Err(e) = self.check() {
            self.error = Some(e);
            return FAILED;
        }
        self.events.clear();
        let r = self.inner.feed(self.fast.bytes(len), &mut self.events);
        let r = self.pack(r);
        match r {
            Ok(()) => {
                *self.info = [
                    self.out.text.as_ptr() as usize as u32,
                    self.out.text.len() as u32,
                    self.out.ops.as_ptr() as usize as u32,
                    self.out.ops.len() as u32,
                ];
                self.events.len() as u32
            }
            Err(e) => {
                self.error = Some(self.error_with_events(&e));
                FAILED
            }
        }
    }

    fn error_with_events(&self, e: &Error) -> JsValue {
        let err = js_error(e);
        let events = __sr_routed_events(&self.out.text, &self.out.ops);
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str("events"), &events);
        err
    }

    fn check(&self) -> Result<(), JsValue> {
        self.lost.as_ref().map_or(Ok(()), |e| Err(js_error(e)))
    }

    /// Packs the call's events; when that runs out of memory they are lost, so the router
    /// fails with `memory_limit_exceeded` (and stays failed).
    fn pack(&mut self, r: crate::Result<()>) -> crate::Result<()> {
        if let Err(e) = self.out.pack(&self.events) {
            self.out = Packed::default();
            self.events = Vec::new();
            self.lost = Some(e.clone());
            return Err(e);
        }
        r
    }

    fn deliver(&mut self, r: crate::Result<()>) -> Result<JsValue, JsValue> {
        let r = self.pack(r);
        match r {
            Ok(()) => Ok(__sr_routed_events(&self.out.text, &self.out.ops)),
            Err(e) => Err(self.error_with_events(&e)),
        }
    }
}

/// Opcodes of the packed form (see `routedEventsFrom` in runtime.js). Lengths are UTF-16
/// units of the strings, which follow one another in `text`.
mod op {
    pub const ANSWER: u32 = 0; // len
    pub const REASONING: u32 = 1; // len
    pub const THOUGHT: u32 = 2; // len
    pub const ARTIFACT: u32 = 3; // len
    pub const USER: u32 = 4; // len
    pub const TOOL_START: u32 = 5; // index, id len, name len, provider executed
    pub const TOOL_DELTA: u32 = 6; // index, len
    pub const TOOL_CALL: u32 = 7; // index, id len, name len, arguments JSON len, repaired, provider executed
    pub const ACTION: u32 = 8; // action JSON len
    pub const USAGE: u32 = 9; // usage JSON len
    pub const DONE: u32 = 10; // ok, parse_ok, has reason, reason len, finish len
    pub const ERROR: u32 = 11; // code len, message len, has provider code, its len
    pub const TOOL_RESULT: u32 = 12; // index, id len, name len, result JSON len
    pub const SOURCE: u32 = 13; // source JSON len
    pub const REFUSAL: u32 = 14; // len
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
        try_room(&mut self.ops, events.len() * 7)?;
        for e in events {
            match e {
                RoutedEvent::AnswerDelta { text } => self.text_op(op::ANSWER, text),
                RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Reasoning } => self.text_op(op::REASONING, text),
                RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Thought } => self.text_op(op::THOUGHT, text),
                RoutedEvent::ArtifactDelta { text } => self.text_op(op::ARTIFACT, text),
                RoutedEvent::UserDelta { text } => self.text_op(op::USER, text),
                RoutedEvent::ToolCallStart { index, id, name, provider_executed } => {
                    let (a, b) = (self.str(id), self.str(name));
                    self.ops.extend_from_slice(&[op::TOOL_START, *index, a, b, u32::from(*provider_executed)]);
                }
                RoutedEvent::ToolCallDelta { index, arguments } => {
                    let n = self.str(arguments);
                    self.ops.extend_from_slice(&[op::TOOL_DELTA, *index, n]);
                }
                RoutedEvent::ToolCall { index, id, name, arguments, repaired, provider_executed } => {
                    let (a, b) = (self.str(id), self.str(name));
                    arguments.try_write_json(&mut self.json)?;
                    let c = self.json()?;
                    self.ops.extend_from_slice(&[
                        op::TOOL_CALL,
                        *index,
                        a,
                        b,
                        c,
                        u32::from(*repaired),
                        u32::from(*provider_executed),
                    ]);
                }
                RoutedEvent::ToolResult { index, id, name, result } => {
                    let (a, b) = (self.str(id), self.str(name));
                    result.try_write_json(&mut self.json)?;
                    let c = self.json()?;
                    self.ops.extend_from_slice(&[op::TOOL_RESULT, *index, a, b, c]);
                }
                RoutedEvent::Source(src) => {
                    // Each byte escapes to at most 6 (`\u001f`); keys, quotes and nulls fit in 64.
                    let fields = [&src.id, &src.url, &src.title, &src.snippet];
                    self.json_room(64 + 6 * fields.iter().map(|v| v.as_ref().map_or(0, String::len)).sum::<usize>())?;
                    self.json.push('{');
                    for (i, (k, v)) in
                        [("id", &src.id), ("url", &src.url), ("title", &src.title), ("snippet", &src.snippet)].into_iter().enumerate()
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
                    self.ops.extend_from_slice(&[op::SOURCE, n]);
                }
                RoutedEvent::RefusalDelta { text } => self.text_op(op::REFUSAL, text),
                RoutedEvent::Action { action } => {
                    super::action::action_value(action).try_write_json(&mut self.json)?;
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[op::ACTION, n]);
                }
                RoutedEvent::Usage(u) => {
                    self.json_room(USAGE_JSON_ROOM)?;
                    usage_json(u, &mut self.json);
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[op::USAGE, n]);
                }
                RoutedEvent::Done { ok, parse_ok, finish_reason, finish } => {
                    let n = finish_reason.as_deref().map_or(0, |r| self.str(r));
                    let f = self.str(finish.as_str());
                    self.ops.extend_from_slice(&[
                        op::DONE,
                        u32::from(*ok),
                        u32::from(*parse_ok),
                        u32::from(finish_reason.is_some()),
                        n,
                        f,
                    ]);
                }
                RoutedEvent::Error { code, message, provider_code } => {
                    let (a, b) = (self.str(code), self.str(message));
                    let c = provider_code.as_deref().map_or(0, |p| self.str(p));
                    self.ops.extend_from_slice(&[op::ERROR, a, b, u32::from(provider_code.is_some()), c]);
                }
            }
        }
        Ok(())
    }

}

/// The bytes of strings `e` puts in the packed text as they are (JSON values come on top).
fn text_len(e: &RoutedEvent) -> usize {
    match e {
        RoutedEvent::AnswerDelta { text }
        | RoutedEvent::ThinkingDelta { text, .. }
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
        RoutedEvent::Done { finish_reason, finish, .. } => {
            finish_reason.as_ref().map_or(0, String::len) + finish.as_str().len()
        }
        _ => 0,
    }
}

impl Packed {
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

/// The request body that asks `provider` for output matching `options.schema`, in the
/// strongest way it supports (forced tool call, JSON-schema response format, JSON mode, or
/// prompt-only; see `structuredModes`). Throws `invalid_option`.
#[wasm_bindgen(js_name = structuredRequest, unchecked_return_type = "Record<string, unknown>")]
pub fn structured_request(
    #[wasm_bindgen(unchecked_param_type = "\"openai-chat\" | \"openai-responses\" | \"anthropic\" | \"gemini\" | \"ollama\" | \"bedrock\" | \"text\"")] provider: JsValue,
    #[wasm_bindgen(unchecked_param_type = "StructuredRequestInit")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let provider = provider_of(&super::text_arg(&provider, "provider")?)?;
    let text = js_sys::JSON::stringify(&options).ok().and_then(|s| s.as_string()).unwrap_or_default();
    let v = crate::parse_strict(text.as_bytes())
        .map_err(|_| bad_option("structuredRequest options must be a JSON-serialisable object".into()))?;
    let messages = match v.get("messages") {
        Some(crate::JsonValue::Array(m)) => m.clone(),
        _ => return Err(bad_option("options.messages must be an array".into())),
    };
    let schema = v.get("schema").cloned().ok_or_else(|| bad_option("options.schema is required".into()))?;
    let name = v.get("name").and_then(crate::JsonValue::as_str).unwrap_or("output").to_string();
    let stream = !matches!(v.get("stream"), Some(crate::JsonValue::Bool(false)));
    let mode = match v.get("mode").and_then(crate::JsonValue::as_str) {
        Some(m) => Some(crate::StructuredMode::parse(m).map_err(|e| js_error(&e))?),
        None => None,
    };
    let model = match v.get("model") {
        None | Some(crate::JsonValue::Null) => None,
        Some(crate::JsonValue::String(m)) => Some(m.clone()),
        Some(_) => return Err(bad_option("options.model must be a string".into())),
    };
    let req = crate::StructuredRequest { messages, schema, name, stream, mode, model };
    let (body, _) = crate::structured_request(provider, &req).map_err(|e| js_error(&e))?;
    Ok(super::host::to_js_value(&body))
}

/// The structured-output modes `provider` supports, strongest first (the capability table).
#[wasm_bindgen(js_name = structuredModes, unchecked_return_type = "(\"tool\" | \"json_schema\" | \"json_object\" | \"prompt\")[]")]
pub fn structured_modes(#[wasm_bindgen(unchecked_param_type = "string")] provider: JsValue) -> Result<Vec<String>, JsValue> {
    let provider = provider_of(&super::text_arg(&provider, "provider")?)?;
    Ok(crate::structured_modes(provider).iter().map(|m| m.as_str().to_string()).collect())
}
