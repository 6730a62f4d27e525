//! `PartialJson`: one JSON document read as it arrives, reported as path events.
//!
//! Advice for hackers: the tokenizer does all the lexing; this file is the one machine that
//! turns its tokens into `begin` / `append` / `set` / `end` events at paths and keeps the
//! partial tree that [`PartialJson::value`] snapshots (with feature `json`: the client
//! entry's build keeps no tree, and its JS folds the events into the value, which they
//! describe completely). Invariants:
//! - Nothing is reported that a later byte could change or remove. The tokenizer already
//!   reports keys, numbers and literals only complete and escapes only once decodable; here a
//!   key only extends the path (no event) until its value begins, and the open string's text
//!   is reported as it arrives, never re-sent (its full text comes once, in the `set`).
//! - The open string lives in one buffer (`Doc::text`); `Doc::reported` is how much of it was
//!   already sent, so the `append`s of one `feed` for one string coalesce into one, and the
//!   string enters the tree (a `ValueBuilder`) once, when it closes.
//! - Memory is charged (`max_buffer_bytes`): string, key and number bytes plus a fixed cost
//!   per value and per member. The tokenizer is fed in slices small enough that the cap can
//!   only be crossed inside a one-byte slice (see [`feed_metered`]), so the error offset is
//!   the exact byte whatever the chunking. The item stream shares this helper.
//! - `same` (the length of the path prefix unchanged since the last event) is tracked as the
//!   path changes, so a binding can send only the changed part of a path, in constant time.

use super::keys::FirstKeys;
use super::tokenizer::{AfterValue, Sink, Token, Tokenizer, TokenizerOptions};
use super::value::JsonValue;
#[cfg(feature = "json")]
use super::value::ValueBuilder;
use crate::budget::{out_of_memory, try_push, try_push_str, try_to_string};
use crate::{Error, ErrorKind, Result};

/// One step of a path from the root of a JSON document.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// An object member, by key.
    Key(String),
    /// An array element, by index (from 0).
    Index(usize),
}

/// What a [`JsonEvent::Begin`] opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// An object (`{`).
    Object,
    /// An array (`[`).
    Array,
    /// A string (`"`); its text follows in `Append` events.
    String,
}

impl ValueKind {
    /// `"object"`, `"array"` or `"string"`, as in the JS events.
    pub const fn name(self) -> &'static str {
        match self {
            ValueKind::Object => "object",
            ValueKind::Array => "array",
            ValueKind::String => "string",
        }
    }
}

/// What changed in the document, at a path (`[]` is the root).
///
/// A string gives `Begin`, `Append`*, `Set` (the whole string), `End`; a number or literal
/// gives `Set`, `End`; a container gives `Begin`, its members' events, `End`. Every value
/// reported is final: no later byte changes or removes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonEvent {
    /// An object, array or string value begins.
    Begin {
        /// Where.
        path: Vec<PathSegment>,
        /// What it is.
        kind: ValueKind,
    },
    /// More text of the open string at `path` (never empty, never repeated).
    Append {
        /// Where.
        path: Vec<PathSegment>,
        /// The new text.
        text: String,
    },
    /// A complete leaf: a number, `true`, `false`, `null` or a whole string.
    Set {
        /// Where.
        path: Vec<PathSegment>,
        /// The value.
        value: JsonValue,
    },
    /// The value at `path` is complete.
    End {
        /// Where.
        path: Vec<PathSegment>,
    },
}

impl JsonEvent {
    /// The path of the event.
    pub fn path(&self) -> &[PathSegment] {
        match self {
            JsonEvent::Begin { path, .. }
            | JsonEvent::Append { path, .. }
            | JsonEvent::Set { path, .. }
            | JsonEvent::End { path } => path,
        }
    }
}

/// Options of [`PartialJson`].
#[derive(Debug, Clone, Copy)]
pub struct PartialJsonOptions {
    /// Accept exactly RFC 8259 JSON (default). When false, raw control characters in
    /// strings, unknown escapes and invalid UTF-8 are tolerated (as models sometimes write).
    pub strict: bool,
    /// The deepest nesting of objects and arrays (default 512, at most 1024).
    pub max_depth: usize,
    /// The most bytes the partial tree may hold (default 64 MiB): string and number bytes,
    /// key bytes twice, 32 bytes per value and 64 per object member. A pending key or number is
    /// also capped, at the smaller of this and 1 MiB.
    pub max_buffer_bytes: usize,
}

impl Default for PartialJsonOptions {
    fn default() -> Self {
        PartialJsonOptions { strict: true, max_depth: 512, max_buffer_bytes: 64 << 20 }
    }
}

