//! `StreamRouter`: never panics, and chunking never changes the events.
//!
//! The first input byte chooses the run: bits 0-4 give the piece size (1..=32), bits 5-6 the
//! content mode (text, action-json, tagged with a fixed nonce), bit 7 the provider (`auto` or
//! OpenAI Chat). The rest is the raw stream. The pieces are fed, then `finish`; the events
//! (adjacent text deltas merged, as their cut follows the chunking) and the first error must
//! equal those of the whole input fed in one call.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{ContentMode, Provider, StreamRouterOptions};

use streamroute_fuzz::router as common;

fuzz_target!(|input: &[u8]| {
    let Some((&control, stream)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let content = match (control >> 5) & 3 {
        0 | 3 => ContentMode::Text,
        1 => ContentMode::ActionJson,
        _ => ContentMode::Tagged,
    };
    let provider = if control & 0x80 != 0 { Provider::OpenAiChat } else { Provider::Auto };
    let opts = StreamRouterOptions {
        provider,
        content,
        nonce: Some("5f0c9a2be4d1487fa3c6b8e2d9f17a40".into()),
        max_event_bytes: 4096,
        // Small enough that fuzzed tool calls and actions reach it: whether it is hit must
        // not depend on the chunking either.
        max_buffer_bytes: 4096,
    };
    common::assert_chunk_invariant(&opts, stream, size);
});
