//! JS classes `PartialJson` and `JsonItemStream`.
//!
//! Events cross the boundary once per call: `Packer` writes them as one string and a list of
//! opcodes (only the changed tail of a path, thanks to the core's `same` count), and
//! `__sr_json_events` in runtime.js builds the objects, sharing one frozen path array between
//! consecutive events at the same path. Values (the snapshot, items) cross as JSON text and
//! come out of `JSON.parse`: plain objects, JS numbers.

use super::fast::{fast_io, FastInput, FAILED};
use super::host::to_js_value;
use super::input::ChunkInput;
use super::{js_error, utf16_len, FlatOptions};
use crate::budget::out_of_memory;
use crate::json::partial::{Event, EventSink, Leaf, PathSegment, ValueKind};
use crate::{Error, ErrorKind, JsonValue};
use serde::Deserialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/wasm/runtime.js")]
extern "C" {
    fn __sr_json_state() -> JsValue;
    fn __sr_json_events(state: &JsValue, text: &str, ops: &[u32]) -> JsValue;
}

#[wasm_bindgen(typescript_custom_section)]
const JSON_EVENT_TS: &str = r#"
/** A path from the root of a JSON document: object keys and array indices (`[]` is the root). Frozen. */
export type JsonPath = readonly (string | number)[];

/**
 * What changed in a `PartialJson` document. A string gives `begin`, `append`*, `set` (the whole
 * string), `end`; a number or literal `set`, `end`; an object or array `begin`, its members'
 * events, `end`. Nothing reported is ever changed by later input.
 */
export type JsonEvent =
  | { type: "begin"; path: JsonPath; kind: "object" | "array" | "string" }
  | { type: "append"; path: JsonPath; text: string }
  | { type: "set"; path: JsonPath; value: string | number | boolean | null }
  | { type: "end"; path: JsonPath };
"#;

/// Options of `new PartialJson(options)`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct PartialJsonOptions {
    /// Accept exactly RFC 8259 JSON (default `true`); `false` tolerates raw control
    /// characters in strings, unknown escapes and invalid UTF-8.
    #[tsify(optional)]
    strict: Option<bool>,
    /// The deepest nesting of objects and arrays (default 512, at most 1024).
    #[tsify(optional)]
    max_depth: Option<f64>,
    /// The most bytes the partial value may hold (default 64 MiB): string, key and number
    /// bytes plus 32 per value and 24 per member.
    #[tsify(optional)]
    max_buffer_bytes: Option<f64>,
}

/// Options of `new JsonItemStream(path, options)`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct JsonItemStreamOptions {
    /// Accept exactly RFC 8259 JSON (default `true`).
    #[tsify(optional)]
    strict: Option<bool>,
    /// The deepest nesting of objects and arrays (default 512, at most 1024).
    #[tsify(optional)]
    max_depth: Option<f64>,
    /// The most bytes one item may hold (default 8 MiB), counted like `maxBufferBytes`.
    #[tsify(optional)]
    max_item_bytes: Option<f64>,
}

/// `strict`, `maxDepth` and the byte cap, as read.
type JsonOptions = (Option<bool>, Option<f64>, Option<f64>);

/// `{ strict?, maxDepth?, <cap>? }` of the options struct `name`: the two machines' options.
fn json_options(value: Option<JsValue>, name: &str, keys: &'static [&'static str; 3]) -> Result<JsonOptions, JsValue> {
    let o = FlatOptions::new(value, name, keys)?;
    Ok((o.bool(keys[0])?, o.number(keys[1])?, o.number(keys[2])?))
}

impl PartialJsonOptions {
    fn read(value: Option<JsValue>) -> Result<Self, JsValue> {
        const KEYS: [&str; 3] = ["strict", "maxDepth", "maxBufferBytes"];
        let (strict, max_depth, max_buffer_bytes) = json_options(value, "PartialJsonOptions", &KEYS)?;
        Ok(PartialJsonOptions { strict, max_depth, max_buffer_bytes })
    }
}

