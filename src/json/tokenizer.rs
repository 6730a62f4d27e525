//! The incremental JSON tokenizer every JSON-reading machine shares.
//!
//! Advice for hackers: this is one byte-level state machine. Invariants:
//! - It keeps its state between chunks (container stack, string/escape/number state) and
//!   never looks at a byte twice: string content is reported in pieces straight from the
//!   input as it arrives (`Token::StringPart`), keys only once complete (`Token::Key`).
//! - The only bytes it buffers are a pending token: a key, a number or a literal (capped by
//!   `max_token_bytes`), an incomplete UTF-8 sequence (≤ 3 bytes) and a `\uXXXX` escape in
//!   progress (a few bytes of state). Nothing is reported that a later byte could change:
//!   numbers and literals are reported when complete, escapes when decodable, a high
//!   surrogate only together with its low half (a lone one becomes U+FFFD).
//! - Depth is capped (`max_depth`): deep input is an error, never a stack overflow (the
//!   machine does not recurse).
//! - In strict mode it accepts exactly RFC 8259 JSON. The tolerant mode (for model output)
//!   additionally accepts raw control characters in strings, unknown escapes (`\'` → `'`)
//!   and invalid UTF-8 (→ U+FFFD).

use crate::budget::{try_extend, try_push, try_push_str};
use crate::text::{InvalidUtf8, Utf8Carry};
use crate::{Error, ErrorKind, Result};

