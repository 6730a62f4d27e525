//! JSON as it arrives: one incremental tokenizer shared by the answer extractor, the partial
//! parser and the item stream, and the order-preserving `JsonValue` they build.

#[cfg(feature = "json")]
mod extractor;
pub(crate) mod tokenizer;
pub(crate) mod document;
#[cfg(test)]
pub(crate) mod document_cases;
#[cfg(feature = "json")]
pub(crate) mod partial;
#[cfg(feature = "json")]
pub(crate) mod items;
mod value;
pub(crate) mod keys;

#[cfg(feature = "json")]
pub use extractor::{AnswerExtractor, AnswerExtractorOptions};
pub use value::{write_json_string, JsonValue};
pub(crate) use value::{write_json_escaped, Quoted};
#[cfg(target_arch = "wasm32")]
pub(crate) use value::json_string_len;
#[cfg(feature = "json")]
pub use partial::{JsonEvent, PartialJson, PartialJsonOptions, PathSegment, ValueKind};
#[cfg(feature = "json")]
pub use items::{JsonItemStream, JsonItemStreamOptions};
pub(crate) use value::ValueBuilder;

use tokenizer::{AfterValue, Tokenizer, TokenizerOptions};

/// Parses a complete JSON document strictly (RFC 8259), keeping key order and number text.
///
/// # Errors
/// `json_invalid` (with the byte offset), `json_too_deep` past 512 levels.
pub fn parse_strict(text: &[u8]) -> crate::Result<JsonValue> {
    let mut b = ValueBuilder::default();
    document::read_document(text, &mut b)?;
    b.done.pop().ok_or_else(|| {
        crate::Error::new(crate::ErrorKind::JsonInvalid, "expected a JSON value").at(0)
    })
}

/// [`parse_strict`] over a document that arrives in pieces, with the same options: the
/// conformance tests and fuzz targets check that every chunking gives the same result.
#[doc(hidden)]
pub fn parse_strict_chunks(chunks: &[&[u8]]) -> crate::Result<JsonValue> {
    let mut tok = Tokenizer::new(TokenizerOptions {
        strict: true,
        after_value: AfterValue::End,
        max_token_bytes: usize::MAX,
        ..TokenizerOptions::default()
    });
    let mut b = ValueBuilder::default();
    for chunk in chunks {
        tok.feed(chunk, &mut b)?;
    }
    tok.finish(&mut b)?;
    b.done.pop().ok_or_else(|| {
        crate::Error::new(crate::ErrorKind::JsonInvalid, "expected a JSON value").at(0)
    })
}

/// The streaming tokenizer over one whole document, as [`parse_strict`] read it before
/// `document` did: the reference the tests compare `document::read_document` with.
#[cfg(test)]
pub(crate) fn read_streaming(text: &[u8], sink: &mut dyn tokenizer::Sink) -> crate::Result<()> {
    let mut tok = Tokenizer::new(TokenizerOptions {
        strict: true,
        after_value: AfterValue::End,
        max_token_bytes: usize::MAX,
        ..TokenizerOptions::default()
    });
    tok.feed(text, sink)?;
    tok.finish(sink)
}
