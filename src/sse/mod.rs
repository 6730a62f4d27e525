//! Server-sent events: a decoder exact to the WHATWG "event stream interpretation" rules and
//! an encoder whose output that decoder reads back unchanged.

mod decoder;
mod encoder;

#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
pub(crate) use decoder::{Bytes, Emit, LineInput};
pub use decoder::{SseDecoder, SseDecoderOptions, SseEvent, SseSink};
pub use encoder::{SseEncoder, SseEncoderOptions, SseMessage};
