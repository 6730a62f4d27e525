//! The strict JSON tokenizer over a complete document.
//!
//! Advice for hackers: [`Tokenizer`](super::tokenizer::Tokenizer) reads JSON as it arrives, a
//! byte at a time where it has to, and keeps everything it needs to resume between chunks. A
//! document that is all there needs none of that: this reads one slice with a cursor. String
//! runs are found with the tokenizer's `string_run_len` (memchr past their first bytes) and
//! checked as UTF-8 once each, numbers and literals are read in place, and the only buffer is
//! the text of a string or key that has escapes (one `String`, reused).
//!
//! Invariants:
//! - For every input it drives the sink exactly as `Tokenizer` with `strict`,
//!   `AfterValue::End` and no token cap does when the whole input is one `feed` followed by
//!   `finish`: the same tokens in the same order (a string value's text is one `StringPart`,
//!   as the tokenizer batches it per feed; text read before a fault is reported as it would
//!   be) and the same first error (kind, message, byte offset). The tests below compare the
//!   two, token by token, on generated valid and invalid documents (`document_cases.rs`), as
//!   do payload/text.rs's for the redaction walk, tests/json_strict.rs and the `json_tokenizer`
//!   fuzz target (`parse_strict_document` against `parse_strict_chunks`, the reference).
//! - It honours [`Sink::skip_inside`] as the tokenizer does (every byte still checked).
//! - No recursion, no allocation for structure: the open containers are bits of a fixed
//!   512-bit stack (the depth cap), so deep input is `json_too_deep`, never a stack overflow.
//! - Every byte is looked at a bounded number of times, never again after the cursor passed it
//!   (a string run three times: for its end, its control characters, its UTF-8).

use super::tokenizer::{hex, is_number_byte, is_ws, simple_escape, string_run_len, valid_number, Sink, Token};
use crate::budget::try_push_str;
use crate::{Error, ErrorKind, Result};

/// Open containers allowed (the streaming tokenizer's default `max_depth`).
const MAX_DEPTH: usize = 512;

/// Reads the complete document `text` strictly (RFC 8259), reporting its tokens to `sink`.
///
/// # Errors
/// `json_invalid` at the byte offset of the first fault (the end of `text` when it ends
/// inside a value), `json_too_deep` past 512 levels, or the sink's own error.
pub(crate) fn read_document(text: &[u8], sink: &mut dyn Sink) -> Result<()> {
    if text.is_empty() {
        return Err(invalid("empty input: expected a JSON value", 0));
    }
    Doc { text, i: 0, depth: 0, objects: [0; MAX_DEPTH / 64], quiet: usize::MAX, scratch: String::new() }.run(sink)
}

fn invalid(msg: &str, at: usize) -> Error {
    Error::new(ErrorKind::JsonInvalid, msg).at(at as u64)
}

/// Why a string could not be read, and its text up to the fault (in `scratch` for `None`).
struct Cut<'t> {
    error: Error,
    text: Option<&'t str>,
    /// The input ended inside the string.
    at_end: bool,
}

struct Doc<'t> {
    text: &'t [u8],
    /// The cursor.
    i: usize,
    /// Open containers.
    depth: usize,
    /// Bit `d`: the container at depth `d` (0 = outermost) is an object.
    objects: [u64; MAX_DEPTH / 64],
    /// Tokens at this depth or deeper are not reported (see [`Sink::skip_inside`]).
    quiet: usize,
    /// The decoded text of a string or key with escapes.
    scratch: String,
}

