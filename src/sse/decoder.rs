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
//! - Text may also arrive as UTF-16 code units ([`SseDecoder::feed_utf16le`], the wasm fast
//!   path for JS strings). The line loop then reads the units' *skeleton* (one byte per
//!   unit, ASCII as itself: lines and fields are ASCII-delimited, so they are found exactly
//!   as in the UTF-8), copies field values out as UTF-8 only when it keeps them, and counts
//!   offsets and caps in UTF-8 bytes, so every outcome is the one the UTF-8 would give. What
//!   the decoder keeps between chunks is always UTF-8, so bytes and text may be mixed.

use crate::{Error, ErrorKind, Result};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(all(target_arch = "wasm32", feature = "decoder"), derive(tsify::Tsify))]
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
        let event = if event.is_empty() { std::borrow::Cow::Borrowed("message") } else { String::from_utf8_lossy(event) };
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
        SseDecoderOptions {
            flush_on_finish: false,
            max_line_bytes: crate::budget::SSE_MAX_LINE_BYTES,
            max_event_bytes: crate::budget::SSE_MAX_EVENT_BYTES,
        }
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

/// What `field` found: nothing to keep, a `data` value (where it starts) to append, or a
/// `data` line that would take the event over its cap.
enum Field {
    Done,
    Data { from: usize },
    TooLarge,
}

/// What the line loop reads: a chunk of bytes, or the skeleton of UTF-16 text.
pub(crate) trait LineInput {
    /// Whether events may leave as ranges of this input (see [`Emit::range`]).
    fn ranges(&self) -> bool;
    /// The bytes lines and fields are found in: the chunk, or one byte per UTF-16 unit.
    fn scan(&self) -> &[u8];
    /// The UTF-8 length of `scan()[a..b]`'s text.
    fn len8(&self, a: usize, b: usize) -> usize;
    /// An upper bound of `len8(a, b)` that takes no pass over the text.
    fn bound8(&self, a: usize, b: usize) -> usize;
    /// Appends the UTF-8 of `scan()[a..b]`'s text to `out`.
    fn copy(&self, a: usize, b: usize, out: &mut Vec<u8>);
    /// [`copy`](Self::copy) into a buffer the decoder keeps, with room for `extra` bytes
    /// more: reserved first, so running out of memory is `memory_limit_exceeded`.
    #[inline]
    fn keep(&self, a: usize, b: usize, extra: usize, out: &mut Vec<u8>) -> Result<()> {
        crate::budget::try_room(out, self.len8(a, b) + extra)?;
        self.copy(a, b, out);
        Ok(())
    }
}

/// A chunk of bytes; with `ranges`, the UTF-8 of an all-ASCII JS string, whose byte offsets
/// are its UTF-16 offsets, so events may leave as ranges of it (in builds with feature `sse`,
/// whose binding reads them; without it the range code is left out).
#[derive(Clone, Copy)]
pub(crate) struct Bytes<'a> {
    bytes: &'a [u8],
    ranges: bool,
}

impl<'a> Bytes<'a> {
    /// Bytes, any.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Bytes { bytes, ranges: false }
    }

    /// The UTF-8 of an all-ASCII JS string (not checked: were it not ASCII, the ranges would
    /// be wrong, which is safe).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn ascii(bytes: &'a [u8]) -> Self {
        Bytes { bytes, ranges: true }
    }
}

impl LineInput for Bytes<'_> {
    #[inline]
    fn ranges(&self) -> bool {
        cfg!(feature = "sse") && self.ranges
    }
    #[inline]
    fn scan(&self) -> &[u8] {
        self.bytes
    }
    #[inline]
    fn len8(&self, a: usize, b: usize) -> usize {
        b - a
    }
    #[inline]
    fn bound8(&self, a: usize, b: usize) -> usize {
        b - a
    }
    #[inline]
    fn copy(&self, a: usize, b: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.bytes[a..b]);
    }
}

