//! The handles of `PartialJson` (its events packed by `crate::flat::JsonPack`) and
//! `JsonItemStream` (its items as one JSON array).

use super::de::{options, Size, Whole};
use super::handle::{handle, then_end, Io};
use super::host::to_js_value;
use super::js_error;
#[cfg(feature = "json")]
use crate::budget::out_of_memory;
use crate::flat::JsonPack;
#[cfg(feature = "json")]
use crate::JsonValue;
use wasm_bindgen::prelude::*;

/// `maxDepth`: from 1 to the core's deepest nesting.
type Depth = Whole<1, { crate::json::partial::MAX_DEPTH as u64 }>;

options! {
    /// Options of `new PartialJson(options)`.
    pub struct PartialJsonOptions for crate::PartialJsonOptions {
        /// Accept exactly RFC 8259 JSON (default `true`); `false` tolerates raw control
        /// characters in strings, unknown escapes and invalid UTF-8.
        strict: bool = "strict",
        /// The deepest nesting of objects and arrays (default 512, at most 1024).
        max_depth: Depth = "maxDepth" as "number",
        /// The most bytes the partial value may hold (default 64 MiB): string and number bytes,
        /// key bytes twice, 32 per value and 64 per member.
        max_buffer_bytes: Size = "maxBufferBytes" as "number",
    }
}

#[cfg(feature = "json")]
options! {
    /// Options of `new JsonItemStream(path, options)`.
    pub struct JsonItemStreamOptions for crate::JsonItemStreamOptions {
        /// Accept exactly RFC 8259 JSON (default `true`).
        strict: bool = "strict",
        /// The deepest nesting of objects and arrays (default 512, at most 1024).
        max_depth: Depth = "maxDepth" as "number",
        /// The most bytes one item may hold (default 8 MiB), counted like `maxBufferBytes`.
        max_item_bytes: Size = "maxItemBytes" as "number",
    }
}

/// The wasm half of `PartialJson` (pkg/entry/classes/partial.js).
#[wasm_bindgen(js_name = PartialJsonHandle, skip_typescript)]
pub struct JsPartialJson {
    inner: crate::PartialJson,
    packer: JsonPack,
    io: Io,
}

handle! {
    JsPartialJson as PartialJsonHandle;
    /// `new PartialJson({ strict?, maxDepth?, maxBufferBytes? })`.
    fn new(o: PartialJsonOptions) {
        Ok(JsPartialJson { inner: crate::PartialJson::new(o.core()), packer: JsonPack::default(), io: Io::default() })
    }
}

#[wasm_bindgen(js_class = PartialJsonHandle)]
impl JsPartialJson {
    /// Reads `len` bytes of the input buffer (and ends the document when `end`: `value` is
    /// then the document's); the events are described in the header (abi.rs).
    fn step(&mut self, len: u32, end: bool) -> u32 {
        self.packer.clear();
        let r = self.inner.step_with(self.io.input.bytes(len), end, &mut self.packer);
        self.done(r)
    }

    /// The value so far, built from the core's tree. The client entry's build keeps no tree:
    /// there pkg/entry/classes/partial.js folds the events into the value.
    #[cfg(feature = "json")]
    #[wasm_bindgen(getter, skip_typescript)]
    pub fn value(&self) -> JsValue {
        match self.inner.value() {
            Some(v) => to_js_value(&v),
            None => JsValue::UNDEFINED,
        }
    }

    fn done(&mut self, r: crate::Result<()>) -> u32 {
        let p = &self.packer;
        self.io.header.utf8(p.text.as_bytes(), &p.ops, p.count);
        self.io.status(r, p.count)
    }
}

/// The wasm half of `JsonItemStream` (pkg/entry/classes/json.js).
#[cfg(feature = "json")]
#[wasm_bindgen(js_name = JsonItemStreamHandle, skip_typescript)]
pub struct JsJsonItemStream {
    inner: crate::JsonItemStream,
    items: Vec<JsonValue>,
    /// The call's items as one JSON array.
    text: String,
    io: Io,
}

#[cfg(feature = "json")]
handle! {
    JsJsonItemStream as JsonItemStreamHandle;
    /// `new JsonItemStream(path, { strict?, maxDepth?, maxItemBytes? })`.
    fn new([path = super::text_arg(&path, "path")?] o: JsonItemStreamOptions) {
        let inner = crate::JsonItemStream::new(&path, o.core()).map_err(|e| js_error(&e))?;
        Ok(JsJsonItemStream { inner, items: Vec::new(), text: String::new(), io: Io::default() })
    }
}

#[cfg(feature = "json")]
#[wasm_bindgen(js_class = JsonItemStreamHandle)]
impl JsJsonItemStream {
    /// Reads `len` bytes of the input buffer (and ends the input when `end`); the items
    /// completed are the header's text, a JSON array (abi.rs).
    fn step(&mut self, len: u32, end: bool) -> u32 {
        let r = self.inner.feed(self.io.input.bytes(len), &mut self.items);
        let r = then_end(r, end, || self.inner.finish(&mut self.items));
        self.done(r)
    }

    fn done(&mut self, r: crate::Result<()>) -> u32 {
        // Out of memory: the items so far go out and the stream fails.
        let (count, r) = match crate::flat::items_json(&mut self.items, &mut self.text) {
            Ok(count) => (count, r),
            Err((count, n)) => (count, Err(self.inner.fail(out_of_memory(n)))),
        };
        self.io.header.utf8(self.text.as_bytes(), &[], count);
        self.io.status(r, count)
    }
}