impl JsonItemStreamOptions {
    fn read(value: Option<JsValue>) -> Result<Self, JsValue> {
        const KEYS: [&str; 3] = ["strict", "maxDepth", "maxItemBytes"];
        let (strict, max_depth, max_item_bytes) = json_options(value, "JsonItemStreamOptions", &KEYS)?;
        Ok(JsonItemStreamOptions { strict, max_depth, max_item_bytes })
    }
}

/// A whole number in `1..=max`, or `default` when absent.
fn whole(v: Option<f64>, default: usize, max: usize, name: &str) -> Result<usize, JsValue> {
    match v {
        None => Ok(default),
        Some(x) if x.is_finite() && x >= 1.0 && x.fract() == 0.0 && x <= max as f64 => {
            Ok(x as usize)
        }
        Some(x) => Err(js_error(&Error::new(
            ErrorKind::InvalidOption,
            format!("{name} must be an integer from 1 to {max}, got {}", crate::num::show(x)),
        ))),
    }
}

const MAX_DEPTH: usize = crate::json::partial::MAX_DEPTH;

const OP_BEGIN: u32 = 0; // + 0 object, 1 array, 2 string
const OP_APPEND: u32 = 3;
const OP_SET_STRING: u32 = 4;
const OP_SET_NUMBER: u32 = 5;
const OP_SET_TRUE: u32 = 6;
const OP_SET_FALSE: u32 = 7;
const OP_SET_NULL: u32 = 8;
const OP_END: u32 = 9;
const OP_TRUNCATE: u32 = 10;
const OP_KEY: u32 = 11;
const OP_INDEX: u32 = 12;

/// The events of one call, packed for `__sr_json_events`.
#[derive(Default)]
struct Packer {
    text: String,
    ops: Vec<u32>,
    /// Length of the path the JS side holds.
    js_len: usize,
}

impl Packer {
    fn str(&mut self, op: u32, s: &str) {
        self.text.push_str(s);
        self.ops.extend([op, utf16_len(s)]);
    }
}

impl EventSink for Packer {
    fn event(&mut self, path: &[PathSegment], same: usize, ev: Event<'_>) -> crate::Result<()> {
        // Room for all of it first (amortised: the buffers double), so nothing below traps.
        let fresh = path.get(same..).unwrap_or_default();
        let keys: usize = fresh.iter().map(|seg| if let PathSegment::Key(k) = seg { k.len() } else { 0 }).sum();
        let text = match ev {
            Event::Append(t) | Event::Set(Leaf::String(t)) | Event::Set(Leaf::Number(t)) => t.len(),
            _ => 0,
        };
        self.text.try_reserve(keys + text).map_err(|_| out_of_memory(keys + text))?;
        let ops = 4 + 2 * fresh.len();
        self.ops.try_reserve(ops).map_err(|_| out_of_memory(4 * ops))?;
        if same != path.len() || self.js_len != path.len() {
            if same < self.js_len {
                self.ops.extend([OP_TRUNCATE, same as u32]);
            }
            for seg in &path[same..] {
                match seg {
                    PathSegment::Key(k) => self.str(OP_KEY, k),
                    PathSegment::Index(i) => self.ops.extend([OP_INDEX, *i as u32]),
                }
            }
            self.js_len = path.len();
        }
        match ev {
            Event::Begin(kind) => self.ops.push(
                OP_BEGIN
                    + match kind {
                        ValueKind::Object => 0,
                        ValueKind::Array => 1,
                        ValueKind::String => 2,
                    },
            ),
            Event::Append(t) => self.str(OP_APPEND, t),
            Event::Set(Leaf::String(s)) => self.str(OP_SET_STRING, s),
            Event::Set(Leaf::Number(n)) => self.str(OP_SET_NUMBER, n),
            Event::Set(Leaf::Bool(true)) => self.ops.push(OP_SET_TRUE),
            Event::Set(Leaf::Bool(false)) => self.ops.push(OP_SET_FALSE),
            Event::Set(Leaf::Null) => self.ops.push(OP_SET_NULL),
            Event::End => self.ops.push(OP_END),
        }
        Ok(())
    }
}

/// Throws `err` with the results of the failing call on it as `error.events`.
fn with_results(err: &Error, results: &JsValue) -> JsValue {
    let e = js_error(err);
    let _ = js_sys::Reflect::set(&e, &JsValue::from_str("events"), results);
    e
}

