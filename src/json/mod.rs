//! JSON as it arrives: one incremental tokenizer shared by the answer extractor, the partial
//! parser and the item stream, and the order-preserving `JsonValue` they build; and a strict
//! tokenizer over a complete document (`document.rs`) for builds without those machines.

pub(crate) mod document;
#[cfg(test)]
pub(crate) mod document_cases;
#[cfg(feature = "json")]
mod extractor;
#[cfg(feature = "json")]
pub(crate) mod items;
pub(crate) mod keys;
#[cfg(feature = "partial")]
pub(crate) mod partial;
pub(crate) mod tokenizer;
mod value;

#[cfg(feature = "json")]
pub use extractor::{AnswerExtractor, AnswerExtractorOptions};
#[cfg(feature = "json")]
pub use items::{JsonItemStream, JsonItemStreamOptions};
#[cfg(feature = "partial")]
pub use partial::{JsonEvent, PartialJson, PartialJsonOptions, PathSegment, ValueKind};
#[cfg(any(target_arch = "wasm32", feature = "payload"))]
pub(crate) use value::json_string_len;
pub(crate) use value::ValueBuilder;
pub(crate) use value::{write_json_escaped, Quoted};
pub use value::{write_json_string, JsonValue};

use tokenizer::{AfterValue, Sink, Tokenizer, TokenizerOptions};

/// Parses a complete JSON document strictly (RFC 8259), keeping key order and number text.
///
/// # Errors
/// `json_invalid` (with the byte offset), `json_too_deep` past 512 levels.
pub fn parse_strict(text: &[u8]) -> crate::Result<JsonValue> {
    build(|b| read_whole(text, b))
}

/// [`parse_strict`] with the whole-document tokenizer (`document.rs`) in every build: the
/// conformance tests and fuzz targets check that it gives what [`parse_strict_chunks`] gives.
#[doc(hidden)]
pub fn parse_strict_document(text: &[u8]) -> crate::Result<JsonValue> {
    build(|b| document::read_document(text, b))
}

/// [`parse_strict`] over a document that arrives in pieces, with the streaming tokenizer: the
/// conformance tests and fuzz targets check that every chunking gives the same result.
#[doc(hidden)]
pub fn parse_strict_chunks(chunks: &[&[u8]]) -> crate::Result<JsonValue> {
    build(|b| {
        let mut tok = strict_tokenizer();
        for chunk in chunks {
            tok.feed(chunk, b)?;
        }
        tok.finish(b)
    })
}

/// The value that `read` reports to a builder.
fn build(read: impl FnOnce(&mut ValueBuilder) -> crate::Result<()>) -> crate::Result<JsonValue> {
    let mut b = ValueBuilder::default();
    read(&mut b)?;
    b.done.pop().ok_or_else(|| crate::Error::new(crate::ErrorKind::JsonInvalid, "expected a JSON value").at(0))
}

/// The streaming tokenizer as `document::read_document` reads: strict, one value, no cap on
/// a token's length.
fn strict_tokenizer() -> Tokenizer {
    Tokenizer::new(TokenizerOptions {
        strict: true,
        after_value: AfterValue::End,
        max_token_bytes: usize::MAX,
        ..TokenizerOptions::default()
    })
}

/// The streaming tokenizer over one whole document (one feed, then the end): what
/// `document::read_document` is compared with, and [`parse_strict`]'s reader with `json`.
#[cfg(any(feature = "json", test))]
pub(crate) fn read_streaming(text: &[u8], sink: &mut dyn Sink) -> crate::Result<()> {
    let mut tok = strict_tokenizer();
    tok.feed(text, sink)?;
    tok.finish(sink)
}

// How `parse_strict` reads. Without `json` (the payload, planning, sse and tags builds) with
// `document.rs`, so those builds link no streaming tokenizer. Builds with `json` link
// `Tokenizer` for their streaming machines anyway; reading whole documents with `document.rs`
// there too made the json and main entries larger and was no faster in wasm, so they keep one
// tokenizer (bench/README "Then: whole documents"; bench/README.md, "Measurements behind
// design choices").
#[cfg(not(feature = "json"))]
use document::read_document as read_whole;
#[cfg(feature = "json")]
use read_streaming as read_whole;
