//! What every streaming handle (the wasm half of a JS class) shares: the plumbing of the one
//! feed path that `pkg/entry/boundary.js` drives (the protocol is `crate::flat::abi`).

use wasm_bindgen::prelude::*;

pub(crate) use crate::flat::abi::{InputBuffer, FAILED, NOT_UNITS};

/// What every handle holds for the feed path: the header of its last call's results (abi.rs),
/// the input buffer and the error a failed call left for `takeError()`.
#[derive(Default)]
pub(crate) struct Io {
    pub(crate) header: crate::flat::abi::Header,
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

/// A class's constructor: `class! { JsX as XHandle; fn new([arg = read(&arg)?] o: XOptions)
/// { body } }` is `new XHandle(arg, options?)`, the arguments read in order, then the options.
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

/// A streaming handle's constructor (as `class!`) and the plumbing of its `io: Io`: `inPtr`,
/// `fromUnits`, `takeError`, `header`, and `feed(len)` / `finish(len)` through its `step`.
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

            /// Reads `len` of the input buffer as the header's `ROUTE` says; returns the
            /// result count, `FAILED` or `NOT_UNITS`.
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

/// A class's one-line methods by their JS names (the JS class declares them): `get name -> T =
/// |s| expr;` a getter, `fn` a method on `&self`, `mut` one on `&mut self`.
macro_rules! methods {
    ($ty:ident as $class:ident; $($kind:ident $name:ident $(($($arg:ident: $at:ty),*))? $(-> $ret:ty)? = |$s:ident| $body:expr;)*) => {
        $($crate::wasm::handle::methods!(@$kind $ty $class $name ($($($arg: $at),*)?) ($($ret)?) $s $body);)*
    };
    (@get $($rest:tt)*) => { $crate::wasm::handle::methods!(@one [getter, skip_typescript] [&self] self $($rest)*); };
    (@fn $($rest:tt)*) => { $crate::wasm::handle::methods!(@one [skip_typescript] [&self] self $($rest)*); };
    (@mut $($rest:tt)*) => { $crate::wasm::handle::methods!(@one [skip_typescript] [&mut self] self $($rest)*); };
    (@one [$($attr:tt)*] [$($recv:tt)*] $me:tt $ty:ident $class:ident $name:ident ($($arg:ident: $at:ty),*) ($($ret:ty)?) $s:ident $body:expr) => {
        #[wasm_bindgen::prelude::wasm_bindgen(js_class = $class)]
        impl $ty {
            #[allow(non_snake_case)]
            #[wasm_bindgen($($attr)*)]
            pub fn $name($($recv)*, $($arg: $at),*) $(-> $ret)? { let $s = $me; $body }
        }
    };
}
pub(crate) use methods;

/// The wasm memory, for boundary.js.
#[wasm_bindgen(js_name = "__sr_memory", skip_typescript)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}