/// The incremental parser for one JSON document arriving in pieces (tool-call arguments,
/// structured output): `feed` returns what changed as `JsonEvent`s; `value` is the partial
/// value at any time.
#[wasm_bindgen(js_name = PartialJson)]
pub struct JsPartialJson {
    inner: crate::PartialJson,
    input: ChunkInput,
    packer: Packer,
    state: JsValue,
    fast: FastInput,
    /// `[text pointer, text byte length, ops pointer, ops length]` after `__feedIn`.
    info: Box<[u32; 4]>,
    error: Option<JsValue>,
}

fast_io!(JsPartialJson, PartialJson, info);

#[wasm_bindgen(js_class = PartialJson)]
impl JsPartialJson {
    /// `new PartialJson({ strict?, maxDepth?, maxBufferBytes? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "PartialJsonOptions")] options: Option<
            JsValue,
        >,
    ) -> Result<JsPartialJson, JsValue> {
        let o = PartialJsonOptions::read(options)?;
        let d = crate::PartialJsonOptions::default();
        let opts = crate::PartialJsonOptions {
            strict: o.strict.unwrap_or(d.strict),
            max_depth: whole(o.max_depth, d.max_depth, MAX_DEPTH, "maxDepth")?,
            max_buffer_bytes: whole(
                o.max_buffer_bytes,
                d.max_buffer_bytes,
                usize::MAX,
                "maxBufferBytes",
            )?,
        };
        Ok(JsPartialJson {
            inner: crate::PartialJson::new(opts),
            input: ChunkInput::default(),
            packer: Packer::default(),
            state: __sr_json_state(),
            fast: FastInput::default(),
            info: Box::new([0; 4]),
            error: None,
        })
    }

    /// Reads `len` bytes of the input buffer; returns how many opcodes are packed at the place
    /// `__infoPtr()` names (for `__sr_json_events` with `__jsState()`), or `FAILED`.
    #[doc(hidden)]
    #[wasm_bindgen(js_name = "__feedIn", skip_typescript)]
    pub fn feed_in(&mut self, len: u32) -> u32 {
        self.packer.text.clear();
        self.packer.ops.clear();
        match self.inner.feed_with(self.fast.bytes(len), &mut self.packer) {
            Ok(()) => {
                let p = &self.packer;
                *self.info = [
                    p.text.as_ptr() as usize as u32,
                    p.text.len() as u32,
                    p.ops.as_ptr() as usize as u32,
                    p.ops.len() as u32,
                ];
                p.ops.len() as u32
            }
            Err(e) => {
                let events = self.take_events();
                self.error = Some(with_results(&e, &events));
                FAILED
            }
        }
    }

    /// The JS-side path state the events are built with (shared by both feed paths).
    #[doc(hidden)]
    #[wasm_bindgen(js_name = "__jsState", skip_typescript)]
    pub fn js_state(&self) -> JsValue {
        self.state.clone()
    }

    /// Reads a chunk and returns the events it caused (one `append` per string per call).
    /// Throws `StreamrouteError` `json_invalid` (strict mode), `json_too_deep` or
    /// `buffer_limit_exceeded` with `offset`; the events before the error are on it as
    /// `error.events`. After an error every call throws it again.
    #[wasm_bindgen(unchecked_return_type = "JsonEvent[]")]
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        let bytes = self.input.read(&chunk)?;
        let r = self.inner.feed_with(bytes, &mut self.packer);
        let events = self.take_events();
        match r {
            Ok(()) => Ok(events),
            Err(e) => Err(with_results(&e, &events)),
        }
    }

    /// Ends the document and returns its value. Throws `json_invalid` with `offset` when the
    /// input ended inside the value (the partial value stays readable on `value`), and
    /// `invalid_state` when called again.
    #[wasm_bindgen(unchecked_return_type = "unknown")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let tail = self.input.finish();
        let value = self
            .inner
            .feed_with(tail, &mut self.packer)
            .and_then(|()| self.inner.finish_with(&mut self.packer));
        // The last events (a top-level number's `set` and `end`) are not returned; the value is.
        let events = self.take_events();
        match value {
            Ok(v) => Ok(to_js_value(&v)),
            Err(e) => Err(with_results(&e, &events)),
        }
    }

    /// The value so far, built on each read: strings as read so far, containers with the
    /// members read so far; keys without a value and unfinished numbers left out.
    /// `undefined` before a value begins.
    #[wasm_bindgen(getter, unchecked_return_type = "unknown")]
    pub fn value(&self) -> JsValue {
        match self.inner.value() {
            Some(v) => to_js_value(&v),
            None => JsValue::UNDEFINED,
        }
    }

    fn take_events(&mut self) -> JsValue {
        let events = __sr_json_events(&self.state, &self.packer.text, &self.packer.ops);
        self.packer.text.clear();
        self.packer.ops.clear();
        events
    }
}

