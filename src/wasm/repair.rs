//! `repairJson`, `repairJsonWithLog` and `parseJson`.
//!
//! Offsets cross into JS as UTF-16 code units, the unit JS strings are indexed in (the core
//! reports byte offsets): `text.slice(repair.offset)` starts at the repaired character, and
//! `error.offset` of `parseJson` points into `text` the same way. Values come out of
//! `JSON.parse` on the (repaired or re-printed) JSON text, as everywhere in this package:
//! plain objects, JS numbers.

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

/// Repairs broken JSON (fences, prose, comments, quotes, Python and JS literals, commas,
/// truncation, …) into valid compact JSON text. Throws `StreamrouteError`
/// `json_unrepairable` when there is no value in `text`, `json_too_deep` past 512 levels.
#[wasm_bindgen(js_name = repairJson)]
pub fn repair_json(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<String, JsValue> {
    let text = text_arg(&text, "text")?;
    crate::repair_json(&text).map_err(|e| error_in(&text, &e))
}

/// `repairJson`, with the repairs applied: `{ json, repairs: [{ kind, offset }] }`, offsets
/// in UTF-16 code units of `text`.
#[wasm_bindgen(js_name = repairJsonWithLog, unchecked_return_type = "RepairResult")]
pub fn repair_json_with_log(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<JsValue, JsValue> {
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

/// Parses JSON text into a JS value: strictly (RFC 8259; `json_invalid` with the UTF-16
/// `offset` of the problem), or with `{ repair: true }` after repairing it.
#[wasm_bindgen(js_name = parseJson, unchecked_return_type = "unknown")]
pub fn parse_json(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ParseJsonOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let o = ParseJsonOptions::from_js(options)?;
    let text = text_arg(&text, "text")?;
    let json = if o.repair.unwrap_or(false) {
        crate::repair_json(&text)
    } else {
        crate::parse_strict(text.as_bytes()).map(|v| v.to_json())
    };
    json.map(|j| json_parse(&j)).map_err(|e| error_in(&text, &e))
}
