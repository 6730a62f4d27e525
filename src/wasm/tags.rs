//! The tag classes and functions. Offsets are UTF-8 byte offsets into the response for string
//! and byte input alike, so that the filter and `parseTagged` agree.

use super::de::{both, options, Count, Size};
use super::de::{Any, DeError, Read};
use super::handle::methods;
use super::handle::{class, handle, Io, NOT_UNITS};
use super::{js_error, opt_text_arg, plain_object, text_arg};
use crate::flat::abi::Route;
use crate::flat::{RangeSink, TagPieces};
use crate::tags::DEFAULT_MAX_BUFFER_BYTES;
use crate::tags::{
    TagDelta as CoreDelta, TagInput, TagResult as CoreResult, TagViolation as CoreViolation, TurnStep as CoreStep,
};
use crate::{Error, ErrorKind, TagFilterOptions};
use wasm_bindgen::prelude::*;

options! {
    /// Options of `new TagFilter(nonce, options)` and `parseTagged(text, nonce, options)`.
    pub struct TagFilterInit {
        /// Block names in contract order (default `["ARTIFACT", "USER"]`).
        blocks: Vec<String> = "blocks",
        /// Most bytes of block text kept, plus the largest held tail (default 8 MiB).
        max_buffer_bytes: Size = "maxBufferBytes" as "number",
    }
}

/// The core's options of `blocks` and `maxBufferBytes`.
fn core_options(blocks: Option<Vec<String>>, max_buffer_bytes: Option<Size>) -> TagFilterOptions {
    let blocks = blocks.unwrap_or_else(|| TagFilterOptions::default().blocks);
    TagFilterOptions { blocks, max_buffer_bytes: Size::or(max_buffer_bytes, DEFAULT_MAX_BUFFER_BYTES) }
}

fn filter_options(value: Option<JsValue>) -> Result<TagFilterOptions, JsValue> {
    let o = TagFilterInit::from_js(value)?;
    Ok(core_options(o.blocks, o.max_buffer_bytes))
}

/// Block texts by lowercase name, each an own data property (`Object.fromEntries`: `__proto__`
/// too, which an assignment would hand to the prototype setter).
fn blocks_js(blocks: &[(String, String)]) -> Result<JsValue, JsValue> {
    let entries = js_sys::Array::new();
    for (name, text) in blocks {
        entries.push(&js_sys::Array::of2(&JsValue::from_str(name), &JsValue::from_str(text)));
    }
    Ok(js_sys::Object::from_entries(&entries)?.into())
}

/// `[{ code, offset }]`.
fn violations_js(v: &[CoreViolation]) -> JsValue {
    let a: js_sys::Array = v
        .iter()
        .map(|v| plain_object(&[("code", JsValue::from_str(v.code)), ("offset", JsValue::from_f64(v.offset as f64))]))
        .collect();
    a.into()
}

/// `{ ok, parse_ok, blocks, violations, deltas }`.
fn result_js(r: &CoreResult, deltas: JsValue) -> Result<JsValue, JsValue> {
    Ok(plain_object(&[
        ("ok", JsValue::from_bool(r.ok)),
        ("parse_ok", JsValue::from_bool(r.parse_ok)),
        ("blocks", blocks_js(&r.blocks)?),
        ("violations", violations_js(&r.violations)),
        ("deltas", deltas),
    ]))
}

/// `<name>_delta` for every block of a filter.
fn type_names(f: &crate::TagFilter) -> Vec<String> {
    (0..f.block_count()).map(|i| format!("{}_delta", f.block_name(i))).collect()
}

/// The wasm half of `TagFilter` (pkg/entry/classes/tags.js). It keeps no block text: JS
/// assembles the blocks of `finish()` from the deltas.
#[wasm_bindgen(js_name = TagFilterHandle, skip_typescript)]
pub struct JsTagFilter {
    inner: crate::TagFilter,
    types: Vec<String>,
    pieces: TagPieces,
    /// A chunk of UTF-16 units: its skeleton.
    skeleton: Vec<u8>,
    /// The verdict of `finish`, until JS takes it.
    result: Option<CoreResult>,
    io: Io,
}

