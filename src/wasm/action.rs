//! JS functions `normalizeAction`, `normalizeActionWithDiagnostics`, `actionToLegacy`.

use super::host::to_js_value;
use super::js_error;
use crate::json::JsonValue;
use crate::{Error, ErrorKind};
use wasm_bindgen::prelude::*;

/// The input as text (a string as it is, anything else through `JSON.stringify`).
fn input_text(raw: &JsValue) -> Result<String, JsValue> {
    if let Some(s) = super::js_text(raw, "the action") {
        return s;
    }
    super::stringify(raw, "the action", ErrorKind::ActionPayloadUnparseable)
}

/// The error of normalising `text` (`raw` as text): an object nested past the depth cap is
/// `json_too_deep`, not an action not found.
fn action_error(raw: &JsValue, text: &str, e: Error) -> JsValue {
    if !raw.is_string() && e.kind() == ErrorKind::ActionPayloadUnparseable {
        if let Err(deep) = crate::parse_strict(text.as_bytes()) {
            if deep.kind() == ErrorKind::JsonTooDeep {
                return js_error(&deep);
            }
        }
    }
    js_error(&e)
}

/// `normalizeAction` (declared in pkg/entry/classes/extractor.api.d.ts).
#[wasm_bindgen(js_name = normalizeAction, skip_typescript)]
pub fn normalize_action(raw: JsValue) -> Result<JsValue, JsValue> {
    let text = input_text(&raw)?;
    let a = crate::normalize_action_text(&text).map_err(|e| action_error(&raw, &text, e))?;
    Ok(to_js_value(&a.to_json_value()))
}

/// `normalizeActionWithDiagnostics` (declared in pkg/entry/classes/extractor.api.d.ts).
#[wasm_bindgen(js_name = normalizeActionWithDiagnostics, skip_typescript)]
pub fn normalize_action_with_diagnostics(raw: JsValue) -> Result<JsValue, JsValue> {
    let text = input_text(&raw)?;
    let (a, d) = crate::normalize_action_with_diagnostics(&text).map_err(|e| action_error(&raw, &text, e))?;
    Ok(to_js_value(&JsonValue::Object(vec![
        ("action".into(), a.to_json_value()),
        ("diagnostics".into(), d.to_json_value(&text)),
    ])))
}

/// `actionToLegacy` (declared in pkg/entry/classes/extractor.api.d.ts).
#[wasm_bindgen(js_name = actionToLegacy, skip_typescript)]
pub fn action_to_legacy(action: JsValue) -> Result<JsValue, JsValue> {
    let text = input_text(&action)?;
    let a = crate::normalize_action_text(&text).map_err(|e| action_error(&action, &text, e))?;
    Ok(to_js_value(&a.to_legacy()))
}
