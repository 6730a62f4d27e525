//! The `text/event-stream` decoder.
//!
//! Advice for hackers: this machine follows the WHATWG HTML "Interpreting an event stream"
//! section literally. Invariants:
//! - Input is bytes. Lines are found at the byte level (CR and LF never occur inside a
//!   multi-byte UTF-8 sequence), and each field value is decoded with U+FFFD replacement only
//!   once its line is complete, so a sequence split across chunks decodes exactly as if it
//!   had arrived whole.
//! - The only buffered input is the unterminated tail line (`line`, capped by
//!   `max_line_bytes`) plus the data of the event being built (`data`, capped by
//!   `max_event_bytes`). A cap that is hit is an `sse_event_too_large` error at a
//!   deterministic byte offset, so the outcome does not depend on chunking.
//! - A CR ends its line at once; an LF right after it, even in the next chunk, is skipped.
//! - Every byte is looked at a constant number of times: `memchr` finds line ends, and a
//!   complete line inside a chunk is processed straight from the chunk without copying.

use crate::{Error, ErrorKind, Result};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The event type; `"message"` when the stream did not name one.
    pub event: String,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The last event ID in force when this event was dispatched (`""` when none).
    pub id: String,
}

/// Where a decoder's events go. `Vec<SseEvent>` collects owned events; a binding can
/// implement it to pack events straight into its output without allocating per event.
pub trait SseSink {
    /// One dispatched event (`event` is `"message"` when unnamed; `id` the last event ID).
    fn event(&mut self, event: &str, data: &str, id: &str);

    /// The same event before UTF-8 decoding: `event` and `data` are the raw field bytes
    /// (`event` empty when unnamed). The default decodes them with U+FFFD replacement and
    /// calls [`event`](SseSink::event); a sink whose consumer decodes UTF-8 itself (with the
    /// same replacement rule, as `TextDecoder` does) can skip that pass.
    fn event_bytes(&mut self, event: &[u8], data: &[u8], id: &str) {
        let data = String::from_utf8_lossy(data);
        let event = if event.is_empty() {
            std::borrow::Cow::Borrowed("message")
        } else {
            String::from_utf8_lossy(event)
        };
        self.event(&event, &data, id);
    }
}

impl SseSink for Vec<SseEvent> {
    fn event(&mut self, event: &str, data: &str, id: &str) {
        self.push(SseEvent { event: event.to_string(), data: data.to_string(), id: id.to_string() });
    }
}

/// Options of [`SseDecoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseDecoderOptions {
    /// When true, `finish()` dispatches an unterminated last event instead of discarding it.
    pub flush_on_finish: bool,
    /// The longest line (without its terminator) that is accepted. Default 1 MiB.
    pub max_line_bytes: usize,
    /// The most data bytes one event may accumulate. Default 8 MiB.
    pub max_event_bytes: usize,
}

impl Default for SseDecoderOptions {
    fn default() -> Self {
        SseDecoderOptions { flush_on_finish: false, max_line_bytes: 1 << 20, max_event_bytes: 8 << 20 }
    }
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a stream: this many bytes of a UTF-8 BOM have been seen and held.
    StartOfStream(u8),
    /// Reading lines.
    Lines,
    /// The previous chunk ended in CR: an LF at the start of the next one belongs to it.
    AfterCr,
    /// A cap was hit; every further call fails with this error.
    Failed,
}

/// An incremental `text/event-stream` decoder.
///
/// Feed it chunks of bytes as they arrive; each call appends the events that became complete
/// to `out`. [`finish`](SseDecoder::finish) ends the stream; the decoder may then be fed a new
/// stream (as after a reconnection), keeping its last event ID and reconnection time.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    opts: SseDecoderOptions,
    state: State,
    failure: Option<Error>,
    /// Bytes consumed from the current stream (for error offsets).
    pos: u64,
    /// The unterminated line carried over from earlier chunks.
    line: Vec<u8>,
    /// Stream offset at which `line` starts.
    line_start: u64,
    data: Vec<u8>,
    event_type: Vec<u8>,
    id_buffer: Vec<u8>,
    id_dirty: bool,
    last_event_id: String,
    retry: Option<u64>,
}

impl Default for SseDecoder {
    fn default() -> Self {
        SseDecoder::new(SseDecoderOptions::default())
    }
}

impl SseDecoder {
    /// A decoder with the given options.
    pub fn new(opts: SseDecoderOptions) -> Self {
        SseDecoder {
            opts,
            state: State::StartOfStream(0),
            failure: None,
            pos: 0,
            line: Vec::new(),
            line_start: 0,
            data: Vec::new(),
            event_type: Vec::new(),
            id_buffer: Vec::new(),
            id_dirty: false,
            last_event_id: String::new(),
            retry: None,
        }
    }

