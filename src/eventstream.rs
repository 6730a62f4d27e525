//! The `application/vnd.amazon.eventstream` framing decoder (Amazon Bedrock `ConverseStream`,
//! `InvokeModelWithResponseStream`).
//!
//! Advice for hackers: a message is
//! `total_len:u32 | headers_len:u32 | prelude_crc:u32 | headers | payload | message_crc:u32`,
//! all big-endian, both CRCs CRC-32 (IEEE), the prelude's over the first 8 bytes and the
//! message's over everything before it. One machine with two states: `Prelude` collects the
//! 12 prelude bytes and checks them, `Body` collects the rest of the message. Invariants:
//! - Chunk-invariant: a message is decoded only once all of it is there, from the chunk
//!   itself when it holds the whole message, else from `held`, so what comes out does not
//!   depend on where the bytes were cut.
//! - Linear: every byte is copied at most once (into `held`) and checked by the CRC once.
//! - Bounded: `held` never passes `max_message_bytes` (checked against the prelude's
//!   `total_len` before anything of the body is kept).
//! - Never panics: every length is checked before it is used. A bad CRC, a length that
//!   cannot be, a malformed header or a message cut by the end of the stream is an
//!   `eventstream_invalid` error at the byte offset of the message (of the stream), after
//!   which the decoder stays failed: past a broken frame there is no telling where the next
//!   begins.

use crate::budget::try_extend as grow;
use crate::{Error, ErrorKind, Result};

/// The smallest message: the prelude and the message CRC.
const MIN_MESSAGE: usize = 16;
/// The framing's own limits: a payload of at most 16 MiB and headers of at most 128 KiB. A
/// prelude that gives more describes no valid message.
pub(crate) const MAX_PAYLOAD: usize = 16 << 20;
pub(crate) const MAX_HEADERS: usize = 128 << 10;
const PRELUDE: usize = 12;

/// Options of [`EventStreamDecoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventStreamDecoderOptions {
    /// The largest message accepted, prelude and CRC included (default 16 MiB); a larger
    /// `total_len` that the framing allows is `buffer_limit_exceeded`. Lengths the framing
    /// does not allow (a payload over 16 MiB, headers over 128 KiB) are `eventstream_invalid`
    /// whatever this is.
    pub max_message_bytes: usize,
}

impl Default for EventStreamDecoderOptions {
    fn default() -> Self {
        EventStreamDecoderOptions { max_message_bytes: 16 << 20 }
    }
}

/// One decoded message: the headers the readers use, and the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventStreamMessage<'a> {
    /// `:message-type`: `event`, `exception` or `error`.
    pub message_type: &'a str,
    /// `:event-type` (events), e.g. `contentBlockDelta`.
    pub event_type: &'a str,
    /// `:exception-type` (exceptions), e.g. `throttlingException`.
    pub exception_type: &'a str,
    /// `:error-code` (errors).
    pub error_code: &'a str,
    /// `:error-message` (errors).
    pub error_message: &'a str,
    /// `:content-type`, e.g. `application/json`.
    pub content_type: &'a str,
    /// The payload bytes.
    pub payload: &'a [u8],
}

/// Where decoded messages go.
pub trait EventStreamSink {
    /// One complete, checked message.
    fn message(&mut self, message: &EventStreamMessage<'_>);
}

impl EventStreamSink for Vec<(String, String, Vec<u8>)> {
    /// Collects `(message_type, event_type or exception_type or error_code, payload)`.
    fn message(&mut self, m: &EventStreamMessage<'_>) {
        let kind = [m.event_type, m.exception_type, m.error_code].into_iter().find(|s| !s.is_empty()).unwrap_or("");
        self.push((m.message_type.to_string(), kind.to_string(), m.payload.to_vec()));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Collecting the 12 prelude bytes of the next message.
    Prelude,
    /// The prelude was checked; collecting the rest of a `total`-byte message.
    Body {
        total: usize,
    },
    Failed,
}

/// Decodes the event-stream framing (see the module docs).
#[derive(Debug)]
pub struct EventStreamDecoder {
    state: State,
    /// The bytes of the message being collected (prelude included).
    held: Vec<u8>,
    /// Stream offset of the first byte of the message being collected.
    start: u64,
    max: usize,
    failure: Option<Error>,
}

impl EventStreamDecoder {
    /// A decoder.
    pub fn new(options: EventStreamDecoderOptions) -> Self {
        EventStreamDecoder {
            state: State::Prelude,
            held: Vec::new(),
            start: 0,
            max: options.max_message_bytes.max(MIN_MESSAGE),
            failure: None,
        }
    }