handle! {
    JsTagFilter as TagFilterHandle;
    /// `new TagFilter(nonce, { blocks?, maxBufferBytes? })`.
    fn new([nonce = text_arg(&nonce, "nonce")?] o: TagFilterInit) {
        let mut inner = crate::TagFilter::new(&nonce, core_options(o.blocks, o.max_buffer_bytes)).map_err(|e| js_error(&e))?;
        inner.stop_keeping_text();
        let types = type_names(&inner);
        Ok(JsTagFilter { types, inner, pieces: TagPieces::default(), skeleton: Vec::new(), result: None, io: Io::default() })
    }
}

#[wasm_bindgen(js_class = TagFilterHandle)]
impl JsTagFilter {
    /// Reads `len` of the input buffer by its route: bytes; a string's UTF-8, its pieces UTF-16
    /// ranges of the string; or its UTF-16 units through their skeleton (`NOT_UNITS` for a
    /// lone surrogate or carried UTF-8). With `end`, the verdict is then `takeResult()`.
    fn step(&mut self, len: u32, end: bool) -> u32 {
        self.pieces.clear();
        if end {
            let input = self.io.input.bytes(len);
            let mut sink = RangeSink::new(input, -1, None, &mut self.pieces);
            let _ = self.inner.feed_with(input, &mut sink);
            let r = self.inner.finish_with(&mut sink).map(|r| self.result = Some(r));
            let count = self.pieces.describe(input);
            return self.done(r, count);
        }
        // The chunk as the filter reads it, and the sink's view of it: the UTF-8 of a string
        // of that many UTF-16 units (known to be all ASCII, or not), or bytes (-1).
        let (input, units, ascii) = match self.io.header.take_route() {
            Route::Units => {
                if !self.inner.accepts_units() {
                    return NOT_UNITS;
                }
                let Some(len8) = crate::text::utf16_skeleton(self.io.input.bytes(len.saturating_mul(2)), &mut self.skeleton)
                else {
                    return NOT_UNITS;
                };
                // All ASCII: the skeleton is the UTF-8 itself, and FLAGS tell JS to write the
                // next chunk as UTF-8 (faster for ASCII).
                let ascii = len8 == u64::from(len);
                self.io.header.flags(u32::from(ascii));
                let s = &self.skeleton[..];
                (if ascii { TagInput::Utf8(s) } else { TagInput::Units(s, len8) }, len as i32, Some(true))
            }
            Route::Utf8 => {
                let input = self.io.input.bytes(len);
                (TagInput::Utf8(input), super::utf16_units(input) as i32, Some(false))
            }
            Route::Ascii => (TagInput::Utf8(self.io.input.bytes(len)), len as i32, Some(true)),
            Route::Bytes => (TagInput::Bytes(self.io.input.bytes(len)), -1, None),
        };
        let (TagInput::Bytes(bytes) | TagInput::Utf8(bytes) | TagInput::Units(bytes, _)) = input;
        let r = self.inner.feed_input(input, &mut RangeSink::new(bytes, units, ascii, &mut self.pieces));
        let count = self.pieces.describe(bytes);
        self.done(r, count)
    }

