//! `SseEncoder` → `SseDecoder` round trip.
//!
//! The input is a list of messages separated by 0xFE; each message is up to four fields
//! separated by 0xFF (bytes never found in UTF-8): event, data, id, retry; a message of a
//! single field is data only. A field that is absent is `None`; fields are decoded as lossy UTF-8; retry is the field's first 8 bytes as
//! a little-endian u64. Whenever the encoder accepts a message, the decoder must read back
//! the same event, with CR and CRLF in data turned into LF and an unnamed event as
//! `"message"`. A rejected message must be one with CR/LF in event or id, or NUL in id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{SseDecoder, SseEncoder, SseEncoderOptions, SseEvent, SseMessage};

fn normalise(data: &str) -> String {
    data.replace("\r\n", "\n").replace('\r', "\n")
}

fuzz_target!(|input: &[u8]| {
    let auto_id = input.first().is_some_and(|b| b & 1 == 1);
    let mut enc = SseEncoder::new(SseEncoderOptions { auto_id, first_id: 0 });
    let mut wire = String::new();
    let mut expected: Vec<SseEvent> = Vec::new();
    let mut last_id = String::new();
    let mut retry = None;

    for raw in input.split(|&b| b == 0xFE) {
        let fields: Vec<String> = raw.split(|&b| b == 0xFF).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
        let event = fields.first().map(String::as_str).filter(|_| fields.len() > 1);
        let data = fields.get(1).or(fields.first()).map(String::as_str).unwrap_or("");
        let id = fields.get(2).map(String::as_str);
        let retry_ms = fields.get(3).map(|f| {
            let mut b = [0u8; 8];
            let n = f.len().min(8);
            b[..n].copy_from_slice(&f.as_bytes()[..n]);
            u64::from_le_bytes(b)
        });
        let msg = SseMessage { event, data, id, retry: retry_ms };

        let auto = (auto_id && id.is_none()).then(|| enc.next_id());
        match enc.encode_into(&msg, &mut wire) {
            Ok(()) => {
                if let Some(id) = id.map(str::to_owned).or(auto.map(|n| n.to_string())) {
                    last_id = id;
                }
                retry = retry_ms.or(retry);
                expected.push(SseEvent {
                    event: event.filter(|e| !e.is_empty()).unwrap_or("message").to_owned(),
                    data: normalise(data),
                    id: last_id.clone(),
                });
            }
            Err(e) => {
                assert_eq!(e.code(), "sse_invalid_field");
                let bad = |s: Option<&str>| s.is_some_and(|s| s.contains(['\r', '\n']));
                assert!(bad(event) || bad(id) || id.is_some_and(|s| s.contains('\0')), "rejected a valid message: {msg:?}");
            }
        }
    }

    let mut dec = SseDecoder::default();
    let mut events = Vec::new();
    // Feed in two pieces, cut in the middle, to cross at least one boundary.
    let bytes = wire.as_bytes();
    let (a, b) = bytes.split_at(bytes.len() / 2);
    dec.feed(a, &mut events).unwrap();
    dec.feed(b, &mut events).unwrap();
    dec.finish(&mut events).unwrap();
    assert_eq!(events, expected, "wire: {wire:?}");
    assert_eq!(dec.last_event_id(), last_id);
    assert_eq!(dec.retry(), retry);
});
