//! Conformance suite for `SseDecoder`, written from the WHATWG HTML standard,
//! section 9.2.6 "Interpreting an event stream" (plus the crate's documented caps and
//! `finish()` behaviour).
//!
//! Every table case goes through `common::assert_chunk_invariant`, so each input is also
//! decoded byte by byte and at random split points (which cut multi-byte UTF-8 sequences,
//! the BOM, CRLF pairs and field names) and must give the same outcome as the whole input.
//!
//! To add a case, append a `case(name, input, &[expected events])` line to `cases()` and
//! chain the modifiers it needs (`.flush()`, `.caps(line, event)`, `.last_id(..)`,
//! `.retry(..)`, `.error(offset)`, `.after_stream(..)`).

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{assert_chunk_invariant, TextPiece};
use streamroute::{Error, SseDecoder, SseDecoderOptions, SseEvent};

// ---------------------------------------------------------------------------------------------
// The case table machinery
// ---------------------------------------------------------------------------------------------

/// An expected event: (event type, data, id).
type Ev = (&'static str, &'static str, &'static str);

/// An unnamed event (`"message"`) with no id.
const fn msg(data: &'static str) -> Ev {
    ("message", data, "")
}

/// An event with an explicit type and id.
const fn ev(event: &'static str, data: &'static str, id: &'static str) -> Ev {
    (event, data, id)
}

const UTF8_BOM: &str = "\u{FEFF}";

struct Case {
    name: &'static str,
    input: &'static [u8],
    opts: SseDecoderOptions,
    /// A whole earlier stream fed and finished on the same decoder before `input`
    /// (a reconnection). Its events are part of the outcome.
    previous: Option<&'static [u8]>,
    events: Vec<Ev>,
    last_id: &'static str,
    /// The id of the frame being read when the stream ended or failed, not yet in effect.
    pending: Option<&'static str>,
    retry: Option<u64>,
    /// Expected `(code, offset)` of the first error.
    error: Option<(&'static str, u64)>,
}

fn case<I: AsRef<[u8]> + ?Sized>(name: &'static str, input: &'static I, events: &[Ev]) -> Case {
    Case {
        name,
        input: input.as_ref(),
        opts: SseDecoderOptions::default(),
        previous: None,
        events: events.to_vec(),
        last_id: "",
        pending: None,
        retry: None,
        error: None,
    }
}

impl Case {
    fn flush(mut self) -> Self {
        self.opts.flush_on_finish = true;
        self
    }
    fn caps(mut self, max_line_bytes: usize, max_event_bytes: usize) -> Self {
        self.opts.max_line_bytes = max_line_bytes;
        self.opts.max_event_bytes = max_event_bytes;
        self
    }
    fn last_id(mut self, id: &'static str) -> Self {
        self.last_id = id;
        self
    }
    fn pending(mut self, id: &'static str) -> Self {
        self.pending = Some(id);
        self
    }
    fn retry(mut self, ms: u64) -> Self {
        self.retry = Some(ms);
        self
    }
    /// Expects `sse_event_too_large` at byte `offset` of the (current) stream.
    fn error(mut self, offset: u64) -> Self {
        self.error = Some(("sse_event_too_large", offset));
        self
    }
    fn after_stream<I: AsRef<[u8]> + ?Sized>(mut self, previous: &'static I) -> Self {
        self.previous = Some(previous.as_ref());
        self
    }
}

/// Builds a `'static` input at run time (for long, repetitive inputs).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// What one run of the decoder produced. Compared across chunkings in full (including the
/// error message), and against the case's expectation.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    events: Vec<SseEvent>,
    last_event_id: String,
    pending_id: Option<String>,
    retry: Option<u64>,
    error: Option<Error>,
}

/// Records the first error; every later call must repeat it exactly.
#[derive(Default)]
struct ErrorTracker(Option<Error>);

impl ErrorTracker {
    fn see(&mut self, r: Result<(), Error>, what: &str) {
        match (&self.0, r) {
            (None, Ok(())) => {}
            (None, Err(e)) => self.0 = Some(e),
            (Some(first), r) => {
                assert_eq!(r.err().as_ref(), Some(first), "{what} after a failure must repeat it")
            }
        }
    }
}

/// Feeds `previous` (whole) and finishes it, if given, then feeds `chunks` and finishes.
/// After the first error, every further `feed`/`finish` must return the very same error and
/// add no event.
fn run(opts: SseDecoderOptions, previous: Option<&[u8]>, chunks: &[&[u8]]) -> Outcome {
    let pieces: Vec<TextPiece> = chunks.iter().map(|c| TextPiece::Utf8(c.to_vec())).collect();
    run_text(opts, previous, &pieces)
}

/// `run` with the chunks given as text pieces: UTF-16 ones through `feed_utf16le` (and, as the
/// JS binding does, as UTF-8 when it declines them).
fn run_text(opts: SseDecoderOptions, previous: Option<&[u8]>, pieces: &[TextPiece]) -> Outcome {
    let mut dec = SseDecoder::new(opts);
    let mut events = Vec::new();
    let mut err = ErrorTracker::default();
    if let Some(prev) = previous {
        err.see(dec.feed(prev, &mut events), "feed");
        err.see(dec.finish(&mut events), "finish");
    }
    let mut events_at_failure = None;
    for piece in pieces {
        let r = match piece {
            TextPiece::Utf8(b) => dec.feed(b, &mut events),
            TextPiece::Utf16le(u) => match dec.feed_utf16le(u, &mut events) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    let units: Vec<u16> = u.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
                    dec.feed(String::from_utf16_lossy(&units).as_bytes(), &mut events)
                }
                Err(e) => Err(e),
            },
        };
        err.see(r, "feed");
        events_at_failure = events_at_failure.or(err.0.as_ref().map(|_| events.len()));
    }
    err.see(dec.finish(&mut events), "finish");
    events_at_failure = events_at_failure.or(err.0.as_ref().map(|_| events.len()));
    if err.0.is_some() {
        // A failed decoder stays failed: more input and another finish change nothing.
        err.see(dec.feed(b"data: more\n\n", &mut events), "feed");
        err.see(dec.feed_utf16le(&[b'\n', 0], &mut events).map(|_| ()), "feed_utf16le");
        err.see(dec.finish(&mut events), "finish");
        assert_eq!(Some(events.len()), events_at_failure, "a failed decoder emitted events");
    }
    let pending_id = dec.pending_id();
    Outcome { events, last_event_id: dec.last_event_id().to_owned(), pending_id, retry: dec.retry(), error: err.0 }
}

