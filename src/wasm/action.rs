//! JS functions `normalizeAction`, `normalizeActionWithDiagnostics`, `actionToLegacy`.

use super::host::to_js_value;
use super::{js_error, Utf16Offsets};
use crate::json::JsonValue;
use crate::{Error, ErrorKind};
use wasm_bindgen::prelude::*;

pub(crate) fn action_value(a: &crate::PlannerAction) -> JsonValue {
    let opt = |s: &Option<String>| s.clone().map_or(JsonValue::Null, JsonValue::String);
    JsonValue::Object(vec![
        ("next_node".into(), JsonValue::String(a.next_node.clone())),
        ("args".into(), a.args_value()),
        ("thought".into(), opt(&a.thought)),
        ("reasoning".into(), opt(&a.reasoning)),
    ])
}

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
    Ok(to_js_value(&action_value(&a)))
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
        ("action".into(), action_value(&a)),
        ("diagnostics".into(), diagnostics_value(&text, &d)),
    ])))
}

fn diagnostics_value(text: &str, d: &crate::ActionDiagnostics) -> JsonValue {
    let num = |n: u64| JsonValue::Number(n.to_string());
    // Repairs come in input order: one forward walk turns their offsets into UTF-16 units.
    let mut units = Utf16Offsets::new(text);
    let repairs = d
        .repairs
        .iter()
        .map(|r| {
            JsonValue::Object(vec![
                ("kind".into(), JsonValue::String(r.kind.to_string())),
                ("offset".into(), num(units.at(r.offset))),
            ])
        })
        .collect();
    let others = d
        .other_actions
        .iter()
        .map(|(src, a)| {
            JsonValue::Object(vec![("source".into(), JsonValue::String(src.as_str().into())), ("action".into(), action_value(a))])
        })
        .collect();
    let mut units = Utf16Offsets::new(text);
    let prefix = units.at(d.ignored_prefix_len);
    let suffix_start = units.at(text.len() - d.ignored_suffix_len);
    let suffix = units.at(text.len()).saturating_sub(suffix_start);
    JsonValue::Object(vec![
        ("source".into(), JsonValue::String(d.source.as_str().into())),
        ("repairs".into(), JsonValue::Array(repairs)),
        ("ignored_prefix_len".into(), num(prefix)),
        ("ignored_suffix_len".into(), num(suffix)),
        ("other_actions".into(), JsonValue::Array(others)),
    ])
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
