//! The repairer: one forward pass over the text that writes compact, valid JSON.
//!
//! Advice for hackers. Invariants:
//! - No recursion: open objects, arrays and function-call wrappers live on `stack` (at most
//!   [`MAX_DEPTH`]); `state` says what is expected next. Every turn of the loop in `run`
//!   consumes input or pops a frame, so it ends.
//! - The output is one `String` that only grows, except for three O(1)-amortised edits:
//!   dropping the tail of the string being read (a cut, below), dropping a rejected top-level
//!   scalar or extra call arguments, and, once, inserting `[` at the front when a second
//!   top-level value turns the output into an array.
//! - Linear time. Look-ahead only ever skips whitespace (each run at most twice). The one
//!   backtrack is a *cut*: a string that turns out to have lost its end quote ends at an
//!   earlier position and the text after it is read again. A cut at the last delimiter or
//!   the first line break before the deciding quote re-reads only whitespace; a key cut at its
//!   first colon may re-read more, so all re-reading is charged to `budget` (the input
//!   length) and past it strings are no longer cut.
//! - Every deviation from RFC 8259 that changes the output is logged as a [`Repair`] (valid
//!   JSON logs nothing; whitespace is dropped silently since the output is compact).

use super::lexical::{
    is_ident_char, is_ident_start, is_mongo_type, is_special_space, keyword, number_token, truncated_literal, NumberToken, Quote,
};
use super::{Repair, RepairKind};
use crate::json::write_json_string;
use crate::{Error, ErrorKind, Result};

mod strings;

/// The deepest nesting of objects, arrays and function calls (as in the streaming engine).
const MAX_DEPTH: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
    /// `name(` … `)`: JSONP or a MongoDB wrapper; only its first argument is kept.
    Call,
}

#[derive(Debug, Clone, Copy)]
struct Open {
    frame: Frame,
    /// Members, items or arguments begun so far.
    count: u32,
    /// Calls: output length after the first argument (later arguments are dropped).
    keep: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a top-level value (prose may come first while none was found).
    Top,
    /// Skipping prose before the first value, up to `{`, `[` or a code fence.
    Prose,
    /// After a complete top-level value: another one, a separator, or the end.
    AfterTop,
    /// In an object, expecting a key or `}`.
    Key,
    /// After a key, expecting `:`.
    Colon,
    /// Expecting a value: after `:`, in an array, or as a call argument.
    Value,
    /// After a value in a container: `,` or the closing bracket.
    AfterValue,
    /// Trailing prose after the last value: the rest is ignored.
    End,
}

/// Where a string or word is read: decides which repairs apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Top,
    Key,
    Value,
}

/// What a word turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// A value was written (a keyword, or an unquoted string in a container).
    Scalar,
    /// `name(`: a call frame was pushed.
    Call,
    /// Not JSON (top level only).
    Prose,
}

pub(crate) struct Repairer<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    out: String,
    /// Decoded content of the string being read.
    buf: String,
    log: Vec<Repair>,
    logging: bool,
    stack: Vec<Open>,
    objects: usize,
    arrays: usize,
    calls: usize,
    state: State,
    /// Complete (or begun) top-level values.
    top_values: usize,
    /// The output was turned into an array of the top-level values.
    wrapped: bool,
    /// The last top-level value was a call (JSONP): a `;` after it belongs to it.
    top_call: bool,
    /// A `,` read since the last value, not yet written (it is written before the next one).
    comma: Option<usize>,
    /// Bytes that cuts may still re-read.
    budget: usize,
    /// Second pass over text in which the first found no JSON value: top-level text is read
    /// as unquoted strings instead of being skipped as prose.
    bare: bool,
    /// A top-level `[` or `{` right before a code fence (`[```json … ```]`): the bracket
    /// that the closing fence may have after it, dropped with the fence.
    fence_closer: Option<u8>,
    /// `(start, end)` of the last regex scan that found no closing `/`: it read from the `/`
    /// at `start` to the line end at `end`. A later `/` before `end` is read only up to the
    /// next bracket (see [`regex`](Self::regex)), so the scans never re-read a line: linear,
    /// and at the cost of other input per byte, even with a `/` at every level of nesting.
    no_regex: (usize, usize),
}

impl<'a> Repairer<'a> {
    pub(crate) fn new(text: &'a str, logging: bool) -> Self {
        Repairer {
            text,
            b: text.as_bytes(),
            pos: 0,
            out: String::with_capacity(text.len() + 16),
            buf: String::new(),
            log: Vec::new(),
            logging,
            stack: Vec::new(),
            objects: 0,
            arrays: 0,
            calls: 0,
            state: State::Top,
            top_values: 0,
            wrapped: false,
            top_call: false,
            comma: None,
            budget: text.len(),
            bare: false,
            fence_closer: None,
            no_regex: (0, 0),
        }
    }