/// A chunk of text as UTF-16LE code units (no lone surrogate) and its skeleton
/// (`text::utf16_skeleton`): offsets are unit offsets.
pub(crate) struct Utf16Text<'a> {
    pub(crate) units_le: &'a [u8],
    pub(crate) skeleton: &'a [u8],
    /// The UTF-8 length of the whole text (what `utf16_skeleton` returned).
    pub(crate) total8: u64,
}

impl Utf16Text<'_> {
    fn unit(&self, k: usize) -> u16 {
        u16::from_le_bytes([self.units_le[2 * k], self.units_le[2 * k + 1]])
    }
}

impl LineInput for Utf16Text<'_> {
    fn ranges(&self) -> bool {
        true
    }
    fn scan(&self) -> &[u8] {
        self.skeleton
    }
    /// Counted over `[a, b)` or, when that is most of the chunk, over what lies outside it:
    /// the line loop asks for the offsets of the chunk's end and of its last line's start on
    /// every chunk, and two passes over the chunk were a measurable part of a string feed
    /// (bench/README.md, "Measurements behind design choices").
    fn len8(&self, a: usize, b: usize) -> usize {
        let s = self.skeleton;
        let n = if 2 * (b - a) > s.len() {
            self.total8 - crate::text::skeleton_len8(&s[..a]) - crate::text::skeleton_len8(&s[b..])
        } else {
            crate::text::skeleton_len8(&s[a..b])
        };
        n as usize
    }
    /// A unit takes at most three UTF-8 bytes (a surrogate pair four for two units).
    fn bound8(&self, a: usize, b: usize) -> usize {
        3 * (b - a)
    }
    fn copy(&self, a: usize, b: usize, out: &mut Vec<u8>) {
        // Runs of ASCII are the skeleton's own bytes; the units between them are decoded.
        let mut k = a;
        while k < b {
            let ascii = self.skeleton[k..b].iter().position(|&c| c >= 0x80).map_or(b, |n| k + n);
            out.extend_from_slice(&self.skeleton[k..ascii]);
            let other = self.skeleton[ascii..b].iter().position(|&c| c < 0x80).map_or(b, |n| ascii + n);
            let units = (ascii..other).map(|j| self.unit(j));
            for c in char::decode_utf16(units) {
                out.extend_from_slice(c.unwrap_or(char::REPLACEMENT_CHARACTER).encode_utf8(&mut [0; 4]).as_bytes());
            }
            k = other;
        }
    }
}

/// Where the line loop's events go. [`Plain`] hands every event to an [`SseSink`] as bytes;
/// the wasm binding takes events whose data is a range of the text fed as that range.
pub(crate) trait Emit<I: ?Sized> {
    /// An event with its data as UTF-8 bytes (`event` empty when unnamed).
    fn bytes(&mut self, event: &[u8], data: &[u8], id: &str);
    /// An event whose data is the text of `[from, to)` of `input` (the chunk being fed).
    fn range(&mut self, event: &[u8], from: usize, to: usize, id: &str, input: &I);
}

/// Every event as bytes to an [`SseSink`].
struct Plain<'s, S: ?Sized>(&'s mut S);