/// Runs a valid UTF-8 input under every text chunking (UTF-16 and mixed) and asserts the
/// outcome of the byte chunkings.
fn assert_text_chunkings(name: &str, input: &[u8], opts: SseDecoderOptions, previous: Option<&[u8]>, want: &Outcome) {
    let Ok(text) = std::str::from_utf8(input) else { return };
    for (label, pieces) in common::text_chunkings(text, common::case_seed(name)) {
        let got = run_text(opts, previous, &pieces);
        assert_eq!(&got, want, "case {name:?}: {label} differs from the bytes (STREAMROUTE_SEED={})", common::seed());
    }
}

fn check_case(c: &Case) {
    let got = assert_chunk_invariant(c.name, c.input, |chunks| run(c.opts, c.previous, chunks));
    assert_text_chunkings(c.name, c.input, c.opts, c.previous, &got);
    let want_events: Vec<SseEvent> =
        c.events.iter().map(|&(event, data, id)| SseEvent { event: event.into(), data: data.into(), id: id.into() }).collect();
    assert_eq!(got.events, want_events, "case {:?}: events", c.name);
    assert_eq!(got.last_event_id, c.last_id, "case {:?}: last_event_id", c.name);
    assert_eq!(got.pending_id.as_deref(), c.pending, "case {:?}: pending_id", c.name);
    assert_eq!(got.retry, c.retry, "case {:?}: retry", c.name);
    let got_error = got.error.as_ref().map(|e| (e.code(), e.offset()));
    let want_error = c.error.map(|(code, off)| (code, Some(off)));
    assert_eq!(got_error, want_error, "case {:?}: error (code, offset)", c.name);
}

// ---------------------------------------------------------------------------------------------
// The cases
// ---------------------------------------------------------------------------------------------

