//! The planning functions and classes. Arguments cross as JSON text (`__sr_stringify`), results
//! through `JSON.parse`; vectors are read as `Float32Array`s straight into wasm memory.

use super::handle::methods;
use super::host::{json_parse, to_js_value};
use super::{js_error, options_copy};
use crate::json::JsonValue;
use crate::plan::{self, CapabilityMap as CoreMap, EmbeddingModel, Mode, NarrowOptions, Requirements, ToolIndex as CoreIndex};
use crate::{Error, ErrorKind};
use js_sys::{Array, Float32Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/pkg/entry/wasm-imports.js")]
extern "C" {
    // `catch`: a JS exception must not unwind through wasm frames (their destructors would
    // not run, leaving this object borrowed); JSON.stringify throws on BigInt and cycles.
    #[wasm_bindgen(catch)]
    fn __sr_stringify(value: &JsValue) -> Result<JsValue, JsValue>;
    fn __sr_catalog_split(catalog: &JsValue) -> JsValue;
}

fn bad(msg: impl Into<String>) -> JsValue {
    js_error(&Error::new(ErrorKind::InvalidInput, msg))
}

/// A JS value (or JSON text) as a `JsonValue`.
fn json_arg(value: &JsValue, what: &str) -> Result<JsonValue, JsValue> {
    let text = match super::js_text(value, what) {
        Some(s) => s?,
        None if value.is_undefined() => return Err(bad(format!("{what} is missing"))),
        None => super::stringified(__sr_stringify(value), what, ErrorKind::InvalidInput)?,
    };
    crate::parse_strict(text.as_bytes()).map_err(|e| js_error(&Error::new(e.kind(), format!("{what}: {}", e.message()))))
}

/// `obj[key]` of a plain options copy (or a non-object: `None`), `None` for `undefined` and `null`.
fn get(obj: &JsValue, key: &str) -> Option<JsValue> {
    super::de::prop(obj, key).filter(|v| !v.is_null())
}

fn requirements(value: &JsValue) -> Result<Requirements, JsValue> {
    let v = json_arg(value, "requirements")?;
    Requirements::from_json(&v).map_err(|e| invalid_requirements(&e))
}

/// The `requirements_invalid` error with `errors` set to the issues.
fn invalid_requirements(e: &plan::InvalidRequirements) -> JsValue {
    let issues = JsonValue::Array(e.issues.iter().map(|i| i.to_json_value()).collect());
    super::js_error_with(&e.error(), &[("errors", to_js_value(&issues))])
}

fn strings(v: &JsonValue, what: &str) -> Result<Vec<String>, JsValue> {
    plan::string_list(v, what).map_err(|e| js_error(&e))
}

/// An option of the wrong type: `invalid_option` naming it and what it got.
fn wrong_type(v: &JsValue, what: &str, expected: &str) -> JsValue {
    js_error(&Error::new(ErrorKind::InvalidOption, format!("{what} must be {expected}, got {}", super::kind_of(v))))
}

fn number(v: &JsValue, what: &str) -> Result<f64, JsValue> {
    v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| wrong_type(v, what, "a finite number"))
}

/// A string option, `None` when absent.
fn text_option(v: Option<JsValue>, what: &str) -> Result<Option<String>, JsValue> {
    v.map(|v| v.as_string().ok_or_else(|| wrong_type(&v, what, "a string"))).transpose()
}

/// `model_id` (or `modelId`) of an options object.
fn model_id(o: &JsValue) -> Result<Option<String>, JsValue> {
    match get(o, "model_id") {
        Some(m) => text_option(Some(m), "model_id"),
        None => text_option(get(o, "modelId"), "modelId"),
    }
}

/// A count parameter (`search(vector, n)`): a value that is not a number is the wrong
/// argument, `invalid_input`; otherwise as [`count`].
fn count_param(v: Option<JsValue>, what: &str, default: usize) -> Result<usize, JsValue> {
    match &v {
        Some(x) if x.as_f64().is_none() => Err(bad(format!("{what} must be a number, got {}", super::kind_of(x)))),
        _ => count(v, what, default),
    }
}

/// A count option: a whole number from 0 to 10^9, or `default` when absent.
fn count(v: Option<JsValue>, what: &str, default: usize) -> Result<usize, JsValue> {
    match v {
        None => Ok(default),
        Some(v) => {
            let x = number(&v, what)?;
            Ok(super::de::whole_arg(Some(x), what, 0, 1_000_000_000, ErrorKind::InvalidOption)?.unwrap_or(0) as usize)
        }
    }
}