impl<'t> Doc<'t> {
    fn run(&mut self, sink: &mut dyn Sink) -> Result<()> {
        'value: loop {
            let b = self.next_byte()?;
            match b {
                b'{' | b'[' => {
                    let object = b == b'{';
                    self.open(object, sink)?;
                    let c = self.next_byte()?;
                    if c == if object { b'}' } else { b']' } {
                        self.close(sink)?;
                    } else if object {
                        self.key(sink)?;
                        continue 'value;
                    } else {
                        continue 'value;
                    }
                }
                b'"' => {
                    self.emit(Token::StringStart, sink)?;
                    self.i += 1;
                    let (text, error) = match self.string() {
                        Ok(text) => (text, None),
                        Err(cut) => (cut.text, Some(cut)),
                    };
                    if self.loud() {
                        let text = text.unwrap_or(&self.scratch);
                        if !text.is_empty() {
                            let r = sink.token(Token::StringPart(text), self.depth);
                            // The streaming tokenizer hands text read before a fault over too:
                            // after the end of its last chunk, with the sink's error in turn;
                            // before any other fault, which stands whatever the sink says.
                            if error.as_ref().is_none_or(|cut| cut.at_end) {
                                r?;
                            }
                        }
                    }
                    if let Some(cut) = error {
                        return Err(cut.error);
                    }
                    self.emit(Token::StringEnd, sink)?;
                }
                b'-' | b'0'..=b'9' => self.number(sink)?,
                b't' => self.literal(b"true", Token::Bool(true), sink)?,
                b'f' => self.literal(b"false", Token::Bool(false), sink)?,
                b'n' => self.literal(b"null", Token::Null, sink)?,
                _ => return Err(invalid("expected a JSON value", self.i)),
            }
            // A value is complete: what follows it.
            loop {
                if self.depth == 0 {
                    self.skip_ws();
                    if self.i < self.text.len() {
                        return Err(invalid("unexpected data after the JSON value", self.i));
                    }
                    return Ok(());
                }
                let object = self.objects[(self.depth - 1) / 64] >> ((self.depth - 1) % 64) & 1 == 1;
                match (self.next_byte()?, object) {
                    (b',', _) => {
                        self.i += 1;
                        if object {
                            self.key(sink)?;
                        }
                        continue 'value;
                    }
                    (b'}', true) | (b']', false) => self.close(sink)?,
                    (_, true) => return Err(invalid("expected ',' or '}' in object", self.i)),
                    (_, false) => return Err(invalid("expected ',' or ']' in array", self.i)),
                }
            }
        }
    }

    /// Tokens at the current depth reach the sink.
    #[inline]
    fn loud(&self) -> bool {
        self.depth < self.quiet
    }

    #[inline]
    fn emit(&self, tok: Token<'_>, sink: &mut dyn Sink) -> Result<()> {
        if self.loud() {
            sink.token(tok, self.depth)?;
        }
        Ok(())
    }

    fn skip_ws(&mut self) {
        while self.i < self.text.len() && is_ws(self.text[self.i]) {
            self.i += 1;
        }
    }

    /// The next byte past whitespace (not consumed); the end of input is an error here.
    fn next_byte(&mut self) -> Result<u8> {
        self.skip_ws();
        self.text.get(self.i).copied().ok_or_else(|| self.end_of_input())
    }

    fn end_of_input(&self) -> Error {
        invalid("unexpected end of input", self.text.len())
    }

    /// `{` or `[` at the cursor.
    fn open(&mut self, object: bool, sink: &mut dyn Sink) -> Result<()> {
        let depth = self.depth;
        if depth >= MAX_DEPTH {
            return Err(
                Error::new(ErrorKind::JsonTooDeep, format!("JSON nested deeper than {MAX_DEPTH} levels")).at(self.i as u64)
            );
        }
        let loud = self.loud();
        if loud {
            sink.token(if object { Token::ObjectStart } else { Token::ArrayStart }, depth)?;
        }
        let (word, bit) = (depth / 64, 1u64 << (depth % 64));
        if object {
            self.objects[word] |= bit;
        } else {
            self.objects[word] &= !bit;
        }
        self.depth += 1;
        if loud && sink.skip_inside(depth) {
            self.quiet = depth + 1;
        }
        self.i += 1;
        Ok(())
    }

    /// The closing bracket of the innermost container, at the cursor.
    fn close(&mut self, sink: &mut dyn Sink) -> Result<()> {
        let object = self.text[self.i] == b'}';
        self.i += 1;
        self.depth -= 1;
        if self.depth < self.quiet {
            self.quiet = usize::MAX;
        }
        self.emit(if object { Token::ObjectEnd } else { Token::ArrayEnd }, sink)
    }

    /// A member's key and its colon (whitespace before each).
    fn key(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if self.next_byte()? != b'"' {
            return Err(invalid("expected a string key", self.i));
        }
        self.i += 1;
        let key = self.string().map_err(|cut| cut.error)?;
        if self.loud() {
            sink.token(Token::Key(key.unwrap_or(&self.scratch)), self.depth)?;
        }
        if self.next_byte()? != b':' {
            return Err(invalid("expected ':' after key", self.i));
        }
        self.i += 1;
        Ok(())
    }

    fn number(&mut self, sink: &mut dyn Sink) -> Result<()> {
        let start = self.i;
        let rest = &self.text[start..];
        let end = start + rest.iter().position(|&c| !is_number_byte(c)).unwrap_or(rest.len());
        // Inside a container a number the input ends in is cut short, whatever it reads.
        if end == self.text.len() && self.depth > 0 {
            return Err(self.end_of_input());
        }
        let digits = &self.text[start..end];
        if !valid_number(digits) {
            return Err(invalid("invalid number", start));
        }
        self.i = end;
        self.emit(Token::Number(std::str::from_utf8(digits).unwrap_or_default()), sink)
    }

    fn literal(&mut self, word: &[u8], tok: Token<'_>, sink: &mut dyn Sink) -> Result<()> {
        for (k, &want) in word.iter().enumerate().skip(1) {
            match self.text.get(self.i + k) {
                None => return Err(self.end_of_input()),
                Some(&b) if b != want => return Err(invalid("invalid literal", self.i + k)),
                Some(_) => {}
            }
        }
        self.i += word.len();
        self.emit(tok, sink)
    }

    /// Reads string content from the cursor through the closing quote. The text is a slice
    /// of the document when the string has no escape (`Some`), else in `scratch` (`None`).
    fn string(&mut self) -> std::result::Result<Option<&'t str>, Cut<'t>> {
        let t = self.text;
        let mut start = self.i;
        let mut escaped = false;
        // A `\uXXXX` high surrogate waiting for its low half.
        let mut high = 0u16;
        loop {
            let end = start + string_run_len(&t[start..]);
            let run = &t[start..end];
            if high != 0 && (!run.is_empty() || t.get(end) == Some(&b'"')) {
                // The high surrogate stands alone.
                self.push("\u{FFFD}").map_err(|e| self.cut(escaped, "", e))?;
                high = 0;
            }
            let control = run.iter().position(|&c| c < 0x20);
            let stop = control.unwrap_or(run.len());
            let (text, fault) = match std::str::from_utf8(&run[..stop]) {
                Ok(text) => (text, None),
                Err(e) => {
                    let valid = std::str::from_utf8(&run[..e.valid_up_to()]).unwrap_or_default();
                    // A malformed sequence; or one that the closing quote or an escape cuts
                    // (one cut by a control character or the end of input leaves those faults).
                    let fault = if e.error_len().is_some() {
                        Some(start + e.valid_up_to())
                    } else {
                        (control.is_none() && end < t.len()).then_some(end)
                    };
                    (valid, fault)
                }
            };
            let error = match (fault, control, t.get(end)) {
                (Some(at), _, _) => invalid("invalid UTF-8 in string", at),
                (None, Some(k), _) => invalid("control character in string", start + k),
                (None, None, None) => self.end_of_input(),
                (None, None, Some(b'"')) if !escaped => {
                    self.i = end + 1;
                    return Ok(Some(text));
                }
                (None, None, Some(&stopper)) => {
                    if !escaped {
                        self.scratch.clear();
                        escaped = true;
                    }
                    self.push(text).map_err(|e| self.cut(escaped, "", e))?;
                    if stopper == b'"' {
                        self.i = end + 1;
                        return Ok(None);
                    }
                    match self.escape(end, &mut high) {
                        Ok(next) => {
                            start = next;
                            continue;
                        }
                        Err(e) => return Err(self.cut(escaped, "", e)),
                    }
                }
            };
            return Err(self.cut(escaped, text, error));
        }
    }

    /// The escape at `at` (a backslash) into `scratch`, with `high` a pending high surrogate
    /// (0 = none) that it completes, leaves alone or becomes; returns where the text goes on.
    fn escape(&mut self, at: usize, high: &mut u16) -> Result<usize> {
        let Some(&b) = self.text.get(at + 1) else {
            return Err(self.end_of_input());
        };
        if b == b'u' {
            let unit = self.hex4(at + 2)?;
            let pending = std::mem::take(high);
            if pending != 0 {
                if (0xDC00..0xE000).contains(&unit) {
                    let c = 0x10000 + ((u32::from(pending) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    self.push_char(char::from_u32(c).unwrap_or('\u{FFFD}'))?;
                    return Ok(at + 6);
                }
                self.push("\u{FFFD}")?;
            }
            if (0xD800..0xDC00).contains(&unit) {
                *high = unit;
            } else {
                // A lone low surrogate is no char: U+FFFD.
                self.push_char(char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'))?;
            }
            return Ok(at + 6);
        }
        if std::mem::take(high) != 0 {
            self.push("\u{FFFD}")?;
        }
        let Some(c) = simple_escape(b) else {
            return Err(invalid("invalid escape in string", at + 1));
        };
        self.push_char(char::from(c))?;
        Ok(at + 2)
    }

    /// A failed string: `text` is what was read of the current run (before it, the text is
    /// the run itself when there was no escape, else in `scratch`).
    fn cut(&mut self, escaped: bool, text: &'t str, error: Error) -> Cut<'t> {
        // Faults inside the input are before its end: an error there is the end of input.
        let at_end = error.offset() == Some(self.text.len() as u64);
        if !escaped {
            return Cut { error, text: Some(text), at_end };
        }
        // Out of memory here leaves the text short; the first error stands.
        let _ = self.push(text);
        Cut { error, text: None, at_end }
    }

    /// The four hex digits of a `\u` escape at `at`.
    fn hex4(&self, at: usize) -> Result<u16> {
        let mut unit = 0u16;
        for k in at..at + 4 {
            let Some(&b) = self.text.get(k) else {
                return Err(self.end_of_input());
            };
            let Some(d) = hex(b) else {
                return Err(invalid("invalid \\u escape", k));
            };
            unit = unit << 4 | d;
        }
        Ok(unit)
    }

    fn push(&mut self, s: &str) -> Result<()> {
        try_push_str(&mut self.scratch, s)
    }

    fn push_char(&mut self, c: char) -> Result<()> {
        self.push(c.encode_utf8(&mut [0; 4]))
    }
}

#[cfg(test)]
mod tests {
    use super::super::document_cases::{documents, seed};
    use super::super::tokenizer::{Sink, Token};
    use super::super::{parse_strict_chunks, parse_strict_document, read_streaming};
    use super::read_document;
    use crate::Result;

    /// Every token with its depth, owned; `skip` makes containers at that depth quiet.
    #[derive(Default)]
    struct Record {
        tokens: Vec<(String, usize)>,
        skip: Option<usize>,
    }

    impl Sink for Record {
        fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()> {
            self.tokens.push((format!("{tok:?}"), depth));
            Ok(())
        }

        fn skip_inside(&self, depth: usize) -> bool {
            self.skip == Some(depth)
        }
    }

    /// A reader's result and the tokens it reported.
    type Run = (Result<()>, Vec<(String, usize)>);

    fn both(doc: &[u8], skip: Option<usize>) -> [Run; 2] {
        let mut ours = Record { skip, ..Record::default() };
        let mut theirs = Record { skip, ..Record::default() };
        let a = read_document(doc, &mut ours);
        let b = read_streaming(doc, &mut theirs);
        [(a, ours.tokens), (b, theirs.tokens)]
    }

    #[test]
    fn reads_every_document_as_the_streaming_tokenizer_does() {
        let docs = documents();
        assert!(docs.len() > 100_000, "{}", docs.len());
        let (mut valid, mut invalid) = (0, 0);
        for doc in &docs {
            let [ours, theirs] = both(doc, None);
            assert_eq!(
                ours,
                theirs,
                "tokens or error differ (STREAMROUTE_SEED={}) on {:?}",
                seed(),
                String::from_utf8_lossy(doc)
            );
            // The same value or the same error (kind, message, offset).
            assert_eq!(parse_strict_document(doc), parse_strict_chunks(&[doc]), "{:?}", String::from_utf8_lossy(doc));
            if ours.0.is_ok() {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        // The set is not one-sided.
        assert!(valid > 5_000 && invalid > 20_000, "{valid} valid, {invalid} invalid");
    }

    #[test]
    fn a_quiet_container_is_read_but_not_reported_as_the_streaming_tokenizer_does() {
        for doc in documents().iter().step_by(7) {
            for skip in [0, 1, 2] {
                let [ours, theirs] = both(doc, Some(skip));
                assert_eq!(ours, theirs, "skip {skip} on {:?}", String::from_utf8_lossy(doc));
            }
        }
    }

    #[test]
    fn the_errors_are_the_streaming_tokenizers() {
        let cases: &[(&[u8], &str, &str, u64)] = &[
            (b"", "json_invalid", "empty input: expected a JSON value", 0),
            (b" ", "json_invalid", "unexpected end of input", 1),
            (b"[1", "json_invalid", "unexpected end of input", 2),
            (b"[01", "json_invalid", "unexpected end of input", 3),
            (b"01", "json_invalid", "invalid number", 0),
            (b"\"\xE2\x82\"", "json_invalid", "invalid UTF-8 in string", 3),
            (b"\"\xE2\x82\x01\"", "json_invalid", "control character in string", 3),
            (b"\"a\x80\"", "json_invalid", "invalid UTF-8 in string", 2),
            (br#""\u12g4""#, "json_invalid", "invalid \\u escape", 5),
            (br#""\ud800\x""#, "json_invalid", "invalid escape in string", 8),
            (b"\xEF\xBB\xBF{}", "json_invalid", "expected a JSON value", 0),
            (b"{} x", "json_invalid", "unexpected data after the JSON value", 3),
        ];
        for &(doc, code, message, at) in cases {
            let e = parse_strict_document(doc).unwrap_err();
            assert_eq!((e.code(), e.message(), e.offset()), (code, message, Some(at)), "{doc:?}");
            assert_eq!(Err(e), parse_strict_chunks(&[doc]));
        }
        let deep = [vec![b'['; 512], vec![b']'; 512]].concat();
        assert!(parse_strict_document(&deep).is_ok());
        let e = parse_strict_document(&[b"[".repeat(513), b"]".repeat(513)].concat()).unwrap_err();
        assert_eq!((e.code(), e.offset()), ("json_too_deep", Some(512)));
    }

    #[test]
    fn deep_input_is_an_error_not_a_stack_overflow() {
        let doc = b"[{\"a\":".repeat(100_000);
        let e = parse_strict_document(&doc).unwrap_err();
        assert_eq!(e.code(), "json_too_deep");
        assert_eq!(Err(e), parse_strict_chunks(&[&doc]));
    }

    #[test]
    fn a_string_without_escapes_is_one_part_borrowed_from_the_document() {
        let mut r = Record::default();
        read_document(br#"["plain \u00e9 text", "plain"]"#, &mut r).unwrap();
        let parts: Vec<_> = r.tokens.iter().filter(|(t, _)| t.starts_with("StringPart")).collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].0, "StringPart(\"plain é text\")");
    }
}
