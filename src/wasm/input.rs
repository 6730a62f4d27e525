//! `string | Uint8Array` chunks to UTF-8 bytes, with UTF-16 surrogate-pair carry-over.
//!
//! A JS string chunk may end between the two halves of a surrogate pair (a UI feeding one
//! UTF-16 code unit at a time does exactly that). The high half is held back and joined to
//! the next string chunk, so the pair becomes one character; a high half that is not followed
//! by a low one becomes U+FFFD, as `TextEncoder` does.

use crate::{Error, ErrorKind};
use js_sys::{JsString, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

#[derive(Default)]
pub(crate) struct ChunkInput {
    high: Option<u16>,
    bytes: Vec<u8>,
    text: String,
}

const REPLACEMENT: &str = "\u{FFFD}";

impl ChunkInput {
    /// The UTF-8 bytes of `chunk`, valid until the next call.
    pub(crate) fn read(&mut self, chunk: &JsValue) -> Result<&[u8], JsValue> {
        // One crossing for the common case; the surrogate checks below only look at the JS
        // string again when the converted text starts or ends with U+FFFD, which is what
        // `TextEncoder` makes of a lone surrogate.
        if chunk.is_string() {
            let units = chunk.unchecked_ref::<JsString>().length() as usize;
            super::room_for_copy(units).map_err(|e| super::js_error(&e))?;
        }
        if let Some(text) = chunk.as_string() {
            self.text = text;
            if self.text.is_empty() {
                return Ok(b"");
            }
            let js: &JsString = chunk.unchecked_ref();
            let mut head = String::new();
            if let Some(high) = self.high.take() {
                if self.text.starts_with(REPLACEMENT) && is_low(js.char_code_at(0) as u16) {
                    let low = js.char_code_at(0) as u16;
                    let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    head.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                    self.text.replace_range(..REPLACEMENT.len(), "");
                } else {
                    head.push_str(REPLACEMENT);
                }
            }
            if self.text.ends_with(REPLACEMENT) {
                let n = js.length();
                let last = js.char_code_at(n - 1) as u16;
                // A lone high surrogate at the very end: keep it for the next chunk (unless
                // it is also the low half just combined above, which cannot be high).
                if (0xD800..0xDC00).contains(&last) && (n != 1 || head.is_empty()) {
                    self.high = Some(last);
                    let cut = self.text.len() - REPLACEMENT.len();
                    self.text.truncate(cut);
                }
            }
            if !head.is_empty() {
                self.text.insert_str(0, &head);
            }
            return Ok(self.text.as_bytes());
        }
        // A genuine view or buffer only, read with the built-in getters: no code of the
        // caller's runs while this machine is borrowed (runtime.js `__sr_chunk_view`).
        let view = super::__sr_chunk_view(chunk);
        if view.is_null() {
            return Err(bad_chunk());
        }
        let view: Uint8Array = view.unchecked_into();
        self.bytes.clear();
        if self.high.take().is_some() {
            self.bytes.extend_from_slice(REPLACEMENT.as_bytes());
        }
        let start = self.bytes.len();
        crate::budget::try_grow_to(&mut self.bytes, start + view.length() as usize).map_err(|e| super::js_error(&e))?;
        view.copy_to(&mut self.bytes[start..]);
        Ok(&self.bytes)
    }

    /// What is still held at the end of the stream: U+FFFD for an unpaired high surrogate.
    pub(crate) fn finish(&mut self) -> &'static [u8] {
        match self.high.take() {
            Some(_) => REPLACEMENT.as_bytes(),
            None => b"",
        }
    }

    /// Forgets any held surrogate (for `reset()`).
    pub(crate) fn reset(&mut self) {
        self.high = None;
    }
}

fn is_low(u: u16) -> bool {
    (0xDC00..0xE000).contains(&u)
}

fn bad_chunk() -> JsValue {
    super::js_error(&Error::new(
        ErrorKind::InvalidInput,
        "a chunk must be a string, a Uint8Array (or other ArrayBuffer view) or an ArrayBuffer",
    ))
}
