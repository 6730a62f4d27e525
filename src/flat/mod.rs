//! The flat result format: what a streaming machine hands a host per call, as one text and
//! `u32` op words, so that the host builds its values with no crossing per value.
//!
//! Texts follow one another in one buffer and are measured in UTF-16 units (a JS string's
//! length); values are JSON text. Each machine has its own op words, declared here once;
//! [`abi`] is the protocol around them: the input buffer a host writes a chunk into, how it
//! wrote it, and the header that says where a call's text and ops are. `scripts/gen-abi.mjs`
//! writes every `pub const` of this file and of abi.rs into the JS module of the boundary.
//! The packers are pure Rust, tested natively against the machines' own outputs (`tests`).

pub(crate) mod abi;
#[cfg(feature = "partial")]
mod json;
#[cfg(feature = "json")]
mod json_items;
#[cfg(feature = "router")]
mod router;
#[cfg(feature = "decoder")]
mod sse;
#[cfg(feature = "tags")]
mod tags;

#[cfg(feature = "partial")]
pub(crate) use json::JsonPack;
#[cfg(feature = "json")]
pub(crate) use json_items::{items_json, wide_text, ChunkPack};
#[cfg(feature = "router")]
pub(crate) use router::RouterPack;
#[cfg(feature = "decoder")]
pub(crate) use sse::SsePack;
#[cfg(feature = "tags")]
pub(crate) use tags::{RangeSink, TagPieces};

// SseDecoder. Per event three words, `[event, data, id]`: each the UTF-16 length of the next
// field of the text (fields follow one another, each followed by CR), or:
/// SSE length word: the same string as the previous event's (`event`, `id`).
pub const SSE_SAME: u32 = u32::MAX;
/// SSE data word: the data is `chunk.slice(from, to)` of the string chunk just fed; the two
/// words after it are `from` and `to`.
pub const SSE_RANGE: u32 = u32::MAX - 1;

// StreamRouter. Per event an opcode, then its words (lengths are UTF-16 units of strings that
// follow one another in the text; values are JSON text).
/// `answer_delta`: len.
pub const ROUTE_ANSWER: u32 = 0;
/// `thinking_delta` from reasoning: len.
pub const ROUTE_REASONING: u32 = 1;
/// `thinking_delta` from the action's thought: len.
pub const ROUTE_THOUGHT: u32 = 2;
/// `artifact_delta`: len.
pub const ROUTE_ARTIFACT: u32 = 3;
/// `user_delta`: len.
pub const ROUTE_USER: u32 = 4;
/// `tool_call_start`: index, id len, name len, provider executed, more-fields JSON len (0: none).
pub const ROUTE_TOOL_START: u32 = 5;
/// `tool_call_delta`: index, len.
pub const ROUTE_TOOL_DELTA: u32 = 6;
/// `tool_call`: index, id len, name len, arguments JSON len, repaired, provider executed,
/// more-fields JSON len (0: none).
pub const ROUTE_TOOL_CALL: u32 = 7;
/// `action`: JSON len.
pub const ROUTE_ACTION: u32 = 8;
/// `usage`: JSON len.
pub const ROUTE_USAGE: u32 = 9;
/// `done`: ok, parse_ok, has reason, reason len, finish len, more-fields JSON len (0: none;
/// else an object of `violations`, `stop_details`, `finish_message`).
pub const ROUTE_DONE: u32 = 10;
/// `error`: code len, message len, has provider code, its len.
pub const ROUTE_ERROR: u32 = 11;
/// `tool_result`: index, id len, name len, result JSON len.
pub const ROUTE_TOOL_RESULT: u32 = 12;
/// `source`: JSON len.
pub const ROUTE_SOURCE: u32 = 13;
/// `refusal_delta`: len.
pub const ROUTE_REFUSAL: u32 = 14;
/// `answer_delta` with its `phase`: phase len, text len.
pub const ROUTE_ANSWER_PHASE: u32 = 15;
/// A whole event as JSON (`continuation`, `compaction`, `model_fallback`, `container`): len.
pub const ROUTE_OBJECT: u32 = 16;

// LlmStreamChunker. Per chunk an opcode; texts follow one another in the text.
/// A chunk of the streamed thought: len.
pub const CHUNK_THOUGHT: u32 = 0;
/// A chunk of answer text: len.
pub const CHUNK_ANSWER: u32 = 1;
/// The closing chunk of a finish action.
pub const CHUNK_DONE: u32 = 2;

// JsonItemStream: the text is the JSON array of the items; no op words.

// PartialJson. The path lives on the JS side and only its changed tail crosses; lengths are
// UTF-16 units of strings that follow one another in the text.
/// `begin` of an object.
pub const JSON_BEGIN_OBJECT: u32 = 0;
/// `begin` of an array.
pub const JSON_BEGIN_ARRAY: u32 = 1;
/// `begin` of a string.
pub const JSON_BEGIN_STRING: u32 = 2;
/// `append`: len.
pub const JSON_APPEND: u32 = 3;
/// `set` of a string: len.
pub const JSON_SET_STRING: u32 = 4;
/// `set` of a number: len of its JSON text.
pub const JSON_SET_NUMBER: u32 = 5;
/// `set` of `true`.
pub const JSON_SET_TRUE: u32 = 6;
/// `set` of `false`.
pub const JSON_SET_FALSE: u32 = 7;
/// `set` of `null`.
pub const JSON_SET_NULL: u32 = 8;
/// `end`.
pub const JSON_END: u32 = 9;
/// The path keeps its first n segments: n. (The path ops are numbered after the event ops.)
pub const JSON_TRUNCATE: u32 = 10;
/// The path gains a key: len.
pub const JSON_KEY: u32 = 11;
/// The path gains an index: the index.
pub const JSON_INDEX: u32 = 12;

// TagFilter, TaggedTurn. Per piece of block text four words, `[block, kind, a, b]`, kind one of:
/// Tag piece: `chunk.slice(a, b)` of the string chunk just fed (UTF-16 offsets).
pub const TAG_SLICE: u32 = 0;
/// Tag piece: the UTF-8 bytes at `[a, b)` of wasm memory.
pub const TAG_BYTES: u32 = 1;
/// Tag piece: the UTF-16 code units at `[a, b)` (byte addresses) of wasm memory.
pub const TAG_UNITS: u32 = 3;

#[cfg(test)]
mod tests;