fn cases() -> Vec<Case> {
    vec![
        // --- Basics, empty and trivial streams ------------------------------------------
        case("empty input", "", &[]),
        case("only blank lines", "\n\r\n\r\n\n\r", &[]),
        case("only comments", ":a\n:b\r\n:\r", &[]),
        case("single event", "data: hello\n\n", &[msg("hello")]),
        case("two events", "data: a\n\ndata: b\n\n", &[msg("a"), msg("b")]),
        case("doc example", "event: greet\ndata: hello\r\n\r\n", &[ev("greet", "hello", "")]),
        case("spec example: stock ticker", "data: YHOO\ndata: +2\ndata: 10\n\n", &[msg("YHOO\n+2\n10")]),
        case(
            "spec example: four blocks",
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
            &[ev("message", "first event", "1"), msg("second event"), msg(" third event")],
        ),
        case("spec example: two empty data", "data\n\ndata\ndata\n\ndata:", &[msg(""), msg("\n")]),
        case("spec example: same data twice", "data:test\n\ndata: test\n\n", &[msg("test"), msg("test")]),
        // --- UTF-8 decoding ----------------------------------------------------------------
        case("utf8 two-byte", "data: é\n\n", &[msg("é")]),
        case("utf8 three-byte", "data: 中文\n\n", &[msg("中文")]),
        case("utf8 four-byte", "data: 😀\n\n", &[msg("😀")]),
        case("utf8 in every field", "event: café\nid: 中\ndata: 😀é中\n\n", &[ev("café", "😀é中", "中")]).last_id("中"),
        case("utf8 invalid byte FF", b"data: a\xFFb\n\n", &[msg("a\u{FFFD}b")]),
        case("utf8 lone continuation bytes", b"data: \x80\x80\n\n", &[msg("\u{FFFD}\u{FFFD}")]),
        case("utf8 truncated 2-byte at line end", b"data: x\xC3\n\n", &[msg("x\u{FFFD}")]),
        case("utf8 truncated 3-byte at line end", b"data: \xE4\xB8\n\n", &[msg("\u{FFFD}")]),
        case("utf8 truncated 4-byte at line end", b"data: \xF0\x9F\x98\n\n", &[msg("\u{FFFD}")]),
        case(
            "utf8 truncated sequence does not swallow the line end",
            b"data: \xE2\x82\ndata: \xAC\n\n",
            &[msg("\u{FFFD}\n\u{FFFD}")],
        ),
        case("utf8 truncated before ASCII", b"data: \xE4\xB8z\n\n", &[msg("\u{FFFD}z")]),
        case("utf8 overlong 2-byte", b"data: \xC0\xAF\n\n", &[msg("\u{FFFD}\u{FFFD}")]),
        case("utf8 overlong 3-byte", b"data: \xE0\x80\xAF\n\n", &[msg("\u{FFFD}\u{FFFD}\u{FFFD}")]),
        case("utf8 encoded surrogate", b"data: \xED\xA0\x80\n\n", &[msg("\u{FFFD}\u{FFFD}\u{FFFD}")]),
        case("utf8 above U+10FFFF", b"data: \xF4\x90\x80\x80\n\n", &[msg("\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")]),
        case("utf8 invalid in event type", b"event: \xFFx\ndata: d\n\n", &[ev("\u{FFFD}x", "d", "")]),
        case("utf8 invalid in id", b"id: \xC3\ndata: d\n\n", &[ev("message", "d", "\u{FFFD}")]).last_id("\u{FFFD}"),
        case("utf8 truncated at end, flushed", b"data: \xE2\x82", &[msg("\u{FFFD}")]).flush(),
        // --- Byte order mark ---------------------------------------------------------------
        case("bom stripped", "\u{FEFF}data: x\n\n", &[msg("x")]),
        case("bom only", UTF8_BOM, &[]),
        case("bom then blank lines", "\u{FEFF}\n\n", &[]),
        // Only one BOM is stripped: the second one is part of the first field name.
        case("second bom kept (field name)", "\u{FEFF}\u{FEFF}data: x\n\n", &[]),
        case("second bom kept (own line)", "\u{FEFF}\u{FEFF}\ndata: x\n\n", &[msg("x")]),
        case("bom not at start kept", "\n\u{FEFF}data: x\n\n", &[]),
        case("bom inside data kept", "data: \u{FEFF}x\n\n", &[msg("\u{FEFF}x")]),
        case("bom in data after leading bom", "\u{FEFF}data:\u{FEFF}\n\n", &[msg("\u{FEFF}")]),
        // A partial BOM is invalid UTF-8 (U+FFFD) glued to the first field name.
        case("partial bom EF BB then field", b"\xEF\xBBdata: x\n\n", &[]),
        case("partial bom EF then field", b"\xEFdata: x\n\n", &[]),
        case("partial bom EF BB own line", b"\xEF\xBB\ndata: x\n\n", &[msg("x")]),
        case("partial bom at end, flushed", b"\xEF\xBB", &[]).flush(),
        case("bom then partial bom", b"\xEF\xBB\xBF\xEF\xBB\ndata: x\n\n", &[msg("x")]),
        // --- Line endings --------------------------------------------------------------------
        case("LF", "data: a\n\ndata: b\n\n", &[msg("a"), msg("b")]),
        case("CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", &[msg("a"), msg("b")]),
        case("lone CR", "data: a\r\rdata: b\r\r", &[msg("a"), msg("b")]),
        case("mixed line endings", "data: a\r\ndata: b\rdata: c\n\r\n", &[msg("a\nb\nc")]),
        case("CR CR is two line ends", "data: a\r\r", &[msg("a")]),
        case("CRLF CRLF dispatches", "data: a\r\n\r\n", &[msg("a")]),
        case("CRLF then LF dispatches", "data: a\r\n\n", &[msg("a")]),
        case("LF then CR dispatches", "data: a\n\r", &[msg("a")]),
        case("LF then CRLF dispatches", "data: a\n\r\n", &[msg("a")]),
        case("LF CR is not one line end", "data: a\n\rdata: b\n\n", &[msg("a"), msg("b")]),
        case("CR at end then LF", "data: a\r\ndata: b\r\n\r", &[msg("a\nb")]),
        // --- Comments ------------------------------------------------------------------------
        case("comment ignored", ": hello\ndata: x\n\n", &[msg("x")]),
        case("comment with colon", ":a: b\ndata: x\n\n", &[msg("x")]),
        case("comment only colon", ":\ndata: x\n\n", &[msg("x")]),
        case("comment between data lines", "data: a\n: c\ndata: b\n\n", &[msg("a\nb")]),
        case("comment looking like a field", ":data: x\n\n", &[]),
        case("comment block dispatches nothing", ": c\n\n", &[]),
        // --- Field parsing -------------------------------------------------------------------
        case("split at first colon", "data: a:b:c\n\n", &[msg("a:b:c")]),
        case("no space after colon", "data:x\n\n", &[msg("x")]),
        case("only one leading space removed", "data:  x\n\n", &[msg(" x")]),
        case("tab is not stripped", "data:\tx\n\n", &[msg("\tx")]),
        case("trailing space kept", "data: x \n\n", &[msg("x ")]),
        case("line without colon: empty value", "data\n\n", &[msg("")]),
        case("value of one space is empty", "data: \n\n", &[msg("")]),
        case("space before colon: other field", "data : x\n\n", &[]),
        case("leading space: other field", " data: x\n\n", &[]),
        case("field names are case-sensitive", "Data: x\n\nDATA: y\n\nEvent: e\ndata: z\n\n", &[msg("z")]),
        case("unknown field ignored", "foo: bar\ndata: x\nbaz\n\n", &[msg("x")]),
        case("unknown field alone dispatches nothing", "foo: bar\n\n", &[]),
        case("NUL in data kept", "data: a\0b\n\n", &[msg("a\0b")]),
        // --- data accumulation ---------------------------------------------------------------
        case("data lines joined with LF", "data: a\ndata: b\ndata: c\n\n", &[msg("a\nb\nc")]),
        case("empty data", "data:\n\n", &[msg("")]),
        case("two empty data lines", "data:\ndata:\n\n", &[msg("\n")]),
        case("only one trailing LF removed", "data: a\ndata:\n\n", &[msg("a\n")]),
        case("leading empty data line kept", "data:\ndata: a\n\n", &[msg("\na")]),
        case("data reset after dispatch", "data: a\n\ndata: b\n\n", &[msg("a"), msg("b")]),
        // --- event ---------------------------------------------------------------------------
        case("event type", "event: add\ndata: 1\n\n", &[ev("add", "1", "")]),
        case("empty event gives message", "event:\ndata: x\n\n", &[msg("x")]),
        case("event without colon gives message", "event\ndata: x\n\n", &[msg("x")]),
        case("last event field wins", "event: a\nevent: b\ndata: x\n\n", &[ev("b", "x", "")]),
        case("empty event overrides", "event: a\nevent:\ndata: x\n\n", &[msg("x")]),
        case("event after data in block", "data: x\nevent: late\n\n", &[ev("late", "x", "")]),
        case("event keeps inner spaces", "event:  e f \ndata: x\n\n", &[ev(" e f ", "x", "")]),
        case("event type reset after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n", &[ev("a", "1", ""), msg("2")]),
        case("event without data does not leak", "event: a\n\ndata: 2\n\n", &[msg("2")]),
        // --- id ------------------------------------------------------------------------------
        case("id sets last event id", "id: 1\ndata: x\n\n", &[ev("message", "x", "1")]).last_id("1"),
        case("id persists to later events", "id: 1\ndata: a\n\ndata: b\n\n", &[ev("message", "a", "1"), ev("message", "b", "1")])
            .last_id("1"),
        case("empty id resets", "id: 1\ndata: a\n\nid:\ndata: b\n\n", &[ev("message", "a", "1"), msg("b")]),
        case("id without colon resets", "id: 1\ndata: a\n\nid\ndata: b\n\n", &[ev("message", "a", "1"), msg("b")]),
        case(
            "id with NUL ignored",
            "id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n",
            &[ev("message", "a", "1"), ev("message", "b", "1")],
        )
        .last_id("1"),
        case("id of only NUL ignored", "id: \0\ndata: a\n\n", &[msg("a")]),
        case("id in block without data updates last id", "id: 7\n\n", &[]).last_id("7"),
        case("id-only block applies to later events", "id: 7\n\ndata: x\n\n", &[ev("message", "x", "7")]).last_id("7"),
        case("last id field in block wins", "id: 1\nid: 2\ndata: x\n\n", &[ev("message", "x", "2")]).last_id("2"),
        case("id after data in block", "data: x\nid: 5\n\n", &[ev("message", "x", "5")]).last_id("5"),
        case("id keeps inner spaces", "id:  a b \ndata: x\n\n", &[ev("message", "x", " a b ")]).last_id(" a b "),
        case("id applies from its block on", "data: a\n\nid: 2\ndata: b\n\n", &[msg("a"), ev("message", "b", "2")]).last_id("2"),
        case("id in unterminated block discarded", "data: a\n\nid: 9\n", &[msg("a")]),
        case("id in unterminated block, flushed", "data: a\n\nid: 9\n", &[msg("a")]).flush().last_id("9"),
        // --- retry ---------------------------------------------------------------------------
        case("retry sets reconnection time", "retry: 1000\n", &[]).retry(1000),
        case("retry without space", "retry:1000\n", &[]).retry(1000),
        case("retry zero", "retry: 0\n", &[]).retry(0),
        case("retry leading zeros", "retry: 007\n", &[]).retry(7),
        case("retry with letter ignored", "retry: 10a\n", &[]),
        case("retry with extra leading space ignored", "retry:  1000\n", &[]),
        case("retry with trailing space ignored", "retry: 1000 \n", &[]),
        case("retry negative ignored", "retry: -1\n", &[]),
        case("retry plus sign ignored", "retry: +5\n", &[]),
        case("retry decimal ignored", "retry: 1.5\n", &[]),
        case("retry empty ignored", "retry:\nretry\n", &[]),
        case("retry non-ASCII digits ignored", "retry: １２\n", &[]),
        case("retry last valid wins", "retry: 100\nretry: 200\nretry: x\n", &[]).retry(200),
        case("retry u64::MAX", "retry: 18446744073709551615\n", &[]).retry(u64::MAX),
        // Documented choice: values past u64::MAX saturate.
        case("retry overflow saturates", "retry: 18446744073709551616\n", &[]).retry(u64::MAX),
        case("retry huge saturates", "retry: 99999999999999999999999999999\n", &[]).retry(u64::MAX),
        case("retry does not dispatch", "retry: 10\n\n", &[]).retry(10),
        case("retry applies without blank line", "retry: 10\ndata: x\n", &[]).retry(10),
        case("retry on unterminated line discarded", "retry: 10", &[]),
        case("retry on unterminated line, flushed", "retry: 10", &[]).flush().retry(10),
        case("retry alongside data", "data: x\nretry: 5\n\n", &[msg("x")]).retry(5),
        // --- blocks without data -------------------------------------------------------------
        case("block with event and id only", "event: e\nid: 3\n\n", &[]).last_id("3"),
        // --- finish() ------------------------------------------------------------------------
        case("unterminated block discarded", "data: a\n", &[]),
        case("unterminated line discarded", "data: a", &[]),
        case("unterminated after complete event", "data: a\n\ndata: b", &[msg("a")]),
        case("flush: unterminated block", "data: a\n", &[msg("a")]).flush(),
        case("flush: unterminated line", "data: a", &[msg("a")]).flush(),
        case("flush: line ended by CR", "data: a\r", &[msg("a")]).flush(),
        case("flush: nothing pending", "data: a\n\n", &[msg("a")]).flush(),
        case("flush: empty input", "", &[]).flush(),
        case("flush: after complete event", "data: a\n\ndata: b", &[msg("a"), msg("b")]).flush(),
        case("flush: type and id", "event: e\nid: 3\ndata: a", &[ev("e", "a", "3")]).flush().last_id("3"),
        // --- a new stream after finish() (reconnection) ----------------------------------------
        case("new stream: bom stripped again", "\u{FEFF}data: b\n\n", &[msg("a"), msg("b")]).after_stream("\u{FEFF}data: a\n\n"),
        case("new stream: last event id persists", "data: b\n\n", &[ev("message", "a", "5"), ev("message", "b", "5")])
            .after_stream("id: 5\ndata: a\n\n")
            .last_id("5"),
        case("new stream: retry persists", "data: b\n\n", &[msg("b")]).after_stream("retry: 300\n").retry(300),
        case("new stream: pending data and type discarded", "data: b\n\n", &[msg("b")]).after_stream("event: e\ndata: a\n"),
        case("new stream: partial line discarded", "data: b\n\n", &[msg("b")]).after_stream("data: a"),
        case("new stream: CR then LF across streams", "\ndata: b\n\n", &[msg("b")]).after_stream("data: a\r"),
        case("new stream: pending id discarded", "data: b\n\n", &[msg("a"), msg("b")]).after_stream("data: a\n\nid: 9\n"),
        case("new stream: pending id does not surface at next blank line", "\n", &[]).after_stream("id: 9\n"),
        case("new stream: error offset counts from stream start", "data: 0123456789A\n", &[msg("a")])
            .after_stream("data: a\n\n")
            .caps(16, 32)
            .error(16),
        case("new stream: flushed id kept", "data: b\n\n", &[ev("message", "b", "9")])
            .after_stream("id: 9\n")
            .flush()
            .last_id("9"),
        // --- caps (line 16 bytes, event 32 bytes) --------------------------------------------
        case("line of exactly max_line_bytes", "data: 0123456789\n\n", &[msg("0123456789")]).caps(16, 32),
        case("line of max_line_bytes, CRLF", "data: 0123456789\r\n\r\n", &[msg("0123456789")]).caps(16, 32),
        case("line of max_line_bytes, CR", "data: 0123456789\r\r", &[msg("0123456789")]).caps(16, 32),
        case("line of max_line_bytes after bom", "\u{FEFF}data: 0123456789\n\n", &[msg("0123456789")]).caps(16, 32),
        case("line one byte too long", "data: 0123456789A\n\n", &[]).caps(16, 32).error(16),
        case("line too long after bom", "\u{FEFF}data: 0123456789A\n\n", &[]).caps(16, 32).error(19),
        case("comment line too long", ":0123456789ABCDEF\n\n", &[]).caps(16, 32).error(16),
        case("line too long: earlier events kept", "data: a\n\ndata: 0123456789ABCDEF\n\n", &[msg("a")]).caps(16, 32).error(25),
        case("line too long, unterminated", "data: a\n\nxxxxxxxxxxxxxxxxxxxx", &[msg("a")]).caps(16, 32).error(25),
        case("line too long after CRLF", "data: a\r\n\r\ndata: 0123456789ABCDEF", &[msg("a")]).caps(16, 32).error(27),
        case("line too long after CR", "data: a\r\rdata: 0123456789ABCDEF\r\r", &[msg("a")]).caps(16, 32).error(25),
        case("line too long after partial bom", b"\xEF\xBBxxxxxxxxxxxxxxxx", &[]).caps(16, 32).error(16),
        // Caps and offsets count UTF-8 bytes, whatever form the text arrives in.
        case("line cap counts UTF-8 bytes", "data: \u{e9}\u{20ac}\u{1F600}x\n\n", &[msg("\u{e9}\u{20ac}\u{1F600}x")])
            .caps(16, 32),
        case("line over the cap by UTF-8 bytes", "data: \u{e9}\u{20ac}\u{1F600}xy\n\n", &[]).caps(16, 32).error(16),
        case("offset after multi-byte text", "data: \u{1F600}\n\ndata: 0123456789A\n\n", &[msg("\u{1F600}")])
            .caps(16, 32)
            .error(28),
        case(
            "event cap counts UTF-8 bytes",
            "data: \u{20ac}\u{20ac}\u{20ac}\u{20ac}\u{20ac}\ndata: \u{20ac}\u{20ac}\u{20ac}\u{20ac}\u{20ac}\n\n",
            &[msg("\u{20ac}\u{20ac}\u{20ac}\u{20ac}\u{20ac}\n\u{20ac}\u{20ac}\u{20ac}\u{20ac}\u{20ac}")],
        )
        .caps(64, 32),
        case(
            "event over the cap by UTF-8 bytes",
            "data: \u{20ac}\u{20ac}\u{20ac}\u{20ac}\u{20ac}\ndata: \u{20ac}\u{20ac}\u{20ac}\u{20ac}\u{20ac}\ndata: \u{20ac}\n\n",
            &[],
        )
        .caps(64, 32)
        .error(44),
        // The event cap counts the data buffer: each data line's value plus its LF.
        case(
            "event data of exactly max_event_bytes",
            "data: 0123456789\ndata: 0123456789\ndata: 012345678\n\n",
            &[msg("0123456789\n0123456789\n012345678")],
        )
        .caps(16, 32),
        case(
            "event data exactly at the cap",
            "data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\n",
            &[msg("0123456789\n0123456789\n0123456789")],
        )
        .caps(16, 32),
        case("event data one byte too long", "data: 0123456789\ndata: 0123456789\ndata: 01234567890\n\n", &[])
            .caps(20, 32)
            .error(34),
        // A frame over a cap is never dispatched: an `id` it gave before the line that broke
        // the cap does not take effect (it stays the decoder's `pending_id`).
        case(
            "id before the line over the event cap is pending",
            "id: 1\ndata: a\n\nid: 2\ndata: 0123456789\ndata: 0123456789\ndata: 01234567890\n\n",
            &[("message", "a", "1")],
        )
        .caps(20, 32)
        .last_id("1")
        .pending("2")
        .error(55),
        case("id before a line over the line cap is pending", "id: 7\ndata: 012345678901234567890123\n\n", &[])
            .caps(20, 1024)
            .pending("7")
            .error(26),
        case(
            "a frame over the cap without an id keeps the last one",
            "id: 1\ndata: a\n\ndata: 0123456789\ndata: 0123456789\ndata: 01234567890\n\n",
            &[("message", "a", "1")],
        )
        .caps(20, 32)
        .last_id("1")
        .error(49),
        case(
            "event too long: earlier events kept",
            "data: a\n\ndata: 0123456789\ndata: 0123456789\ndata: 01234567890\n\n",
            &[msg("a")],
        )
        .caps(20, 32)
        .error(43),
        case(
            "event cap is per event",
            "data: 0123456789\ndata: 0123456789\n\ndata: 0123456789\ndata: 0123456789\n\n",
            &[msg("0123456789\n0123456789"), msg("0123456789\n0123456789")],
        )
        .caps(16, 32),
        case("event cap counts empty data lines", leak("data\n".repeat(33) + "\n"), &[msg(leak("\n".repeat(32)))]).caps(16, 32),
        case("event cap counts empty data lines: one too many", leak("data\n".repeat(34) + "\n"), &[]).caps(16, 32).error(165),
        case("event cap hit by flushed line", "data: 0123456789\ndata: 0123456789", &[]).caps(16, 20).flush().error(17),
        case("event cap: unflushed partial line not processed", "data: 0123456789\ndata: 0123456789", &[]).caps(16, 20),
        case(
            "default caps accept a long line",
            leak(format!("data: {}\n\n", "x".repeat(100_000))),
            &[msg(leak("x".repeat(100_000)))],
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn conformance_table() {
    let cases = cases();
    assert!(cases.len() >= 80, "only {} cases", cases.len());
    let mut names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names must be unique");

    let failed: Vec<&str> =
        cases.iter().filter(|c| catch_unwind(AssertUnwindSafe(|| check_case(c))).is_err()).map(|c| c.name).collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed (STREAMROUTE_SEED={}): {failed:#?}",
        failed.len(),
        cases.len(),
        common::seed()
    );
}

/// A lone CR ends its line at once: the blank line of `\r\r` dispatches within the same
/// `feed` call, without waiting for a possible LF or for `finish`.
#[test]
fn lone_cr_dispatches_without_waiting() {
    for input in [&b"data: x\r\r"[..], b"data: x\r\n\r", b"data: x\n\r"] {
        let mut dec = SseDecoder::default();
        let mut out = Vec::new();
        dec.feed(input, &mut out).unwrap();
        assert_eq!(out, [SseEvent { event: "message".into(), data: "x".into(), id: String::new() }], "{input:?}");
        // A following LF belongs to the CR and changes nothing.
        dec.feed(b"\n", &mut out).unwrap();
        dec.finish(&mut out).unwrap();
        assert_eq!(out.len(), 1, "{input:?}");
    }
}

/// The crate-level doc example, chunk for chunk.
#[test]
fn doc_example_multi_chunk() {
    let mut decoder = SseDecoder::new(SseDecoderOptions::default());
    let mut events = Vec::new();
    decoder.feed(b"event: greet\ndata: hel", &mut events).unwrap();
    assert!(events.is_empty());
    decoder.feed(b"lo\r\n\r\n", &mut events).unwrap();
    assert_eq!(events, [SseEvent { event: "greet".into(), data: "hello".into(), id: String::new() }]);
}

#[test]
fn defaults() {
    let opts = SseDecoderOptions::default();
    assert!(!opts.flush_on_finish);
    assert_eq!(opts.max_line_bytes, 1 << 20);
    assert_eq!(opts.max_event_bytes, 8 << 20);
    let dec = SseDecoder::default();
    assert_eq!(dec.last_event_id(), "");
    assert_eq!(dec.retry(), None);
}

/// Events are handed out as soon as their blank line arrives, not at `finish`.
#[test]
fn events_are_returned_by_the_feed_that_completes_them() {
    let mut dec = SseDecoder::default();
    let mut out = Vec::new();
    dec.feed(b"data: a\n", &mut out).unwrap();
    assert!(out.is_empty());
    dec.feed(b"\ndata: b\n", &mut out).unwrap();
    assert_eq!(out.len(), 1);
    dec.feed(b"\n", &mut out).unwrap();
    assert_eq!(out.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// Random streams against a plain model of the standard
// ---------------------------------------------------------------------------------------------

/// The standard's algorithm written as plainly as possible over the whole input (decode,
/// strip one BOM, split into lines, process each line), with none of the decoder's streaming
/// machinery. An unterminated last line and block are discarded; with `flush` the line is
/// processed and the block dispatched.
fn model(input: &[u8], flush: bool) -> Outcome {
    let text = String::from_utf8_lossy(input);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let mut lines: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(p) = rest.find(['\r', '\n']) {
        lines.push(&rest[..p]);
        let skip = if rest[p..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[p + skip..];
    }
    let tail = (flush && !rest.is_empty()).then_some(rest);
    let (mut data, mut event_type, mut id_buffer) = (String::new(), String::new(), String::new());
    let (mut last_event_id, mut retry, mut events) = (String::new(), None, Vec::new());
    let mut dispatch = |data: &mut String, event_type: &mut String, id_buffer: &String, last: &mut String| {
        *last = id_buffer.clone();
        if !data.is_empty() {
            data.pop();
            let event = if event_type.is_empty() { "message".to_string() } else { event_type.clone() };
            events.push(SseEvent { event, data: data.clone(), id: last.clone() });
        }
        data.clear();
        event_type.clear();
    };
    for line in lines.iter().copied().chain(tail) {
        if line.is_empty() {
            dispatch(&mut data, &mut event_type, &id_buffer, &mut last_event_id);
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (name, value) = match line.split_once(':') {
            Some((n, v)) => (n, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match name {
            "event" => event_type = value.to_string(),
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "id" if !value.contains('\0') => id_buffer = value.to_string(),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                retry = value.parse::<u64>().ok().or(Some(u64::MAX));
            }
            _ => {}
        }
    }
    if flush {
        dispatch(&mut data, &mut event_type, &id_buffer, &mut last_event_id);
    }
    Outcome { events, last_event_id, pending_id: None, retry, error: None }
}

/// A random stream made of the pieces the standard's rules turn on: field names with and
/// without colons and spaces, every line ending, comments, NUL, partial and whole BOMs,
/// multi-byte and invalid UTF-8, digits for `retry`.
fn random_stream(rng: &mut common::Rng) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"data",
        b"data:",
        b"data: ",
        b"event:",
        b"event: ",
        b"id:",
        b"id: ",
        b"retry:",
        b"retry: ",
        b":",
        b": comment",
        b" ",
        b"  ",
        b"\n",
        b"\r",
        b"\r\n",
        b"\n\n",
        b"\r\r",
        b"x",
        b"hello",
        b"12",
        b"0",
        b"7a",
        b"\0",
        "é".as_bytes(),
        "😀".as_bytes(),
        b"\xF0\x9F",
        b"\x80",
        b"\xFF",
        b"\xEF\xBB\xBF",
        b"\xEF\xBB",
        b"Data:",
        b"dat",
        b"a:",
        b"ping",
        b"message",
    ];
    let mut out = Vec::new();
    if rng.below(4) == 0 {
        out.extend_from_slice(if rng.below(2) == 0 { b"\xEF\xBB\xBF" } else { b"\xEF\xBB" });
    }
    for _ in 0..rng.below(40) {
        out.extend_from_slice(PIECES[rng.below(PIECES.len())]);
    }
    out
}

#[test]
fn random_streams_match_a_plain_model_of_the_standard() {
    let mut rng = common::Rng::new(common::seed());
    for n in 0..2000 {
        let input = random_stream(&mut rng);
        for flush in [false, true] {
            let opts = SseDecoderOptions { flush_on_finish: flush, ..SseDecoderOptions::default() };
            let name = format!("random stream #{n} (flush {flush})");
            let got = assert_chunk_invariant(&name, &input, |chunks| run(opts, None, chunks));
            assert_text_chunkings(&name, &input, opts, None, &got);
            let want = model(&input, flush);
            assert_eq!(
                got,
                want,
                "{name}: decoder and model differ on {:?} (STREAMROUTE_SEED={})",
                String::from_utf8_lossy(&input),
                common::seed()
            );
        }
    }
}

/// `feed_utf16le` declines (reads nothing, returns `false`) a chunk with a lone surrogate and
/// a chunk after a byte order mark begun by bytes; fed as UTF-8 instead, the outcome is the
/// bytes' outcome.
#[test]
fn utf16_chunks_it_declines() {
    let units = |s: &[u16]| -> Vec<u8> { s.iter().flat_map(|u| u.to_le_bytes()).collect() };
    let mut dec = SseDecoder::default();
    let mut out = Vec::new();
    let lone: Vec<u16> = "data: a".encode_utf16().chain([0xD800]).chain("\n\n".encode_utf16()).collect();
    assert_eq!(dec.feed_utf16le(&units(&lone), &mut out), Ok(false));
    assert!(out.is_empty());
    dec.feed("data: a\u{FFFD}\n\n".as_bytes(), &mut out).unwrap();
    assert_eq!(out, vec![SseEvent { event: "message".into(), data: "a\u{FFFD}".into(), id: String::new() }]);

    let mut dec = SseDecoder::default();
    let mut out = Vec::new();
    dec.feed(b"\xEF\xBB", &mut out).unwrap();
    let text: Vec<u16> = "data: b\n\ndata: c\n\n".encode_utf16().collect();
    assert_eq!(dec.feed_utf16le(&units(&text), &mut out), Ok(false));
    dec.feed("data: b\n\ndata: c\n\n".as_bytes(), &mut out).unwrap();
    // The held bytes were not a byte order mark: they start the first line, whose field name
    // is then not `data`.
    assert_eq!(out, vec![SseEvent { event: "message".into(), data: "c".into(), id: String::new() }]);
    // Once past the start, text is read as UTF-16 again.
    assert_eq!(dec.feed_utf16le(&units(&"data: d\n\n".encode_utf16().collect::<Vec<_>>()), &mut out), Ok(true));
    assert_eq!(out.len(), 2);
}
