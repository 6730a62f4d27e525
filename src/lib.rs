//! streamroute: turn raw LLM output streams into clean, typed, routed events while the bytes
//! arrive.
//!
//! This crate is the pure-Rust core. It builds and tests natively; the WebAssembly bindings
//! live in `src/wasm/` and are compiled only for `wasm32`.
//!
//! ```
//! use streamroute::{SseDecoder, SseDecoderOptions};
//!
//! let mut decoder = SseDecoder::new(SseDecoderOptions::default());
//! let mut events = Vec::new();
//! decoder.feed(b"event: greet\ndata: hel", &mut events).unwrap();
//! decoder.feed(b"lo\r\n\r\n", &mut events).unwrap();
//! assert_eq!(events[0].event, "greet");
//! assert_eq!(events[0].data, "hello");
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// A build with only some features (one npm entry's) leaves parts of the shared core unused.
#![cfg_attr(
    not(all(
        feature = "sse",
        feature = "json",
        feature = "tags",
        feature = "router",
        feature = "payload",
        feature = "planning"
    )),
    allow(dead_code, unused_imports, unused_macros)
)]

#[cfg(feature = "json")]
mod action;
mod budget;
#[cfg(any(target_arch = "wasm32", test))]
mod entry;
mod error;
// Built for the wasm host, and natively for its tests.
#[cfg(feature = "router")]
mod eventstream;
#[cfg(any(target_arch = "wasm32", test))]
mod flat;
mod hash;
mod json;
#[cfg(feature = "tags")]
mod nonce;
mod num;
#[cfg(feature = "payload")]
mod payload;
#[cfg(feature = "planning")]
pub mod plan;
#[cfg(feature = "json")]
mod repair;
#[cfg(feature = "router")]
mod router;
mod sort;
#[cfg(any(feature = "decoder", feature = "tags"))]
mod sse;
#[cfg(feature = "tags")]
mod tags;
mod text;

// The one chunking helper of the tests (tests/common), for the unit tests too.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod test_common;

/// The WebAssembly bindings (public only so that wasm-bindgen tests can reach them).
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

#[cfg(feature = "json")]
pub use action::{
    normalize_action_text, normalize_action_value, normalize_action_with_diagnostics, ActionDiagnostics, ActionSource,
    PlannerAction,
};
pub use budget::MAX_INPUT_BYTES;
pub use error::{Error, ErrorKind, Result};
#[cfg(feature = "router")]
pub use eventstream::{
    encode_eventstream_message, EventStreamDecoder, EventStreamDecoderOptions, EventStreamMessage, EventStreamSink,
};
pub use json::{parse_strict, parse_strict_chunks, parse_strict_document, JsonValue};
#[cfg(feature = "json")]
pub use json::{AnswerExtractor, AnswerExtractorOptions};
#[cfg(feature = "partial")]
pub use json::{JsonEvent, PartialJson, PartialJsonOptions, PathSegment, ValueKind};
#[cfg(feature = "json")]
pub use json::{JsonItemStream, JsonItemStreamOptions};
#[cfg(feature = "tags")]
pub use nonce::make_nonce;
#[cfg(feature = "payload")]
pub use payload::{
    build_final_payload, check_final_payload, collect_sources, dedup_sources, done_event, human_size, json_len, payload_error,
    redact_artifacts, redact_artifacts_in_place, redact_artifacts_json, type_name, validate_final_payload, ArtifactChunk,
    ArtifactCollector, ArtifactCollectorOptions, ArtifactStore, ArtifactStream, Artifacts, BuiltPayload, FinalPayload, JsonMap,
    PayloadContext, PayloadProblem, Source, SuggestedAction, ToolStep, ANSWER_KEYS, DEFAULT_MAX_INLINE_BYTES, MAX_STREAMS,
    NO_ANSWER,
};
#[cfg(feature = "json")]
pub use repair::{parse_json, repair_json, repair_json_value, repair_json_with_log, Repair, RepairKind};
#[cfg(feature = "router")]
pub use router::{structured_modes, structured_request, StructuredMode, StructuredRequest};
#[cfg(feature = "router")]
pub use router::{
    ContentMode, DeltaSink, Finish, ModelDelta, Provider, ProviderDecoder, ProviderDecoderOptions, RoutedEvent,
    Source as RoutedSource, StreamRouter, StreamRouterOptions, ThinkingSource, Usage,
};
#[cfg(any(feature = "decoder", feature = "tags"))]
pub use sse::{SseDecoder, SseDecoderOptions, SseEncoder, SseEncoderOptions, SseEvent, SseMessage, SseSink};
#[cfg(feature = "tags")]
pub use tags::{
    check_tagged, corrective_message, parse_tagged, sanitize_untrusted, tag_contract, TagBlocks, TagDelta, TagEventWriter,
    TagFilter, TagFilterOptions, TagResult, TagViolation, TaggedTurn, TurnStep,
};

/// The crate version, as in `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