#[cfg(test)]
thread_local! {
    /// Bytes checked as UTF-8 by string-run windows (tests assert it grows linearly).
    pub(crate) static WINDOW_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One lexical event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
    /// A complete object key (decoded). The colon may not have arrived yet.
    Key(&'a str),
    /// A string value begins.
    StringStart,
    /// Decoded content of the current string value (never empty).
    StringPart(&'a str),
    /// The current string value is complete.
    StringEnd,
    /// A complete number, exactly as written.
    Number(&'a str),
    Bool(bool),
    Null,
}

/// Receives tokens. `depth` is the number of open containers around the token (a top-level
/// value has depth 0; `ObjectStart` reports the depth outside the new object and
/// `ObjectEnd` the same depth).
pub(crate) trait Sink {
    fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()>;

    /// String-value content as raw bytes, for a tokenizer with `raw_text` (tolerant only): the
    /// bytes are UTF-8 except for malformed sequences that no later byte can complete (each
    /// decodes to U+FFFD on its own, so decoding pieces one by one or joined gives the same
    /// text), and they were not validated. Only a sink that reads raw text turns `raw_text`
    /// on, and it implements this; the default is an `invalid_state` error (a decoding default
    /// would link the lossy decoder into every build through each sink's vtable).
    fn raw_part(&mut self, _bytes: &[u8], _depth: usize) -> Result<()> {
        Err(crate::Error::new(crate::ErrorKind::InvalidState, "this JSON sink does not read raw text"))
    }

    /// Asked right after a container's start token at `depth`: `true` when no token inside
    /// it matters to the sink. The tokenizer then reads the container as before (every byte
    /// checked, the same errors at the same offsets) but reports nothing until its end token,
    /// which is reported as usual; in tolerant mode its strings are skipped without decoding.
    fn skip_inside(&self, _depth: usize) -> bool {
        false
    }
}

/// What happens after a complete top-level value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterValue {
    /// Only whitespace may follow (a JSON document).
    End,
    /// Stop reading; the rest of the input is not looked at (`feed` reports where it stopped).
    Stop,
    /// Another value may follow, separated by whitespace (NDJSON, concatenated values).
    Another,
}

/// Options of [`Tokenizer`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokenizerOptions {
    pub strict: bool,
    pub max_depth: usize,
    pub max_token_bytes: usize,
    pub after_value: AfterValue,
    /// Tolerant mode only: string-value content goes to [`Sink::raw_part`] as bytes that were
    /// never validated as a whole (runs are copied as they are; only a sequence cut by the end
    /// of a run is decoded), instead of as checked `StringPart` text.
    pub raw_text: bool,
}

impl Default for TokenizerOptions {
    fn default() -> Self {
        TokenizerOptions { strict: true, max_depth: 512, max_token_bytes: 1 << 20, after_value: AfterValue::End, raw_text: false }
    }
}

/// Where a string's content goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Str {
    Key,
    Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a value (top level, after `:` or after `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    ValueOrArrayEnd,
    /// After `{`: a key or `}`.
    KeyOrObjectEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After a value inside a container: `,` or the closing bracket.
    CommaOrEnd,
    InString(Str),
    Escape(Str),
    /// `\u` escape: `n` hex digits read into `cp`; `high` is a pending high surrogate or 0.
    Unicode {
        s: Str,
        n: u8,
        cp: u16,
        high: u16,
    },
    /// After a high-surrogate escape: expecting `\` (`stage` 0) then `u` (`stage` 1).
    AfterHigh {
        s: Str,
        high: u16,
        stage: u8,
    },
    Number,
    Literal {
        which: u8,
        matched: u8,
    },
    /// A top-level value is complete.
    Done,
    /// `AfterValue::Stop` reached.
    Stopped,
    Failed,
}

const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// The tokenizer. Feed bytes; it calls the sink for every token.
#[derive(Debug, Clone)]
pub(crate) struct Tokenizer {
    opts: TokenizerOptions,
    state: State,
    /// Open containers: `true` for an object.
    stack: Vec<bool>,
    /// A pending key or number.
    scratch: Vec<u8>,
    /// Decoded string-value text not yet handed to the sink: flushed before `StringEnd` and
    /// at the end of every `feed`, so the sink sees one `StringPart` per string per call
    /// instead of one per run between escapes. Never longer than the chunk.
    text: String,
    /// What `text` is with `raw_text`: string-value content as unvalidated bytes (see
    /// [`Sink::raw_part`]).
    raw: Vec<u8>,
    utf8: Utf8Carry,
    /// Bytes consumed since the start.
    pos: u64,
    /// Offset of the opening quote of the key being read (where a too-long key is reported).
    key_start: u64,
    /// Stream offset of the first error, kept for `finish` after a failure.
    failure: Option<Error>,
    /// Tokens at this depth or deeper are not reported (see [`Sink::skip_inside`]);
    /// `usize::MAX` when everything is reported.
    quiet: usize,
}

enum Flow {
    Continue,
    Stop,
}

/// What a step of `Tokenizer::run` tells the byte loop.
enum Next {
    /// Go on at this index of the chunk.
    At(usize),
    /// Stop reading (`AfterValue::Stop`): `feed` consumed this many bytes.
    Return(usize),
}

/// The part of a chunk checked as UTF-8 for string runs. String runs (which start and end at
/// ASCII bytes, so at char boundaries) are copied out of a validated window of the chunk
/// without a second check. A window is checked as UTF-8 once, from the start of the first run
/// it has to hold: as far as that run, and at least `FIRST_WINDOW` bytes or as far again as
/// the run is into the chunk. The checking done is then proportional to the bytes actually
/// read: a value that stops early in a long chunk (`AfterValue::Stop`) never checks the
/// rest. The part before `valid_from` may complete a sequence carried from the last chunk; a
/// run outside any valid window goes through the UTF-8 carry.
struct Window<'c> {
    /// Where a window may begin: after the continuation bytes that open the chunk.
    valid_from: usize,
    /// The checked text and the chunk index it starts at.
    text: &'c str,
    at: usize,
}

impl<'c> Window<'c> {
    const FIRST_WINDOW: usize = 64;

    #[inline]
    fn new(chunk: &[u8]) -> Self {
        let valid_from = chunk.iter().take(3).take_while(|&&c| (c & 0xC0) == 0x80).count();
        Window { valid_from, text: "", at: 0 }
    }

    /// The run `chunk[i..i + len]` as checked text (`i >= valid_from`), checking a new window
    /// when the current one does not hold it; `None` when the run is not valid UTF-8 whole.
    #[inline(always)]
    fn text(&mut self, chunk: &'c [u8], i: usize, len: usize) -> Option<&'c str> {
        let inside = |w: &Self| i >= w.at && i + len <= w.at + w.text.len();
        if !inside(self) {
            let to = i + len.max(Self::FIRST_WINDOW.max(i)).min(chunk.len() - i);
            #[cfg(test)]
            WINDOW_BYTES.with(|w| w.set(w.get() + (to - i)));
            self.text = match std::str::from_utf8(&chunk[i..to]) {
                Ok(v) => v,
                Err(e) => std::str::from_utf8(&chunk[i..i + e.valid_up_to()]).unwrap_or_default(),
            };
            self.at = i;
        }
        if inside(self) {
            self.text.get(i - self.at..i + len - self.at)
        } else {
            None
        }
    }
}

impl Tokenizer {
    /// Whether string values go out as raw bytes: only the answer extractor asks for that, so
    /// in builds without it (`json`) this is false at compile time and its paths are not linked.
    #[inline(always)]
    fn raw_text(&self) -> bool {
        cfg!(feature = "json") && self.opts.raw_text
    }

    /// What follows a complete top-level value: only the extractor (`Stop`) and the item
    /// stream (`Another`) read on, so in builds without them (`json`) it is `End` at compile
    /// time.
    #[inline(always)]
    fn after_value(&self) -> AfterValue {
        if cfg!(feature = "json") {
            self.opts.after_value
        } else {
            AfterValue::End
        }
    }

    pub(crate) fn new(mut opts: TokenizerOptions) -> Self {
        // Strict mode checks every string byte: it has no raw text.
        opts.raw_text &= !opts.strict;
        Tokenizer {
            opts,
            state: State::Value,
            stack: Vec::new(),
            scratch: Vec::new(),
            text: String::new(),
            raw: Vec::new(),
            utf8: Utf8Carry::default(),
            pos: 0,
            key_start: 0,
            failure: None,
            quiet: usize::MAX,
        }
    }

    /// Back to the start, keeping options and allocations.
    pub(crate) fn reset(&mut self) {
        self.state = State::Value;
        self.stack.clear();
        self.scratch.clear();
        self.text.clear();
        self.raw.clear();
        self.utf8.clear();
        self.pos = 0;
        self.failure = None;
        self.quiet = usize::MAX;
    }

    /// Tokens at the current depth reach the sink.
    #[inline]
    fn loud(&self) -> bool {
        self.stack.len() < self.quiet
    }

    /// Closes the innermost container; reporting resumes when it was the quiet one.
    #[inline]
    fn pop(&mut self) {
        self.stack.pop();
        if self.stack.len() < self.quiet {
            self.quiet = usize::MAX;
        }
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// True once a complete top-level value was read (and, in `Stop` mode, reading stopped).
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.state, State::Done | State::Stopped)
    }

    /// Bytes currently buffered (pending token + UTF-8 carry).
    pub(crate) fn buffered(&self) -> usize {
        self.scratch.len() + self.utf8.pending()
    }

    /// Reads `chunk`. Returns how many bytes were consumed: all of them, unless the value
    /// completed in `AfterValue::Stop` mode.
    pub(crate) fn feed(&mut self, chunk: &[u8], sink: &mut dyn Sink) -> Result<usize> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if self.state == State::Stopped {
            return Ok(0);
        }
        let r = self.run(chunk, sink);
        let r = match r {
            Ok(n) => self.flush_text(sink).map(|()| n),
            Err(e) => {
                // Text before the failure still reaches the sink, as it would byte by byte.
                let _ = self.flush_text(sink);
                Err(e)
            }
        };
        match r {
            Ok(n) => Ok(n),
            Err(e) => {
                self.state = State::Failed;
                self.failure = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Ends the input: completes a number at the very end, then requires a complete value.
    ///
    /// # Errors
    /// `json_invalid` when the input ended inside a value (or held no value).
    pub(crate) fn finish(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if self.state == State::Number && self.stack.is_empty() {
            let r = self.end_number(sink).and_then(|_| self.value_done(sink).map(|_| ()));
            if let Err(e) = r {
                self.state = State::Failed;
                self.failure = Some(e.clone());
                return Err(e);
            }
        }
        match self.state {
            State::Done | State::Stopped => Ok(()),
            State::Value if self.after_value() == AfterValue::Another && self.stack.is_empty() => Ok(()),
            _ => {
                let e = self.error(if self.pos == 0 && self.state == State::Value {
                    "empty input: expected a JSON value"
                } else {
                    "unexpected end of input"
                });
                self.state = State::Failed;
                self.failure = Some(e.clone());
                Err(e)
            }
        }
    }

    fn error(&self, msg: &str) -> Error {
        Error::new(ErrorKind::JsonInvalid, msg.to_string()).at(self.pos)
    }

    fn error_at(&self, msg: impl Into<String>, i: usize, base: u64) -> Error {
        Error::new(ErrorKind::JsonInvalid, msg).at(base + i as u64)
    }

    /// The byte loop: each state's step reads from `chunk[i]` on and says where to go on.
    fn run(&mut self, chunk: &[u8], sink: &mut dyn Sink) -> Result<usize> {
        let base = self.pos;
        let n = chunk.len();
        let mut window = Window::new(chunk);
        let mut i = 0;
        while i < n {
            let b = chunk[i];
            let state = self.state;
            let next = match state {
                // The extractor's containers that nobody reads are skipped a token at a time.
                State::Value | State::ValueOrArrayEnd | State::KeyOrObjectEnd | State::Key | State::Colon | State::CommaOrEnd
                    if self.raw_text() && !self.loud() && self.skip_quiet(chunk, &mut i) =>
                {
                    continue
                }
                State::InString(Str::Value) if !self.opts.strict && !self.loud() => self.quiet_string(chunk, i, base, sink)?,
                State::InString(s) => self.string(s, chunk, i, base, &mut window, sink)?,
                State::Escape(s) => self.escape(s, b, i, base)?,
                State::Unicode { s, n, cp, high } => match hex(b) {
                    Some(d) => {
                        self.unicode_digit(s, n, (cp << 4) | d, high)?;
                        Next::At(i + 1)
                    }
                    None => self.broken_unicode(s, high, i, base)?,
                },
                State::AfterHigh { s, high, stage } => self.after_high(s, high, stage, b, i)?,
                State::Number => self.number(chunk, i, base, sink)?,
                State::Literal { which, matched } => self.literal(which, matched, b, i, base, sink)?,
                State::Value | State::ValueOrArrayEnd => self.value(b, i, base, sink)?,
                State::KeyOrObjectEnd | State::Key => self.key_or_object_end(b, i, base, sink)?,
                State::Colon if is_ws(b) => Next::At(i + 1),
                State::Colon if b == b':' => {
                    self.state = State::Value;
                    Next::At(i + 1)
                }
                State::Colon => return Err(self.error_at("expected ':' after key", i, base)),
                State::CommaOrEnd if is_ws(b) => Next::At(i + 1),
                State::CommaOrEnd => self.comma_or_end(b, i, base, sink)?,
                State::Done if is_ws(b) => Next::At(i + 1),
                State::Done => match self.after_value() {
                    AfterValue::Another => {
                        self.state = State::Value;
                        Next::At(i)
                    }
                    _ => return Err(self.error_at("unexpected data after the JSON value", i, base)),
                },
                State::Stopped => Next::Return(i),
                State::Failed => return Err(self.failure.clone().unwrap_or_else(|| self.error("failed"))),
            };
            match next {
                Next::At(j) => i = j,
                Next::Return(j) => return Ok(j),
            }
        }
        self.pos = base + n as u64;
        Ok(n)
    }

    /// Where reading goes on after a value that completed just before `chunk[i]`.
    #[inline]
    fn value_done_at(&mut self, i: usize, sink: &mut dyn Sink) -> Result<Next> {
        Ok(match self.value_done(sink)? {
            Flow::Stop => Next::Return(i),
            Flow::Continue => Next::At(i),
        })
    }

    /// Closes the innermost container at the bracket `chunk[i]`, reporting `tok`.
    #[inline]
    fn close_container(&mut self, tok: Token<'_>, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        self.pop();
        self.token_ends(tok, i, base, sink)
    }

    /// A token whose last byte is `chunk[i]`: reported (when loud), then what follows a value.
    #[inline]
    fn token_ends(&mut self, tok: Token<'_>, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        let i = i + 1;
        self.pos = base + i as u64;
        if self.loud() {
            sink.token(tok, self.stack.len())?;
        }
        self.value_done_at(i, sink)
    }

    /// A string value read quietly in tolerant mode: the content is not decoded, only its
    /// end found. A backslash takes the next byte with it; whatever that escape turns out to
    /// be in full, no byte of it can end the string except an escaped quote's own (a broken
    /// `\u` re-reads its byte as content: `\u12"` ends at the `"` here too). No error is
    /// possible in tolerant content.
    #[inline]
    fn quiet_string(&mut self, chunk: &[u8], i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        let n = chunk.len();
        let end = i + string_run_len(&chunk[i..]);
        if end == n {
            return Ok(Next::At(n));
        }
        if chunk[end] == b'\\' {
            if end + 1 < n {
                return Ok(Next::At(end + 2));
            }
            self.state = State::Escape(Str::Value);
            return Ok(Next::At(n));
        }
        self.flush_utf8(Str::Value, end, base)?;
        let i = end + 1;
        self.pos = base + i as u64;
        self.text.clear();
        self.raw.clear();
        self.value_done_at(i, sink)
    }

    /// Whole tokens of a quiet container (tolerant mode, see [`Sink::skip_inside`]) from
    /// `*at`, in one loop: what the byte loop does with them, with nothing reported or kept.
    /// Moves `*at` on, and says whether it did: it stops before anything it does not take
    /// whole (a token or an escape the chunk cuts, a literal, a byte that is an error, a key
    /// or number that may reach the cap, a container too deep or one the stack must grow
    /// for, the bracket that closes the quiet container), and the byte loop goes on from
    /// there, so errors and their offsets stay the byte loop's and the state after every
    /// chunk is the same whatever the chunking.
    #[inline(never)]
    fn skip_quiet(&mut self, chunk: &[u8], at: &mut usize) -> bool {
        let from = *at;
        let i = self.skip_tokens(chunk, from);
        *at = i;
        i > from
    }

    /// `skip_quiet` from `chunk[i]`: the index reached.
    #[inline(always)]
    fn skip_tokens(&mut self, chunk: &[u8], mut i: usize) -> usize {
        if self.utf8.pending() != 0 {
            return i;
        }
        let n = chunk.len();
        let cap = self.opts.max_token_bytes;
        while i < n {
            let b = chunk[i];
            match self.state {
                State::Value | State::ValueOrArrayEnd | State::KeyOrObjectEnd | State::Key | State::Colon | State::CommaOrEnd
                    if is_ws(b) =>
                {
                    i += 1
                }
                State::InString(Str::Value) => {
                    let end = i + string_run_len(&chunk[i..]);
                    if end == n || chunk[end] == b'\\' {
                        // An escape takes its next byte with it (see `quiet_string`).
                        if end + 1 >= n {
                            return end;
                        }
                        i = end + 2;
                        continue;
                    }
                    self.text.clear();
                    self.raw.clear();
                    self.state = State::CommaOrEnd;
                    i = end + 1;
                }
                State::Value | State::ValueOrArrayEnd => match b {
                    b'"' => {
                        self.state = State::InString(Str::Value);
                        i += 1;
                    }
                    b'{' | b'[' => {
                        // Growing the stack, or the error of a too deep one, is the byte loop's.
                        let depth = self.stack.len();
                        if depth >= self.opts.max_depth || depth == self.stack.capacity() {
                            return i;
                        }
                        self.stack.push(b == b'{');
                        self.state = if b == b'{' { State::KeyOrObjectEnd } else { State::ValueOrArrayEnd };
                        i += 1;
                    }
                    b']' if self.state == State::ValueOrArrayEnd => {
                        if !self.skip_close() {
                            return i;
                        }
                        i += 1;
                    }
                    b'-' | b'0'..=b'9' => {
                        let Some(run) = chunk[i..].iter().position(|&c| !is_number_byte(c)) else { return i };
                        if run > cap || !valid_number(&chunk[i..i + run]) {
                            return i;
                        }
                        self.state = State::CommaOrEnd;
                        i += run;
                    }
                    _ => return i,
                },
                State::KeyOrObjectEnd | State::Key => match b {
                    b'"' => {
                        // A key whole in the chunk, without escapes, too short to reach the
                        // cap even if each byte decoded to U+FFFD.
                        let q = i + 1 + string_run_len(&chunk[i + 1..]);
                        if q == n || chunk[q] != b'"' || 3 * (q - i) > cap {
                            return i;
                        }
                        self.state = State::Colon;
                        i = q + 1;
                    }
                    b'}' if self.state == State::KeyOrObjectEnd => {
                        if !self.skip_close() {
                            return i;
                        }
                        i += 1;
                    }
                    _ => return i,
                },
                State::Colon if b == b':' => {
                    self.state = State::Value;
                    i += 1;
                }
                State::CommaOrEnd => match (b, *self.stack.last().unwrap_or(&false)) {
                    (b',', true) => {
                        self.state = State::Key;
                        i += 1;
                    }
                    (b',', false) => {
                        self.state = State::Value;
                        i += 1;
                    }
                    (b'}', true) | (b']', false) => {
                        if !self.skip_close() {
                            return i;
                        }
                        i += 1;
                    }
                    _ => return i,
                },
                _ => return i,
            }
        }
        i
    }

    /// `skip_quiet` at a closing bracket: closes the container, unless it is the quiet one
    /// (whose end the byte loop reports).
    #[inline(always)]
    fn skip_close(&mut self) -> bool {
        if self.stack.len() <= self.quiet {
            return false;
        }
        self.stack.pop();
        self.state = State::CommaOrEnd;
        true
    }

    /// String content from `chunk[i]`: the hot loop. A run of plain bytes goes out in one
    /// piece; then the closing quote or an escape.
    #[inline(always)]
    fn string<'c>(
        &mut self,
        s: Str,
        chunk: &'c [u8],
        i: usize,
        base: u64,
        window: &mut Window<'c>,
        sink: &mut dyn Sink,
    ) -> Result<Next> {
        let end = string_run_len(&chunk[i..]);
        if end > 0 {
            return self.string_run(s, chunk, i, end, base, window);
        }
        // Checked here, not only in `flush_utf8`: a run ends at every escape and quote.
        if self.utf8.pending() != 0 {
            self.flush_utf8(s, i, base)?;
        }
        if chunk[i] == b'"' {
            return self.string_end(s, i + 1, base, sink);
        }
        // A one-character escape of a value, when its second byte is here, is decoded on the
        // spot (what the `Escape` state would do, two dispatches sooner).
        if s == Str::Value {
            if let Some(c) = chunk.get(i + 1).copied().and_then(simple_escape) {
                if self.raw_text() {
                    if self.raw.len() < self.raw.capacity() {
                        self.raw.push(c);
                    } else {
                        try_push(&mut self.raw, c)?;
                    }
                } else {
                    try_push_str(&mut self.text, char::from(c).encode_utf8(&mut [0; 4]))?;
                }
                return Ok(Next::At(i + 2));
            }
        }
        self.state = State::Escape(s);
        Ok(Next::At(i + 1))
    }

    /// The run of plain string content `chunk[i..i + end]` (`end > 0`).
    #[inline(always)]
    fn string_run<'c>(
        &mut self,
        s: Str,
        chunk: &'c [u8],
        i: usize,
        end: usize,
        base: u64,
        window: &mut Window<'c>,
    ) -> Result<Next> {
        let run = &chunk[i..i + end];
        if self.raw_text() && s == Str::Value && self.utf8.pending() == 0 {
            // Copied as it is, but for a character the run's end cuts, which is decoded (held
            // when it may go on in the next chunk, U+FFFD when the string or an escape
            // follows). Any other malformed sequence is closed inside the run: it decodes to
            // U+FFFD wherever it is cut.
            let tail = crate::text::incomplete_tail(run);
            try_extend(&mut self.raw, &run[..end - tail])?;
            if tail > 0 {
                self.text(s, &run[end - tail..])?;
            }
            return Ok(Next::At(i + end));
        }
        let control = if self.opts.strict { run.iter().position(|&c| c < 0x20) } else { None };
        let stop = control.unwrap_or(end);
        if i >= window.valid_from && self.utf8.pending() == 0 {
            if let Some(t) = window.text(chunk, i, stop) {
                self.push_valid(s, t)?;
                if let Some(k) = control {
                    return Err(self.error_at("control character in string", i + k, base));
                }
                return Ok(Next::At(i + end));
            }
        }
        // The content before a control character is reported first, as a byte-at-a-time feed
        // reports it: the same tokens for every chunking.
        let carried = self.utf8.pending() as u64;
        if let Some(k) = self.text(s, &run[..stop])? {
            // A sequence begun in an earlier chunk is reported where it began.
            let back = if k == 0 { carried } else { 0 };
            return Err(Error::new(ErrorKind::JsonInvalid, "invalid UTF-8 in string").at(base + (i + k) as u64 - back));
        }
        if let Some(k) = control {
            return Err(self.error_at("control character in string", i + k, base));
        }
        Ok(Next::At(i + end))
    }

    /// The closing quote of a string ended just before `chunk[i]`.
    #[inline]
    fn string_end(&mut self, s: Str, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        self.pos = base + i as u64;
        match s {
            Str::Value => {
                self.flush_text(sink)?;
                if self.loud() {
                    sink.token(Token::StringEnd, self.stack.len())?;
                }
                self.value_done_at(i, sink)
            }
            Str::Key => {
                if self.scratch.len() > self.opts.max_token_bytes {
                    return Err(self.too_long(self.key_start));
                }
                if self.loud() {
                    let key = std::str::from_utf8(&self.scratch).unwrap_or_default();
                    sink.token(Token::Key(key), self.stack.len())?;
                }
                self.scratch.clear();
                self.state = State::Colon;
                Ok(Next::At(i))
            }
        }
    }

    /// The byte after a backslash.
    fn escape(&mut self, s: Str, b: u8, i: usize, base: u64) -> Result<Next> {
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                self.state = State::Unicode { s, n: 0, cp: 0, high: 0 };
                return Ok(Next::At(i + 1));
            }
            _ if self.opts.strict => return Err(self.error_at("invalid escape in string", i, base)),
            // Tolerant: `\x` stands for `x` (the byte is re-read as content).
            _ => {
                self.state = State::InString(s);
                return Ok(Next::At(i));
            }
        };
        self.char(s, c)?;
        self.state = State::InString(s);
        Ok(Next::At(i + 1))
    }

    /// A hex digit of a `\u` escape read: `n` digits were read before it, `cp` holds them all.
    fn unicode_digit(&mut self, s: Str, n: u8, cp: u16, high: u16) -> Result<()> {
        if n < 3 {
            self.state = State::Unicode { s, n: n + 1, cp, high };
            Ok(())
        } else {
            self.state = State::InString(s);
            self.code_unit(s, cp, high)
        }
    }

    /// A `\u` escape broken by the non-hex byte `chunk[i]`.
    fn broken_unicode(&mut self, s: Str, high: u16, i: usize, base: u64) -> Result<Next> {
        if self.opts.strict {
            return Err(self.error_at("invalid \\u escape", i, base));
        }
        // Tolerant: the broken escape becomes U+FFFD; the byte is content.
        if high != 0 {
            self.char(s, '\u{FFFD}')?;
        }
        self.char(s, '\u{FFFD}')?;
        self.state = State::InString(s);
        Ok(Next::At(i))
    }

    /// After a high-surrogate escape: its low half's `\u` (`stage` bytes of it seen), or not.
    fn after_high(&mut self, s: Str, high: u16, stage: u8, b: u8, i: usize) -> Result<Next> {
        if stage == 0 && b == b'\\' {
            self.state = State::AfterHigh { s, high, stage: 1 };
        } else if stage == 1 && b == b'u' {
            self.state = State::Unicode { s, n: 0, cp: 0, high };
        } else {
            // The high surrogate stands alone.
            self.char(s, '\u{FFFD}')?;
            self.state = if stage == 0 { State::InString(s) } else { State::Escape(s) };
            return Ok(Next::At(i));
        }
        Ok(Next::At(i + 1))
    }

    /// Inside a number: the whole run of number bytes in this chunk at once, or its end.
    #[inline]
    fn number(&mut self, chunk: &[u8], i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        if !is_number_byte(chunk[i]) {
            self.pos = base + i as u64;
            self.end_number(sink)?;
            return self.value_done_at(i, sink);
        }
        let run = chunk[i..].iter().position(|&c| !is_number_byte(c)).unwrap_or(chunk.len() - i);
        let room = self.opts.max_token_bytes.saturating_sub(self.scratch.len());
        if run > room {
            // The byte that made the number one byte too long.
            return Err(self.too_long(base + (i + room) as u64));
        }
        try_extend(&mut self.scratch, &chunk[i..i + run])?;
        Ok(Next::At(i + run))
    }

    /// The next byte of `true`, `false` or `null` (`matched` bytes of it seen).
    fn literal(&mut self, which: u8, matched: u8, b: u8, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        let lit = LITERALS[which as usize];
        if b != lit[matched as usize] {
            return Err(self.error_at("invalid literal", i, base));
        }
        if matched as usize + 1 < lit.len() {
            self.state = State::Literal { which, matched: matched + 1 };
            return Ok(Next::At(i + 1));
        }
        let tok = match which {
            0 => Token::Bool(true),
            1 => Token::Bool(false),
            _ => Token::Null,
        };
        self.token_ends(tok, i, base, sink)
    }

    /// Expecting a value (or, after `[`, the `]`).
    #[inline]
    fn value(&mut self, b: u8, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        if is_ws(b) {
            return Ok(Next::At(i + 1));
        }
        self.pos = base + i as u64;
        if b == b']' && self.state == State::ValueOrArrayEnd {
            return self.close_container(Token::ArrayEnd, i, base, sink);
        }
        self.begin_value(b, sink, i, base)?;
        Ok(Next::At(i + 1))
    }

    /// Expecting a key (or, after `{`, the `}`).
    #[inline]
    fn key_or_object_end(&mut self, b: u8, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        if is_ws(b) {
            return Ok(Next::At(i + 1));
        }
        if b == b'"' {
            self.scratch.clear();
            self.key_start = base + i as u64;
            self.state = State::InString(Str::Key);
            return Ok(Next::At(i + 1));
        }
        if b == b'}' && self.state == State::KeyOrObjectEnd {
            return self.close_container(Token::ObjectEnd, i, base, sink);
        }
        Err(self.error_at("expected a string key", i, base))
    }

    /// After a value inside a container: `,` or the closing bracket.
    #[inline]
    fn comma_or_end(&mut self, b: u8, i: usize, base: u64, sink: &mut dyn Sink) -> Result<Next> {
        let in_object = *self.stack.last().unwrap_or(&false);
        match (b, in_object) {
            (b',', true) => self.state = State::Key,
            (b',', false) => self.state = State::Value,
            (b'}', true) => return self.close_container(Token::ObjectEnd, i, base, sink),
            (b']', false) => return self.close_container(Token::ArrayEnd, i, base, sink),
            (_, true) => return Err(self.error_at("expected ',' or '}' in object", i, base)),
            (_, false) => return Err(self.error_at("expected ',' or ']' in array", i, base)),
        }
        Ok(Next::At(i + 1))
    }

    fn too_long(&self, at: u64) -> Error {
        Error::new(
            ErrorKind::BufferLimitExceeded,
            format!("a JSON key or number is longer than {} bytes", self.opts.max_token_bytes),
        )
        .at(at)
    }

    fn begin_value(&mut self, b: u8, sink: &mut dyn Sink, i: usize, base: u64) -> Result<()> {
        match b {
            b'{' | b'[' => {
                if self.stack.len() >= self.opts.max_depth {
                    return Err(Error::new(
                        ErrorKind::JsonTooDeep,
                        format!("JSON nested deeper than {} levels", self.opts.max_depth),
                    )
                    .at(base + i as u64));
                }
                let object = b == b'{';
                let depth = self.stack.len();
                let loud = self.loud();
                if loud {
                    sink.token(if object { Token::ObjectStart } else { Token::ArrayStart }, depth)?;
                }
                try_push(&mut self.stack, object)?;
                if loud && sink.skip_inside(depth) {
                    self.quiet = depth + 1;
                }
                self.state = if object { State::KeyOrObjectEnd } else { State::ValueOrArrayEnd };
            }
            b'"' => {
                if self.loud() {
                    sink.token(Token::StringStart, self.stack.len())?;
                }
                self.state = State::InString(Str::Value);
            }
            b'-' | b'0'..=b'9' => {
                self.scratch.clear();
                try_push(&mut self.scratch, b)?;
                self.state = State::Number;
            }
            b't' => self.state = State::Literal { which: 0, matched: 1 },
            b'f' => self.state = State::Literal { which: 1, matched: 1 },
            b'n' => self.state = State::Literal { which: 2, matched: 1 },
            _ => return Err(self.error_at("expected a JSON value", i, base)),
        }
        Ok(())
    }

    fn end_number(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if !valid_number(&self.scratch) {
            let start = self.pos - self.scratch.len() as u64;
            return Err(Error::new(ErrorKind::JsonInvalid, "invalid number").at(start));
        }
        if self.loud() {
            let text = std::str::from_utf8(&self.scratch).unwrap_or_default();
            sink.token(Token::Number(text), self.stack.len())?;
        }
        self.scratch.clear();
        Ok(())
    }

    /// A value just completed at the current depth.
    fn value_done(&mut self, _sink: &mut dyn Sink) -> Result<Flow> {
        if !self.stack.is_empty() {
            self.state = State::CommaOrEnd;
            return Ok(Flow::Continue);
        }
        match self.after_value() {
            AfterValue::Stop => {
                self.state = State::Stopped;
                Ok(Flow::Stop)
            }
            _ => {
                self.state = State::Done;
                Ok(Flow::Continue)
            }
        }
    }

    /// Decodes a run of string content; `Some(index)` of invalid UTF-8 in strict mode.
    fn text(&mut self, s: Str, run: &[u8]) -> Result<Option<usize>> {
        Ok(self.decode(s, Some(run))?.err().map(|e| e.at))
    }

    /// Ends a run at an escape or the closing quote: a held incomplete UTF-8 sequence
    /// becomes U+FFFD (an error at `i` in strict mode).
    fn flush_utf8(&mut self, s: Str, i: usize, base: u64) -> Result<()> {
        if self.utf8.pending() == 0 {
            return Ok(());
        }
        self.decode(s, None)?.map_err(|_| self.error_at("invalid UTF-8 in string", i, base))
    }

    /// Decodes `run` (or flushes the carry, for `None`) into the string value's pending text
    /// or the key being read (capped).
    fn decode(&mut self, s: Str, run: Option<&[u8]>) -> Result<std::result::Result<(), InvalidUtf8>> {
        let strict = self.opts.strict;
        let cap = self.opts.max_token_bytes;
        let key_start = self.key_start;
        let raw = self.raw_text();
        let (text, raw_text, scratch) = (&mut self.text, &mut self.raw, &mut self.scratch);
        let mut emit = |t: &str| -> Result<()> {
            match s {
                Str::Value if raw => try_extend(raw_text, t.as_bytes())?,
                Str::Value => try_push_str(text, t)?,
                Str::Key => {
                    try_extend(scratch, t.as_bytes())?;
                    if scratch.len() > cap {
                        return Err(Error::new(ErrorKind::BufferLimitExceeded, format!("a JSON key is longer than {cap} bytes"))
                            .at(key_start));
                    }
                }
            }
            Ok(())
        };
        match run {
            Some(run) => self.utf8.decode(run, strict, &mut emit),
            None => self.utf8.flush(strict, &mut emit),
        }
    }

    /// Appends already validated string text to the value's pending text or the key (capped).
    fn push_valid(&mut self, s: Str, t: &str) -> Result<()> {
        match s {
            Str::Value => self.push_value(t)?,
            Str::Key => {
                try_extend(&mut self.scratch, t.as_bytes())?;
                let cap = self.opts.max_token_bytes;
                if self.scratch.len() > cap {
                    // The message of `decode`'s, so that no chunking changes the error.
                    return Err(Error::new(ErrorKind::BufferLimitExceeded, format!("a JSON key is longer than {cap} bytes"))
                        .at(self.key_start));
                }
            }
        }
        Ok(())
    }

    /// Appends decoded text to the string value's pending text.
    fn push_value(&mut self, t: &str) -> Result<()> {
        if self.raw_text() {
            try_extend(&mut self.raw, t.as_bytes())
        } else {
            try_push_str(&mut self.text, t)
        }
    }

    /// Hands buffered string-value text to the sink.
    fn flush_text(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if !self.raw.is_empty() {
            if !self.loud() {
                self.raw.clear();
                return Ok(());
            }
            let r = sink.raw_part(&self.raw, self.stack.len());
            self.raw.clear();
            return r;
        }
        if self.text.is_empty() {
            return Ok(());
        }
        if !self.loud() {
            self.text.clear();
            return Ok(());
        }
        let r = sink.token(Token::StringPart(&self.text), self.stack.len());
        self.text.clear();
        r
    }

    fn char(&mut self, s: Str, c: char) -> Result<()> {
        let mut buf = [0u8; 4];
        let t = c.encode_utf8(&mut buf);
        match s {
            Str::Value => self.push_value(t),
            Str::Key => {
                try_extend(&mut self.scratch, t.as_bytes())?;
                if self.scratch.len() > self.opts.max_token_bytes {
                    return Err(self.too_long(self.key_start));
                }
                Ok(())
            }
        }
    }

    /// A `\uXXXX` code unit `cp`, with `high` the pending high surrogate (0 = none).
    fn code_unit(&mut self, s: Str, cp: u16, high: u16) -> Result<()> {
        let is_high = (0xD800..0xDC00).contains(&cp);
        let is_low = (0xDC00..0xE000).contains(&cp);
        if high != 0 {
            if is_low {
                let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(cp) - 0xDC00);
                return self.char(s, char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            self.char(s, '\u{FFFD}')?;
        }
        if is_high {
            self.state = State::AfterHigh { s, high: cp, stage: 0 };
            return Ok(());
        }
        let c = if is_low { '\u{FFFD}' } else { char::from_u32(u32::from(cp)).unwrap_or('\u{FFFD}') };
        self.char(s, c)
    }
}

#[inline]
pub(crate) fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[inline]
pub(crate) fn hex(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(u16::from(b - b'0')),
        b'a'..=b'f' => Some(u16::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(b - b'A' + 10)),
        _ => None,
    }
}

/// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`.
pub(crate) fn valid_number(s: &[u8]) -> bool {
    let mut i = 0;
    let n = s.len();
    if i < n && s[i] == b'-' {
        i += 1;
    }
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while i < n && s[i].is_ascii_digit() {
                i += 1;
            }
        }
        _ => return false,
    }
    if i < n && s[i] == b'.' {
        i += 1;
        let start = i;
        while i < n && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if i < n && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        if i < n && (s[i] == b'+' || s[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < n && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == n
}

/// The byte a one-character escape (`\\"` `\\\\` `\\/` `\\b` `\\f` `\\n` `\\r` `\\t`) stands for.
#[inline]
pub(crate) fn simple_escape(b: u8) -> Option<u8> {
    match b {
        b'"' | b'\\' | b'/' => Some(b),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        _ => None,
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of `v` that equals the byte of `splat` (a byte times `LO`); bits above
/// the lowest match may be false positives, so only the lowest set bit is to be trusted.
#[inline]
fn bytes_equal(v: u64, splat: u64) -> u64 {
    let x = v ^ splat;
    x.wrapping_sub(LO) & !x & HI
}

/// Length of the plain string content at the start of `rest`: up to the first `"` or `\\`.
/// Most runs are short (a word between escapes): the first 32 bytes are checked eight at a
/// time in a word, and memchr, whose set-up costs more than that, takes only long runs.
#[inline]
pub(crate) fn string_run_len(rest: &[u8]) -> usize {
    const SHORT: usize = 32;
    let head = rest.len().min(SHORT);
    let mut k = 0;
    for w in rest[..head].chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let v = u64::from_le_bytes(word);
        let m = bytes_equal(v, LO * u64::from(b'"')) | bytes_equal(v, LO * u64::from(b'\\'));
        if m != 0 {
            return k + (m.trailing_zeros() / 8) as usize;
        }
        k += 8;
    }
    for &c in &rest[k..head] {
        if c == b'"' || c == b'\\' {
            return k;
        }
        k += 1;
    }
    if head == rest.len() {
        return head;
    }
    head + memchr::memchr2(b'"', b'\\', &rest[head..]).unwrap_or(rest.len() - head)
}
