//! Chunking invariance and integrity of `EventStreamDecoder` (the Bedrock binary framing).
//!
//! Byte 0 chooses the cut: bits 0-4 the piece size (1..=32), bit 5 varying sizes. Bit 7 set:
//! the rest is fed as it is. Bit 7 clear: the rest is split at 0xFF bytes into payloads, each
//! written as a well-formed message (`encode_eventstream_message`), and byte 1, when it is
//! below 0x80, names a byte of the stream to flip. The outcome of the pieces (messages and the
//! first error, with its offset) must equal that of the whole; an intact stream must give
//! back every payload, and a failed decoder must repeat its error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{encode_eventstream_message, EventStreamDecoder, EventStreamDecoderOptions};
use streamroute_fuzz::pieces;

type Outcome = (Vec<(String, String, Vec<u8>)>, Option<(String, Option<u64>)>);

fn run(pieces: &[&[u8]]) -> Outcome {
    let mut d = EventStreamDecoder::new(EventStreamDecoderOptions { max_message_bytes: 4096 });
    let mut out = Vec::new();
    let mut first = None;
    for p in pieces {
        if let Err(e) = d.feed(p, &mut out) {
            let again = d.feed(b"x", &mut out).expect_err("a failed decoder stays failed");
            assert_eq!(again, e);
            first.get_or_insert((e.code().to_string(), e.offset()));
            break;
        }
    }
    if first.is_none() {
        if let Err(e) = d.finish() {
            first = Some((e.code().to_string(), e.offset()));
        }
    }
    (out, first)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let stream: Vec<u8>;
    let mut payloads: Option<Vec<&[u8]>> = None;
    if mode & 0x80 != 0 {
        stream = rest.to_vec();
    } else {
        let (flip, body) = match rest.split_first() {
            Some((&f, b)) => (f, b),
            None => return,
        };
        let parts: Vec<&[u8]> = body.split(|&b| b == 0xFF).collect();
        let mut s = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let kind = ["contentBlockDelta", "messageStop", "metadata"][i % 3];
            s.extend(encode_eventstream_message(&[(":message-type", "event"), (":event-type", kind)], p));
        }
        if (flip as usize) < s.len() && flip < 0x80 {
            s[flip as usize] ^= 0x20;
        } else {
            payloads = Some(parts);
        }
        stream = s;
    }
    let size = usize::from(mode & 0x1F) + 1;
    let vary = mode & 0x20 != 0;
    let pieces = pieces(&stream, size, vary);
    let whole = run(&[&stream]);
    assert_eq!(run(&pieces), whole);
    if let Some(parts) = payloads {
        assert_eq!(whole.1, None, "an intact stream decodes");
        let got: Vec<&[u8]> = whole.0.iter().map(|m| m.2.as_slice()).collect();
        assert_eq!(got, parts);
    }
});
