//! FinalPayload, artifacts and sources: the typed contract between planner and frontend
//! (final-payload-and-artifacts.md, unified-action-format.md).
//!
//! - `types.rs`: `FinalPayload`, `Source`, `SuggestedAction` and their JSON form.
//! - `validate.rs`: `validate_final_payload` (`payload_invalid` with every problem's path).
//! - `build.rs`: `build_final_payload` (lenient: invalid fields dropped with warnings).
//! - `schema.rs`: reading tool output JSON Schemas (`$ref`, unions) and walking observations.
//! - `redact.rs`: `redact_artifacts` (placeholders for the model's context).
//! - `text.rs`: the same walk straight over JSON text (no tree for the observation).
//! - `collect.rs`: `ArtifactCollector`, `collect_sources`.
//! - `stream.rs`: `ArtifactStream` (`artifact_chunk` events).
//! - `plan.rs`: the artifact plan of a schema (the schema walk precomputed, for bindings).
//!
//! Everything here is pure: values are [`JsonValue`](crate::JsonValue)s, key order kept.

mod build;
mod collect;
mod iso639;
#[allow(dead_code)] // used by the wasm binding
mod plan;
mod redact;
mod schema;
mod stream;
mod text;
mod types;
mod validate;

pub use build::{build_final_payload, BuiltPayload, PayloadContext, ANSWER_KEYS, NO_ANSWER};
pub use collect::{
    collect_sources, ArtifactCollector, ArtifactCollectorOptions, ArtifactStore, ToolStep, DEFAULT_MAX_INLINE_BYTES,
};
#[allow(unused_imports)]
pub(crate) use plan::artifact_plan;
pub use redact::{human_size, redact_artifacts, redact_artifacts_in_place, redact_artifacts_json};
pub use stream::{done_event, ArtifactChunk, ArtifactStream, MAX_STREAMS};
pub use types::{dedup_sources, json_len, type_name, Artifacts, FinalPayload, JsonMap, Source, SuggestedAction};
pub use validate::{check_final_payload, payload_error, validate_final_payload, PayloadProblem};

/// Checks that a value can be a tool schema (an object or a boolean).
///
/// # Errors
/// `invalid_input` otherwise.
#[allow(dead_code)]
pub(crate) fn check_schema(schema: &crate::JsonValue) -> crate::Result<()> {
    schema::SchemaDoc::new(schema).map(|_| ())
}

/// Redacts JSON text and says how many artifacts were replaced (for the bindings, which
/// return a string observation unchanged when nothing in it is an artifact).
///
/// # Errors
/// As [`redact_artifacts_json`].
#[allow(dead_code)]
pub(crate) fn redact_text_counted(text: &str, schema: &crate::JsonValue) -> crate::Result<(String, usize)> {
    redact::redact_text_counted(text, schema)
}

/// The collecting walk over JSON text: the redacted text and each artifact's dotted name and
/// compact JSON text (for the bindings, whose collector keeps them itself).
///
/// # Errors
/// As [`redact_artifacts_json`].
#[allow(dead_code)]
pub(crate) fn collect_text(text: &str, schema: &crate::JsonValue) -> crate::Result<text::TextWalk> {
    text::redact_text(text.as_bytes(), schema, true)
}
