//! JS classes `AnswerExtractor` and `LlmStreamChunker`.

use super::abi::Header;
use super::handle::{handle_io, InputBuffer, FAILED};
use super::input::ChunkInput;
use super::{js_error, new_object, FlatOptions};
use crate::{AnswerExtractorOptions, Error, ErrorKind};
use serde::Deserialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `new AnswerExtractor(options)`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AnswerExtractorInit {
    /// Most bytes of answer text held back while `next_node` is undecided (default 8 MiB).
    #[tsify(optional)]
    max_buffer_bytes: Option<f64>,
}

fn extractor_options(max: Option<f64>) -> Result<AnswerExtractorOptions, JsValue> {
    let d = AnswerExtractorOptions::default();
    let max_buffer_bytes = match max {
        None => d.max_buffer_bytes,
        Some(x) if x.is_finite() && x >= 1.0 && x.fract() == 0.0 => x as usize,
        Some(x) => {
            return Err(js_error(&Error::new(
                ErrorKind::InvalidOption,
                format!("maxBufferBytes must be a positive integer, got {}", crate::num::show(x)),
            )))
        }
    };
    Ok(AnswerExtractorOptions { max_buffer_bytes })
}

#[wasm_bindgen(typescript_custom_section)]
const ANSWER_EXTRACTOR_TS: &str = r#"
/** Streams the user-facing answer out of a planner action as the model writes it. */
export class AnswerExtractor {
    /** `new AnswerExtractor({ maxBufferBytes? })`. */
    constructor(options?: AnswerExtractorInit);
    /** Reads a chunk; returns the newly decoded answer text (`""` when none). */
    feed(chunk: string | Uint8Array): string;
    /** Ends the stream; returns the last answer text (usually `""`). */
    finish(): string;
    /** Back to the initial state, for a retry. */
    reset(): void;
    /** The top-level `thought` text decoded since the last call. */
    takeThought(): string;
    /** `true` for a finish action, `false` for any other, `undefined` until decided. */
    readonly isFinishAction: boolean | undefined;
    /** The trimmed `next_node`, once read. */
    readonly nextNode: string | undefined;
    /** Unicode scalar values emitted so far. */
    readonly emittedCount: number;
    /** Frees the wasm memory now (`using` does it at the end of the block); later calls throw `invalid_state`. */
    free(): void;
    [Symbol.dispose](): void;
}
"#;

/// The wasm half of `AnswerExtractor` (pkg/entry/machines/extractor.js).
#[wasm_bindgen(js_name = AnswerExtractorHandle, skip_typescript)]
pub struct JsAnswerExtractor {
    inner: crate::AnswerExtractor,
    /// The answer text of a call as the extractor hands it out (see
    /// `AnswerExtractor::feed_raw`), not yet decoded.
    raw: Vec<u8>,
    /// The same text as UTF-16 code units when it is not all ASCII (JS decodes those several
    /// times faster than non-ASCII UTF-8).
    out16: Vec<u16>,
    header: Header,
    input: InputBuffer,
    error: Option<JsValue>,
}

handle_io!(JsAnswerExtractor, AnswerExtractorHandle);

#[wasm_bindgen(js_class = AnswerExtractorHandle)]
impl JsAnswerExtractor {
    /// `new AnswerExtractor({ maxBufferBytes? })`.
    #[wasm_bindgen(constructor, skip_typescript)]
    pub fn new(options_value: Option<JsValue>) -> Result<JsAnswerExtractor, JsValue> {
        Ok(JsAnswerExtractor {
            inner: crate::AnswerExtractor::new(extractor_options(
                FlatOptions::new(options_value, "AnswerExtractorInit", &["maxBufferBytes"])?.number("maxBufferBytes")?,
            )?),
            raw: Vec::new(),
            out16: Vec::new(),
            header: Header::default(),
            input: InputBuffer::default(),
            error: None,
        })
    }