/// Floats of one vector: a `Float32Array` (or other typed array) or an array of numbers.
fn flat_floats(v: &JsValue, what: &str) -> Result<Vec<f32>, JsValue> {
    if let Some(a) = v.dyn_ref::<Float32Array>() {
        return Ok(a.to_vec());
    }
    if Array::is_array(v) {
        let arr: &Array = v.unchecked_ref();
        return arr
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| bad(format!("{what} must hold numbers")));
    }
    if js_sys::ArrayBuffer::is_view(v) {
        return Ok(Float32Array::new(v).to_vec());
    }
    Err(bad(format!("{what} must be a Float32Array or an array of numbers")))
}

/// Floats of one vector, or of an array of vectors (concatenated).
fn floats(v: &JsValue, what: &str) -> Result<Vec<f32>, JsValue> {
    if Array::is_array(v) {
        let arr: &Array = v.unchecked_ref();
        if arr.length() > 0 && arr.get(0).as_f64().is_none() {
            let mut out = Vec::new();
            for item in arr.iter() {
                out.extend(flat_floats(&item, what)?);
            }
            return Ok(out);
        }
    }
    flat_floats(v, what)
}

/// Query vectors with their model tag (when given).
struct Vectors {
    floats: Vec<f32>,
    model_id: Option<String>,
    dim: Option<usize>,
}

fn query_vectors(v: Option<JsValue>) -> Result<Vectors, JsValue> {
    let Some(v) = v else {
        return Ok(Vectors { floats: vec![], model_id: None, dim: None });
    };
    if let Some(inner) = get(&v, "vectors") {
        let model_id = model_id(&v)?;
        let dim = match get(&v, "dim") {
            Some(d) => Some(count_param(Some(d), "queryVectors.dim", 0)?),
            None => None,
        };
        return Ok(Vectors { floats: floats(&inner, "queryVectors.vectors")?, model_id, dim });
    }
    Ok(Vectors { floats: floats(&v, "queryVectors")?, model_id: None, dim: None })
}

fn mode(v: Option<JsValue>) -> Result<Mode, JsValue> {
    match text_option(v, "mode")? {
        None => Ok(Mode::Auto),
        Some(s) => Mode::parse(&s).ok_or_else(|| {
            js_error(&Error::new(ErrorKind::InvalidOption, format!("mode must be auto, cosine, bm25 or hybrid, got \"{s}\"")))
        }),
    }
}

/// The default closed label sets, extended by `labels` when given.
fn labels_arg(labels: Option<JsValue>) -> Result<plan::RequirementLabels, JsValue> {
    let defaults = plan::RequirementLabels::default();
    match labels.filter(|l| !l.is_undefined() && !l.is_null()) {
        None => Ok(defaults),
        Some(l) => Ok(defaults.extend(&plan::RequirementLabels::from_json(&json_arg(&l, "labels")?).map_err(|e| js_error(&e))?)),
    }
}

/// `validateRequirements` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = validateRequirements, skip_typescript)]
pub fn validate_requirements(value: JsValue, labels: Option<JsValue>) -> Result<JsValue, JsValue> {
    let v = json_arg(&value, "requirements")?;
    let r = plan::validate_requirements(&v, &labels_arg(labels)?).map_err(|e| invalid_requirements(&e))?;
    Ok(to_js_value(&r.to_json_value()))
}

/// `reextractionMessage` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = reextractionMessage, skip_typescript)]
pub fn reextraction_message(errors: JsValue) -> Result<String, JsValue> {
    let list = get(&errors, "errors").filter(Array::is_array).unwrap_or(errors);
    let v = json_arg(&list, "errors")?;
    let JsonValue::Array(items) = v else {
        return Err(bad("errors must be an array of { path, label, allowed, message }"));
    };
    let mut issues = Vec::with_capacity(items.len());
    for i in &items {
        issues.push(plan::RequirementIssue::from_json(i).ok_or_else(|| bad("each error needs a string path"))?);
    }
    Ok(plan::reextraction_message(&issues))
}

/// `defaultLabels` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = defaultLabels, skip_typescript)]
pub fn default_labels() -> JsValue {
    to_js_value(&plan::RequirementLabels::default().to_json_value())
}

/// `retrievalQueries` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = retrievalQueries, skip_typescript)]
pub fn retrieval_queries(requirements_value: JsValue) -> Result<JsValue, JsValue> {
    let r = requirements(&requirements_value)?;
    let q = plan::retrieval_queries(&r);
    Ok(to_js_value(&JsonValue::strings(&q)))
}

