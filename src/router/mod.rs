//! The stream router: raw provider stream bytes → provider-neutral `ModelDelta`s → routed UI
//! events (`RoutedEvent`), in one pass.
//!
//! - `decoder.rs`: `ProviderDecoder` (SSE or plain text, `auto` format detection) over the
//!   per-format readers `openai_chat.rs`, `openai_responses.rs`, `anthropic.rs`, `gemini.rs`,
//!   `gemini_interactions.rs`, `ollama.rs` (NDJSON lines), `cohere.rs` and `bedrock.rs` (binary event-stream messages, framed by
//!   `crate::eventstream`), which read each event's JSON on known paths with the `jscan.rs` cursor (no tree).
//!   `jsonpath.rs` assembles Gemini's streamed `partialArgs` by path; `common.rs` holds what
//!   every reader shares (usage tables, error objects, text strings, citation annotations).
//! - `route.rs`: `StreamRouter`, the content modes (text, action-json, tagged) and tool call
//!   assembly.
//! - `structured.rs`: `structured_request`, the provider request bodies that ask for
//!   structured output.

mod anthropic;
mod bedrock;
mod cohere;
mod common;
mod decoder;
mod delta;
mod gemini;
mod gemini_interactions;
mod jscan;
mod jsonpath;
mod ollama;
mod openai_chat;
mod openai_responses;
mod route;
mod strict;
mod structured;
mod tagged;
mod tools;

pub use decoder::{Provider, ProviderDecoder, ProviderDecoderOptions};
pub use delta::{DeltaSink, ModelDelta, Source, Usage};
pub use route::{ContentMode, Finish, RoutedEvent, StreamRouter, StreamRouterOptions, ThinkingSource};
pub use structured::{structured_modes, structured_request, StructuredMode, StructuredRequest};