/// The largest accepted `max_depth`: deeper trees would risk the stack when dropped or
/// printed (a wasm stack is 1 MiB).
pub(crate) const MAX_DEPTH: usize = 1024;

/// Tokenizer options for a JSON-reading machine with these limits.
pub(crate) fn tokenizer_options(strict: bool, max_depth: usize, max_bytes: usize, after_value: AfterValue) -> TokenizerOptions {
    TokenizerOptions {
        strict,
        max_depth: max_depth.min(MAX_DEPTH),
        max_token_bytes: max_bytes.clamp(1, 1 << 20),
        after_value,
        raw_text: false,
    }
}

// ---- Memory charge, shared with the item stream ------------------------------------------

/// Charge per value (object, array, string, number, literal) held in a tree.
const NODE_COST: usize = 32;
/// Charge per object member, besides its key's bytes, which count twice: the member (key and
/// value slot) and its entry in the open object's first-key table, which keeps a copy of the
/// key (bench/README.md, "Measurements behind design choices").
const MEMBER_COST: usize = 64;
/// More than one input byte can add to a charge, beyond the bytes the tokenizer already
/// holds (a pending key or number): at most two values (a number ended by the start of the
/// next value, in `AfterValue::Another` mode) or a value and a few decoded characters.
const MAX_COST_PER_BYTE: usize = 128;

/// What holding `tok` costs.
pub(crate) fn cost(tok: &Token<'_>) -> usize {
    match *tok {
        Token::ObjectStart | Token::ArrayStart | Token::StringStart => NODE_COST,
        Token::Bool(_) | Token::Null => NODE_COST,
        Token::Number(n) => NODE_COST + n.len(),
        Token::Key(k) => MEMBER_COST + 2 * k.len(),
        Token::StringPart(t) => t.len(),
        Token::ObjectEnd | Token::ArrayEnd | Token::StringEnd => 0,
    }
}

/// A sink whose held bytes are capped.
pub(crate) trait Metered: Sink {
    /// Bytes it may still take before its cap.
    fn room(&self) -> usize;
    /// True once it refused a token for its cap (that error has no offset yet).
    fn over_cap(&self) -> bool;
}

/// Feeds `chunk` to `tok` in slices short enough that `sink` cannot pass its cap inside a
/// slice of more than one byte: far from the cap that is one slice, near it one byte at a
/// time. A cap error thus gets the exact offset of the byte that crossed it, the same for
/// every chunking.
pub(crate) fn feed_metered(tok: &mut Tokenizer, chunk: &[u8], sink: &mut impl Metered) -> Result<()> {
    let mut rest = chunk;
    while !rest.is_empty() {
        let budget = sink.room().saturating_sub(tok.buffered());
        let n = (budget / MAX_COST_PER_BYTE).clamp(1, rest.len());
        let at = tok.position();
        if let Err(e) = tok.feed(&rest[..n], sink) {
            if sink.over_cap() {
                debug_assert_eq!(n, 1, "a cap was crossed inside a slice of {n} bytes");
                return Err(e.at(at));
            }
            return Err(e);
        }
        rest = &rest[n..];
    }
    Ok(())
}

/// Ends the input of a metered machine (a cap error gets the end offset).
pub(crate) fn finish_metered(tok: &mut Tokenizer, sink: &mut impl Metered) -> Result<()> {
    tok.finish(sink).map_err(|e| if sink.over_cap() { e.at(tok.position()) } else { e })
}

/// The error a sink returns when a token would pass its cap (offset added by the feeder).
pub(crate) fn cap_error(what: &str, cap: usize, option: &str) -> Error {
    Error::new(ErrorKind::BufferLimitExceeded, format!("{what} more than {cap} bytes ({option})"))
}

// ---- Events as the machine produces them ---------------------------------------------------

