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

/// The error of normalising `text`, the input `raw` as text: an object (not a string) whose
/// JSON text nests past the depth cap is `json_too_deep`, as `JSON.stringify` reports a value
/// too deep for the engine, rather than an action not found.
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

/// Finds and normalises the planner action in model output (or an object).
/// Throws `action_payload_unparseable` or `action_missing_next_node`.
#[wasm_bindgen(js_name = normalizeAction, unchecked_return_type = "PlannerAction")]
pub fn normalize_action(#[wasm_bindgen(unchecked_param_type = "string | object")] raw: JsValue) -> Result<JsValue, JsValue> {
    let text = input_text(&raw)?;
    let a = crate::normalize_action_text(&text).map_err(|e| action_error(&raw, &text, e))?;
    Ok(to_js_value(&a.to_json_value()))
}

/// `normalizeAction` plus where the action came from, the repairs applied, the ignored
/// prefix/suffix and the other candidates.
#[wasm_bindgen(js_name = normalizeActionWithDiagnostics, unchecked_return_type = "NormalizedAction")]
pub fn normalize_action_with_diagnostics(
    #[wasm_bindgen(unchecked_param_type = "string | object")] raw: JsValue,
) -> Result<JsValue, JsValue> {
    let text = input_text(&raw)?;
    let (a, d) = crate::normalize_action_with_diagnostics(&text).map_err(|e| action_error(&raw, &text, e))?;
    Ok(to_js_value(&JsonValue::Object(vec![
        ("action".into(), a.to_json_value()),
        ("diagnostics".into(), d.to_json_value(&text)),
    ])))
}

/// The legacy `{thought, next_node, args, plan, join}` shape of a (normalised) action.
#[wasm_bindgen(js_name = actionToLegacy, unchecked_return_type = "Record<string, unknown>")]
pub fn action_to_legacy(
    #[wasm_bindgen(unchecked_param_type = "PlannerAction | string")] action: JsValue,
) -> Result<JsValue, JsValue> {
    let text = input_text(&action)?;
    let a = crate::normalize_action_text(&text).map_err(|e| action_error(&action, &text, e))?;
    Ok(to_js_value(&a.to_legacy()))
}
