//! `repairJson`, `repairJsonWithLog` and `parseJson`. Offsets cross as UTF-16 units (the core's
//! are bytes), so `text.slice(repair.offset)` starts at the repaired character.

use super::de::options;
use super::host::json_parse;
use super::{js_error, plain_object, text_arg, Utf16Offsets};
use crate::Error;
use std::fmt::Write as _;
use wasm_bindgen::prelude::*;

options! {
    /// Options of `parseJson(text, options)`.
    pub struct ParseJsonOptions {
        /// Repair the text first (default `false`: strict RFC 8259).
        repair: bool = "repair",
    }
}

/// `err` for JS, with its byte offset in `text` turned into UTF-16 units.
fn error_in(text: &str, err: &Error) -> JsValue {
    let mut e = Error::new(err.kind(), err.message());
    if let Some(at) = err.offset() {
        e = e.at(Utf16Offsets::new(text).at(at as usize));
    }
    js_error(&e)
}

/// `repairJson` (declared in pkg/entry/classes/extractor.api.d.ts).
#[wasm_bindgen(js_name = repairJson, skip_typescript)]
pub fn repair_json(text: JsValue) -> Result<String, JsValue> {
    let text = text_arg(&text, "text")?;
    crate::repair_json(&text).map_err(|e| error_in(&text, &e))
}

/// `repairJsonWithLog` (declared in pkg/entry/classes/extractor.api.d.ts).
#[wasm_bindgen(js_name = repairJsonWithLog, skip_typescript)]
pub fn repair_json_with_log(text: JsValue) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let (json, log) = crate::repair_json_with_log(&text).map_err(|e| error_in(&text, &e))?;
    // A large document can have a repair every few bytes: the entries cross as one JSON
    // text (one `JSON.parse`), not as one object built field by field each.
    let mut offsets = Utf16Offsets::new(&text);
    let mut entries = String::with_capacity(log.len() * 32 + 2);
    entries.push('[');
    for (i, r) in log.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(entries, r#"{sep}{{"kind":"{}","offset":{}}}"#, r.kind, offsets.at(r.offset));
    }
    entries.push(']');
    Ok(plain_object(&[("json", JsValue::from_str(&json)), ("repairs", json_parse(&entries))]))
}

/// `parseJson` (declared in pkg/entry/classes/extractor.api.d.ts).
#[wasm_bindgen(js_name = parseJson, skip_typescript)]
pub fn parse_json(text: JsValue, options: Option<JsValue>) -> Result<JsValue, JsValue> {
    let o = ParseJsonOptions::from_js(options)?;
    let text = text_arg(&text, "text")?;
    let json = if o.repair.unwrap_or(false) {
        crate::repair_json(&text)
    } else {
        crate::parse_strict(text.as_bytes()).map(|v| v.to_json())
    };
    json.map(|j| json_parse(&j)).map_err(|e| error_in(&text, &e))
}
