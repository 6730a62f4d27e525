//! What every entry's bindings take from JS itself: `JSON.parse` and number text, so that
//! the wasm carries no float parser or formatter of its own.

use crate::JsonValue;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/pkg/entry/wasm-imports.js")]
extern "C" {
    fn __sr_json_parse(text: &str) -> JsValue;
    fn __sr_number_text(x: f64) -> String;
    fn __sr_number(text: &str) -> f64;
}

pub(crate) fn to_js_value(v: &JsonValue) -> JsValue {
    json_parse(&v.to_json())
}

/// A finite `x` as number text, by JS (`String(x)`: the shortest text that reads back as `x`),
/// for `crate::num`: the wasm carries no float formatter of its own.
pub(crate) fn host_number_text(x: f64) -> String {
    __sr_number_text(x)
}

/// The value of JSON number text, by JS (`Number(text)`), for `crate::num`.
pub(crate) fn host_number(text: &str) -> f64 {
    __sr_number(text)
}

/// The package's one JSON-text-to-value conversion (`JSON.parse`: plain objects, JS numbers).
pub(crate) fn json_parse(text: &str) -> JsValue {
    __sr_json_parse(text)
}
