//! What every streaming handle shares: the input buffer JS writes chunks into, and the
//! plumbing methods of the one feed path (`pkg/entry/boundary.js` drives them; the result
//! format is in `abi.rs`). A handle is the wasm half of a public JS class (`SseDecoder`, ...):
//! it has `inPtr`, `fromUnits`, `takeError`, `header`, `feed(len)` and `finish(len)` (this
//! macro), and `step` and `reset()` of its own.

use wasm_bindgen::prelude::*;

pub(crate) use super::abi::{FAILED, NOT_UNITS};

/// What every handle holds for the feed path: the header of its last call's results (abi.rs),
/// the input buffer and the error a failed call left for `takeError()`.
#[derive(Default)]
pub(crate) struct Io {
    pub(crate) header: super::abi::Header,
    pub(crate) input: InputBuffer,
    pub(crate) error: Option<JsValue>,
}

impl Io {
    /// What `feed` / `finish` return (abi.rs): `count`, or `FAILED` with the error kept for
    /// `takeError()`.
    pub(crate) fn status(&mut self, r: crate::Result<()>, count: u32) -> u32 {
        match r {
            Ok(()) => count,
            Err(e) => {
                self.error = Some(super::js_error(&e));
                FAILED
            }
        }
    }
}

/// A `step`'s result: the feed's `r`, then with `end` (`finish(len)`) the end of the input
/// when the feed went well.
pub(crate) fn then_end<T>(r: crate::Result<T>, end: bool, finish: impl FnOnce() -> crate::Result<T>) -> crate::Result<T> {
    if end && r.is_ok() {
        finish()
    } else {
        r
    }
}

/// The input buffer JS writes chunks into.
#[derive(Default)]
pub(crate) struct InputBuffer {
    buf: Vec<u8>,
}

impl InputBuffer {
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
    /// then holds no scratch memory). JS asks `inPtr` again before writing (boundary.js rule 3).
    pub(crate) fn release(&mut self) {
        self.buf = Vec::new();
    }
}

/// A class's constructor, in an `impl` block of its own:
/// `class! { JsX as XHandle; fn new([arg = read(&arg)?] o: XOptions) { body } }` makes
/// `new XHandle(arg, options?)`: each leading argument a `JsValue` read in order by its
/// expression, then the options object read as `XOptions` (`options!`) into `o`; `body` makes
/// the object (`Result<JsX, JsValue>`).
macro_rules! class {
    ($ty:ident as $class:ident; $(#[doc = $doc:literal])* fn new($([$arg:ident = $read:expr])* $o:ident: $init:ty) $body:block) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            $(#[doc = $doc])*
            #[wasm_bindgen(constructor, skip_typescript)]
            pub fn new($($arg: wasm_bindgen::JsValue,)* options: Option<wasm_bindgen::JsValue>) -> Result<$ty, wasm_bindgen::JsValue> {
                $(let $arg = $read;)*
                let $o = <$init>::from_js(options)?;
                $body
            }
        }
    };
}
pub(crate) use class;

/// A streaming handle's class: its constructor (as `class!`) and the plumbing every handle
/// shares (from its `io: Io` field), in an `impl` block beside the handle's own: `inPtr(cap)`
/// (where JS writes the chunk), `fromUnits(units)` (a string chunk written as UTF-16, made
/// UTF-8 in place), `takeError()` (the error a failed call left), `header()` (the address of
/// the header, see abi.rs), and `feed(len)` / `finish(len)`: the handle's one feed path,
/// `step(len, end)`, the same signature for every handle (how the buffer holds the chunk is
/// the header's `ROUTE`, for the handles that read more than bytes).
macro_rules! handle {
    ($ty:ident as $class:ident; $($new:tt)*) => {
        $crate::wasm::handle::class! { $ty as $class; $($new)* }

        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            /// 0 when the buffer could not grow: `takeError()` has the error.
            #[wasm_bindgen(js_name = "inPtr", skip_typescript)]
            pub fn in_ptr(&mut self, cap: u32) -> u32 {
                self.io.input.ptr(cap).unwrap_or_else(|e| {
                    self.io.error = Some($crate::wasm::js_error(&e));
                    0
                })
            }

            #[wasm_bindgen(js_name = "fromUnits", skip_typescript)]
            pub fn from_units(&mut self, units: u32) -> u32 {
                self.io.input.units_to_utf8(units)
            }

            #[wasm_bindgen(js_name = "takeError", skip_typescript)]
            pub fn take_error(&mut self) -> wasm_bindgen::JsValue {
                self.io.error.take().unwrap_or(wasm_bindgen::JsValue::UNDEFINED)
            }

            #[wasm_bindgen(skip_typescript)]
            pub fn header(&self) -> u32 {
                self.io.header.ptr()
            }

            /// Reads `len` of the input buffer (bytes, or units: the header's `ROUTE`); the
            /// results are described in the header (abi.rs). Returns their count, `FAILED`
            /// or `NOT_UNITS`.
            #[wasm_bindgen(skip_typescript)]
            pub fn feed(&mut self, len: u32) -> u32 {
                self.step(len, false)
            }

            /// Reads the last `len` of the input buffer and ends the input; as `feed`.
            #[wasm_bindgen(skip_typescript)]
            pub fn finish(&mut self, len: u32) -> u32 {
                self.step(len, true)
            }
        }
    };
}
pub(crate) use handle;

/// A class's one-line methods, left out of the TypeScript like every handle method (the JS
/// class declares them): `get name -> T = |s| expr;` is the getter `name`, `fn name(args) -> T
/// = |s| expr;` a method and `mut name(args) -> T = |s| expr;` one that takes `&mut self`,
/// with `s` the handle in `expr`. Names are the JS names.
macro_rules! methods {
    ($ty:ident as $class:ident; $($kind:ident $name:ident $(($($arg:ident: $at:ty),*))? $(-> $ret:ty)? = |$s:ident| $body:expr;)*) => {
        $($crate::wasm::handle::methods!(@$kind $ty $class $name ($($($arg: $at),*)?) ($($ret)?) $s $body);)*
    };
    (@get $ty:ident $class:ident $name:ident () ($($ret:ty)?) $s:ident $body:expr) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            #[allow(non_snake_case)]
            #[wasm_bindgen(getter, skip_typescript)]
            pub fn $name(&self) $(-> $ret)? { let $s = self; $body }
        }
    };
    (@fn $ty:ident $class:ident $name:ident ($($arg:ident: $at:ty),*) ($($ret:ty)?) $s:ident $body:expr) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            #[allow(non_snake_case)]
            #[wasm_bindgen(skip_typescript)]
            pub fn $name(&self, $($arg: $at),*) $(-> $ret)? { let $s = self; $body }
        }
    };
    (@mut $ty:ident $class:ident $name:ident ($($arg:ident: $at:ty),*) ($($ret:ty)?) $s:ident $body:expr) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            #[allow(non_snake_case)]
            #[wasm_bindgen(skip_typescript)]
            pub fn $name(&mut self, $($arg: $at),*) $(-> $ret)? { let $s = self; $body }
        }
    };
}
pub(crate) use methods;

/// The wasm memory, for boundary.js.
#[wasm_bindgen(js_name = "__sr_memory", skip_typescript)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}