/// Streams the elements of the array at a path (`$.items`, `$` for a top-level array), or
/// every top-level value (`$*`: NDJSON, concatenated JSON), each as a complete value as soon
/// as it closes. Everything else is checked but never built.
#[wasm_bindgen(js_name = JsonItemStream)]
pub struct JsJsonItemStream {
    inner: crate::JsonItemStream,
    input: ChunkInput,
    items: Vec<JsonValue>,
    text: String,
}

#[wasm_bindgen(js_class = JsonItemStream)]
impl JsJsonItemStream {
    /// `new JsonItemStream(path, { strict?, maxDepth?, maxItemBytes? })`: `path` is `$`,
    /// `$.a.b`, `$['key']`, `$.a[2].b` or `$*`. Throws `invalid_option` for another path.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "JsonItemStreamOptions")] options: Option<
            JsValue,
        >,
    ) -> Result<JsJsonItemStream, JsValue> {
        let path = &super::text_arg(&path, "path")?;
        let o = JsonItemStreamOptions::read(options)?;
        let d = crate::JsonItemStreamOptions::default();
        let opts = crate::JsonItemStreamOptions {
            strict: o.strict.unwrap_or(d.strict),
            max_depth: whole(o.max_depth, d.max_depth, MAX_DEPTH, "maxDepth")?,
            max_item_bytes: whole(o.max_item_bytes, d.max_item_bytes, usize::MAX, "maxItemBytes")?,
        };
        let inner = crate::JsonItemStream::new(path, opts).map_err(|e| js_error(&e))?;
        Ok(JsJsonItemStream {
            inner,
            input: ChunkInput::default(),
            items: Vec::new(),
            text: String::new(),
        })
    }

    /// Reads a chunk and returns the items it completed. Throws like `PartialJson.feed`
    /// (`buffer_limit_exceeded` for an item past `maxItemBytes`), with the items completed
    /// before the error as `error.events`.
    #[wasm_bindgen(unchecked_return_type = "unknown[]")]
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        let bytes = self.input.read(&chunk)?;
        let r = self.inner.feed(bytes, &mut self.items);
        self.deliver(r)
    }

    /// Ends the input: returns the last items (a top-level number in `$*` mode). Throws
    /// `json_invalid` with `offset` when the input ended inside a value.
    #[wasm_bindgen(unchecked_return_type = "unknown[]")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let tail = self.input.finish();
        let r = self.inner.feed(tail, &mut self.items);
        let r = r.and_then(|()| self.inner.finish(&mut self.items));
        self.deliver(r)
    }

    fn deliver(&mut self, mut r: crate::Result<()>) -> Result<JsValue, JsValue> {
        self.text.clear();
        let mut sep = '[';
        for v in self.items.drain(..) {
            // Room for the item, its separator and the closing `]`, or the items so far go
            // out and the stream fails with `memory_limit_exceeded`.
            let n = v.json_len() + 2;
            if self.text.try_reserve(n).is_err() {
                r = Err(self.inner.fail(out_of_memory(n)));
                break;
            }
            self.text.push(sep);
            v.write_json(&mut self.text);
            sep = ',';
        }
        self.items.clear();
        let items = if self.text.is_empty() {
            js_sys::Array::new().into()
        } else {
            self.text.push(']');
            super::host::json_parse(&self.text)
        };
        match r {
            Ok(()) => Ok(items),
            Err(e) => Err(with_results(&e, &items)),
        }
    }
}