    /// Bytes held for the message being collected.
    pub fn buffered(&self) -> usize {
        self.held.len()
    }

    /// Decodes a chunk, handing every message it completes to `sink`.
    ///
    /// # Errors
    /// `eventstream_invalid` (bad CRC, impossible lengths, malformed headers) and
    /// `buffer_limit_exceeded` (a message over `max_message_bytes`), at the message's stream
    /// offset; `memory_limit_exceeded` when its bytes cannot be held. The decoder then stays
    /// failed, and later calls repeat the error.
    pub fn feed(&mut self, chunk: &[u8], sink: &mut dyn EventStreamSink) -> Result<()> {
        if self.state == State::Failed {
            return Err(self.failed());
        }
        let r = self.run(chunk, sink);
        if let Err(e) = &r {
            self.state = State::Failed;
            self.held = Vec::new();
            self.failure = Some(e.clone());
        }
        r
    }

    fn run(&mut self, mut chunk: &[u8], sink: &mut dyn EventStreamSink) -> Result<()> {
        while !chunk.is_empty() {
            match self.state {
                State::Prelude if self.held.is_empty() && chunk.len() >= PRELUDE => {
                    let total = check_prelude(&chunk[..PRELUDE], self.start, self.max)?;
                    if chunk.len() >= total {
                        // The whole message is in the chunk: decoded from there, not copied.
                        decode(&chunk[..total], self.start, sink)?;
                        self.start += total as u64;
                        chunk = &chunk[total..];
                    } else {
                        grow(&mut self.held, &chunk[..PRELUDE])?;
                        chunk = &chunk[PRELUDE..];
                        self.state = State::Body { total };
                    }
                }
                State::Prelude => {
                    let take = (PRELUDE - self.held.len()).min(chunk.len());
                    grow(&mut self.held, &chunk[..take])?;
                    chunk = &chunk[take..];
                    if self.held.len() == PRELUDE {
                        let total = check_prelude(&self.held, self.start, self.max)?;
                        self.state = State::Body { total };
                    }
                }
                State::Body { total } => {
                    let take = (total - self.held.len()).min(chunk.len());
                    grow(&mut self.held, &chunk[..take])?;
                    chunk = &chunk[take..];
                    if self.held.len() == total {
                        decode(&self.held, self.start, sink)?;
                        self.start += total as u64;
                        self.held.clear();
                        self.state = State::Prelude;
                    }
                }
                State::Failed => return Err(self.failed()),
            }
        }
        Ok(())
    }

    /// Ends the stream.
    ///
    /// # Errors
    /// `eventstream_invalid` when the stream ended inside a message (a truncated frame), at
    /// that message's offset; as [`feed`](Self::feed) after a failure.
    pub fn finish(&mut self) -> Result<()> {
        if self.state == State::Failed {
            return Err(self.failed());
        }
        if self.held.is_empty() {
            return Ok(());
        }
        let expected = match self.state {
            State::Body { total } => total,
            _ => PRELUDE,
        };
        let e = invalid(format!("the stream ended inside a message ({} of {expected} bytes)", self.held.len()), self.start);
        self.state = State::Failed;
        self.held = Vec::new();
        self.failure = Some(e.clone());
        Err(e)
    }

