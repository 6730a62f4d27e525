//! `AnswerExtractor`'s text, `LlmStreamChunker`'s chunks and `JsonItemStream`'s items, packed.

use super::{CHUNK_ANSWER, CHUNK_DONE, CHUNK_THOUGHT};
use crate::text::{push_utf16, utf16_len};
use crate::JsonValue;

/// Text as a host reads it fastest: `None` when it is all ASCII (read the bytes as they are),
/// else its UTF-16 in `out16` (malformed UTF-8 replaced as `TextDecoder` would) and the
/// count of scalar values in it.
pub fn wide_text(raw: &[u8], out16: &mut Vec<u16>) -> Option<usize> {
    if raw.is_ascii() {
        return None;
    }
    out16.clear();
    push_utf16(raw, out16);
    // A surrogate pair is one scalar value: count the units but low surrogates.
    Some(out16.len() - out16.iter().filter(|&&u| u & 0xFC00 == 0xDC00).count())
}

/// `LlmStreamChunker`'s chunks of one call: texts in `text`, per chunk a `CHUNK_` op (and the
/// UTF-16 length of its text).
#[derive(Default)]
pub struct ChunkPack {
    pub text: String,
    pub ops: Vec<u32>,
}

impl ChunkPack {
    /// Packs the thought, then the answer (each when not empty), then the closing chunk when
    /// `done`; returns the chunk count.
    pub fn pack(&mut self, thought: &str, answer: &str, done: bool) -> u32 {
        self.text.clear();
        self.ops.clear();
        let mut count = 0;
        for (op, t) in [(CHUNK_THOUGHT, thought), (CHUNK_ANSWER, answer)] {
            if !t.is_empty() {
                self.text.push_str(t);
                self.ops.extend([op, utf16_len(t)]);
                count += 1;
            }
        }
        if done {
            self.ops.push(CHUNK_DONE);
            count += 1;
        }
        count
    }
}

/// Writes `items` into `text` as one JSON array (nothing when there are none) and returns
/// how many it holds; `Err((count, n))` when the text could not grow by `n` bytes for the next
/// one: the first `count` are written.
pub fn items_json(items: &mut Vec<JsonValue>, text: &mut String) -> Result<u32, (u32, usize)> {
    text.clear();
    let mut count = 0;
    let mut r = Ok(());
    for v in items.drain(..) {
        // Room for the item, its separator and the closing `]`.
        let n = v.json_len() + 2;
        if text.try_reserve(n).is_err() {
            r = Err(n);
            break;
        }
        text.push(if count == 0 { '[' } else { ',' });
        v.write_json(text);
        count += 1;
    }
    items.clear();
    if count > 0 {
        text.push(']');
    }
    r.map(|()| count).map_err(|n| (count, n))
}
