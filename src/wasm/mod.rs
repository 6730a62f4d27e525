//! The WebAssembly bindings: the only place where `JsValue` appears. Each submodule wraps
//! core machines and functions as the package's JS classes and functions.

#[cfg(feature = "json")]
pub mod action;
mod de;
#[cfg(feature = "json")]
pub mod extractor;
pub(crate) use de::{js_text, kind_of, opt_text_arg, options_copy, text_arg};
mod handle;
pub(crate) mod host;
#[cfg(feature = "partial")]
pub mod json;
#[cfg(feature = "payload")]
pub mod payload;
#[cfg(feature = "planning")]
pub mod plan;
#[cfg(feature = "json")]
pub mod repair;
#[cfg(feature = "router")]
pub mod router;
#[cfg(feature = "decoder")]
pub mod sse;
#[cfg(feature = "tags")]
pub mod tags;

pub(crate) use crate::text::{utf16_units, Utf16Offsets};
use crate::{Error, ErrorKind};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/pkg/entry/wasm-imports.js")]
extern "C" {
    fn __sr_error(code: &str, message: &str, offset: Option<f64>) -> JsValue;
    fn __sr_encode_error(thrown: &JsValue, what: &str) -> JsValue;
    fn __sr_panic(file: &str, line: u32, column: u32);
}

/// A core error as a thrown `StreamrouteError` with more on it (`error.violations`, ...).
pub(crate) fn js_error_with(err: &Error, fields: &[(&str, JsValue)]) -> JsValue {
    let e: NewObject = js_error(err).unchecked_into();
    for (key, value) in fields {
        e.set(&JsValue::from_str(key), value);
    }
    e.into()
}

/// `json_too_deep` / `input_too_large` when `JSON.stringify` threw `thrown` because `what` was
/// too big (runtime.js reads the engine's error); `None` for a BigInt or a cycle.
pub(crate) fn too_big_to_encode(thrown: &JsValue, what: &str) -> Option<JsValue> {
    Some(__sr_encode_error(thrown, what)).filter(|e| !e.is_null())
}

/// The JSON text a `JSON.stringify` call made of `what`, within the input cap; a value it
/// cannot encode (a BigInt, a cycle, a function) is `unencodable`.
pub(crate) fn stringified(made: Result<JsValue, JsValue>, what: &str, unencodable: ErrorKind) -> Result<String, JsValue> {
    let unencodable = || js_error(&Error::new(unencodable, format!("{what} must be a JSON-serialisable value")));
    let text = made.map_err(|e| too_big_to_encode(&e, what).unwrap_or_else(unencodable))?;
    js_text(&text, what).unwrap_or_else(|| Err(unencodable()))
}

/// `value` as JSON text by `JSON.stringify`, as [`stringified`] reads it.
pub(crate) fn stringify(value: &JsValue, what: &str, unencodable: ErrorKind) -> Result<String, JsValue> {
    stringified(js_sys::JSON::stringify(value).map(JsValue::from), what, unencodable)
}

/// Converts a core error into a thrown `StreamrouteError`.
pub(crate) fn js_error(err: &Error) -> JsValue {
    __sr_error(err.code(), err.message(), err.offset().map(|o| o as f64))
}

/// The allocator of every `.wasm` (`crates/heap`: TLSF, null rather than a trap when memory
/// runs out, the cap of `init({ maxMemoryBytes })`; ARCHITECTURE.md, docs/errors.md).
#[global_allocator]
static ALLOCATOR: streamroute_heap::Heap = streamroute_heap::Heap;

/// A panic is a bug and aborts the instance: the hook says where first (formatting nothing).
#[wasm_bindgen(start, js_name = "__streamroute_start", skip_typescript)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        if let Some(at) = info.location() {
            __sr_panic(at.file(), at.line(), at.column());
        }
    }));
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// `buildInfo` (declared in pkg/entry/classes/machine.api.d.ts).
#[wasm_bindgen(js_name = buildInfo, skip_typescript)]
pub fn build_info() -> Result<JsValue, JsValue> {
    // Built as plain objects directly: no serde serializer in the `.wasm`.
    // Every entry with an `SseDecoder`: the client's is JavaScript, with the same caps.
    #[cfg(any(feature = "decoder", feature = "client"))]
    let limits = plain_object(&[
        ("sseMaxLineBytes", JsValue::from_f64(crate::budget::SSE_MAX_LINE_BYTES as f64)),
        ("sseMaxEventBytes", JsValue::from_f64(crate::budget::SSE_MAX_EVENT_BYTES as f64)),
    ]);
    #[cfg(not(any(feature = "decoder", feature = "client")))]
    let limits = plain_object(&[]);
    let features = js_sys::Array::new();
    for f in crate::entry::ENABLED {
        features.push(&JsValue::from_str(f));
    }
    Ok(plain_object(&[
        ("entry", JsValue::from_str(crate::entry::ENTRY)),
        ("features", features.into()),
        ("version", JsValue::from_str(crate::VERSION)),
        ("limits", limits),
    ]))
}

/// A fresh plain object with these properties, in this order.
pub(crate) fn plain_object(props: &[(&str, JsValue)]) -> JsValue {
    let o = new_object();
    for (key, value) in props {
        o.set(&JsValue::from_str(key), value);
    }
    o.into()
}

#[wasm_bindgen]
extern "C" {
    /// An object the bindings make to hand to JS.
    #[wasm_bindgen(extends = js_sys::Object)]
    pub(crate) type NewObject;
    /// `object[key] = value`: a plain assignment, not a `catch` import (as fast as the
    /// serializer's was; the objects have no setters of their own).
    #[wasm_bindgen(method, indexing_setter)]
    pub(crate) fn set(this: &NewObject, key: &JsValue, value: &JsValue);
}

/// A fresh plain object to fill with [`NewObject::set`].
pub(crate) fn new_object() -> NewObject {
    js_sys::Object::new().unchecked_into()
}

#[cfg(feature = "tags")]
/// `makeNonce` (declared in pkg/entry/classes/tags.api.d.ts).
#[wasm_bindgen(js_name = makeNonce, skip_typescript)]
pub fn make_nonce() -> Result<String, JsValue> {
    crate::make_nonce().map_err(|e| js_error(&e))
}