    fn failed(&self) -> Error {
        self.failure.clone().unwrap_or_else(|| Error::new(ErrorKind::InvalidState, "the decoder failed earlier"))
    }
}

fn invalid(message: String, offset: u64) -> Error {
    Error::new(ErrorKind::EventStreamInvalid, message).at(offset)
}

fn be32(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_be_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// Checks a 12-byte prelude; returns the message's total length.
fn check_prelude(p: &[u8], start: u64, max: usize) -> Result<usize> {
    let total = be32(p, 0) as usize;
    let headers = be32(p, 4) as usize;
    if crc32(&p[..8]) != be32(p, 8) {
        return Err(invalid("prelude CRC mismatch".to_string(), start));
    }
    if total < MIN_MESSAGE
        || headers > total - MIN_MESSAGE
        || headers > MAX_HEADERS
        || total - MIN_MESSAGE - headers > MAX_PAYLOAD
    {
        return Err(invalid(format!("impossible lengths: total {total}, headers {headers}"), start));
    }
    if total > max {
        return Err(Error::new(
            ErrorKind::BufferLimitExceeded,
            format!("an event-stream message of {total} bytes (more than {max})"),
        )
        .at(start));
    }
    Ok(total)
}

/// Checks and decodes one whole message (its prelude already checked).
fn decode(m: &[u8], start: u64, sink: &mut dyn EventStreamSink) -> Result<()> {
    let total = m.len();
    if crc32(&m[..total - 4]) != be32(m, total - 4) {
        return Err(invalid("message CRC mismatch".to_string(), start + (total - 4) as u64));
    }
    let headers_len = be32(m, 4) as usize;
    let headers = &m[PRELUDE..PRELUDE + headers_len];
    let mut msg = EventStreamMessage { payload: &m[PRELUDE + headers_len..total - 4], ..Default::default() };
    read_headers(headers, &mut msg).map_err(|at| invalid("malformed header".to_string(), start + (PRELUDE + at) as u64))?;
    sink.message(&msg);
    Ok(())
}

/// Reads the headers the readers use; skips the others by their type's length. `Err(at)`:
/// a header is cut or has an unknown type, at offset `at` of the headers.
fn read_headers<'a>(mut h: &'a [u8], msg: &mut EventStreamMessage<'a>) -> std::result::Result<(), usize> {
    let len = h.len();
    while !h.is_empty() {
        let at = len - h.len();
        let name_len = h[0] as usize;
        let name = h.get(1..1 + name_len).ok_or(at)?;
        let kind = *h.get(1 + name_len).ok_or(at)?;
        let v = 2 + name_len;
        let (value, next): (Option<&'a [u8]>, usize) = match kind {
            0 | 1 => (None, v),
            2 => (None, v + 1),
            3 => (None, v + 2),
            4 => (None, v + 4),
            5 | 8 => (None, v + 8),
            9 => (None, v + 16),
            6 | 7 => {
                let n = h.get(v..v + 2).map(|b| u16::from_be_bytes([b[0], b[1]]) as usize).ok_or(at)?;
                (h.get(v + 2..v + 2 + n), v + 2 + n)
            }
            _ => return Err(at),
        };
        if next > h.len() {
            return Err(at);
        }
        if kind == 7 {
            let text = value.and_then(|b| std::str::from_utf8(b).ok()).ok_or(at)?;
            match name {
                b":message-type" => msg.message_type = text,
                b":event-type" => msg.event_type = text,
                b":exception-type" => msg.exception_type = text,
                b":error-code" => msg.error_code = text,
                b":error-message" => msg.error_message = text,
                b":content-type" => msg.content_type = text,
                _ => {}
            }
        }
        h = &h[next..];
    }
    Ok(())
}

/// CRC-32 (IEEE 802.3, reflected, as zlib), table-driven.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c = CRC_TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// Writes one message (for tests, fixtures and fuzzing): string headers, then the payload.
pub fn encode_eventstream_message(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = (PRELUDE + h.len() + payload.len() + 4) as u32;
    let mut m = Vec::with_capacity(total as usize);
    m.extend_from_slice(&total.to_be_bytes());
    m.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let pc = crc32(&m);
    m.extend_from_slice(&pc.to_be_bytes());
    m.extend_from_slice(&h);
    m.extend_from_slice(payload);
    let mc = crc32(&m);
    m.extend_from_slice(&mc.to_be_bytes());
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn a_message_round_trips_at_every_split() {
        let mut stream = encode_eventstream_message(&[(":message-type", "event"), (":event-type", "a")], b"{\"x\":1}");
        stream.extend(encode_eventstream_message(&[(":message-type", "exception"), (":exception-type", "boom")], b"{}"));
        for cut in 0..=stream.len() {
            let mut d = EventStreamDecoder::new(EventStreamDecoderOptions::default());
            let mut out: Vec<(String, String, Vec<u8>)> = Vec::new();
            d.feed(&stream[..cut], &mut out).unwrap();
            d.feed(&stream[cut..], &mut out).unwrap();
            d.finish().unwrap();
            assert_eq!(out.len(), 2, "cut {cut}");
            assert_eq!(out[0], ("event".into(), "a".into(), b"{\"x\":1}".to_vec()));
            assert_eq!(out[1], ("exception".into(), "boom".into(), b"{}".to_vec()));
        }
    }
}