impl<S: SseSink + ?Sized, I: LineInput> Emit<I> for Plain<'_, S> {
    #[inline]
    fn bytes(&mut self, event: &[u8], data: &[u8], id: &str) {
        self.0.event_bytes(event, data, id);
    }
    fn range(&mut self, event: &[u8], from: usize, to: usize, id: &str, input: &I) {
        let mut data = Vec::new();
        input.copy(from, to, &mut data);
        self.0.event_bytes(event, &data, id);
    }
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
    /// Units mode: the event's data so far is exactly one line of the current chunk, not
    /// copied into `data` (`[from, to)` of the chunk): see `data_line`.
    /// Never outlives the chunk (the feed copies it out at the end).
    data_range: Option<(usize, usize)>,
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
            data_range: None,
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

    /// The id the frame being read gave (`None`: none yet), which takes effect at its blank
    /// line. After a frame over a cap this is its id from before the line that broke the cap:
    /// a reader that skips the frame through its blank line applies it then.
    pub fn pending_id(&self) -> Option<String> {
        self.id_dirty.then(|| String::from_utf8_lossy(&self.id_buffer).into_owned())
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
        self.feed_with(Bytes::new(chunk), &mut Plain(out))
    }

    /// [`feed`](Self::feed) into any [`Emit`]; an event of an ASCII string's bytes
    /// ([`Bytes::ascii`]) whose data is one line of the chunk leaves as a range of it.
    pub(crate) fn feed_with<E: for<'b> Emit<Bytes<'b>>>(&mut self, chunk: Bytes<'_>, out: &mut E) -> Result<()> {
        let mut from = 0;
        loop {
            match self.state {
                State::Failed => return Err(self.failed()),
                State::StartOfStream(held) => {
                    let Some(&b) = chunk.bytes.get(from) else { return Ok(()) };
                    if b == BOM[held as usize] {
                        self.pos += 1;
                        from += 1;
                        self.state = if held == 2 { State::Lines } else { State::StartOfStream(held + 1) };
                    } else {
                        // Not a BOM: the held bytes are ordinary (invalid) content.
                        self.state = State::Lines;
                        self.pos -= u64::from(held);
                        self.lines(&Bytes::new(&BOM[..held as usize]), 0, out)?;
                    }
                }
                State::AfterCr => {
                    let Some(&b) = chunk.bytes.get(from) else { return Ok(()) };
                    self.state = State::Lines;
                    if b == b'\n' {
                        self.pos += 1;
                        from += 1;
                    }
                }
                State::Lines => {
                    let r = self.lines(&chunk, from, out);
                    if !chunk.ranges() {
                        return r;
                    }
                    let kept = self.materialize(&chunk).map_err(|e| self.fail_once(e));
                    return r.and(kept);
                }
            }
        }
    }

    /// Decodes a chunk of text given as UTF-16 code units in little-endian byte order (as
    /// JS's `Buffer#write(s, 'utf16le')` writes a string), appending every event it completes
    /// to `out`: the same events, offsets and errors as feeding the text's UTF-8.
    ///
    /// Returns `Ok(false)`, having read nothing, when the chunk holds a lone surrogate (or an
    /// odd byte), or when the stream began with part of a byte order mark fed as bytes: feed
    /// the text's UTF-8 instead (a lone surrogate is U+FFFD there).
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_utf16le<S: SseSink + ?Sized>(&mut self, units_le: &[u8], out: &mut S) -> Result<bool> {
        self.feed_utf16le_with(units_le, &mut Vec::new(), &mut Plain(out)).map(|r| r.is_some())
    }

    /// [`feed_utf16le`](Self::feed_utf16le) with a scratch buffer for the skeleton and any
    /// [`Emit`]; `Some` of the text's UTF-8 length when it was read.
    pub(crate) fn feed_utf16le_with<E: for<'a> Emit<Utf16Text<'a>>>(
        &mut self,
        units_le: &[u8],
        skeleton: &mut Vec<u8>,
        out: &mut E,
    ) -> Result<Option<u64>> {
        match self.state {
            State::Failed => return Err(self.failed()),
            State::StartOfStream(held) if held > 0 => return Ok(None),
            _ => {}
        }
        let Some(total8) = crate::text::utf16_skeleton(units_le, skeleton) else {
            return Ok(None);
        };
        let text = Utf16Text { units_le, skeleton, total8 };
        if text.skeleton.is_empty() {
            return Ok(Some(0));
        }
        let mut from = 0;
        match self.state {
            State::StartOfStream(_) => {
                if text.unit(0) == 0xFEFF {
                    self.pos += 3;
                    from = 1;
                }
                self.state = State::Lines;
            }
            State::AfterCr => {
                if text.skeleton[0] == b'\n' {
                    self.pos += 1;
                    from = 1;
                }
                self.state = State::Lines;
            }
            _ => {}
        }
        let r = self.lines(&text, from, out);
        let kept = self.materialize(&text).map_err(|e| self.fail_once(e));
        r.and(kept).map(|()| Some(total8))
    }

    /// Ends the stream. An unterminated last event is discarded (as the standard requires),
    /// or dispatched when `flush_on_finish` is set. The decoder is then ready for a new stream.
    ///
    /// # Errors
    /// The error of an earlier failed `feed`, or a cap hit by the flushed line.
    pub fn finish<S: SseSink + ?Sized>(&mut self, out: &mut S) -> Result<()> {
        self.finish_with(&mut Plain(out))
    }

    /// [`finish`](Self::finish) into any [`Emit`].
    pub(crate) fn finish_with<E: for<'b> Emit<Bytes<'b>>>(&mut self, out: &mut E) -> Result<()> {
        if let State::StartOfStream(held) = self.state {
            if held > 0 {
                self.state = State::Lines;
                self.pos -= u64::from(held);
                self.lines(&Bytes::new(&BOM[..held as usize]), 0, out)?;
            }
        }
        if self.state == State::Failed {
            return Err(self.failed());
        }
        if self.opts.flush_on_finish {
            let line = std::mem::take(&mut self.line);
            let mut r = if line.is_empty() { Ok(Field::Done) } else { self.field(&Bytes::new(&line), 0, line.len()) };
            if let Ok(Field::Data { from }) = r {
                r = self.data_line(&Bytes::new(&line), from, line.len()).map(|()| Field::Done).map_err(|e| self.fail_once(e));
            }
            self.line = line;
            if let Field::TooLarge = r? {
                return Err(self.event_too_large());
            }
            self.dispatch(&Bytes::new(&[]), out);
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
        self.failure.clone().unwrap_or_else(|| Error::new(ErrorKind::InvalidState, "decoder failed earlier"))
    }

    /// [`fail`](Self::fail) unless the decoder has already failed (with `err`): for errors of
    /// buffers that could not grow, which come back from below without failing it.
    pub(crate) fn fail_once(&mut self, err: Error) -> Error {
        if self.state == State::Failed {
            return err;
        }
        self.fail(err)
    }

    fn fail(&mut self, err: Error) -> Error {
        self.state = State::Failed;
        self.failure = Some(err.clone());
        err
    }

    fn line_too_long(&mut self) -> Error {
        let limit = self.opts.max_line_bytes;
        let at = self.line_start + limit as u64;
        self.fail(Error::new(ErrorKind::SseEventTooLarge, format!("SSE line longer than {limit} bytes")).at(at))
    }

    /// The line loop from `from` of `input`, in state `Lines`.
    ///
    /// Stream offsets are UTF-8 offsets. For text given as UTF-16 the UTF-8 length of a range
    /// takes a pass over it, so offsets are worked out only when needed: once per chunk (for
    /// the next one), for a line carried over, and for an error. The caps are checked against
    /// an upper bound first (`bound8`) and exactly only when that bound passes them.
    #[inline]
    fn lines<I: LineInput, E: Emit<I>>(&mut self, input: &I, from: usize, out: &mut E) -> Result<()> {
        self.read_lines(input, from, out).map_err(|e| self.fail_once(e))
    }

    fn read_lines<I: LineInput, E: Emit<I>>(&mut self, input: &I, from: usize, out: &mut E) -> Result<()> {
        let chunk = input.scan();
        let base = self.pos;
        // The stream offset of `chunk[k]`.
        let at = |k: usize| base + input.len8(from, k) as u64;
        let max_line = self.opts.max_line_bytes;
        let over =
            |carried: usize, a: usize, b: usize| carried + input.bound8(a, b) > max_line && carried + input.len8(a, b) > max_line;
        let mut i = from;
        while i < chunk.len() {
            let rest = &chunk[i..];
            let Some(p) = memchr::memchr2(b'\n', b'\r', rest) else {
                if self.line.is_empty() {
                    self.line_start = at(i);
                }
                if over(self.line.len(), i, chunk.len()) {
                    return Err(self.line_too_long());
                }
                input.keep(i, chunk.len(), 0, &mut self.line)?;
                self.pos = at(chunk.len());
                return Ok(());
            };
            if self.line.is_empty() {
                if over(0, i, i + p) {
                    self.line_start = at(i);
                    return Err(self.line_too_long());
                }
                if p == 0 {
                    self.dispatch(input, out);
                } else {
                    match self.field(input, i, i + p)? {
                        Field::Done => {}
                        Field::Data { from } => self.data_line(input, from, i + p)?,
                        Field::TooLarge => {
                            self.line_start = at(i);
                            return Err(self.event_too_large());
                        }
                    }
                }
            } else {
                // The end of a line carried from earlier chunks (`line_start` is set): the
                // whole line as UTF-8.
                if over(self.line.len(), i, i + p) {
                    return Err(self.line_too_long());
                }
                self.materialize(input)?;
                let mut line = std::mem::take(&mut self.line);
                input.keep(i, i + p, 0, &mut line)?;
                let mut r = self.field(&Bytes::new(&line), 0, line.len());
                if let Ok(Field::Data { from }) = r {
                    r = self.data_line(&Bytes::new(&line), from, line.len()).map(|()| Field::Done);
                }
                line.clear();
                self.line = line;
                if let Field::TooLarge = r? {
                    return Err(self.event_too_large());
                }
            }
            let mut used = p + 1;
            if rest[p] == b'\r' {
                match rest.get(p + 1) {
                    Some(b'\n') => used += 1,
                    Some(_) => {}
                    None => self.state = State::AfterCr,
                }
            }
            i += used;
        }
        self.pos = at(chunk.len());
        Ok(())
    }

    /// The event cap was hit by the line starting at `line_start`.
    fn event_too_large(&mut self) -> Error {
        let limit = self.opts.max_event_bytes;
        let err =
            Error::new(ErrorKind::SseEventTooLarge, format!("SSE event data longer than {limit} bytes")).at(self.line_start);
        self.fail(err)
    }

    /// Reads the non-empty line `[a, b)` of `input`. A `data` line is checked against the cap
    /// and handed back (where its value starts) for [`data_line`](Self::data_line).
    fn field<J: LineInput>(&mut self, input: &J, a: usize, b: usize) -> Result<Field> {
        let scan = input.scan();
        let line = &scan[a..b];
        if line[0] == b':' {
            return Ok(Field::Done);
        }
        let (name, from) = match memchr::memchr(b':', line) {
            Some(c) => (&line[..c], a + c + 1 + usize::from(line.get(c + 1) == Some(&b' '))),
            None => (line, b),
        };
        let value = &scan[from..b];
        match name {
            b"data" => {
                // A pending range is of this same input: a carried line (`Bytes`) is read
                // only after `materialize`.
                // The event's data if this line is its last: what is kept (each earlier line
                // with the LF that joins it to the next) and this line's value. Its own LF is
                // kept too, but dropped at dispatch, so it does not count.
                let max = self.opts.max_event_bytes;
                let pending = self.data_range;
                let bound = self.data.len() + input.bound8(from, b) + pending.map_or(0, |(f, t)| input.bound8(f, t) + 1);
                if bound > max {
                    let exact = self.data.len() + input.len8(from, b) + pending.map_or(0, |(f, t)| input.len8(f, t) + 1);
                    if exact > max {
                        return Ok(Field::TooLarge);
                    }
                }
                return Ok(Field::Data { from });
            }
            b"event" => {
                self.event_type.clear();
                input.keep(from, b, 0, &mut self.event_type)?;
            }
            b"id" if !value.contains(&0) => {
                self.id_buffer.clear();
                input.keep(from, b, 0, &mut self.id_buffer)?;
                self.id_dirty = true;
            }
            // Digits are ASCII, so the skeleton of units has them as themselves.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |acc, &d| acc.saturating_mul(10).saturating_add(u64::from(d - b'0')));
                self.retry = Some(ms);
            }
            _ => {}
        }
        Ok(Field::Done)
    }

    /// Appends the value `[from, to)` of `input` (checked by `field`) and a line feed to the
    /// data buffer. In units mode the first data line of an event stays a range of the chunk
    /// (an event whose data is one line then leaves as a slice of the string fed).
    #[inline]
    fn data_line<J: LineInput>(&mut self, input: &J, from: usize, to: usize) -> Result<()> {
        if input.ranges() {
            if self.data.is_empty() && self.data_range.is_none() {
                self.data_range = Some((from, to));
                return Ok(());
            }
            self.materialize(input)?;
        }
        // Bytes are read only with no range pending (a carried line after `materialize`).
        debug_assert!(input.ranges() || self.data_range.is_none());
        input.keep(from, to, 1, &mut self.data)?;
        self.data.push(b'\n');
        Ok(())
    }

    /// Copies a pending data range of `input` (the current chunk) into the data buffer.
    fn materialize<I: LineInput>(&mut self, input: &I) -> Result<()> {
        if let Some((from, to)) = self.data_range.take() {
            input.keep(from, to, 1, &mut self.data)?;
            self.data.push(b'\n');
        }
        Ok(())
    }

    fn dispatch<I: LineInput, E: Emit<I>>(&mut self, input: &I, out: &mut E) {
        if std::mem::take(&mut self.id_dirty) {
            self.last_event_id = String::from_utf8_lossy(&self.id_buffer).into_owned();
        }
        if let Some((from, to)) = self.data_range.take() {
            out.range(&self.event_type, from, to, &self.last_event_id, input);
            self.event_type.clear();
            return;
        }
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        self.data.pop();
        // The buffers are reused: no allocation per event.
        out.bytes(&self.event_type, &self.data, &self.last_event_id);
        self.data.clear();
        self.event_type.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{Bytes, LineInput, Plain, SseDecoder, SseEvent, Utf16Text};

    /// ASCII text fed as text (events leave as ranges) gives the events and errors of its
    /// bytes, at every split, with small caps.
    #[cfg(feature = "sse")]
    #[test]
    fn ascii_text_feeds_as_its_bytes() {
        let texts = [
            "data: a\n\nevent: e\ndata: bc\r\ndata: d\r\n\r\nid: 7\rretry: 5\r\rdata:x\n\n: c\ndata\n\n",
            "data: 0123456789\n\n",
        ];
        for text in texts {
            for cap in [4, 8, 12, 1 << 20] {
                let opts = super::SseDecoderOptions { max_line_bytes: cap, max_event_bytes: cap, ..Default::default() };
                for p in 0..=text.len() {
                    let run = |as_text: bool| {
                        let mut d = SseDecoder::new(opts);
                        let mut out: Vec<SseEvent> = Vec::new();
                        let mut r = Ok(());
                        for piece in [&text.as_bytes()[..p], &text.as_bytes()[p..]] {
                            r = if as_text {
                                d.feed_with(Bytes::ascii(piece), &mut Plain(&mut out))
                            } else {
                                d.feed(piece, &mut out)
                            };
                            if r.is_err() {
                                break;
                            }
                        }
                        (out, r, d.last_event_id().to_string(), d.retry())
                    };
                    assert_eq!(run(true), run(false), "{text:?} cap {cap} split {p}");
                }
            }
        }
    }

    #[test]
    fn utf16_len8_of_any_range_is_its_utf8_length() {
        let mut x = 0x6b43_a9b5_u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let pool = ["a", "\n", "\u{e9}", "\u{4e2d}", "\u{1F600}", "data: ", "\u{7ff}", "\u{800}"];
        for _ in 0..300 {
            let text: String = (0..(next() % 40)).map(|_| pool[(next() as usize) % pool.len()]).collect();
            let units: Vec<u16> = text.encode_utf16().collect();
            let units_le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            let mut skeleton = Vec::new();
            let total8 = crate::text::utf16_skeleton(&units_le, &mut skeleton).unwrap();
            assert_eq!(total8, text.len() as u64);
            let t = Utf16Text { units_le: &units_le, skeleton: &skeleton, total8 };
            for a in 0..=units.len() {
                for b in a..=units.len() {
                    // A range that cuts a surrogate pair counts each half as the pair's half.
                    let want = crate::text::skeleton_len8(&skeleton[a..b]) as usize;
                    assert_eq!(t.len8(a, b), want, "{text:?} {a}..{b}");
                }
            }
        }
    }
}
