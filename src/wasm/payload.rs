//! The final payload, artifact and source functions and classes (pkg/entry/classes/payload.js
//! holds the JS halves). Values cross as JSON text both ways, much cheaper for big
//! observations than walking a JS object from wasm.

use super::handle::methods;
use super::host::{json_parse, to_js_value};
use super::{js_error, opt_text_arg, text_arg};
use crate::json::JsonValue;
use crate::{Error, ErrorKind};
use wasm_bindgen::prelude::*;

// ---------------------------------------------------------------------------------------------
// Conversions

fn invalid(message: impl Into<String>) -> JsValue {
    js_error(&Error::new(ErrorKind::InvalidInput, message))
}

/// A JS value as JSON text (`JSON.stringify`).
fn json_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    super::stringify(value, what, ErrorKind::InvalidInput)
}

/// The JSON text a stringify call made of `what` (`super::stringified`; `invalid_input` for a
/// value it cannot encode).
fn stringified(made: Result<JsValue, JsValue>, what: &str) -> Result<String, JsValue> {
    super::stringified(made, what, ErrorKind::InvalidInput)
}

/// A JS value as a `JsonValue` (through `JSON.stringify`).
fn json_in(value: &JsValue, what: &str) -> Result<JsonValue, JsValue> {
    parse_text(&json_text(value, what)?, what)
}

#[wasm_bindgen(module = "/pkg/entry/wasm-imports.js")]
extern "C" {
    // `catch`: a JS exception must not unwind through wasm frames; JSON.stringify throws on
    // BigInt and cycles.
    #[wasm_bindgen(catch)]
    fn __sr_stringify_finite(value: &JsValue) -> Result<JsValue, JsValue>;
}

/// A payload or its args, a non-finite number as its name (`"NaN"`), not `null`: an invalid
/// `confidence: NaN`, not a missing one.
fn payload_in(value: &JsValue, what: &str) -> Result<JsonValue, JsValue> {
    parse_text(&stringified(__sr_stringify_finite(value), what)?, what)
}

/// An error of reading the observation text: `json_invalid` is the caller's `invalid_input`.
fn observation_error(e: &Error) -> JsValue {
    if e.kind() == ErrorKind::JsonInvalid {
        invalid(format!("the observation: {}", e.message()))
    } else {
        js_error(e)
    }
}

fn parse_text(text: &str, what: &str) -> Result<JsonValue, JsValue> {
    crate::parse_strict(text.as_bytes()).map_err(|e| {
        let kind = if e.kind() == ErrorKind::JsonTooDeep { e.kind() } else { ErrorKind::InvalidInput };
        js_error(&Error::new(kind, format!("{what}: {}", e.message())))
    })
}

/// A schema given as an object/boolean or as JSON text.
fn schema_in(schema: &JsValue) -> Result<JsonValue, JsValue> {
    match super::js_text(schema, "the schema") {
        Some(text) => parse_text(&text?, "schema"),
        None => json_in(schema, "schema"),
    }
}

/// Whether a JS value is a primitive that redaction returns as it is (a string is not: it may
/// hold a tool's raw JSON output, which the core reads as a document of its own).
fn is_primitive(v: &JsValue) -> bool {
    !v.is_object() && !v.is_string()
}

/// The redacted observation from its redacted JSON text: a string observation in which
/// nothing was replaced comes back as the very string (not a UTF-8 round trip of it).
fn redacted_back(observation: JsValue, text: &str, replaced: usize) -> JsValue {
    if replaced == 0 && observation.is_string() {
        observation
    } else {
        json_parse(text)
    }
}

fn payload_invalid(problems: &[crate::PayloadProblem]) -> JsValue {
    let list = JsonValue::Array(problems.iter().map(crate::PayloadProblem::to_json_value).collect());
    super::js_error_with(&crate::payload_error(problems), &[("problems", to_js_value(&list))])
}

// ---------------------------------------------------------------------------------------------
// Functions

/// `validateFinalPayload` (its JS half in classes/payload.js).
#[wasm_bindgen(js_name = validateFinalPayloadHandle, skip_typescript)]
pub fn validate_final_payload(#[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue) -> Result<JsValue, JsValue> {
    let v = if value.is_undefined() { JsonValue::Null } else { payload_in(&value, "the payload")? };
    let p = crate::check_final_payload(&v).map_err(|p| payload_invalid(&p))?;
    Ok(to_js_value(&p.to_value()))
}