/// The versioned requirement → capability registry.
#[wasm_bindgen(js_name = CapabilityMapHandle, skip_typescript)]
pub struct JsCapabilityMap {
    map: CoreMap,
}

fn map_arg(v: Option<JsValue>) -> Result<CoreMap, JsValue> {
    match v.filter(|v| !v.is_undefined() && !v.is_null()) {
        None => Ok(CoreMap::default()),
        Some(v) => CoreMap::from_json(&json_arg(&v, "capability map")?).map_err(|e| js_error(&e)),
    }
}

#[wasm_bindgen(js_class = CapabilityMapHandle)]
impl JsCapabilityMap {
    #[wasm_bindgen(constructor, skip_typescript)]
    pub fn new(json: Option<JsValue>) -> Result<JsCapabilityMap, JsValue> {
        Ok(JsCapabilityMap { map: map_arg(json)? })
    }

    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> JsValue {
        to_js_value(&JsonValue::strings(self.map.warnings()))
    }

    pub fn rule(&self, reference: JsValue) -> Result<JsValue, JsValue> {
        let reference = super::text_arg(&reference, "reference")?;
        Ok(match self.map.to_json_value().get("requirements").and_then(|r| r.get(&reference)) {
            Some(v) => to_js_value(v),
            None => JsValue::NULL,
        })
    }

    pub fn audit(&self, catalog: JsValue, labels: Option<JsValue>) -> Result<JsValue, JsValue> {
        let tools = catalog_tools(&catalog)?;
        let (unmapped, unknown) = self.map.audit(&labels_arg(labels)?, &tools);
        let list = |l: Vec<String>| JsonValue::strings(&l);
        Ok(to_js_value(&JsonValue::Object(vec![
            ("unmapped".into(), list(unmapped)),
            ("unknown_capabilities".into(), list(unknown)),
        ])))
    }
}

methods! { JsCapabilityMap as CapabilityMapHandle;
    get version -> String = |h| h.map.version().to_string();
    fn canonical(capability: JsValue) -> Result<String, JsValue> = |h| Ok(h.map.canonical(&super::text_arg(&capability, "capability")?));
    fn toJSON -> JsValue = |h| to_js_value(&h.map.to_json_value());
}

/// The tool catalog with its embeddings (one contiguous buffer, L2-normalised, tagged with
/// the model) and a BM25 index: exact top-N cosine search, BM25, hybrid, narrowing.
#[wasm_bindgen(js_name = ToolIndexHandle, skip_typescript)]
pub struct JsToolIndex {
    index: CoreIndex,
}

/// The catalog's tools. Embeddings given as arrays of numbers are read as numbers, not as JSON
/// text (`__sr_catalog_split`): the same values, without a text round trip per float.
fn catalog_tools(catalog: &JsValue) -> Result<Vec<plan::Tool>, JsValue> {
    let split = if catalog.is_object() { __sr_catalog_split(catalog) } else { JsValue::NULL };
    if split.is_null() {
        return plan::parse_catalog(&json_arg(catalog, "catalog")?).map_err(|e| js_error(&e));
    }
    let part = |k: &str| super::de::prop(&split, k).unwrap_or(JsValue::UNDEFINED);
    let mut tools = plan::parse_catalog(&json_arg(&part("json"), "catalog")?).map_err(|e| js_error(&e))?;
    let vectors = js_sys::Float64Array::new(&part("vectors")).to_vec();
    let lens = js_sys::Int32Array::new(&part("lens")).to_vec();
    plan::attach_embeddings(&mut tools, &vectors, &lens).map_err(|e| js_error(&e))?;
    Ok(tools)
}

fn index_arg(catalog: &JsValue, options: Option<JsValue>) -> Result<CoreIndex, JsValue> {
    let tools = catalog_tools(catalog)?;
    let options = match options {
        Some(o) => Some(options_copy(&o, &["model_id", "modelId", "dim", "pooling", "embeddings"])?),
        None => None,
    };
    let options = options.filter(|o| o.is_object());
    let o = options.as_ref();
    let embeddings = match o.and_then(|o| get(o, "embeddings")) {
        Some(e) => Some(floats(&e, "embeddings")?),
        None => None,
    };
    let model_id = match o {
        Some(o) => model_id(o)?,
        None => None,
    };
    let dim = match o.and_then(|o| get(o, "dim")) {
        Some(d) => Some(count(Some(d), "dim", 0)?),
        None => None,
    };
    let pooling = text_option(o.and_then(|o| get(o, "pooling")), "pooling")?.unwrap_or_else(|| "mean".into());
    let dim = dim.or_else(|| tools.first().and_then(|t| t.embedding.as_ref().map(Vec::len)));
    let dim = dim.or_else(|| embeddings.as_ref().map(|e| e.len() / tools.len().max(1)));
    let model = model_id.map(|model_id| EmbeddingModel { model_id, dim: dim.unwrap_or(0), pooling });
    CoreIndex::new(tools, model, embeddings).map_err(|e| js_error(&e))
}

