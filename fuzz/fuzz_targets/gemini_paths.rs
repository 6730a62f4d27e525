//! Gemini's streamed function-call arguments (`partialArgs`, assembled by `jsonPath`): never a
//! panic, memory only within the router's budget, and chunking never changes the events.
//!
//! Byte 0: bits 0-4 the piece size (1..=32), bit 5 a second call after the first, bit 6 the
//! call's whole `args` as well. The rest is split at 0xFF into entries; an entry's first byte
//! picks the value (string, number, bool, null) and whether the part continues, the rest is its
//! path (text as it is, so `$.a[99999]`, `$['k']`, deep and broken paths all come).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use streamroute::{ContentMode, Provider, StreamRouterOptions};

use streamroute_fuzz::router as common;

fn event(call: serde_json::Value, finish: bool) -> String {
    let mut candidate = json!({"content": {"role": "model", "parts": [{"functionCall": call}]}});
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    format!("data: {}\r\n\r\n", json!({"candidates": [candidate]}))
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let mut stream = event(json!({"name": "f", "willContinue": true}), false);
    for entry in rest.split(|&b| b == 0xFF) {
        let Some((&kind, path)) = entry.split_first() else { continue };
        let path = String::from_utf8_lossy(path);
        let mut e = json!({"jsonPath": path});
        match kind & 3 {
            0 => e["stringValue"] = json!("ab"),
            1 => e["numberValue"] = json!(kind >> 2),
            2 => e["boolValue"] = json!(kind & 4 != 0),
            _ => e["nullValue"] = json!(null),
        }
        let mut call = json!({"partialArgs": [e], "willContinue": kind & 0x80 == 0});
        if control & 0x40 != 0 && kind & 0x40 != 0 {
            call["args"] = json!({"whole": [1, {"x": "y"}]});
        }
        stream += &event(call, false);
    }
    if control & 0x20 != 0 {
        stream += &event(json!({"name": "g", "partialArgs": [{"jsonPath": "$.z[3]", "numberValue": 1}]}), false);
    }
    stream += &event(json!({}), true);
    let opts = StreamRouterOptions {
        provider: Provider::Gemini,
        content: ContentMode::Text,
        nonce: None,
        max_event_bytes: 1 << 20,
        // Small enough that padding and long values reach it.
        max_buffer_bytes: 16 << 10,
    };
    common::assert_chunk_invariant(&opts, stream.as_bytes(), size);
});
