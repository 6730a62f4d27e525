//! JS classes `SseDecoder` and `SseEncoder` (the encoder only with feature `sse`: the client
//! entry decodes only).

use super::de::{options, DeError, FlatOptions, Size};
#[cfg(feature = "sse")]
use super::de::{whole_arg, Count, MAX_SAFE};
#[cfg(feature = "sse")]
use super::handle::NOT_UNITS;
use super::handle::{class, handle, methods, then_end, Io};
use super::js_error;
use crate::flat::abi::Route;
use crate::flat::SsePack;
use crate::sse::Bytes;
use crate::{Error, ErrorKind, SseMessage};
use wasm_bindgen::prelude::*;

options! {
    /// Options of `new SseDecoder(options)`.
    pub struct SseDecoderOptions for crate::SseDecoderOptions {
        /// The longest accepted line in bytes (default 1 MiB).
        max_line_bytes: Size = "maxLineBytes" as "number",
        /// The most data bytes one event may accumulate (default 8 MiB).
        max_event_bytes: Size = "maxEventBytes" as "number",
        /// Dispatch an unterminated last event at `finish()` instead of discarding it.
        flush_on_finish: bool = "flushOnFinish",
    }
}

#[cfg(feature = "sse")]
options! {
    /// Options of `new SseEncoder(options)`.
    pub struct SseEncoderOptions {
        /// Give every event without an explicit `id` the next number of a counter.
        auto_id: bool = "autoId",
        /// The first automatic id (default 1).
        first_id: Count = "firstId" as "number",
    }
}

/// An event to encode (declared in pkg/entry/classes/encoder.api.d.ts).
#[cfg(feature = "sse")]
struct SseMessageInit {
    event: Option<String>,
    data: String,
    id: Option<Result<String, f64>>,
    retry: Option<f64>,
}

#[cfg(feature = "sse")]
impl SseMessageInit {
    /// Reads the message object (other keys are ignored).
    fn read(message: JsValue) -> Result<SseMessageInit, DeError> {
        let m = FlatOptions::record(message, "SseMessageInit", &["event", "data", "id", "retry"])?;
        Ok(SseMessageInit {
            event: m.read("event")?,
            data: m.read("data")?.ok_or_else(|| FlatOptions::missing("data"))?,
            id: m.read_string_or_number("id", "an `id` that is a string or a number")?,
            retry: m.read("retry")?,
        })
    }
}

/// The wasm half of `SseDecoder` (pkg/entry/classes/sse.js): decodes `text/event-stream`
/// bytes or text into events, exactly as the WHATWG standard interprets an event stream.
#[wasm_bindgen(js_name = SseDecoderHandle, skip_typescript)]
pub struct JsSseDecoder {
    inner: crate::SseDecoder,
    out: SsePack,
    io: Io,
    /// A chunk of UTF-16 units: its skeleton.
    skeleton: Vec<u8>,
}

handle! {
    JsSseDecoder as SseDecoderHandle;
    /// `new SseDecoder({ flushOnFinish?, maxLineBytes?, maxEventBytes? })`.
    fn new(o: SseDecoderOptions) {
        Ok(JsSseDecoder { inner: crate::SseDecoder::new(o.core()), out: SsePack::default(), io: Io::default(), skeleton: Vec::new() })
    }
}