    /// Runs to the end of the input and returns the JSON text and the repairs (in input order).
    /// Text with no JSON value in it is read a second time, as bare text: `hello world`,
    /// `2.3.4` or `a, b` are strings, as `jsonrepair` reads them.
    pub(crate) fn run(self) -> Result<(String, Vec<Repair>)> {
        let (text, logging) = (self.text, self.logging);
        match self.pass() {
            Err(e) if e.kind() == ErrorKind::JsonUnrepairable => {
                let mut again = Repairer::new(text, logging);
                again.bare = true;
                again.pass()
            }
            done => done,
        }
    }

    fn pass(mut self) -> Result<(String, Vec<Repair>)> {
        while self.pos < self.b.len() {
            match self.state {
                State::End => break,
                State::Prose => {
                    self.prose();
                    continue;
                }
                _ => {}
            }
            self.trivia();
            if self.pos >= self.b.len() {
                break;
            }
            let c = self.peek();
            match self.state {
                State::Top => self.top(c)?,
                State::AfterTop => self.after_top(c),
                State::Key => self.key(c)?,
                State::Colon => self.colon(c),
                State::Value => self.value(c)?,
                State::AfterValue => self.after_value(c),
                State::Prose | State::End => {}
            }
        }
        self.finish()
    }

    // ---- small helpers ---------------------------------------------------------------------

    fn peek(&self) -> char {
        self.char_at(self.pos)
    }

    fn char_at(&self, i: usize) -> char {
        match self.b.get(i) {
            Some(&b) if b < 0x80 => b as char,
            Some(_) => crate::text::sub(self.text, i..).chars().next().unwrap_or('\u{FFFD}'),
            None => '\0',
        }
    }

    fn starts_with(&self, s: &[u8]) -> bool {
        self.b[self.pos..].starts_with(s)
    }

    fn note(&mut self, kind: RepairKind, offset: usize) {
        let kind = kind.as_str();
        if !self.logging {
            return;
        }
        if self.log.last().is_some_and(|r| r.kind == kind && r.offset == offset) {
            return;
        }
        self.log.push(Repair { kind, offset });
    }

    /// Index of the first character at or after `i` that is not a space, a tab or a special
    /// space.
    fn skip_spaces(&self, mut i: usize) -> usize {
        while let Some(&b) = self.b.get(i) {
            match b {
                b' ' | b'\t' => i += 1,
                0x80.. if is_special_space(self.char_at(i)) => i += self.char_at(i).len_utf8(),
                _ => break,
            }
        }
        i
    }

    /// Index of the first character at or after `i` that is not whitespace (JSON's or a
    /// special space), and whether a line break was passed.
    fn skip_ws(&self, mut i: usize) -> (usize, bool) {
        let mut newline = false;
        loop {
            i = self.skip_spaces(i);
            match self.b.get(i) {
                Some(b'\n') => newline = true,
                Some(b'\r') => {}
                _ => return (i, newline),
            }
            i += 1;
        }
    }

    fn line_end(&self, i: usize) -> usize {
        memchr::memchr(b'\n', &self.b[i..]).map_or(self.b.len(), |k| i + k)
    }

    fn top_frame(&self) -> Option<Frame> {
        self.stack.last().map(|o| o.frame)
    }

    fn budget_allows(&mut self, cost: usize) -> bool {
        if cost <= self.budget {
            self.budget -= cost;
            true
        } else {
            false
        }
    }