/// `buildFinalPayload` (its JS half in classes/payload.js).
#[wasm_bindgen(js_name = buildFinalPayloadHandle, skip_typescript)]
pub fn build_final_payload(
    #[wasm_bindgen(unchecked_param_type = "FinalResponseArgs | PlannerAction | Record<string, unknown> | string | null")]
    args: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "FinalPayloadContext")] context: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let args = if args.is_undefined() { JsonValue::Null } else { payload_in(&args, "args")? };
    let ctx = match context {
        Some(c) if !c.is_undefined() && !c.is_null() => {
            crate::PayloadContext::from_value(&payload_in(&c, "context")?).map_err(|e| js_error(&e))?
        }
        _ => crate::PayloadContext::default(),
    };
    let built = crate::build_final_payload(&args, &ctx).map_err(|e| js_error(&e))?;
    Ok(to_js_value(&JsonValue::Object(vec![
        ("payload".into(), built.payload.to_value()),
        ("warnings".into(), JsonValue::strings(&built.warnings)),
    ])))
}

/// `redactArtifacts` of what the JS walk does not take (classes/payload.js).
#[wasm_bindgen(js_name = redactArtifactsHandle, skip_typescript)]
pub fn redact_artifacts(
    #[wasm_bindgen(unchecked_param_type = "unknown")] observation: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown> | boolean | string")] schema: JsValue,
) -> Result<JsValue, JsValue> {
    let schema = schema_in(&schema)?;
    if is_primitive(&observation) {
        crate::payload::check_schema(&schema).map_err(|e| js_error(&e))?;
        return Ok(observation);
    }
    let text = json_text(&observation, "the observation")?;
    let (out, replaced) = crate::payload::redact_text_counted(&text, &schema).map_err(|e| observation_error(&e))?;
    Ok(redacted_back(observation, &out, replaced))
}

/// The artifact plan of a schema (JSON text in and out; `undefined`: none) for the JS walk.
#[wasm_bindgen(js_name = artifactPlanHandle, skip_typescript)]
pub fn artifact_plan(#[wasm_bindgen(js_name = schemaJson)] schema_json: &str) -> Option<String> {
    crate::payload::artifact_plan(&crate::parse_strict(schema_json.as_bytes()).ok()?)
}

/// `redactArtifactsJson` (declared in pkg/entry/classes/payload.api.d.ts).
#[wasm_bindgen(js_name = redactArtifactsJson, skip_typescript)]
pub fn redact_artifacts_json(observation_json: JsValue, schema: JsValue) -> Result<String, JsValue> {
    let observation_json = &text_arg(&observation_json, "observation_json")?;
    let schema = schema_in(&schema)?;
    crate::redact_artifacts_json(observation_json, &schema).map_err(|e| observation_error(&e))
}

/// `collectSources` (declared in pkg/entry/classes/payload.api.d.ts).
#[wasm_bindgen(js_name = collectSources, skip_typescript)]
pub fn collect_sources(steps: JsValue) -> Result<JsValue, JsValue> {
    let steps = json_in(&steps, "steps")?;
    let JsonValue::Array(items) = &steps else {
        return Err(invalid("collectSources expects an array of { node, schema, observation }"));
    };
    let null = JsonValue::Null;
    let mut list = Vec::with_capacity(items.len());
    for (i, step) in items.iter().enumerate() {
        let node = step.get("node").and_then(JsonValue::as_str);
        let schema = step.get("schema");
        let (Some(node), Some(schema)) = (node, schema) else {
            return Err(invalid(format!("steps[{i}] must have a string node and a schema")));
        };
        list.push(crate::ToolStep { node, schema, observation: step.get("observation").unwrap_or(&null) });
    }
    let sources = crate::collect_sources(&list).map_err(|e| js_error(&e))?;
    Ok(to_js_value(&JsonValue::Array(sources.iter().map(crate::Source::to_value).collect())))
}

// ---------------------------------------------------------------------------------------------
// ArtifactCollector

/// Collects artifact fields from full tool observations, by tool name.
#[wasm_bindgen(js_name = ArtifactCollectorHandle, skip_typescript)]
pub struct ArtifactCollector {
    inner: crate::ArtifactCollector,
    store: Option<js_sys::Function>,
}