/// Narrowing over `index` (or, without one, over tools ranked elsewhere: `retrieved`).
fn narrow_with(index: Option<&CoreIndex>, options: &JsValue) -> Result<JsValue, JsValue> {
    let options = &options_copy(options, NARROW_OPTIONS)?;
    if !options.is_object() {
        return Err(bad("narrowTools takes an options object { requirements, template, safetySet, cap, … }"));
    }
    let req = requirements(&get(options, "requirements").unwrap_or(JsValue::NULL))?;
    let mut o = NarrowOptions::default();
    if let Some(t) = get(options, "template") {
        let v = json_arg(&t, "template")?;
        let list = v.get("tools").cloned().unwrap_or(v);
        o.template = strings(&list, "template")?;
    }
    if let Some(s) = get(options, "safetySet") {
        o.safety_set = strings(&json_arg(&s, "safetySet")?, "safetySet")?;
    }
    let cap = count(get(options, "cap"), "cap", plan::DEFAULT_CAP)?;
    if cap == 0 {
        return Err(js_error(&Error::new(ErrorKind::InvalidOption, "cap must be at least 1")));
    }
    o.cap = cap;
    o.n = match get(options, "n") {
        Some(n) => Some(count(Some(n), "n", 0)?),
        None => None,
    };
    o.min_score = match get(options, "minScore") {
        Some(m) => Some(number(&m, "minScore")?),
        None => None,
    };
    o.mode = mode(get(options, "mode"))?;
    let texts = match get(options, "queries") {
        Some(q) => Some(strings(&json_arg(&q, "queries")?, "queries")?),
        None => None,
    };
    if let Some(r) = get(options, "retrieved") {
        let ranked = plan::ranked(&json_arg(&r, "retrieved")?).map_err(|e| js_error(&e))?;
        let mut n = plan::narrow_ranked(index, &ranked, &o);
        n.queries = texts.unwrap_or_else(|| plan::retrieval_queries(&req));
        return Ok(to_js_value(&n.to_json_value()));
    }
    let Some(index) = index else {
        return Err(bad("narrowTools needs an index, a catalog or retrieved tools"));
    };
    let v = query_vectors(get(options, "queryVectors"))?;
    let n = plan::narrow_tools(index, &req, &v.floats, v.model_id.as_deref(), v.dim, texts, &o);
    Ok(to_js_value(&n.to_json_value()))
}

#[wasm_bindgen(js_class = ToolIndexHandle)]
impl JsToolIndex {
    #[wasm_bindgen(constructor, skip_typescript)]
    pub fn new(catalog: JsValue, options: Option<JsValue>) -> Result<JsToolIndex, JsValue> {
        Ok(JsToolIndex { index: index_arg(&catalog, options)? })
    }

    #[wasm_bindgen(getter, skip_typescript)]
    pub fn model(&self) -> JsValue {
        match self.index.model() {
            None => JsValue::NULL,
            Some(m) => to_js_value(&m.to_json_value()),
        }
    }

    pub fn search(&self, query: JsValue, n: Option<JsValue>) -> Result<JsValue, JsValue> {
        let query = flat_floats(&query, "query")?;
        let n = count_param(n, "n", 8)?;
        let hits = self.index.search(&query, n).map_err(|e| js_error(&e))?;
        Ok(json_parse(&self.index.hits_json(&hits)))
    }

