//! `redact_artifacts`: the observation as the model may see it, artifact values replaced by
//! placeholders in the RFC's style.
//!
//! Placeholders: `<artifact:dict size=42KB>` (an object: its compact JSON size in B, KB or
//! MB), `<artifact:list size=847 items>`, `<artifact:str size=N chars>` (Unicode scalar
//! values, as Python's `len`), `<artifact:TYPE>` for numbers, booleans and null (`int`,
//! `float`, `bool`, `NoneType`), and `<artifact:TYPE stream=ID>` for a streamed field (its
//! `stream_id`, else the field name). Everything the schema does not mark passes unchanged.
//! A string holding a JSON object or array is redacted as that JSON text (`text.rs`).

use super::schema::{at_mut, field_name, walk_artifacts, Marks, SchemaDoc, Seg};
use super::text::string_root;
use super::types::{json_len, type_name};
use crate::json::JsonValue;
use crate::Result;

/// The observation with every artifact-marked value (nested ones included) replaced by its
/// placeholder. Arrays are walked when the schema describes their items; a string holding a
/// JSON object or array (a tool's raw JSON output) becomes the redacted compact JSON text
/// (unchanged when nothing in it is an artifact or it is not JSON after all); other
/// primitives come back unchanged.
///
/// # Errors
/// `invalid_input` when `schema` is not an object or boolean; `json_too_deep` past 512 levels;
/// `schema_too_complex` when the schema expands past 1024 nodes at one place.
pub fn redact_artifacts(observation: &JsonValue, schema: &JsonValue) -> Result<JsonValue> {
    if let Some(w) = string_root(observation, schema, false)? {
        return Ok(JsonValue::String(w.text));
    }
    let edits = placeholders(observation, schema)?;
    let mut out = observation.clone();
    apply(&mut out, edits);
    Ok(out)
}

/// [`redact_artifacts`] in place.
///
/// # Errors
/// As [`redact_artifacts`]; on error the observation is unchanged.
pub fn redact_artifacts_in_place(observation: &mut JsonValue, schema: &JsonValue) -> Result<()> {
    if let Some(w) = string_root(observation, schema, false)? {
        *observation = JsonValue::String(w.text);
        return Ok(());
    }
    let edits = placeholders(observation, schema)?;
    apply(observation, edits);
    Ok(())
}

/// [`redact_artifacts`] on JSON text, returning compact JSON text: one pass, the observation
/// is never built as a tree (equal to `redact_artifacts(&parse_strict(text)?, schema)?.to_json()`).
///
/// # Errors
/// `json_invalid` (with the byte offset) for text that is not JSON, `json_too_deep` past 512
/// levels, `invalid_input` for a bad schema, `schema_too_complex`, `input_too_large` past
/// [`MAX_INPUT_BYTES`](crate::MAX_INPUT_BYTES) (64 MiB).
pub fn redact_artifacts_json(observation_json: &str, schema: &JsonValue) -> Result<String> {
    crate::budget::check_input(observation_json.len(), "the observation")?;
    super::text::redact_text(observation_json.as_bytes(), schema, false).map(|w| w.text)
}

/// [`redact_artifacts_json`] that also says how many artifacts were replaced.
pub(crate) fn redact_text_counted(observation_json: &str, schema: &JsonValue) -> Result<(String, usize)> {
    super::text::redact_text(observation_json.as_bytes(), schema, false).map(|w| (w.text, w.replaced))
}

/// Where each placeholder goes (member/element indices) and its text.
pub(crate) type Edits = Vec<(Vec<usize>, String)>;

fn placeholders(observation: &JsonValue, schema: &JsonValue) -> Result<Edits> {
    let doc = SchemaDoc::new(schema)?;
    let mut edits = Vec::new();
    walk_artifacts(&doc, observation, &mut |found| {
        let text = placeholder(found.value, &found.marks, found.path);
        edits.push((found.path.iter().map(|s| s.index()).collect(), text));
        Ok(())
    })?;
    Ok(edits)
}

/// Puts each placeholder in place.
pub(crate) fn apply(value: &mut JsonValue, edits: Edits) {
    for (path, text) in edits {
        if let Some(slot) = at_mut(value, &path) {
            *slot = JsonValue::String(text);
        }
    }
}

/// The placeholder for an artifact `value` found at `path`.
pub(crate) fn placeholder(value: &JsonValue, marks: &Marks<'_>, path: &[Seg<'_>]) -> String {
    let stream = marks.stream.then(|| marks.stream_id.unwrap_or_else(|| field_name(path)));
    let size = match value {
        JsonValue::Object(_) if stream.is_none() => json_len(value),
        JsonValue::Array(items) => items.len(),
        JsonValue::String(s) if stream.is_none() => s.chars().count(),
        _ => 0,
    };
    placeholder_text(type_name(value), stream, size)
}

/// The placeholder text for an artifact of type `ty` (a [`type_name`]): streamed, or with its
/// `size` (compact JSON bytes of a dict, items of a list, characters of a str; unused for
/// other types).
pub(crate) fn placeholder_text(ty: &str, stream: Option<&str>, size: usize) -> String {
    match (stream, ty) {
        (Some(id), _) => format!("<artifact:{ty} stream={id}>"),
        (None, "dict") => format!("<artifact:dict size={}>", human_size(size)),
        (None, "list") => format!("<artifact:list size={size} items>"),
        (None, "str") => format!("<artifact:str size={size} chars>"),
        (None, _) => format!("<artifact:{ty}>"),
    }
}

/// `512B`, `42KB`, `3MB`: bytes below 1 KiB as they are, else KiB or MiB rounded to the
/// nearest whole unit (at least 1).
pub fn human_size(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if bytes < KIB {
        format!("{bytes}B")
    } else if bytes < MIB - KIB / 2 {
        format!("{}KB", (bytes + KIB / 2) / KIB)
    } else {
        format!("{}MB", (bytes + MIB / 2) / MIB)
    }
}