    /// Reads `len` bytes of the input buffer; the answer text is the header's text (abi.rs).
    /// Returns 1 when there is some, 0 when none, or `FAILED`.
    #[wasm_bindgen(skip_typescript)]
    pub fn feed(&mut self, len: u32) -> u32 {
        self.raw.clear();
        let r = self.inner.feed_raw(self.input.bytes(len), &mut self.raw);
        self.done(r)
    }

    /// Reads the last `len` bytes of the input buffer and ends the stream; as `feed`.
    #[wasm_bindgen(skip_typescript)]
    pub fn finish(&mut self, len: u32) -> u32 {
        self.raw.clear();
        let mut r = self.inner.feed_raw(self.input.bytes(len), &mut self.raw);
        if r.is_ok() {
            r = self.inner.finish_raw(&mut self.raw);
        }
        self.done(r)
    }

    /// Decodes the call's text once, here: to UTF-16 (replacing what is malformed, as
    /// `TextDecoder` would) unless it is all ASCII; describes it in the header.
    fn done(&mut self, r: crate::Result<()>) -> u32 {
        let scalars = if self.raw.is_ascii() {
            self.header.utf8(&self.raw, &[], 1);
            self.raw.len()
        } else {
            self.out16.clear();
            crate::text::push_utf16(&self.raw, &mut self.out16);
            self.header.utf16(&self.out16, &[], 1);
            // A surrogate pair is one scalar value: count the units but low surrogates.
            let lows = self.out16.iter().filter(|&&u| u & 0xFC00 == 0xDC00).count();
            self.out16.len() - lows
        };
        self.inner.count_emitted(scalars as u64);
        match r {
            Ok(()) => u32::from(scalars > 0),
            Err(e) => {
                self.error = Some(js_error(&e));
                FAILED
            }
        }
    }

    #[wasm_bindgen(getter = isFinishAction, skip_typescript)]
    pub fn is_finish_action(&self) -> Option<bool> {
        self.inner.is_finish_action()
    }

    #[wasm_bindgen(getter = nextNode, skip_typescript)]
    pub fn next_node(&self) -> Option<String> {
        self.inner.next_node().map(str::to_string)
    }

    #[wasm_bindgen(getter = emittedCount, skip_typescript)]
    pub fn emitted_count(&self) -> f64 {
        self.inner.emitted_count() as f64
    }

    #[wasm_bindgen(js_name = takeThought, skip_typescript)]
    pub fn take_thought(&mut self) -> String {
        self.inner.take_thought()
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn reset(&mut self) {
        self.inner.reset();
    }
}

/// Options of `new LlmStreamChunker(options)`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LlmStreamChunkerInit {
    /// The planner's `action_seq` to stamp on every chunk (`null` when omitted).
    #[tsify(optional)]
    action_seq: Option<f64>,
    /// As for `AnswerExtractor`.
    #[tsify(optional)]
    max_buffer_bytes: Option<f64>,
}

/// One `llm_stream_chunk` of the planner's SSE contract (the type only: `chunks` makes
/// the objects).
#[derive(Tsify)]
pub struct LlmStreamChunk {
    /// The new text (`""` for the closing chunk).
    pub text: String,
    /// `true` only on the closing chunk of a finish action.
    pub done: bool,
    /// `"answer"` for answer text, `"observation"` for the streamed thought.
    pub phase: String,
    /// `"answer"` or `"thinking"`.
    pub channel: String,
    /// The action sequence number given to the chunker, or `null`.
    #[tsify(type = "number | null")]
    pub action_seq: Option<f64>,
}

/// Turns an action stream into `llm_stream_chunk` objects: answer text as
/// `{phase: "answer", channel: "answer"}`, the legacy `thought` as
/// `{phase: "observation", channel: "thinking"}`, and a closing `{text: "", done: true}` only
/// for a finish action.
#[wasm_bindgen(js_name = LlmStreamChunker)]
pub struct JsLlmStreamChunker {
    inner: crate::AnswerExtractor,
    input: ChunkInput,
    /// The keys and the repeated values of a chunk as JS values, made once: a chunk then
    /// costs one string conversion, its text.
    names: ChunkNames,
}