/// A complete leaf, borrowed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Leaf<'a> {
    String(&'a str),
    Number(&'a str),
    Bool(bool),
    Null,
}

/// An event, borrowed (the path comes alongside).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event<'a> {
    Begin(ValueKind),
    Append(&'a str),
    Set(Leaf<'a>),
    End,
}

/// Receives events. `same` is how many leading segments of `path` are those of the path of
/// the previous event given to this sink (0 for the first event), so a sink can send only the
/// changed tail of the path.
pub(crate) trait EventSink {
    /// # Errors
    /// `memory_limit_exceeded` when the sink cannot grow.
    fn event(&mut self, path: &[PathSegment], same: usize, ev: Event<'_>) -> Result<()>;
}

impl EventSink for Vec<JsonEvent> {
    fn event(&mut self, path: &[PathSegment], _same: usize, ev: Event<'_>) -> Result<()> {
        let path = try_clone_path(path)?;
        let ev = match ev {
            Event::Begin(kind) => JsonEvent::Begin { path, kind },
            Event::Append(t) => JsonEvent::Append { path, text: try_to_string(t)? },
            Event::Set(leaf) => JsonEvent::Set {
                path,
                value: match leaf {
                    Leaf::String(s) => JsonValue::String(try_to_string(s)?),
                    Leaf::Number(n) => JsonValue::Number(try_to_string(n)?),
                    Leaf::Bool(b) => JsonValue::Bool(b),
                    Leaf::Null => JsonValue::Null,
                },
            },
            Event::End => JsonEvent::End { path },
        };
        try_push(self, ev)
    }
}

/// A copy of `path`, or `memory_limit_exceeded`.
pub(crate) fn try_clone_path(path: &[PathSegment]) -> Result<Vec<PathSegment>> {
    let mut v = Vec::new();
    v.try_reserve_exact(path.len()).map_err(|_| out_of_memory(std::mem::size_of_val(path)))?;
    for seg in path {
        v.push(match seg {
            PathSegment::Key(k) => PathSegment::Key(try_to_string(k)?),
            PathSegment::Index(i) => PathSegment::Index(*i),
        });
    }
    Ok(v)
}

// ---- The machine -----------------------------------------------------------------------

/// An open container.
#[derive(Debug, Clone, Copy)]
enum Frame {
    Object,
    /// An array and the index of its next element.
    Array(usize),
}

/// Everything but the tokenizer: the tree, the path and the open string.
#[derive(Debug, Clone)]
struct Doc {
    /// A repeated key and its value are dropped before anything is reported (first wins).
    keys: FirstKeys,
    #[cfg(feature = "json")]
    tree: ValueBuilder,
    /// The top-level value ended.
    ended: bool,
    /// The open string value's text so far (the tree gets it when it closes).
    text: String,
    in_string: bool,
    /// Bytes of `text` already sent in `append`s.
    reported: usize,
    /// The path of the value being read (an object's key is on it once read).
    path: Vec<PathSegment>,
    frames: Vec<Frame>,
    /// Leading segments of `path` unchanged since the last event.
    same: usize,
    held: usize,
    cap: usize,
    over: bool,
}

/// Sends one event; the path is unchanged until the next push or pop.
fn emit(out: &mut impl EventSink, path: &[PathSegment], same: &mut usize, ev: Event<'_>) -> Result<()> {
    out.event(path, *same, ev)?;
    *same = path.len();
    Ok(())
}

impl Doc {
    fn push(&mut self, seg: PathSegment) -> Result<()> {
        self.same = self.same.min(self.path.len());
        try_push(&mut self.path, seg)
    }

    fn pop(&mut self) {
        self.path.pop();
        self.same = self.same.min(self.path.len());
    }

    /// A value begins: an array element gets its index on the path.
    fn child_begins(&mut self) -> Result<()> {
        if let Some(Frame::Array(i)) = self.frames.last() {
            let i = *i;
            self.push(PathSegment::Index(i))?;
        }
        Ok(())
    }

    /// A value ended: its segment leaves the path.
    fn child_ends(&mut self) {
        match self.frames.last_mut() {
            Some(Frame::Array(i)) => {
                *i += 1;
                self.pop();
            }
            Some(Frame::Object) => self.pop(),
            None => self.ended = true,
        }
    }

    /// The tree gets `tok` (builds without one: nothing).
    #[inline]
    fn build(&mut self, tok: Token<'_>) -> Result<()> {
        #[cfg(feature = "json")]
        self.tree.token(tok, 0)?;
        #[cfg(not(feature = "json"))]
        let _ = tok;
        Ok(())
    }

    fn emit(&mut self, out: &mut impl EventSink, ev: Event<'_>) -> Result<()> {
        emit(out, &self.path, &mut self.same, ev)
    }

    /// Sends the open string's text not sent yet.
    fn flush_append(&mut self, out: &mut impl EventSink) -> Result<()> {
        if self.in_string && self.reported < self.text.len() {
            emit(out, &self.path, &mut self.same, Event::Append(crate::text::sub(&self.text, self.reported..)))?;
            self.reported = self.text.len();
        }
        Ok(())
    }

    fn leaf(&mut self, out: &mut impl EventSink, tok: Token<'_>, leaf: Leaf<'_>) -> Result<()> {
        self.child_begins()?;
        self.emit(out, Event::Set(leaf))?;
        self.emit(out, Event::End)?;
        self.build(tok)?;
        self.child_ends();
        Ok(())
    }

    fn token(&mut self, tok: Token<'_>, out: &mut impl EventSink) -> Result<()> {
        if !self.keys.admit(&tok)? {
            return Ok(());
        }
        let c = cost(&tok);
        if c > self.cap - self.held {
            self.over = true;
            return Err(cap_error("the JSON document holds", self.cap, "maxBufferBytes"));
        }
        self.held += c;
        match tok {
            Token::ObjectStart | Token::ArrayStart => {
                let object = tok == Token::ObjectStart;
                self.child_begins()?;
                self.emit(out, Event::Begin(if object { ValueKind::Object } else { ValueKind::Array }))?;
                try_push(&mut self.frames, if object { Frame::Object } else { Frame::Array(0) })?;
                self.build(tok)?;
            }
            Token::ObjectEnd | Token::ArrayEnd => {
                self.frames.pop();
                self.build(tok)?;
                self.emit(out, Event::End)?;
                self.child_ends();
            }
            Token::Key(k) => {
                self.build(tok)?;
                self.push(PathSegment::Key(try_to_string(k)?))?;
            }
            Token::StringStart => {
                self.child_begins()?;
                self.text.clear();
                self.reported = 0;
                self.in_string = true;
                self.emit(out, Event::Begin(ValueKind::String))?;
            }
            Token::StringPart(t) => try_push_str(&mut self.text, t)?,
            Token::StringEnd => {
                self.flush_append(out)?;
                emit(out, &self.path, &mut self.same, Event::Set(Leaf::String(&self.text)))?;
                self.emit(out, Event::End)?;
                #[cfg(feature = "json")]
                {
                    self.tree.token(Token::StringStart, 0)?;
                    self.tree.token(Token::StringPart(&self.text), 0)?;
                    self.tree.token(Token::StringEnd, 0)?;
                }
                self.text.clear();
                self.in_string = false;
                self.child_ends();
            }
            Token::Number(n) => self.leaf(out, tok, Leaf::Number(n))?,
            Token::Bool(b) => self.leaf(out, tok, Leaf::Bool(b))?,
            Token::Null => self.leaf(out, tok, Leaf::Null)?,
        }
        Ok(())
    }

    /// The tree with the open string (if any) in its place.
    #[cfg(feature = "json")]
    fn snapshot(&self) -> Option<JsonValue> {
        if let Some(v) = self.tree.done.first() {
            return Some(v.clone());
        }
        let mut root = self.tree.snapshot();
        if !self.in_string {
            return root;
        }
        let s = JsonValue::String(self.text.clone());
        let Some(mut node) = root.as_mut() else { return Some(s) };
        // Every open container is the last child of the one around it.
        for _ in 1..self.frames.len() {
            node = match node {
                JsonValue::Array(items) => items.last_mut(),
                JsonValue::Object(members) => members.last_mut().map(|(_, v)| v),
                _ => None,
            }?;
        }
        match (node, self.path.last()) {
            (JsonValue::Array(items), _) => items.push(s),
            (JsonValue::Object(members), Some(PathSegment::Key(k))) => members.push((k.clone(), s)),
            _ => {}
        }
        root
    }
}

/// The tokenizer's sink for one call: the document plus where its events go.
struct Run<'a, E> {
    doc: &'a mut Doc,
    out: &'a mut E,
}

impl<E: EventSink> Sink for Run<'_, E> {
    fn token(&mut self, tok: Token<'_>, _depth: usize) -> Result<()> {
        self.doc.token(tok, self.out)
    }
}

impl<E: EventSink> Metered for Run<'_, E> {
    fn room(&self) -> usize {
        self.doc.cap - self.doc.held
    }
    fn over_cap(&self) -> bool {
        self.doc.over
    }
}

