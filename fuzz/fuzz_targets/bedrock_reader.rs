//! The Bedrock reader behind the event-stream framing: whatever the messages say (their
//! event type, message type, JSON payload), never a panic, and chunking never changes the
//! events.
//!
//! Byte 0: bits 0-4 the piece size (1..=32), bit 5 `auto` instead of `bedrock`. The rest is
//! split at 0xFF into messages; each one's first byte picks its type (one of the
//! `ConverseStream` events, an exception or an error message) and the rest is its payload.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{encode_eventstream_message, ContentMode, Provider, StreamRouterOptions};

use streamroute_fuzz::router as common;

const EVENTS: [&str; 7] =
    ["messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata", "somethingNew"];

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let mut stream = Vec::new();
    for message in rest.split(|&b| b == 0xFF) {
        let Some((&kind, payload)) = message.split_first() else { continue };
        let event = EVENTS[usize::from(kind) % EVENTS.len()];
        let headers: Vec<(&str, &str)> = match kind >> 6 {
            0 | 1 => vec![(":message-type", "event"), (":event-type", event), (":content-type", "application/json")],
            2 => vec![(":message-type", "exception"), (":exception-type", "throttlingException")],
            _ => vec![(":message-type", "error"), (":error-code", "InternalFailure"), (":error-message", "boom")],
        };
        stream.extend(encode_eventstream_message(&headers, payload));
    }
    let opts = StreamRouterOptions {
        provider: if control & 0x20 != 0 { Provider::Auto } else { Provider::Bedrock },
        content: ContentMode::Text,
        nonce: None,
        max_event_bytes: 1 << 20,
        max_buffer_bytes: 4096,
    };
    common::assert_chunk_invariant(&opts, &stream, size);
});