    /// The last event ID string (set when a block ends, persisting across events until reset
    /// by an empty `id` field).
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The last valid reconnection time in milliseconds, if the stream sent one.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Decodes `chunk`, appending every event it completes to `out`.
    ///
    /// # Errors
    /// `sse_event_too_large` when a line or an event exceeds its cap. Events completed before
    /// that point are still appended to `out`. The decoder is then failed: every later call
    /// returns the same error.
    pub fn feed<S: SseSink + ?Sized>(&mut self, chunk: &[u8], out: &mut S) -> Result<()> {
        let mut chunk = chunk;
        loop {
            match self.state {
                State::Failed => return Err(self.failed()),
                State::StartOfStream(held) => {
                    let Some((&b, rest)) = chunk.split_first() else { return Ok(()) };
                    if b == BOM[held as usize] {
                        self.pos += 1;
                        chunk = rest;
                        self.state =
                            if held == 2 { State::Lines } else { State::StartOfStream(held + 1) };
                    } else {
                        // Not a BOM: the held bytes are ordinary (invalid) content.
                        self.state = State::Lines;
                        self.pos -= u64::from(held);
                        self.lines(&BOM[..held as usize], out)?;
                    }
                }
                State::AfterCr => {
                    let Some((&b, rest)) = chunk.split_first() else { return Ok(()) };
                    self.state = State::Lines;
                    if b == b'\n' {
                        self.pos += 1;
                        chunk = rest;
                    }
                }
                State::Lines => return self.lines(chunk, out),
            }
        }
    }

    /// Ends the stream. An unterminated last event is discarded (as the standard requires),
    /// or dispatched when `flush_on_finish` is set. The decoder is then ready for a new stream.
    ///
    /// # Errors
    /// The error of an earlier failed `feed`, or a cap hit by the flushed line.
    pub fn finish<S: SseSink + ?Sized>(&mut self, out: &mut S) -> Result<()> {
        if let State::StartOfStream(held) = self.state {
            if held > 0 {
                self.state = State::Lines;
                self.pos -= u64::from(held);
                self.lines(&BOM[..held as usize], out)?;
            }
        }
        if self.state == State::Failed {
            return Err(self.failed());
        }
        if self.opts.flush_on_finish {
            let line = std::mem::take(&mut self.line);
            if !line.is_empty() {
                self.process_line(&line, out)?;
            }
            self.line = line;
            self.dispatch(out);
        }
        // An `id` of a discarded (unterminated) block never takes effect.
        self.id_dirty = false;
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.pos = 0;
        self.state = State::StartOfStream(0);
        Ok(())
    }

    fn failed(&self) -> Error {
        self.failure
            .clone()
            .unwrap_or_else(|| Error::new(ErrorKind::InvalidState, "decoder failed earlier"))
    }

    fn fail(&mut self, err: Error) -> Error {
        self.state = State::Failed;
        self.failure = Some(err.clone());
        err
    }

    fn line_too_long(&mut self) -> Error {
        let limit = self.opts.max_line_bytes;
        let at = self.line_start + limit as u64;
        self.fail(
            Error::new(ErrorKind::SseEventTooLarge, format!("SSE line longer than {limit} bytes"))
                .at(at),
        )
    }

    /// The line loop: `chunk` starts in state `Lines`.
    fn lines<S: SseSink + ?Sized>(&mut self, chunk: &[u8], out: &mut S) -> Result<()> {
        let mut i = 0;
        while i < chunk.len() {
            if self.line.is_empty() {
                self.line_start = self.pos;
            }
            let rest = &chunk[i..];
            let Some(p) = memchr::memchr2(b'\n', b'\r', rest) else {
                if self.line.len() + rest.len() > self.opts.max_line_bytes {
                    return Err(self.line_too_long());
                }
                self.line.extend_from_slice(rest);
                self.pos += rest.len() as u64;
                return Ok(());
            };
            if self.line.len() + p > self.opts.max_line_bytes {
                return Err(self.line_too_long());
            }
            if self.line.is_empty() {
                self.process_line(&rest[..p], out)?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&rest[..p]);
                let r = self.process_line(&line, out);
                line.clear();
                self.line = line;
                r?;
            }
            let mut used = p + 1;
            if rest[p] == b'\r' {
                match rest.get(p + 1) {
                    Some(b'\n') => used += 1,
                    Some(_) => {}
                    None => self.state = State::AfterCr,
                }
            }
            self.pos += used as u64;
            i += used;
        }
        Ok(())
    }

    fn process_line<S: SseSink + ?Sized>(&mut self, line: &[u8], out: &mut S) -> Result<()> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(c) => {
                let v = &line[c + 1..];
                (&line[..c], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                if self.data.len() + value.len() + 1 > self.opts.max_event_bytes {
                    let limit = self.opts.max_event_bytes;
                    let err = Error::new(
                        ErrorKind::SseEventTooLarge,
                        format!("SSE event data longer than {limit} bytes"),
                    )
                    .at(self.line_start);
                    return Err(self.fail(err));
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.event_type.clear();
                self.event_type.extend_from_slice(value);
            }
            b"id" if !value.contains(&0) => {
                self.id_buffer.clear();
                self.id_buffer.extend_from_slice(value);
                self.id_dirty = true;
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |acc, &d| acc.saturating_mul(10).saturating_add(u64::from(d - b'0')));
                self.retry = Some(ms);
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch<S: SseSink + ?Sized>(&mut self, out: &mut S) {
        if self.id_dirty {
            self.id_dirty = false;
            self.last_event_id = String::from_utf8_lossy(&self.id_buffer).into_owned();
        }
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        self.data.pop();
        // The buffers are reused: no allocation per event.
        out.event_bytes(&self.event_type, &self.data, &self.last_event_id);
        self.data.clear();
        self.event_type.clear();
    }
}