    #[wasm_bindgen(js_name = searchText)]
    pub fn search_text(&self, text: JsValue, n: Option<JsValue>) -> Result<JsValue, JsValue> {
        let text = super::text_arg(&text, "text")?;
        let hits = self.index.search_text(&text, count_param(n, "n", 8)?);
        Ok(json_parse(&self.index.hits_json(&hits)))
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn retrieve(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let options = options_copy(&options, &["vectors", "texts", "text", "mode", "n"])?;
        let v = query_vectors(get(&options, "vectors"))?;
        let mut texts = match get(&options, "texts") {
            Some(t) => strings(&json_arg(&t, "texts")?, "texts")?,
            None => vec![],
        };
        if let Some(t) = text_option(get(&options, "text"), "text")? {
            texts.push(t);
        }
        let r = self.index.retrieve(&plan::Query {
            vectors: &v.floats,
            model_id: v.model_id.as_deref(),
            dim: v.dim,
            texts: &texts,
            mode: mode(get(&options, "mode"))?,
            n: count(get(&options, "n"), "n", 8)?,
        });
        Ok(json_parse(&self.index.retrieval_json(&r)))
    }

    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> JsValue {
        to_js_value(&JsonValue::Array(self.index.tools().iter().map(|t| t.to_json_value()).collect()))
    }
}

methods! { JsToolIndex as ToolIndexHandle;
    get size -> usize = |h| h.index.len();
    get embeddings -> Vec<f32> = |h| h.index.vectors().to_vec();
    fn narrow(options: JsValue) -> Result<JsValue, JsValue> = |h| narrow_with(Some(&h.index), &options);
}

/// `narrowTools` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = narrowTools, skip_typescript)]
pub fn narrow_tools(options: JsValue) -> Result<JsValue, JsValue> {
    let options = options_copy(&options, NARROW_OPTIONS)?;
    if let Some(index) = get(&options, "index") {
        let narrow = super::de::prop(&index, "narrow").and_then(|f| f.dyn_into::<Function>().ok());
        return match narrow {
            Some(f) => f.call1(&index, &options),
            None => Err(bad("options.index must be a ToolIndex")),
        };
    }
    match get(&options, "catalog") {
        Some(c) => narrow_with(Some(&index_arg(&c, None)?), &options),
        None => narrow_with(None, &options),
    }
}

/// The keys of `NarrowOptions`.
const NARROW_OPTIONS: &[&str] = &[
    "requirements",
    "queryVectors",
    "template",
    "safetySet",
    "cap",
    "index",
    "catalog",
    "retrieved",
    "n",
    "minScore",
    "mode",
    "queries",
];

fn catalog_index(catalog: &JsValue) -> Result<CoreIndex, JsValue> {
    let tools = catalog_tools(catalog)?;
    // Only names and capabilities matter here: embeddings are not kept.
    let tools = tools.into_iter().map(|t| plan::Tool { embedding: None, ..t }).collect();
    CoreIndex::new(tools, None, None).map_err(|e| js_error(&e))
}

/// `checkCoverage` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = checkCoverage, skip_typescript)]
pub fn check_coverage(
    requirements_value: JsValue,
    plan_value: JsValue,
    map: JsValue,
    catalog: JsValue,
) -> Result<JsValue, JsValue> {
    let req = requirements(&requirements_value)?;
    let p = plan::Plan::from_json(&json_arg(&plan_value, "plan")?).map_err(|e| js_error(&e))?;
    let map = map_arg(Some(map))?;
    let index = catalog_index(&catalog)?;
    Ok(to_js_value(&plan::check_coverage(&req, &p, &map, &index).to_json_value()))
}

/// `applyRemovals` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = applyRemovals, skip_typescript)]
pub fn apply_removals(plan_value: JsValue, report: JsValue) -> Result<JsValue, JsValue> {
    let p = json_arg(&plan_value, "plan")?;
    let r = json_arg(&report, "report")?;
    plan::apply_report(&p, &r).map(|v| to_js_value(&v)).map_err(|e| js_error(&e))
}

/// `classifyRepair` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = classifyRepair, skip_typescript)]
pub fn classify_repair(before: JsValue, after: JsValue, options: Option<JsValue>) -> Result<String, JsValue> {
    let a = json_arg(&before, "before")?;
    let b = json_arg(&after, "after")?;
    let semantic = match options.and_then(|o| get(&o, "semanticParams")) {
        Some(s) => strings(&json_arg(&s, "semanticParams")?, "semanticParams")?,
        None => plan::SEMANTIC_PARAMS.iter().map(|s| s.to_string()).collect(),
    };
    plan::classify_repair(&a, &b, &semantic).map(|c| c.as_str().to_string()).map_err(|e| js_error(&e))
}

/// `autoTimeGrain` (declared in pkg/entry/classes/plan.api.d.ts).
#[wasm_bindgen(js_name = autoTimeGrain, skip_typescript)]
pub fn auto_time_grain(span_days: JsValue, points: JsValue) -> Result<String, JsValue> {
    let as_number = |v: &JsValue, what: &str| v.as_f64().ok_or_else(|| bad(format!("{what} must be a number")));
    let (span_days, points) = (as_number(&span_days, "spanDays")?, as_number(&points, "points")?);
    plan::auto_time_grain(span_days, points).map(str::to_string).map_err(|e| js_error(&e))
}