#[wasm_bindgen(js_class = SseDecoderHandle)]
impl JsSseDecoder {
    /// Decodes `len` of the input buffer by its route: bytes; ASCII text, whose one-line data
    /// comes back as a range of the string (`SSE_RANGE`); or UTF-16 units through their
    /// skeleton (`NOT_UNITS` for a lone surrogate or a BOM begun by bytes).
    fn step(&mut self, len: u32, end: bool) -> u32 {
        self.out.clear();
        let r = match self.io.header.take_route() {
            #[cfg(feature = "sse")]
            Route::Units => {
                let input = self.io.input.bytes(len.saturating_mul(2));
                match self.inner.feed_utf16le_with(input, &mut self.skeleton, &mut self.out) {
                    Ok(None) => return NOT_UNITS,
                    Ok(Some(len8)) => {
                        self.io.header.flags(u32::from(len8 == u64::from(len)));
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            #[cfg(not(feature = "sse"))]
            Route::Units => return super::handle::NOT_UNITS,
            Route::Ascii => self.inner.feed_with(Bytes::ascii(self.io.input.bytes(len)), &mut self.out),
            _ => self.inner.feed_with(Bytes::new(self.io.input.bytes(len)), &mut self.out),
        };
        let r = then_end(r, end, || self.inner.finish_with(&mut self.out));
        self.done(r)
    }

    /// Describes the call's events in the header; the count, or `FAILED` with the error kept.
    /// Running out of memory while packing them fails the decoder (`memory_limit_exceeded`).
    fn done(&mut self, r: crate::Result<()>) -> u32 {
        let r = match (r, self.out.take_oom()) {
            (Ok(()), Err(e)) => Err(self.inner.fail_once(e)),
            (r, _) => r,
        };
        let out = &self.out;
        if !out.wide.is_empty() {
            self.io.header.utf16(&out.wide, &out.lens, out.count);
        } else if r.is_ok() {
            // Every field went through `push`, which starts `wide` at the first one that is
            // not ASCII. (After a failure the bytes past the counted events may hold one.)
            self.io.header.ascii(&out.bytes, &out.lens, out.count);
        } else {
            self.io.header.utf8(&out.bytes, &out.lens, out.count);
        }
        self.io.status(r, out.count)
    }
}

methods! { JsSseDecoder as SseDecoderHandle;
    get lastEventId -> String = |d| d.inner.last_event_id().to_string();
    get pendingId -> Option<String> = |d| d.inner.pending_id();
    get retry -> Option<f64> = |d| d.inner.retry().map(|r| r as f64);
}

#[cfg(feature = "sse")]
pub use encoder::JsSseEncoder;

#[cfg(feature = "sse")]
mod encoder {
    use super::*;

    /// Encodes events as `text/event-stream` text.
    #[wasm_bindgen(js_name = SseEncoderHandle, skip_typescript)]
    pub struct JsSseEncoder {
        inner: crate::SseEncoder,
    }

    class! {
        JsSseEncoder as SseEncoderHandle;
        /// `new SseEncoder({ autoId?, firstId? })`.
        fn new(o: SseEncoderOptions) {
            let opts = crate::SseEncoderOptions { auto_id: o.auto_id.unwrap_or(false), first_id: o.first_id.map_or(1, |w| w.0) };
            Ok(JsSseEncoder { inner: crate::SseEncoder::new(opts) })
        }
    }

    #[wasm_bindgen(js_class = SseEncoderHandle)]
    impl JsSseEncoder {
        #[wasm_bindgen(skip_typescript)]
        pub fn encode(&mut self, message: JsValue) -> Result<String, JsValue> {
            let m = SseMessageInit::read(message)
                .map_err(|e| js_error(&Error::new(ErrorKind::InvalidInput, format!("invalid SSE message: {e}"))))?;
            let id = m.id.map(|v| {
                v.unwrap_or_else(|n| js_sys::Number::from(n).to_string_with_radix(10).map(String::from).unwrap_or_default())
            });
            let retry = whole_arg(m.retry, "retry", 0, MAX_SAFE, ErrorKind::InvalidInput)?;
            let msg = SseMessage { event: m.event.as_deref(), data: &m.data, id: id.as_deref(), retry };
            self.inner.encode(&msg).map_err(|e| js_error(&e))
        }
    }

    methods! { JsSseEncoder as SseEncoderHandle;
        fn comment(text: JsValue) -> Result<String, JsValue> = |e| Ok(e.inner.comment(&crate::wasm::text_arg(&text, "text")?));
        fn ping -> String = |e| e.inner.ping();
    }
}
