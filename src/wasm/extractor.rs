//! JS classes `AnswerExtractor` and `LlmStreamChunker`.

use super::de::{options, Whole, MAX_SAFE};
use super::handle::methods;
use super::handle::{handle, then_end, Io, FAILED};
use super::js_error;
use crate::flat::{wide_text, ChunkPack};
use crate::AnswerExtractorOptions;
use wasm_bindgen::prelude::*;

/// `maxBufferBytes`: a whole number from 1 to 2^53 - 1.
type BufferBytes = Whole<1, MAX_SAFE>;

options! {
    /// Options of `new AnswerExtractor(options)` (declared in pkg/entry/classes).
    struct AnswerExtractorInit {
        max_buffer_bytes: BufferBytes = "maxBufferBytes",
    }
}

/// The extractor of both classes, with `maxBufferBytes` given or the default.
fn extractor(max: Option<BufferBytes>) -> crate::AnswerExtractor {
    let max_buffer_bytes = BufferBytes::or(max, AnswerExtractorOptions::default().max_buffer_bytes);
    crate::AnswerExtractor::new(AnswerExtractorOptions { max_buffer_bytes })
}

/// The wasm half of `AnswerExtractor` (pkg/entry/classes/extractor.js).
#[wasm_bindgen(js_name = AnswerExtractorHandle, skip_typescript)]
pub struct JsAnswerExtractor {
    inner: crate::AnswerExtractor,
    /// The answer text of a call as the extractor hands it out (see
    /// `AnswerExtractor::feed_raw`), not yet decoded.
    raw: Vec<u8>,
    /// The same text as UTF-16 code units when it is not all ASCII (JS decodes those several
    /// times faster than non-ASCII UTF-8).
    out16: Vec<u16>,
    io: Io,
}

handle! {
    JsAnswerExtractor as AnswerExtractorHandle;
    /// `new AnswerExtractor({ maxBufferBytes? })`.
    fn new(o: AnswerExtractorInit) {
        Ok(JsAnswerExtractor { inner: extractor(o.max_buffer_bytes), raw: Vec::new(), out16: Vec::new(), io: Io::default() })
    }
}

#[wasm_bindgen(js_class = AnswerExtractorHandle)]
impl JsAnswerExtractor {
    /// Reads `len` bytes of the input buffer (and ends the stream when `end`); the answer
    /// text is the header's text (abi.rs), `COUNT` 1 when there is some.
    fn step(&mut self, len: u32, end: bool) -> u32 {
        self.raw.clear();
        let r = self.inner.feed_raw(self.io.input.bytes(len), &mut self.raw);
        let r = then_end(r, end, || self.inner.finish_raw(&mut self.raw));
        self.done(r)
    }

    /// Decodes the call's text once, here: to UTF-16 (replacing what is malformed, as
    /// `TextDecoder` would) unless it is all ASCII; describes it in the header.
    fn done(&mut self, r: crate::Result<()>) -> u32 {
        let scalars = match wide_text(&self.raw, &mut self.out16) {
            None => {
                self.io.header.utf8(&self.raw, &[], 1);
                self.raw.len()
            }
            Some(n) => {
                self.io.header.utf16(&self.out16, &[], 1);
                n
            }
        };
        self.inner.count_emitted(scalars as u64);
        self.io.status(r, u32::from(scalars > 0))
    }
}

methods! { JsAnswerExtractor as AnswerExtractorHandle;
    get isFinishAction -> Option<bool> = |h| h.inner.is_finish_action();
    get nextNode -> Option<String> = |h| h.inner.next_node().map(str::to_string);
    get emittedCount -> f64 = |h| h.inner.emitted_count() as f64;
    mut takeThought -> String = |h| h.inner.take_thought();
    mut reset = |h| h.inner.reset();
}

options! {
    /// Options of `new LlmStreamChunker(options)`.
    pub struct LlmStreamChunkerInit {
        /// The planner's `action_seq` to stamp on every chunk (`null` when omitted).
        action_seq: f64 = "actionSeq",
        /// As for `AnswerExtractor`.
        max_buffer_bytes: BufferBytes = "maxBufferBytes" as "number",
    }
}

/// The wasm half of `LlmStreamChunker` (pkg/entry/classes/extractor.js).
#[wasm_bindgen(js_name = LlmStreamChunkerHandle, skip_typescript)]
pub struct JsLlmStreamChunker {
    inner: crate::AnswerExtractor,
    /// The call's chunks.
    out: ChunkPack,
    io: Io,
    action_seq: Option<f64>,
}

handle! {
    JsLlmStreamChunker as LlmStreamChunkerHandle;
    /// `new LlmStreamChunker({ actionSeq?, maxBufferBytes? })`.
    fn new(o: LlmStreamChunkerInit) {
        let inner = extractor(o.max_buffer_bytes);
        Ok(JsLlmStreamChunker { inner, out: ChunkPack::default(), io: Io::default(), action_seq: o.action_seq })
    }
}

#[wasm_bindgen(js_class = LlmStreamChunkerHandle)]
impl JsLlmStreamChunker {
    /// Reads `len` bytes (with `end`, the closing chunk of a finish action too).
    fn step(&mut self, len: u32, end: bool) -> u32 {
        let mut answer = String::new();
        let r = self.inner.feed_into(self.io.input.bytes(len), &mut answer);
        let r = then_end(r, end, || self.inner.finish().map(|tail| answer.push_str(&tail)));
        self.done(r.map(|()| answer), end)
    }

    /// Packs the call's chunks (thought first, then answer, then the closing one).
    fn done(&mut self, answer: crate::Result<String>, end: bool) -> u32 {
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                self.io.error = Some(js_error(&e));
                return FAILED;
            }
        };
        let done = end && self.inner.is_finish_action() == Some(true);
        let count = self.out.pack(&self.inner.take_thought(), &answer, done);
        self.io.header.utf8(self.out.text.as_bytes(), &self.out.ops, count);
        count
    }
}

methods! { JsLlmStreamChunker as LlmStreamChunkerHandle;
    mut reset = |h| h.inner.reset();
    get isFinishAction -> Option<bool> = |h| h.inner.is_finish_action();
    get actionSeq -> JsValue = |h| h.action_seq.map_or(JsValue::NULL, JsValue::from_f64);
}
