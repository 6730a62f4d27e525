//! The handle of JS class `StreamRouter` (its events packed by `crate::flat::RouterPack`,
//! built by pkg/entry/classes/router.js), `structuredRequest` and `structuredModes`.

use super::de::{options, Size};
use super::handle::methods;
use super::handle::{handle, then_end, Io, FAILED};
use super::js_error;
use crate::flat::RouterPack;
use crate::{ContentMode, Error, ErrorKind, Provider, RoutedEvent, StreamRouterOptions};
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
    out: RouterPack,
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
        Ok(JsStreamRouter { inner, events: Vec::new(), out: RouterPack::default(), io: Io::default(), lost: None })
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

    /// Packs the call's events; out of memory, they are lost and the router fails for good.
    fn done(&mut self, r: crate::Result<()>) -> u32 {
        let r = match self.out.pack(&self.events) {
            Ok(()) => r,
            Err(e) => {
                self.out = RouterPack::default();
                self.events = Vec::new();
                self.lost = Some(e.clone());
                Err(e)
            }
        };
        self.io.header.utf8(self.out.text.as_bytes(), &self.out.ops, self.events.len() as u32);
        self.io.status(r, self.events.len() as u32)
    }
}

methods! { JsStreamRouter as StreamRouterHandle;
    get provider -> String = |h| h.inner.provider().as_str().to_string();
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

/// `structuredRequest` (declared in pkg/entry/classes/router.api.d.ts).
#[wasm_bindgen(js_name = structuredRequest, skip_typescript)]
pub fn structured_request(provider: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
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

/// `structuredModes` (declared in pkg/entry/classes/router.api.d.ts).
#[wasm_bindgen(js_name = structuredModes, skip_typescript)]
pub fn structured_modes(provider: JsValue) -> Result<Vec<String>, JsValue> {
    let provider = provider_of(&super::text_arg(&provider, "provider")?)?;
    Ok(crate::structured_modes(provider).iter().map(|m| m.as_str().to_string()).collect())
}