struct ChunkNames {
    /// `text`, `done`, `phase`, `channel`, `action_seq`.
    keys: [JsValue; 5],
    answer: JsValue,
    observation: JsValue,
    thinking: JsValue,
    /// The number given, or `null`.
    action_seq: JsValue,
}

#[wasm_bindgen(js_class = LlmStreamChunker)]
impl JsLlmStreamChunker {
    /// `new LlmStreamChunker({ actionSeq?, maxBufferBytes? })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "LlmStreamChunkerInit")] options_value: Option<
            JsValue,
        >,
    ) -> Result<JsLlmStreamChunker, JsValue> {
        let o = FlatOptions::new(options_value, "LlmStreamChunkerInit", &["actionSeq", "maxBufferBytes"])?;
        let o = LlmStreamChunkerInit { action_seq: o.number("actionSeq")?, max_buffer_bytes: o.number("maxBufferBytes")? };
        let opts = extractor_options(o.max_buffer_bytes)?;
        Ok(JsLlmStreamChunker {
            inner: crate::AnswerExtractor::new(opts),
            input: ChunkInput::default(),
            names: ChunkNames {
                keys: ["text", "done", "phase", "channel", "action_seq"].map(JsValue::from_str),
                answer: JsValue::from_str("answer"),
                observation: JsValue::from_str("observation"),
                thinking: JsValue::from_str("thinking"),
                action_seq: o.action_seq.map_or(JsValue::NULL, JsValue::from_f64),
            },
        })
    }

    /// Reads a chunk; returns the chunks to send (thought first, then answer).
    #[wasm_bindgen(unchecked_return_type = "LlmStreamChunk[]")]
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> Result<JsValue, JsValue> {
        let bytes = self.input.read(&chunk)?;
        let mut answer = String::new();
        self.inner.feed_into(bytes, &mut answer).map_err(|e| js_error(&e))?;
        self.chunks(answer, false)
    }

    /// Ends the stream; the closing `done` chunk comes only for a finish action.
    #[wasm_bindgen(unchecked_return_type = "LlmStreamChunk[]")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let mut answer = String::new();
        let tail = self.input.finish();
        if !tail.is_empty() {
            self.inner.feed_into(tail, &mut answer).map_err(|e| js_error(&e))?;
        }
        answer.push_str(&self.inner.finish().map_err(|e| js_error(&e))?);
        self.chunks(answer, true)
    }

    /// Back to the initial state, for a retry (same `actionSeq`).
    pub fn reset(&mut self) {
        self.inner.reset();
        self.input.reset();
    }

    /// The underlying extractor's decision (see `AnswerExtractor.isFinishAction`).
    #[wasm_bindgen(getter = isFinishAction)]
    pub fn is_finish_action(&self) -> Option<bool> {
        self.inner.is_finish_action()
    }

    fn chunks(&mut self, answer: String, end: bool) -> Result<JsValue, JsValue> {
        let v = js_sys::Array::new();
        let thought = self.inner.take_thought();
        let n = &self.names;
        let chunk = |text: &str, done: bool, answer: bool| {
            let o = new_object();
            let (phase, channel) = if answer { (&n.answer, &n.answer) } else { (&n.observation, &n.thinking) };
            let values = [&JsValue::from_str(text), &JsValue::from_bool(done), phase, channel, &n.action_seq];
            for (key, value) in n.keys.iter().zip(values) {
                o.set(key, value);
            }
            v.push(&o);
        };
        if !thought.is_empty() {
            chunk(&thought, false, false);
        }
        if !answer.is_empty() {
            chunk(&answer, false, true);
        }
        if end && self.inner.is_finish_action() == Some(true) {
            chunk("", true, true);
        }
        Ok(v.into())
    }
}
