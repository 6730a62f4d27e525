//! The fast path for `feed`: JS writes the chunk straight into a buffer in wasm memory and
//! reads the result straight out of it (see `pkg/entry/fast.js`), so a small `feed` costs two
//! plain calls with number arguments instead of object hand-offs and string conversions.
//!
//! The classes keep their ordinary `feed` (used by the wasm tests and for inputs the fast
//! path does not take); these `__`-prefixed methods are not part of the public API.

use wasm_bindgen::prelude::*;

/// Sentinel `__feedIn` result: the call failed; `__takeError()` has the error.
pub(crate) const FAILED: u32 = u32::MAX;

/// Sentinel `__feedUnits` result: the UTF-16 chunk was not read (a lone surrogate, or state
/// that needs bytes); JS feeds it as UTF-8 instead.
pub(crate) const NOT_UNITS: u32 = u32::MAX - 1;

/// The input buffer JS writes chunks into.
#[derive(Default)]
pub(crate) struct FastInput {
    buf: Vec<u8>,
}

impl FastInput {
    /// Makes room for `cap` bytes and returns where JS may write them.
    ///
    /// # Errors
    /// `memory_limit_exceeded` when wasm memory cannot hold them (the buffer is unchanged).
    pub(crate) fn ptr(&mut self, cap: u32) -> crate::Result<u32> {
        let cap = cap as usize;
        if self.buf.len() < cap {
            crate::budget::try_grow_to(&mut self.buf, cap.next_power_of_two())?;
        }
        Ok(self.buf.as_mut_ptr() as usize as u32)
    }

    /// The `len` bytes JS wrote.
    pub(crate) fn bytes(&self, len: u32) -> &[u8] {
        &self.buf[..(len as usize).min(self.buf.len())]
    }

    /// JS wrote a string's `units` UTF-16 code units at offset `units` of the buffer (it
    /// asked for `3 * units` bytes): turns them into UTF-8 at its start and returns the
    /// UTF-8 length (see `text::utf16_to_utf8_in_place`).
    pub(crate) fn units_to_utf8(&mut self, units: u32) -> u32 {
        crate::text::utf16_to_utf8_in_place(&mut self.buf, units as usize) as u32
    }

    /// Gives the buffer back to the allocator (a finished machine that JS has not freed yet
    /// then holds no scratch memory). JS must ask `__inPtr` again before writing.
    pub(crate) fn release(&mut self) {
        self.buf = Vec::new();
    }
}

/// The plumbing every fast-path class shares, as a second `impl` block of its JS class:
/// `__inPtr(cap)` (where JS writes the chunk, from the `fast: FastInput` field),
/// `__fromUnits(units)` (a string chunk written as UTF-16, made UTF-8 in place),
/// `__takeError()` (the error a failed `__feedIn` left in `error: Option<JsValue>`) and, with
/// `info`, `__infoPtr()` (where `__feedIn` leaves the location of its result, the `info`
/// field). Each class writes its own `__feedIn`.
macro_rules! fast_io {
    ($ty:ty, $class:ident) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            /// 0 when the buffer could not grow: `__takeError()` has the error.
            #[doc(hidden)]
            #[wasm_bindgen(js_name = "__inPtr", skip_typescript)]
            pub fn in_ptr(&mut self, cap: u32) -> u32 {
                self.fast.ptr(cap).unwrap_or_else(|e| {
                    self.error = Some($crate::wasm::js_error(&e));
                    0
                })
            }

            #[doc(hidden)]
            #[wasm_bindgen(js_name = "__fromUnits", skip_typescript)]
            pub fn from_units(&mut self, units: u32) -> u32 {
                self.fast.units_to_utf8(units)
            }

            #[doc(hidden)]
            #[wasm_bindgen(js_name = "__takeError", skip_typescript)]
            pub fn take_error(&mut self) -> wasm_bindgen::JsValue {
                self.error.take().unwrap_or(wasm_bindgen::JsValue::UNDEFINED)
            }
        }
    };
    ($ty:ty, $class:ident, info) => {
        $crate::wasm::fast::fast_io!($ty, $class);

        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            #[doc(hidden)]
            #[wasm_bindgen(js_name = "__infoPtr", skip_typescript)]
            pub fn info_ptr(&self) -> u32 {
                self.info.as_ptr() as usize as u32
            }
        }
    };
}
pub(crate) use fast_io;

/// The wasm memory, for the JS half of the fast path.
#[wasm_bindgen(js_name = "__sr_memory", skip_typescript)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}