    #[wasm_bindgen(js_name = takeResult, skip_typescript)]
    pub fn take_result(&mut self) -> Result<JsValue, JsValue> {
        self.io.input.release();
        self.pieces = TagPieces::default();
        self.skeleton = Vec::new();
        match self.result.take() {
            Some(r) => result_js(&CoreResult { blocks: Vec::new(), ..r }, js_sys::Array::new().into()),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Describes the `count` pieces in the header; their count, or `FAILED` with the error kept.
    fn done(&mut self, r: crate::Result<()>, count: u32) -> u32 {
        self.io.header.utf8(&[], &self.pieces.meta, count);
        self.io.status(r, count)
    }
}

methods! { JsTagFilter as TagFilterHandle;
    get bufferedBytes -> f64 = |h| h.inner.buffered_bytes() as f64;
    get maxBufferedBytes -> f64 = |h| h.inner.max_buffered_bytes() as f64;
    get deltaTypes -> Vec<String> = |h| h.types.clone();
}

/// The arguments `(text, nonce, options)` of `parseTagged` and `checkTagged`, and the core's
/// judgement of the text.
fn judged(
    text: &JsValue,
    nonce: &JsValue,
    options: Option<JsValue>,
) -> Result<(CoreResult, String, String, TagFilterOptions), JsValue> {
    let (text, nonce, o) = (text_arg(text, "text")?, text_arg(nonce, "nonce")?, filter_options(options)?);
    let r = crate::check_tagged(&text, &nonce, &o).map_err(|e| js_error(&e))?;
    Ok((r, text, nonce, o))
}

/// `parseTagged` (declared in pkg/entry/classes/tags.api.d.ts).
#[wasm_bindgen(js_name = parseTagged, skip_typescript)]
pub fn parse_tagged(text: JsValue, nonce: JsValue, options_value: Option<JsValue>) -> Result<JsValue, JsValue> {
    let (r, text, nonce, o) = &judged(&text, &nonce, options_value)?;
    if r.parse_ok {
        return blocks_js(&r.blocks);
    }
    let err = crate::parse_tagged(text, nonce, o)
        .err()
        .unwrap_or_else(|| Error::new(ErrorKind::TagContractViolation, "the response breaks the tag contract"));
    Err(super::js_error_with(&err, &[("violations", violations_js(&r.violations)), ("blocks", blocks_js(&r.blocks)?)]))
}

/// `checkTagged` (declared in pkg/entry/classes/tags.api.d.ts).
#[wasm_bindgen(js_name = checkTagged, skip_typescript)]
pub fn check_tagged(text: JsValue, nonce: JsValue, options_value: Option<JsValue>) -> Result<JsValue, JsValue> {
    result_js(&judged(&text, &nonce, options_value)?.0, js_sys::Array::new().into())
}

/// `sanitizeUntrusted` (declared in pkg/entry/classes/tags.api.d.ts).
#[wasm_bindgen(js_name = sanitizeUntrusted, skip_typescript)]
pub fn sanitize_untrusted(text: JsValue) -> Result<String, JsValue> {
    Ok(crate::sanitize_untrusted(&text_arg(&text, "text")?))
}

options! {
    /// Options of `tagContract(nonce, options)`.
    pub struct TagContractOptions {
        /// Block names in contract order (default `["ARTIFACT", "USER"]`).
        blocks: Vec<String> = "blocks",
        /// What each block must hold, by block name (defaults exist for ARTIFACT and USER).
        descriptions: super::de::StringPairs = "descriptions" as "Record<string, string>",
    }
}

/// `tagContract` (declared in pkg/entry/classes/tags.api.d.ts).
#[wasm_bindgen(js_name = tagContract, skip_typescript)]
pub fn tag_contract(nonce: JsValue, options_value: Option<JsValue>) -> Result<String, JsValue> {
    let nonce = &text_arg(&nonce, "nonce")?;
    let o = TagContractOptions::from_js(options_value)?;
    let fo = core_options(o.blocks, None);
    let d = o.descriptions.unwrap_or_default().0;
    crate::tag_contract(nonce, &fo, &d).map_err(|e| js_error(&e))
}

/// A violation `correctiveMessage` takes: a code, or a `TagViolation` (`{ code, offset? }`,
/// or `[code, offset?]`), read as one of the two shapes (the value is read whole first).
impl Read for CoreViolation {
    fn read(v: super::de::Js) -> Result<CoreViolation, DeError> {
        let any = Any::read(v)?;
        let (code, offset) = match &any {
            Any::Str(c) => (Some(c), Some(0.0)),
            Any::Map(_) => (any.get("code").and_then(string), any.get("offset").map_or(Some(0.0), number)),
            Any::Seq(s) => match s.as_slice() {
                [c] => (string(c), Some(0.0)),
                [c, offset] => (string(c), number(offset)),
                _ => (None, None),
            },
            _ => (None, None),
        };
        match (code, offset) {
            (Some(c), Some(o)) => Ok(CoreViolation { code: CoreViolation::known_code(c), offset: o as u64 }),
            _ => Err(DeError::new("data did not match any variant of untagged enum ViolationArg".into())),
        }
    }
}

fn string(a: &Any) -> Option<&String> {
    let Any::Str(s) = a else { return None };
    Some(s)
}

fn number(a: &Any) -> Option<f64> {
    let Any::Number(x) = a else { return None };
    Some(*x)
}

/// `correctiveMessage` (declared in pkg/entry/classes/tags.api.d.ts).
#[wasm_bindgen(js_name = correctiveMessage, skip_typescript)]
pub fn corrective_message(
    nonce: JsValue,
    violations: Option<JsValue>,
    options_value: Option<JsValue>,
) -> Result<String, JsValue> {
    let nonce = &text_arg(&nonce, "nonce")?;
    let v: Vec<CoreViolation> = match violations {
        Some(v) if !v.is_undefined() && !v.is_null() => super::de::from_js(v).map_err(|e| {
            js_error(&Error::new(
                ErrorKind::InvalidInput,
                format!("violations must be an array of violation codes or {{ code, … }} objects: {e}"),
            ))
        })?,
        _ => Vec::new(),
    };
    crate::corrective_message(nonce, &filter_options(options_value)?, &v).map_err(|e| js_error(&e))
}

options! {
    /// Options of `new TaggedTurn(options)`.
    pub struct TaggedTurnInit {
        /// The request nonce (default: `makeNonce()`).
        nonce: String = "nonce",
        /// As for `TagFilter`.
        blocks: Vec<String> = "blocks",
        /// As for `TagFilter`.
        max_buffer_bytes: Size = "maxBufferBytes" as "number",
    }
}

fn nonce_or_new(nonce: Option<String>) -> Result<String, JsValue> {
    match nonce {
        Some(n) => Ok(n),
        None => crate::make_nonce().map_err(|e| js_error(&e)),
    }
}

/// The wasm half of `TaggedTurn` (pkg/entry/classes/tags.js).
#[wasm_bindgen(js_name = TaggedTurnHandle, skip_typescript)]
pub struct JsTaggedTurn {
    inner: crate::TaggedTurn,
    types: Vec<String>,
    deltas: Vec<CoreDelta>,
    pieces: TagPieces,
    /// What the last `finish` said, until JS takes it.
    step: Option<CoreStep>,
    io: Io,
}

handle! {
    JsTaggedTurn as TaggedTurnHandle;
    /// `new TaggedTurn({ nonce?, blocks?, maxBufferBytes? })`.
    fn new(o: TaggedTurnInit) {
        let nonce = nonce_or_new(o.nonce)?;
        let inner = crate::TaggedTurn::new(&nonce, core_options(o.blocks, o.max_buffer_bytes)).map_err(|e| js_error(&e))?;
        let types = type_names(inner.filter());
        Ok(JsTaggedTurn { types, inner, deltas: Vec::new(), pieces: TagPieces::default(), step: None, io: Io::default() })
    }
}

#[wasm_bindgen(js_class = TaggedTurnHandle)]
impl JsTaggedTurn {
    #[wasm_bindgen(skip_typescript)]
    pub fn contract(&self, descriptions: Option<JsValue>) -> Result<String, JsValue> {
        let d: super::de::StringPairs = super::de::read_options(descriptions)?;
        self.inner.contract(&d.0).map_err(|e| js_error(&e))
    }

    /// Streams `len` bytes (with `end`, ends the response: the step is `takeStep()`).
    fn step(&mut self, len: u32, end: bool) -> u32 {
        self.deltas.clear();
        let r = self.inner.feed(self.io.input.bytes(len), &mut self.deltas);
        let r = if end { self.inner.finish(&mut self.deltas).map(|s| self.step = Some(s)) } else { r };
        self.done(r)
    }

    #[wasm_bindgen(js_name = takeStep, skip_typescript)]
    pub fn take_step(&mut self) -> Result<JsValue, JsValue> {
        let none = || js_sys::Array::new().into();
        Ok(match self.step.take() {
            None => JsValue::UNDEFINED,
            Some(CoreStep::Retry { corrective, result }) => plain_object(&[
                ("type", JsValue::from_str("retry")),
                ("corrective", JsValue::from_str(&corrective)),
                ("result", result_js(&result, none())?),
            ]),
            Some(CoreStep::Done { ok, parse_ok, result }) => plain_object(&[
                ("type", JsValue::from_str("done")),
                ("ok", JsValue::from_bool(ok)),
                ("parse_ok", JsValue::from_bool(parse_ok)),
                ("result", result_js(&result, none())?),
            ]),
        })
    }

    #[wasm_bindgen(getter = "final", skip_typescript)]
    pub fn final_blocks(&self) -> Result<JsValue, JsValue> {
        self.inner.confirmed().map_or(Ok(JsValue::NULL), |d| blocks_js(d))
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn confirm(&mut self) -> Result<JsValue, JsValue> {
        let d = self.inner.confirm().map_err(|e| js_error(&e))?;
        blocks_js(d)
    }

    #[wasm_bindgen(js_name = nextTurn, skip_typescript)]
    pub fn next_turn(&mut self, nonce: Option<JsValue>) -> Result<(), JsValue> {
        let n = nonce_or_new(opt_text_arg(nonce, "nonce")?)?;
        self.inner.next_turn(&n).map_err(|e| js_error(&e))
    }

    /// Copies the call's deltas as pieces and describes them in the header; their count, or
    /// `FAILED` with the error kept.
    fn done(&mut self, r: crate::Result<()>) -> u32 {
        self.pieces.clear();
        let r = r.and(self.pieces.copy(&self.deltas));
        let count = self.pieces.describe(&[]);
        self.io.header.utf8(&[], &self.pieces.meta, count);
        self.io.status(r, count)
    }
}

methods! { JsTaggedTurn as TaggedTurnHandle;
    get nonce -> String = |h| h.inner.nonce().to_string();
    get attempt -> u32 = |h| h.inner.attempt();
    get deltaTypes -> Vec<String> = |h| h.types.clone();
    get draft -> Result<JsValue, JsValue> = |h| h.inner.draft().map_or(Ok(JsValue::NULL), |d| blocks_js(d));
}

options! {
    /// Options of `new TagEventWriter(options)`.
    pub struct TagEventWriterInit {
        /// The id of the first event (default 1); ids then count up by one.
        first_id: Count = "firstId" as "number",
        /// `retry:` advice in ms, sent with the first event.
        retry: Count = "retry" as "number",
    }
}

both! {
    /// The `done` event's data (declared in pkg/entry/classes/tags.api.d.ts).
    struct DoneInit {
        ok: bool = "ok",
        parse_ok: bool = "parse_ok",
    }
}

both! {
    /// A `TagDelta` given to `TagEventWriter.deltas` (other keys ignored).
    struct DeltaArg {
        kind: String = "type",
        text: String = "text",
    }
}

/// The wasm half of `TagEventWriter`.
#[wasm_bindgen(js_name = TagEventWriterHandle, skip_typescript)]
pub struct JsTagEventWriter {
    inner: crate::TagEventWriter,
}

class! {
    JsTagEventWriter as TagEventWriterHandle;
    /// `new TagEventWriter({ firstId?, retry? })`.
    fn new(o: TagEventWriterInit) {
        Ok(JsTagEventWriter { inner: crate::TagEventWriter::new(o.first_id.map_or(1, |w| w.0), o.retry.map(|w| w.0)) })
    }
}

#[wasm_bindgen(js_class = TagEventWriterHandle)]
impl JsTagEventWriter {
    #[wasm_bindgen(skip_typescript)]
    pub fn deltas(&mut self, deltas: JsValue) -> Result<String, JsValue> {
        let list: Vec<DeltaArg> = super::de::from_js(deltas)
            .map_err(|e| js_error(&Error::new(ErrorKind::InvalidInput, format!("deltas must be TagDelta[]: {e}"))))?;
        let mut out = String::new();
        for d in &list {
            self.inner.delta(&d.kind, &d.text, &mut out).map_err(|e| js_error(&e))?;
        }
        Ok(out)
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn done(&mut self, result: JsValue) -> Result<String, JsValue> {
        let d: DoneInit = super::de::from_js(result)
            .map_err(|e| js_error(&Error::new(ErrorKind::InvalidInput, format!("done needs {{ ok, parse_ok }}: {e}"))))?;
        let mut out = String::new();
        self.inner.done(d.ok, d.parse_ok, &mut out).map_err(|e| js_error(&e))?;
        Ok(out)
    }

    #[wasm_bindgen(skip_typescript)]
    pub fn ping(&mut self) -> Result<String, JsValue> {
        let mut out = String::new();
        self.inner.ping(&mut out).map_err(|e| js_error(&e))?;
        Ok(out)
    }
}

methods! { JsTagEventWriter as TagEventWriterHandle;
    get nextId -> f64 = |h| h.inner.next_id() as f64;
}