/// Where a streaming JSON machine (`PartialJson`, `JsonItemStream`) is in its life.
#[derive(Debug, Clone)]
pub(crate) enum Phase {
    Reading,
    Finished,
    Failed(Error),
}

/// The incremental parser for one JSON document that arrives in pieces (tool-call arguments,
/// structured output): each `feed` reports what changed as [`JsonEvent`]s, and
/// [`value`](Self::value) gives the partial value at any time.
///
/// ```
/// use streamroute::{JsonEvent, JsonValue, PartialJson, PartialJsonOptions, PathSegment};
///
/// let mut p = PartialJson::new(PartialJsonOptions::default());
/// let mut events = Vec::new();
/// p.feed(br#"{"city": "Par"#, &mut events).unwrap();
/// let city = vec![PathSegment::Key("city".into())];
/// assert_eq!(events.last(), Some(&JsonEvent::Append { path: city, text: "Par".into() }));
/// assert_eq!(p.value().unwrap().to_json(), r#"{"city":"Par"}"#);
/// p.feed(br#"is", "days": 3}"#, &mut events).unwrap();
/// let v = p.finish(&mut events).unwrap();
/// assert_eq!(v.get("days"), Some(&JsonValue::Number("3".into())));
/// ```
#[derive(Debug, Clone)]
pub struct PartialJson {
    tokenizer: Tokenizer,
    doc: Doc,
    phase: Phase,
}