#[wasm_bindgen(js_class = ArtifactCollectorHandle)]
impl ArtifactCollector {
    #[wasm_bindgen(constructor, skip_typescript)]
    pub fn new(options: Option<JsValue>) -> Result<ArtifactCollector, JsValue> {
        let mut opts = crate::ArtifactCollectorOptions::default();
        let mut store = None;
        if let Some(o) = options.filter(|o| !o.is_undefined() && !o.is_null()) {
            let bad = |m: &str| js_error(&Error::new(ErrorKind::InvalidOption, m));
            let o = super::options_copy(&o, &["maxInlineBytes", "store"])?;
            if !o.is_object() {
                return Err(bad("ArtifactCollector options must be an object"));
            }
            if let Some(max) = super::de::prop(&o, "maxInlineBytes") {
                let n = max.as_f64().ok_or_else(|| bad("maxInlineBytes must be a non-negative integer"))?;
                let n = super::de::whole_arg(Some(n), "maxInlineBytes", 0, super::de::MAX_SAFE, ErrorKind::InvalidOption)?;
                opts.max_inline_bytes = n.unwrap_or(0) as usize;
            }
            if let Some(s) = super::de::prop(&o, "store").filter(|s| !s.is_null()) {
                store = Some(s.dyn_into::<js_sys::Function>().map_err(|_| bad("store must be a function"))?);
            }
        }
        Ok(ArtifactCollector { inner: crate::ArtifactCollector::new(opts), store })
    }
}

methods! { ArtifactCollector as ArtifactCollectorHandle;
    get maxInlineBytes -> f64 = |h| h.inner.options().max_inline_bytes as f64;
    get store -> Option<js_sys::Function> = |h| h.store.clone();
}

/// `ArtifactCollector`'s walk of what the JS walk does not take, or of JSON text (`json`):
/// `[nodeName, redacted, name, text, name, text, ...]`.
#[wasm_bindgen(js_name = artifactsHandle, skip_typescript)]
pub fn artifacts(node_name: JsValue, schema: JsValue, observation: JsValue, json: bool) -> Result<js_sys::Array, JsValue> {
    let node_name = text_arg(&node_name, "nodeName")?;
    let text = if json { Some(text_arg(&observation, "observationJson")?) } else { None };
    let schema = schema_in(&schema)?;
    let out = js_sys::Array::of1(&JsValue::from_str(&node_name));
    if text.is_none() && is_primitive(&observation) {
        crate::payload::check_schema(&schema).map_err(|e| js_error(&e))?;
        out.push(&observation);
        return Ok(out);
    }
    let text = match text {
        Some(t) => t,
        None => json_text(&observation, "the observation")?,
    };
    let walk = crate::payload::collect_text(&text, &schema).map_err(|e| observation_error(&e))?;
    out.push(&if json { JsValue::from_str(&walk.text) } else { redacted_back(observation, &walk.text, walk.replaced) });
    for (name, t) in &walk.found {
        out.push(&JsValue::from_str(name));
        out.push(&JsValue::from_str(t));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// ArtifactStream

/// Numbers artifact chunks per `stream_id` and makes `artifact_chunk` events of them.
#[wasm_bindgen(js_name = ArtifactStreamHandle, skip_typescript)]
#[derive(Default)]
pub struct ArtifactStream {
    inner: crate::ArtifactStream,
}

#[wasm_bindgen(js_class = ArtifactStreamHandle)]
impl ArtifactStream {
    #[wasm_bindgen(constructor, skip_typescript)]
    pub fn new() -> ArtifactStream {
        ArtifactStream::default()
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn emit(
        &mut self,
        #[wasm_bindgen(js_name = streamId)] stream_id: JsValue,
        chunk: JsValue,
        done: Option<bool>,
        #[wasm_bindgen(js_name = artifactType)] artifact_type: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        let stream_id = &text_arg(&stream_id, "streamId")?;
        let artifact_type = opt_text_arg(artifact_type, "artifactType")?;
        let chunk = json_in(&chunk, "the chunk")?;
        let c = self.inner.emit(stream_id, chunk, done.unwrap_or(false), artifact_type.as_deref()).map_err(|e| js_error(&e))?;
        c.to_json_text().map(|text| json_parse(&text)).map_err(|e| js_error(&e))
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn finish(&mut self, payload: JsValue) -> Result<JsValue, JsValue> {
        let v = json_in(&payload, "the payload")?;
        let p = crate::check_final_payload(&v).map_err(|p| payload_invalid(&p))?;
        Ok(to_js_value(&crate::done_event(&p)))
    }
}

methods! { ArtifactStream as ArtifactStreamHandle;
    fn openStreams -> Vec<String> = |h| h.inner.open_streams().into_iter().map(String::from).collect();
    mut reset = |h| h.inner.reset();
}