    /// Skips whitespace, special spaces, comments (`//`, `/* */`, `#`) and the literal `\n`,
    /// `\r`, `\t` of stringified JSON, logging each kind of skipped text.
    fn trivia(&mut self) {
        while let Some(&b) = self.b.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' => match self.b.get(self.pos + 1) {
                    Some(b'/') => {
                        self.note(RepairKind::Comment, self.pos);
                        self.pos = self.line_end(self.pos);
                    }
                    Some(b'*') => {
                        self.note(RepairKind::Comment, self.pos);
                        let from = self.pos + 2;
                        self.pos = crate::text::find(&self.b[from..], b"*/").map_or(self.b.len(), |k| from + k + 2);
                    }
                    _ => return,
                },
                // `# note`, `#!`, `##`: a comment; `#fff`, `#tag` are text.
                b'#' if matches!(self.b.get(self.pos + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'!')) => {
                    self.note(RepairKind::Comment, self.pos);
                    self.pos = self.line_end(self.pos);
                }
                b'\\' if matches!(self.b.get(self.pos + 1), Some(b'n' | b'r' | b't')) => {
                    self.note(RepairKind::Stringified, self.pos);
                    self.pos += 2;
                }
                0..=0x1f => {
                    self.note(RepairKind::ControlCharacter, self.pos);
                    self.pos += 1;
                }
                0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF => {
                    let c = self.peek();
                    if !is_special_space(c) {
                        return;
                    }
                    self.note(RepairKind::Whitespace, self.pos);
                    self.pos += c.len_utf8();
                }
                _ => return,
            }
        }
    }

    /// A Markdown code fence (three or more backticks and an info word such as `json`).
    fn fence(&mut self) -> bool {
        if !self.starts_with(b"```") {
            return false;
        }
        self.note(RepairKind::Fence, self.pos);
        self.pos += 3;
        while self.b.get(self.pos) == Some(&b'`') {
            self.pos += 1;
        }
        while self.b.get(self.pos).is_some_and(|&b| b.is_ascii_alphanumeric() || b"_-+.".contains(&b)) {
            self.pos += 1;
        }
        if let Some(closer) = self.fence_closer {
            let (j, _) = self.skip_ws(self.pos);
            if self.b.get(j) == Some(&closer) {
                self.pos = j + 1;
                self.fence_closer = None;
            }
        }
        true
    }

    /// `...` or `…` where a value or key is expected, with a comma after it.
    fn ellipsis(&mut self) -> bool {
        // `...` and `…` are both three bytes long.
        if !self.starts_with(b"...") && !self.starts_with("\u{2026}".as_bytes()) {
            return false;
        }
        self.note(RepairKind::Ellipsis, self.pos);
        self.pos += 3;
        self.trivia();
        if self.b.get(self.pos) == Some(&b',') {
            self.pos += 1;
        }
        self.comma = None;
        true
    }

    // ---- the top level ---------------------------------------------------------------------

    fn top(&mut self, c: char) -> Result<()> {
        if self.fence() {
            return Ok(());
        }
        let start = self.pos;
        let (out_start, log_start) = (self.out.len(), self.log.len());
        let b = self.b[self.pos];
        match c {
            '{' | '[' if self.b[self.skip_ws(self.pos + 1).0..].starts_with(b"```") => {
                // `[```json … ```]`: the brackets around a fenced block are not JSON.
                self.note(RepairKind::Fence, self.pos);
                self.fence_closer = Some(if c == '{' { b'}' } else { b']' });
                self.pos = self.skip_ws(self.pos + 1).0;
                Ok(())
            }
            '{' | '[' => {
                self.begin_top();
                self.open(c == '{')
            }
            _ if Quote::of(c).is_some() || (b == b'\\' && self.b.get(self.pos + 1) == Some(&b'"')) => {
                let closed = self.string(Ctx::Top);
                if closed || self.top_values == 0 {
                    self.top_scalar(start, out_start, log_start);
                } else {
                    // A lone quote after the document (`… "{\"a\": 1}"`) is not a new value.
                    self.out.truncate(out_start);
                    self.log.truncate(log_start);
                    self.not_json(start);
                }
                Ok(())
            }
            '0'..='9' | '-' | '+' | '.' => {
                if self.number(Ctx::Top) {
                    self.top_scalar(start, out_start, log_start);
                } else {
                    self.not_json(start);
                }
                Ok(())
            }
            '/' if self.regex() => {
                self.top_scalar(start, out_start, log_start);
                Ok(())
            }
            _ if is_ident_start(b) => {
                match self.word(Ctx::Top)? {
                    Word::Scalar => self.top_scalar(start, out_start, log_start),
                    Word::Call => {}
                    Word::Prose => self.not_json(start),
                }
                Ok(())
            }
            '}' | ']' | ')' | ',' | ':' | ';' if self.bare => {
                self.note(RepairKind::Skipped, start);
                self.pos += 1;
                Ok(())
            }
            _ => {
                self.not_json(start);
                Ok(())
            }
        }
    }

    /// A top-level value begins: from the second one on, the output becomes an array.
    fn begin_top(&mut self) {
        self.comma = None;
        self.top_call = false;
        if self.top_values > 0 {
            self.note(RepairKind::Concatenated, self.pos);
            if !self.wrapped {
                self.out.insert(0, '[');
                self.wrapped = true;
            }
            self.out.push(',');
        }
        self.top_values += 1;
    }

    /// A top-level scalar was written at `out_start`: it counts as a value only when what
    /// follows on its line looks like JSON (`1 apple` is prose, not the number 1).
    fn top_scalar(&mut self, start: usize, out_start: usize, log_start: usize) {
        let j = self.skip_spaces(self.pos);
        let follows = match self.b.get(j) {
            None => true,
            Some(&b) => match b {
                b'\n' | b'\r' | b',' | b';' | b'}' | b']' | b')' | b'{' | b'[' | b'"' | b'\'' | b'`' => true,
                b'#' | b'-' | b'0'..=b'9' => true,
                b'/' => matches!(self.b.get(j + 1), Some(b'/' | b'*')),
                _ if is_ident_start(b) => self.keyword_at(j),
                b'\\' => matches!(self.b.get(j + 1), Some(b'"' | b'n' | b'r' | b't')),
                _ => false,
            },
        };
        if !follows {
            self.out.truncate(out_start);
            self.log.truncate(log_start);
            self.not_json(start);
            return;
        }
        self.accept_top(start, out_start);
    }

    /// The scalar written at `out_start` is a top-level value.
    fn accept_top(&mut self, start: usize, out_start: usize) {
        self.comma = None;
        self.top_call = false;
        if self.top_values > 0 {
            self.note(RepairKind::Concatenated, start);
            self.out.insert(out_start, ',');
            if !self.wrapped {
                self.out.insert(0, '[');
                self.wrapped = true;
            }
        }
        self.top_values += 1;
        self.state = State::AfterTop;
    }

    /// Text at `start` is not a JSON value: prose before the first value (skipped up to the
    /// next `{`, `[` or fence) or after the last one (the rest is ignored).
    fn not_json(&mut self, start: usize) {
        self.pos = start;
        if self.bare {
            // Bare text: the text up to the next delimiter on its line is a string.
            let out_start = self.out.len();
            self.unquoted_value(start);
            self.accept_top(start, out_start);
            return;
        }
        self.note(RepairKind::Prose, start);
        if self.top_values == 0 {
            self.state = State::Prose;
        } else {
            if let Some(at) = self.comma.take() {
                self.note(RepairKind::TrailingComma, at);
            }
            self.state = State::End;
        }
    }

    /// Skips prose up to `{`, `[` or a code fence; `<think>…</think>` is skipped whole.
    fn prose(&mut self) {
        while self.pos < self.b.len() {
            match self.b[self.pos] {
                b'{' | b'[' => break,
                b'`' if self.starts_with(b"```") => break,
                b'<' => {
                    let close: &[u8] = if self.starts_with(b"<think>") {
                        b"</think>"
                    } else if self.starts_with(b"<thinking>") {
                        b"</thinking>"
                    } else {
                        self.pos += 1;
                        continue;
                    };
                    let from = self.pos + 1;
                    self.pos = crate::text::find(&self.b[from..], close).map_or(self.b.len(), |k| from + k + close.len());
                }
                _ => self.pos += 1,
            }
        }
        self.state = State::Top;
    }

    fn after_top(&mut self, c: char) {
        if self.fence() {
            return;
        }
        if c == '`' {
            // A fence closed with too few backticks (```json … `) at the end of its line.
            let mut end = self.pos;
            while self.b.get(end) == Some(&b'`') {
                end += 1;
            }
            let (j, newline) = self.skip_ws(end);
            if newline || j == self.b.len() {
                self.note(RepairKind::Fence, self.pos);
                self.pos = end;
                return;
            }
        }
        match c {
            ',' => {
                self.comma = Some(self.pos);
                self.pos += 1;
                self.state = State::Top;
            }
            ';' => {
                self.note(if self.top_call { RepairKind::Jsonp } else { RepairKind::Skipped }, self.pos);
                self.pos += 1;
            }
            '}' | ']' | ')' => {
                self.note(RepairKind::UnmatchedBracket, self.pos);
                self.pos += 1;
            }
            _ => self.state = State::Top,
        }
    }

    // ---- containers --------------------------------------------------------------------------

    fn open(&mut self, object: bool) -> Result<()> {
        self.push(if object { Frame::Object } else { Frame::Array })?;
        self.out.push(if object { '{' } else { '[' });
        self.pos += 1;
        self.state = if object { State::Key } else { State::Value };
        Ok(())
    }

    fn push(&mut self, frame: Frame) -> Result<()> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(
                Error::new(ErrorKind::JsonTooDeep, format!("JSON nested deeper than {MAX_DEPTH} levels")).at(self.pos as u64)
            );
        }
        match frame {
            Frame::Object => self.objects += 1,
            Frame::Array => self.arrays += 1,
            Frame::Call => self.calls += 1,
        }
        self.stack.push(Open { frame, count: 0, keep: 0 });
        Ok(())
    }

    /// Closes the innermost frame (its closing bracket was read or is missing).
    fn close(&mut self) {
        if let Some(at) = self.comma.take() {
            self.note(RepairKind::TrailingComma, at);
        }
        let Some(open) = self.stack.pop() else { return };
        match open.frame {
            Frame::Object => {
                self.objects -= 1;
                self.out.push('}');
            }
            Frame::Array => {
                self.arrays -= 1;
                self.out.push(']');
            }
            Frame::Call => {
                self.calls -= 1;
                if open.count == 0 {
                    self.out.push_str("null");
                } else if open.count > 1 {
                    self.out.truncate(open.keep);
                }
            }
        }
        if self.stack.is_empty() {
            self.top_call = open.frame == Frame::Call;
            self.state = State::AfterTop;
        } else {
            self.state = State::AfterValue;
        }
    }

    /// Ends every open frame (a missing value becomes `null`): the input ended, or a code
    /// fence closed the block.
    fn close_all(&mut self, at: usize) {
        match (self.state, self.top_frame()) {
            (State::Colon, _) => self.out.push_str(":null"),
            (State::Value, Some(Frame::Object)) => self.out.push_str("null"),
            _ => {}
        }
        self.note(RepairKind::Truncated, at);
        while !self.stack.is_empty() {
            self.close();
        }
    }

    /// Before a value in a container: the comma, and the count.
    fn begin_item(&mut self) {
        self.comma = None;
        let len = self.out.len();
        let Some(open) = self.stack.last_mut() else {
            return;
        };
        match open.frame {
            Frame::Object => {}
            Frame::Array => {
                if open.count > 0 {
                    self.out.push(',');
                }
                open.count += 1;
            }
            Frame::Call => {
                open.count += 1;
                if open.count == 2 {
                    open.keep = len;
                }
            }
        }
    }

    /// Before a key: the comma, and the count.
    fn begin_member(&mut self) {
        self.comma = None;
        if let Some(open) = self.stack.last_mut() {
            if open.count > 0 {
                self.out.push(',');
            }
            open.count += 1;
        }
    }

    fn key(&mut self, c: char) -> Result<()> {
        let at = self.pos;
        if self.fence() {
            self.close_all(at);
            return Ok(());
        }
        let b = self.b[self.pos];
        match c {
            '}' => {
                self.pos += 1;
                self.close();
            }
            ']' | ')' => self.state = State::AfterValue,
            ',' => {
                self.note(RepairKind::ExtraComma, self.pos);
                self.pos += 1;
            }
            '{' | '[' => {
                self.note(RepairKind::MissingBracket, self.pos);
                self.close();
            }
            ':' | '=' => {
                self.note(RepairKind::MissingKey, self.pos);
                self.begin_member();
                self.out.push_str("\"\"");
                self.state = State::Colon;
            }
            _ if self.ellipsis() => {}
            _ if Quote::of(c).is_some() || (b == b'\\' && self.b.get(self.pos + 1) == Some(&b'"')) => {
                self.begin_member();
                self.string(Ctx::Key);
                self.state = State::Colon;
            }
            _ => {
                self.begin_member();
                self.unquoted_key();
                self.state = State::Colon;
            }
        }
        Ok(())
    }

    fn colon(&mut self, c: char) {
        match c {
            ':' => {
                self.out.push(':');
                self.pos += 1;
                self.state = State::Value;
            }
            '=' => {
                self.note(RepairKind::MissingColon, self.pos);
                self.out.push(':');
                self.pos += if self.b.get(self.pos + 1) == Some(&b'>') { 2 } else { 1 };
                self.state = State::Value;
            }
            ',' | '}' | ']' | ')' => {
                self.note(RepairKind::MissingValue, self.pos);
                self.out.push_str(":null");
                self.state = State::AfterValue;
            }
            _ if self.starts_with(b"```") => {
                let at = self.pos;
                self.fence();
                self.close_all(at);
            }
            _ => {
                self.note(RepairKind::MissingColon, self.pos);
                self.out.push(':');
                self.state = State::Value;
            }
        }
    }

    fn value(&mut self, c: char) -> Result<()> {
        let frame = self.top_frame().unwrap_or(Frame::Array);
        if self.starts_with(b"```") {
            let at = self.pos;
            self.fence();
            self.close_all(at);
            return Ok(());
        }
        match c {
            ']' | '}' | ')' => {
                if frame == Frame::Object {
                    self.note(RepairKind::MissingValue, self.pos);
                    self.out.push_str("null");
                }
                self.state = State::AfterValue;
            }
            ',' if frame == Frame::Object => {
                self.note(RepairKind::MissingValue, self.pos);
                self.out.push_str("null");
                self.state = State::AfterValue;
            }
            ',' => {
                self.note(RepairKind::ExtraComma, self.pos);
                self.pos += 1;
            }
            ':' | ';' => {
                self.note(RepairKind::Skipped, self.pos);
                self.pos += 1;
            }
            _ if self.ellipsis() => {}
            _ => {
                self.begin_item();
                self.any_value(c)?;
            }
        }
        Ok(())
    }

    /// A value inside a container (the comma is written).
    fn any_value(&mut self, c: char) -> Result<()> {
        let b = self.b[self.pos];
        match c {
            '{' | '[' => return self.open(c == '{'),
            _ if Quote::of(c).is_some() || (b == b'\\' && self.b.get(self.pos + 1) == Some(&b'"')) => {
                self.string(Ctx::Value);
            }
            '0'..='9' | '-' | '+' | '.' => {
                self.number(Ctx::Value);
            }
            '/' => {
                let start = self.pos;
                if !self.regex() {
                    self.unquoted_value(start);
                }
            }
            _ if is_ident_start(b) => {
                if self.word(Ctx::Value)? == Word::Call {
                    return Ok(());
                }
            }
            _ => {
                let start = self.pos;
                self.unquoted_value(start);
            }
        }
        self.state = State::AfterValue;
        Ok(())
    }

    fn after_value(&mut self, c: char) {
        let frame = self.top_frame().unwrap_or(Frame::Array);
        if self.starts_with(b"```") {
            let at = self.pos;
            self.fence();
            self.close_all(at);
            return;
        }
        match c {
            ',' => {
                self.comma = Some(self.pos);
                self.pos += 1;
                self.state = if frame == Frame::Object { State::Key } else { State::Value };
            }
            '}' | ']' | ')' => self.closer(c, frame),
            ':' | ';' | '=' => {
                self.note(RepairKind::Skipped, self.pos);
                self.pos += 1;
            }
            '{' | '[' if frame == Frame::Object => {
                self.note(RepairKind::MissingBracket, self.pos);
                self.close();
            }
            _ => {
                self.note(RepairKind::MissingComma, self.pos);
                self.state = if frame == Frame::Object { State::Key } else { State::Value };
            }
        }
    }

    /// A closing bracket `c` in `frame`: its own, one of an outer frame (close this one and
    /// read `c` again), or one that matches nothing.
    fn closer(&mut self, c: char, frame: Frame) {
        let own = matches!((c, frame), ('}', Frame::Object) | (']', Frame::Array) | (')', Frame::Call));
        if own {
            self.pos += 1;
            self.close();
            return;
        }
        let outer = match c {
            '}' => self.objects > 0,
            ']' => self.arrays > 0,
            _ => self.calls > 0,
        };
        if outer {
            self.note(RepairKind::MissingBracket, self.pos);
            self.close();
        } else if c != ')' && frame != Frame::Call {
            // `{"a": 1]`: the wrong bracket closes the one open container.
            self.note(RepairKind::MismatchedBracket, self.pos);
            self.pos += 1;
            self.close();
        } else {
            self.note(RepairKind::UnmatchedBracket, self.pos);
            self.pos += 1;
        }
    }

    fn finish(mut self) -> Result<(String, Vec<Repair>)> {
        if !self.stack.is_empty() {
            self.close_all(self.b.len());
        }
        if let Some(at) = self.comma.take() {
            self.note(RepairKind::TrailingComma, at);
        }
        if self.top_values == 0 {
            return Err(Error::new(ErrorKind::JsonUnrepairable, "no JSON value found in the input"));
        }
        if self.wrapped {
            self.out.push(']');
        }
        // Cuts log at an earlier position than the text read after them: restore input order.
        crate::sort::sort_by_key(&mut self.log, |r| r.offset);
        Ok((self.out, self.log))
    }

    // ---- scalars -----------------------------------------------------------------------------

    /// A number-like token. Returns `false` at the top level when it is not a number (the
    /// caller treats it as prose); inside containers such a token is an unquoted string.
    fn number(&mut self, ctx: Ctx) -> bool {
        let start = self.pos;
        let mut end = start + 1;
        while end < self.b.len() && (self.b[end].is_ascii_alphanumeric() || b"_.+-".contains(&self.b[end])) {
            end += 1;
        }
        let tok = crate::text::sub(self.text, start..end);
        if ctx == Ctx::Top && !self.bare && tok.trim_start_matches(['-', '+']) == "." {
            // A dot before the JSON is punctuation of the prose.
            return false;
        }
        match number_token(tok, end == self.b.len()) {
            NumberToken::Valid => self.out.push_str(tok),
            NumberToken::Fixed(s, kind) => {
                self.note(kind, start);
                self.out.push_str(&s);
            }
            NumberToken::Text => {
                self.note(RepairKind::Number, start);
                write_json_string(tok, &mut self.out);
            }
            NumberToken::Null => {
                self.note(RepairKind::JsLiteral, start);
                self.out.push_str("null");
            }
            NumberToken::NotANumber => {
                if ctx == Ctx::Top {
                    return false;
                }
                self.unquoted_value(start);
                return true;
            }
        }
        self.pos = end;
        true
    }

    /// A word: a keyword (`true`, `None`, `undefined`, …), a call `name(` (JSONP, MongoDB
    /// wrappers), or, in a container, the start of an unquoted string. At the top level a
    /// word that is none of these is prose.
    fn word(&mut self, ctx: Ctx) -> Result<Word> {
        let start = self.pos;
        let mut end = start;
        while end < self.b.len() && is_ident_char(self.b[end]) {
            end += 1;
        }
        let after = self.skip_spaces(end);
        if self.b.get(after) == Some(&b'(') {
            let mongo = ctx != Ctx::Top || is_mongo_type(crate::text::sub(self.text, start..end));
            self.note(if mongo { RepairKind::MongoWrapper } else { RepairKind::Jsonp }, start);
            if ctx == Ctx::Top {
                self.begin_top();
            }
            self.pos = after;
            self.push(Frame::Call)?;
            self.pos += 1;
            self.state = State::Value;
            return Ok(Word::Call);
        }
        let word = crate::text::sub(self.text, start..end);
        let more_words = self.b.get(after).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_') && !self.keyword_at(after);
        if !more_words {
            if let Some((lit, kind)) = keyword(word) {
                if let Some(kind) = kind {
                    self.note(kind, start);
                }
                self.out.push_str(lit);
                self.pos = end;
                return Ok(Word::Scalar);
            }
            if end == self.b.len() {
                if let Some(lit) = truncated_literal(word) {
                    self.note(RepairKind::Truncated, start);
                    self.out.push_str(lit);
                    self.pos = end;
                    return Ok(Word::Scalar);
                }
            }
        }
        if ctx == Ctx::Top {
            return Ok(Word::Prose);
        }
        self.unquoted_value(start);
        Ok(Word::Scalar)
    }

    /// Whether a keyword (`true`, `None`, …) stands at `i`, as a whole word.
    fn keyword_at(&self, i: usize) -> bool {
        let mut end = i;
        while end < self.b.len() && is_ident_char(self.b[end]) {
            end += 1;
        }
        keyword(crate::text::sub(self.text, i..end)).is_some()
    }

    /// An unquoted string value from `start` to the next delimiter on its line, trailing
    /// whitespace left out. `//` after `:` (a URL) is content; a `"` right before a delimiter
    /// is the end quote of a string that lost its start quote.
    fn unquoted_value(&mut self, start: usize) {
        let in_call = self.top_frame() == Some(Frame::Call);
        let in_object = self.top_frame() == Some(Frame::Object);
        let (mut i, mut end) = (start, start);
        let mut next = None;
        while i < self.b.len() {
            match self.b[i] {
                b',' | b'}' | b']' | b'{' | b'[' | b'\n' | b'\r' => break,
                b')' if in_call => break,
                b'/' if self.b.get(i + 1) == Some(&b'*') => break,
                b'/' if self.b.get(i + 1) == Some(&b'/') && (i == start || self.b[i - 1] != b':') => break,
                b'`' if self.b[i..].starts_with(b"```") => break,
                b'"' if self.ends_string(i + 1, in_call) => {
                    self.note(RepairKind::MissingQuote, i);
                    next = Some(i + 1);
                    break;
                }
                // In an object, a quoted key (`"b":`) ends the value: a comma is missing.
                b'"' if in_object && i > start && self.quoted_key_at(i) => break,
                b' ' | b'\t' => i += 1,
                0x80.. => {
                    let c = self.char_at(i);
                    i += c.len_utf8();
                    if !is_special_space(c) {
                        end = i;
                    }
                }
                _ => {
                    i += 1;
                    end = i;
                }
            }
        }
        self.unquoted(RepairKind::UnquotedString, start, i, end, next);
    }

    /// Writes the unquoted text `start..end` as a JSON string, noted as `kind`, and goes on at
    /// `next`, else at `i` where its scan stopped. A scan that stood still takes one character
    /// (the callers rule this out; this keeps the loop finite).
    fn unquoted(&mut self, kind: RepairKind, start: usize, mut i: usize, mut end: usize, next: Option<usize>) {
        if i == start && next.is_none() {
            i += self.char_at(start).len_utf8();
            end = i;
        }
        self.note(kind, start);
        write_json_string(crate::text::sub(self.text, start..end), &mut self.out);
        self.pos = next.unwrap_or(i);
    }

    /// Whether a quoted key starts at the `"` at `i`: a quote closes it on the same line and a
    /// `:` follows (after spaces). Reads up to that closing quote only, so the scans of one
    /// unquoted value never overlap: linear.
    fn quoted_key_at(&self, i: usize) -> bool {
        let mut j = i + 1;
        while let Some(&b) = self.b.get(j) {
            match b {
                b'"' => return self.b.get(self.skip_spaces(j + 1)) == Some(&b':'),
                b'\n' | b'\r' => return false,
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
        false
    }

    /// Whether what follows position `i` (after spaces) ends a string: the end of the input,
    /// a line break, `,` `}` `]` `:`, or `)` inside a call.
    fn ends_string(&self, i: usize, in_call: bool) -> bool {
        let j = self.skip_spaces(i);
        match self.b.get(j) {
            None | Some(b',' | b'}' | b']' | b':' | b'\n' | b'\r') => true,
            Some(b')') => in_call,
            _ => false,
        }
    }

    /// An unquoted key, up to `:` or another delimiter, a quote or a comment.
    fn unquoted_key(&mut self) {
        let start = self.pos;
        let (mut i, mut end) = (start, start);
        let mut next = None;
        while i < self.b.len() {
            let b = self.b[i];
            match b {
                b':' | b'=' | b',' | b'}' | b']' | b'{' | b'[' | b'\n' | b'\r' | b'\'' | b'`' => break,
                b'/' if matches!(self.b.get(i + 1), Some(b'/' | b'*')) => break,
                b'"' => {
                    if self.ends_string(i + 1, false) {
                        self.note(RepairKind::MissingQuote, i);
                        next = Some(i + 1);
                    }
                    break;
                }
                b' ' | b'\t' => i += 1,
                0x80.. => {
                    let c = self.char_at(i);
                    if Quote::of(c).is_some() {
                        break;
                    }
                    i += c.len_utf8();
                    if !is_special_space(c) {
                        end = i;
                    }
                }
                _ => {
                    i += 1;
                    end = i;
                }
            }
        }
        self.unquoted(RepairKind::UnquotedKey, start, i, end, next);
    }

    /// A JavaScript regular expression literal `/…/flags`, as a string. `false` when there is
    /// no closing `/` on the line.
    ///
    /// After a scan from `p` found none up to the line end `e`, a scan from a later `/` at `q`
    /// (`p < q < e`) reads the same bytes from `q + 1` on (both skip the same escapes from
    /// there), and after the first `[` or `]` past `q` both are in the same character class
    /// state, where the scan from `p` met no closing `/`. So the scan from `q` can only close
    /// before that bracket, and stops there.
    fn regex(&mut self) -> bool {
        let start = self.pos;
        let (mut i, mut class) = (start + 1, false);
        let known = self.no_regex.0 < start && start < self.no_regex.1;
        loop {
            match self.b.get(i) {
                None | Some(b'\n' | b'\r') => {
                    if !known {
                        self.no_regex = (start, i);
                    }
                    return false;
                }
                Some(b'[' | b']') if known => return false,
                Some(b'\\') => i += 2,
                Some(b'[') => {
                    class = true;
                    i += 1;
                }
                Some(b']') => {
                    class = false;
                    i += 1;
                }
                Some(b'/') if !class => break,
                Some(_) => i += 1,
            }
        }
        i += 1;
        while self.b.get(i).is_some_and(u8::is_ascii_alphabetic) {
            i += 1;
        }
        if i > self.b.len() || !self.text.is_char_boundary(i) {
            return false;
        }
        self.note(RepairKind::Regex, start);
        write_json_string(crate::text::sub(self.text, start..i), &mut self.out);
        self.pos = i;
        true
    }
}