impl PartialJson {
    /// A parser with these options (`max_depth` is clamped to 1024).
    pub fn new(opts: PartialJsonOptions) -> Self {
        let cap = opts.max_buffer_bytes;
        PartialJson {
            tokenizer: Tokenizer::new(tokenizer_options(opts.strict, opts.max_depth, cap, AfterValue::End)),
            doc: Doc {
                keys: FirstKeys::default(),
                #[cfg(feature = "json")]
                tree: ValueBuilder::prefiltered(),
                ended: false,
                text: String::new(),
                in_string: false,
                reported: 0,
                path: Vec::new(),
                frames: Vec::new(),
                same: 0,
                held: 0,
                cap,
                over: false,
            },
            phase: Phase::Reading,
        }
    }

    /// Reads `chunk` and appends the events it caused to `out` (the `append`s of one call for
    /// one string come as one event).
    ///
    /// # Errors
    /// `json_invalid` (strict mode) and `json_too_deep` with the offending byte's offset;
    /// `buffer_limit_exceeded` when the tree or a pending key or number passes its cap;
    /// `invalid_state` after [`finish`](Self::finish). The events before the error are in
    /// `out`; every later call repeats the error.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<JsonEvent>) -> Result<()> {
        self.step_with(chunk, false, out)
    }

    /// Ends the document: returns the complete value and appends the last events to `out`
    /// (a top-level number completes only here).
    ///
    /// # Errors
    /// `json_invalid` with the end offset when the input ended inside the value or held
    /// none; the errors of [`feed`](Self::feed).
    #[cfg(feature = "json")]
    pub fn finish(&mut self, out: &mut Vec<JsonEvent>) -> Result<JsonValue> {
        self.finish_with(out)?;
        Ok(self.doc.tree.done.first().cloned().unwrap_or(JsonValue::Null))
    }

    /// The value read so far, closed where it is open: strings as read so far, containers
    /// with the members read so far, keys without a value and unfinished numbers and
    /// literals left out. `None` before a value begins. Built on every call.
    #[cfg(feature = "json")]
    pub fn value(&self) -> Option<JsonValue> {
        self.doc.snapshot()
    }

    /// Bytes read so far.
    pub fn position(&self) -> u64 {
        self.tokenizer.position()
    }

    fn check(&self) -> Result<()> {
        match &self.phase {
            Phase::Reading => Ok(()),
            Phase::Failed(e) => Err(e.clone()),
            Phase::Finished => Err(Error::new(ErrorKind::InvalidState, "PartialJson was used after finish()")),
        }
    }

    fn fail(&mut self, e: Error) -> Error {
        self.phase = Phase::Failed(e.clone());
        e
    }

    fn feed_with(&mut self, chunk: &[u8], out: &mut impl EventSink) -> Result<()> {
        self.check()?;
        let mut run = Run { doc: &mut self.doc, out: &mut *out };
        let r = feed_metered(&mut self.tokenizer, chunk, &mut run);
        // Text before a failure still goes out; the first error is the one reported.
        let flushed = self.doc.flush_append(out);
        r.and(flushed).map_err(|e| self.fail(e))
    }

    /// One call of a binding: `chunk`, then with `end` the end of the document (when the
    /// chunk went well).
    pub(crate) fn step_with(&mut self, chunk: &[u8], end: bool, out: &mut impl EventSink) -> Result<()> {
        self.feed_with(chunk, out)?;
        if end {
            self.finish_with(out)?;
        }
        Ok(())
    }

    /// Ends the document (with feature `json`, [`value`](Self::value) is then its value).
    pub(crate) fn finish_with(&mut self, out: &mut impl EventSink) -> Result<()> {
        self.check()?;
        let mut run = Run { doc: &mut self.doc, out: &mut *out };
        if let Err(e) = finish_metered(&mut self.tokenizer, &mut run) {
            return Err(self.fail(e));
        }
        self.phase = Phase::Finished;
        if !self.doc.ended {
            return Err(self.fail(Error::new(ErrorKind::JsonInvalid, "expected a JSON value").at(self.position())));
        }
        Ok(())
    }
}
