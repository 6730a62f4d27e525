//! Reading one string: the hot loop, escapes, and the decision every quote needs (end of
//! the string, content, or proof that the end quote went missing earlier).
//!
//! Invariants: decoded content goes to `Repairer::buf` and is written once, when the string
//! ends, with `write_json_string`. `Marks` remember where the string could be cut (all
//! `buf` offsets are character boundaries); a cut gives back input that is read again, and
//! only ever whitespace unless the budget pays for it (see the parent module).

use super::{Ctx, Repairer};
use crate::json::write_json_string;
use crate::repair::lexical::Quote;
use crate::repair::RepairKind;

/// How a string being read ends.
enum StringEnd {
    /// Read on: the quote was content, or `+` joined another string.
    Continue,
    /// The string is complete (written).
    Done,
}

/// Positions in the string being read, for cutting it when it lost its end quote.
/// `buf` offsets are into the decoded content.
#[derive(Debug, Clone, Copy, Default)]
struct Marks {
    /// Input position of the last non-whitespace content character.
    sig: Option<usize>,
    /// Whether that character is a delimiter (`,` `]` `}`, and `:` in keys).
    sig_delim: bool,
    /// `buf` length after that character.
    sig_end: usize,
    /// When `sig` is a delimiter: `buf` length after the non-whitespace before it.
    delim_cut: usize,
    /// The first raw line break after `sig`: its input position.
    newline: Option<usize>,
    /// Keys: the first `:` (input position, `buf` length after the non-whitespace before it).
    colon: Option<(usize, usize)>,
    /// The first delimiter (`,` `]` `}`, and `:` in keys): its input position, the `buf`
    /// length after the non-whitespace before it, and that non-whitespace's input position.
    first_delim: Option<(usize, usize, Option<usize>)>,
    /// Input position where this string's content (or the part after a `+`) begins.
    start: usize,
    /// From input position `delta_from` on, `buf` length = input position + `delta` (the
    /// content is copied byte for byte up to the next escape).
    delta_from: usize,
    delta: isize,
    /// The content up to here was scanned (lazily, see `scan`) for the two below.
    scanned: usize,
    /// `[` and `{` in the content not closed in it (`"the list [1, 2"] more"`).
    squares: u32,
    curlies: u32,
    /// The first `/*` in the content: its input position, with `delta_from` and `delta`
    /// (`delta_from` is `usize::MAX` when an escape came after it).
    comment: Option<(usize, usize, isize)>,
}

impl Marks {
    /// Marks for content that begins at input position `at`, with `buf_len` bytes of the
    /// string read and settled before it (after a `+` joined another string to it).
    fn at(at: usize, buf_len: usize) -> Marks {
        Marks {
            sig_end: buf_len,
            delim_cut: buf_len,
            start: at,
            delta_from: at,
            delta: buf_len as isize - at as isize,
            scanned: at,
            ..Marks::default()
        }
    }

    fn content(&mut self, at: usize, buf_len: usize, delim: bool) {
        if delim {
            self.delim_cut = self.sig_end;
        }
        self.sig = Some(at);
        self.sig_delim = delim;
        self.sig_end = buf_len;
        self.newline = None;
    }
}

/// Bytes that end a run of plain string content: quotes, backslash, control characters,
/// the delimiters a cut may happen at, and the lead bytes of `´` and of `‘’‚‛“”„‟`.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'`' as usize] = true;
    t[b'\\' as usize] = true;
    t[b',' as usize] = true;
    t[b':' as usize] = true;
    t[b']' as usize] = true;
    t[b'}' as usize] = true;
    t[0xC2] = true;
    t[0xE2] = true;
    t
};

impl Repairer<'_> {
    /// Reads a string at `pos` (a quote, or `\"` for stringified JSON) and writes it.
    /// Returns `false` when it ran to the end of the input without an end quote.
    pub(super) fn string(&mut self, ctx: Ctx) -> bool {
        let open_at = self.pos;
        let escaped = self.b[self.pos] == b'\\';
        if escaped {
            self.note(RepairKind::Stringified, open_at);
            self.pos += 1;
        }
        let c = self.peek();
        let mut quote = Quote::of(c).unwrap_or(Quote::Double);
        if c != '"' {
            self.note(RepairKind::Quotes, open_at);
        }
        self.pos += c.len_utf8();
        let content = self.pos;
        self.buf.clear();
        let mut m = Marks::at(content, 0);
        loop {
            // The hot loop: a run of plain content is copied in one piece.
            let run = self.pos;
            while self.pos < self.b.len() && !STRING_STOP[self.b[self.pos] as usize] {
                self.pos += 1;
            }
            if self.pos > run {
                let bytes = &self.b[run..self.pos];
                self.buf.push_str(crate::text::sub(self.text, run..self.pos));
                if let Some(k) = bytes.iter().rposition(|&x| x != b' ') {
                    let trailing = bytes.len() - k - 1;
                    m.content(run + k, self.buf.len() - trailing, false);
                }
            }
            if self.pos >= self.b.len() {
                return self.string_at_end(ctx, escaped, content, &m);
            }
            let at = self.pos;
            let c = self.peek();
            if escaped {
                if self.escaped_step(c, &mut m) {
                    return true;
                }
                continue;
            }
            if quote.closes(c) {
                match self.end_quote(ctx, c, &mut m) {
                    (StringEnd::Done, _) => return true,
                    (StringEnd::Continue, Some(q)) => {
                        quote = q;
                        m = Marks::at(self.pos, self.buf.len());
                    }
                    (StringEnd::Continue, None) => {}
                }
                continue;
            }
            match c {
                '\\' => {
                    self.escape(&mut m);
                    // Input positions map to `buf` anew after an escape.
                    m.delta_from = self.pos;
                    m.delta = self.buf.len() as isize - self.pos as isize;
                }
                '\n' => {
                    self.note(RepairKind::ControlCharacter, at);
                    if m.newline.is_none() {
                        m.newline = Some(at);
                    }
                    self.buf.push('\n');
                    self.pos += 1;
                }
                '\t' | '\r' => {
                    self.note(RepairKind::ControlCharacter, at);
                    self.buf.push(c);
                    self.pos += 1;
                }
                '\0'..='\u{1f}' => {
                    self.note(RepairKind::ControlCharacter, at);
                    self.buf.push(c);
                    self.pos += 1;
                    m.content(at, self.buf.len(), false);
                }
                ',' | ']' | '}' | ':' => {
                    let delim = c != ':' || ctx == Ctx::Key;
                    if c == ':' && ctx == Ctx::Key && m.colon.is_none() {
                        m.colon = Some((at, m.sig_end));
                    }
                    if delim && m.first_delim.is_none() {
                        m.first_delim = Some((at, m.sig_end, m.sig));
                    }
                    self.buf.push(c);
                    self.pos += 1;
                    m.content(at, self.buf.len(), delim);
                }
                _ => {
                    self.buf.push(c);
                    self.pos += c.len_utf8();
                    m.content(at, self.buf.len(), false);
                }
            }
        }
    }

    /// Writes `buf[..len]` as the string and resumes reading at `resume`.
    fn cut(&mut self, len: usize, resume: usize) {
        self.buf.truncate(len);
        // Repairs noted for the text given back are noted again when it is read again.
        self.drop_log_from(resume);
        self.note(RepairKind::MissingQuote, resume);
        write_json_string(&self.buf, &mut self.out);
        self.pos = resume;
    }

    fn emit(&mut self) {
        write_json_string(&self.buf, &mut self.out);
    }

    /// Where to cut a string that lost its end quote (at `upto`, the deciding quote or the
    /// end): a key at its first colon, a value at its last delimiter (not at the top level,
    /// where a quote may begin prose), any string at a line break after its last content.
    /// A line that ends with `+` is not cut: the string goes on in the next quoted string.
    fn try_cut(&mut self, ctx: Ctx, m: &Marks, upto: usize) -> Option<(StringEnd, Option<Quote>)> {
        let done = Some((StringEnd::Done, None));
        if let (Ctx::Key, Some((at, len))) = (ctx, m.colon) {
            if self.budget_allows(upto - at) {
                self.cut(len, at);
                return done;
            }
        }
        if let (true, Some(at)) = (ctx != Ctx::Top && m.sig_delim, m.sig) {
            if self.budget_allows(upto - at) {
                self.cut(m.delim_cut, at);
                return done;
            }
        }
        if let Some(at) = m.newline {
            if self.budget_allows(upto - at) {
                if let Some(plus) = m.sig.filter(|&p| self.b[p] == b'+') {
                    let keep = self.before_plus(m.sig_end);
                    self.buf.truncate(keep);
                    self.drop_log_from(plus);
                    return Some(self.concatenate(plus));
                }
                self.cut(m.sig_end, at);
                return done;
            }
        }
        None
    }

    /// Scans the content from `m.scanned` to `upto` for brackets and the first `/*` (each
    /// byte once: only a quote that needs them asks, so the hot loop stays a plain copy).
    fn scan(&self, m: &mut Marks, upto: usize) {
        for i in m.scanned..upto {
            match self.b[i] {
                b'[' => m.squares += 1,
                b']' => m.squares = m.squares.saturating_sub(1),
                b'{' => m.curlies += 1,
                b'}' => m.curlies = m.curlies.saturating_sub(1),
                b'/' if m.comment.is_none() && i + 1 < upto && self.b[i + 1] == b'*' => {
                    // Before the last escape the position no longer maps to `buf`.
                    let from = if i >= m.delta_from { m.delta_from } else { usize::MAX };
                    m.comment = Some((i, from, m.delta));
                }
                _ => {}
            }
        }
        m.scanned = m.scanned.max(upto);
    }

    /// The `buf` length after the content at input position `i`, spaces before it left out
    /// (`None` when an escape lies between, so that the two do not map byte for byte).
    fn buf_before(&self, i: usize, from: usize, delta: isize) -> Option<usize> {
        if i < from {
            return None;
        }
        let mut len = usize::try_from(i as isize + delta).ok()?;
        while len > 0 && matches!(self.buf.as_bytes().get(len - 1), Some(b' ' | b'\t')) {
            len -= 1;
        }
        Some(len)
    }

    /// A quote after a comment that the string holds (`"abc + /* c */ "def"`,
    /// `"abc /* c */ + "def"`, `"abc, /* c */ "def"`): the string lost its end quote before
    /// the comment; what came before the comment (`+`, a delimiter) says how it goes on.
    fn comment_cut(&mut self, ctx: Ctx, m: &mut Marks, at: usize) -> Option<(StringEnd, Option<Quote>)> {
        self.scan(m, at);
        let (open, from, delta) = m.comment?;
        let back = |mut j: usize, floor: usize| {
            while j > floor && matches!(self.b[j - 1], b' ' | b'\t') {
                j -= 1;
            }
            j
        };
        let mut j = back(at, open);
        if j > open && self.b[j - 1] == b'+' {
            j = back(j - 1, open);
        }
        if j < open + 4 || &self.b[j - 2..j] != b"*/" {
            return None;
        }
        // The last content before the comment, and `buf` up to the comment and up to it.
        let p = back(open, m.start).checked_sub(1).filter(|&p| p >= m.start);
        let keep = self.buf_before(open, from, delta)?;
        let before = match p {
            Some(p) => Some((p, self.b[p], self.buf_before(p, from, delta)?)),
            None => None,
        };
        if !self.budget_allows(at - open) {
            return None;
        }
        self.drop_log_from(open);
        match before {
            Some((p, b'+', len)) => {
                self.buf.truncate(len);
                return Some(self.concatenate(p));
            }
            Some((p, b',' | b']' | b'}', len)) if ctx != Ctx::Top => {
                self.cut(len, p);
                return Some((StringEnd::Done, None));
            }
            _ => {}
        }
        self.buf.truncate(keep);
        self.note(RepairKind::MissingQuote, open);
        self.pos = open;
        self.trivia();
        if self.b.get(self.pos) == Some(&b'+') {
            return Some(self.concatenate(self.pos));
        }
        self.pos = open;
        self.emit();
        Some((StringEnd::Done, None))
    }

    /// The `buf` length without the `+` that ends `buf[..len]` and the spaces before it.
    fn before_plus(&self, len: usize) -> usize {
        let mut keep = len - 1;
        while keep > 0 && matches!(self.buf.as_bytes()[keep - 1], b' ' | b'\t') {
            keep -= 1;
        }
        keep
    }

    /// Forgets repairs noted at or after `from` (text that is read again).
    fn drop_log_from(&mut self, from: usize) {
        while self.log.last().is_some_and(|r| r.offset >= from) {
            self.log.pop();
        }
    }

    /// `+` at `plus` after a string: joins the next string to it (the caller reads it on
    /// with the quote returned), or, with no string after it, is dropped and the string ends.
    fn concatenate(&mut self, plus: usize) -> (StringEnd, Option<Quote>) {
        self.note(RepairKind::StringConcatenation, plus);
        self.pos = plus + 1;
        self.trivia();
        if self.pos < self.b.len() {
            let next = self.peek();
            if let Some(q) = Quote::of(next) {
                if next != '"' {
                    self.note(RepairKind::Quotes, self.pos);
                }
                self.pos += next.len_utf8();
                return (StringEnd::Continue, Some(q));
            }
        }
        self.emit();
        (StringEnd::Done, None)
    }

    /// The input ended inside a string. A key with a colon ends there (`{"a: 1`); a value
    /// whose text ends with a delimiter ends at its first one (`["a, b]` → `["a","b"]`); a
    /// top-level string whose text ends with closing structure (`"abc,\n]\n}`) ends before
    /// it; otherwise the string was cut off and ends at the end (a `+` at its end dropped).
    fn string_at_end(&mut self, ctx: Ctx, escaped: bool, content: usize, m: &Marks) -> bool {
        let len = self.b.len();
        if !escaped {
            if let (Ctx::Key, Some((at, keep))) = (ctx, m.colon) {
                if self.budget_allows(len - at) {
                    self.cut(keep, at);
                    return true;
                }
            }
            let ends_with_delim = m.sig_delim && self.skip_ws(m.sig.map_or(len, |s| s + 1)).0 == len;
            if let (true, Some((at, keep, before))) = (ctx != Ctx::Top && ends_with_delim, m.first_delim) {
                if self.budget_allows(len - at) {
                    let keep = match before {
                        Some(p) if self.b[p] == b'+' => {
                            self.drop_log_from(p);
                            self.note(RepairKind::StringConcatenation, p);
                            self.before_plus(keep)
                        }
                        _ => keep,
                    };
                    self.cut(keep, at);
                    return true;
                }
            }
            let mut t = len;
            while t > content && matches!(self.b[t - 1], b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}') {
                t -= 1;
            }
            if t > content && self.b[t - 1] == b'\\' {
                t += 1; // an escaped character stays content
            }
            let tail = &self.b[t.min(len)..];
            if tail.iter().any(|c| matches!(c, b'\n' | b',' | b']' | b'}'))
                && self.buf.as_bytes().ends_with(tail)
                && self.budget_allows(len - t)
            {
                // The tail was copied byte for byte: it is the end of `buf`.
                let mut keep = self.buf.len().saturating_sub(tail.len());
                while keep > 0 && matches!(self.buf.as_bytes()[keep - 1], b' ' | b'\t' | b'\r' | b'\n') {
                    keep -= 1;
                }
                self.cut(keep, t);
                return true;
            }
        }
        if let Some(plus) = m.sig.filter(|&p| self.b[p] == b'+' && !escaped) {
            // `"hello +`: the string that was to be joined never came.
            let keep = self.before_plus(m.sig_end);
            self.buf.truncate(keep);
            self.note(RepairKind::StringConcatenation, plus);
        } else {
            // Whitespace at the very end is where the text stopped, not content.
            self.buf.truncate(m.sig_end);
        }
        self.note(RepairKind::Truncated, len);
        self.emit();
        false
    }

    /// A quote that may end the string at `pos`: it does when what follows reads as the
    /// rest of the JSON (a delimiter, a line break, another value, a comment, the end).
    /// Otherwise the string lost its end quote earlier (cut), or the quote is content.
    fn end_quote(&mut self, ctx: Ctx, c: char, m: &mut Marks) -> (StringEnd, Option<Quote>) {
        let at = self.pos;
        let after = at + c.len_utf8();
        let (j, newline) = self.skip_ws(after);
        // A key followed by `=` or by a spaced keyword lost its colon: `{"a" true}`.
        let key_end = ctx == Ctx::Key && (self.b.get(j) == Some(&b'=') || (j > after && self.keyword_at(j)));
        let closing = newline
            || key_end
            || match self.b.get(j) {
                None => true,
                Some(&n) => match n {
                    b',' | b':' | b'{' | b'[' | b'+' | b'#' => true,
                    // A bracket the string opened and did not close, with text after it, is
                    // content: `"the list [1, 2"] more"`.
                    b']' | b'}' if !self.text_follows(j + 1) => true,
                    b']' => {
                        self.scan(m, at);
                        m.squares == 0
                    }
                    b'}' => {
                        self.scan(m, at);
                        m.curlies == 0
                    }
                    // `"The TV is 72""`: a quote followed by a quote that ends the string is
                    // content.
                    b'"' | b'\'' | b'`' => !self.quote_ends_at(j),
                    b'-' | b'0'..=b'9' => true,
                    b')' => self.calls > 0,
                    b'/' => matches!(self.b.get(j + 1), Some(b'/' | b'*')),
                    b'\\' => self.b.get(j + 1) == Some(&b'"'),
                    0x80.. => Quote::of(self.char_at(j)).is_some() && !self.quote_ends_at(j),
                    _ => false,
                },
            };
        if closing {
            if self.b.get(j) == Some(&b'+') {
                return self.concatenate(j);
            }
            self.pos = after;
            self.emit();
            return (StringEnd::Done, None);
        }
        if let Some(end) = self.comment_cut(ctx, m, at) {
            return end;
        }
        if let Some(end) = self.try_cut(ctx, m, at) {
            return end;
        }
        self.note(RepairKind::InnerQuote, at);
        self.buf.push(c);
        self.pos = after;
        m.content(at, self.buf.len(), false);
        (StringEnd::Continue, None)
    }

    /// Whether text (a letter, a digit, a quote or any non-ASCII character) follows `i` on
    /// its line, after spaces.
    fn text_follows(&self, i: usize) -> bool {
        let j = self.skip_spaces(i);
        self.b.get(j).is_some_and(|&n| n.is_ascii_alphanumeric() || n >= 0x80 || matches!(n, b'"' | b'\'' | b'`'))
    }

    /// Whether the quote at `i` is followed (after whitespace) by the end of the input or a
    /// delimiter, so that it can only be an end quote.
    fn quote_ends_at(&self, i: usize) -> bool {
        let (k, _) = self.skip_ws(i + self.char_at(i).len_utf8());
        matches!(self.b.get(k), None | Some(b',' | b'}' | b']' | b':'))
    }

    /// A backslash in a string (raw mode).
    fn escape(&mut self, m: &mut Marks) {
        let at = self.pos;
        let Some(&n) = self.b.get(at + 1) else {
            self.note(RepairKind::Truncated, at);
            self.pos += 1;
            return;
        };
        match n {
            b'u' => {
                let before = self.buf.len();
                self.unicode_escape(at, at + 1, false);
                if self.buf.len() > before {
                    m.content(at, self.buf.len(), false);
                }
                return;
            }
            b'\n' | b'\r' => {
                // A backslash-escaped line break (a shell or JavaScript line continuation):
                // the line break, so that no text runs together.
                self.note(RepairKind::InvalidEscape, at);
                let crlf = n == b'\r' && self.b.get(at + 2) == Some(&b'\n');
                self.buf.push('\n');
                self.pos += if crlf { 3 } else { 2 };
            }
            b'x' if self.b.get(at + 2..at + 4).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) => {
                self.note(RepairKind::InvalidEscape, at);
                let v = u32::from_str_radix(crate::text::sub(self.text, at + 2..at + 4), 16).unwrap_or(0xFFFD);
                self.buf.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
                self.pos += 4;
            }
            _ => {
                let e = self.char_at(at + 1);
                match simple_escape(e) {
                    Some(d) => self.buf.push(d),
                    None => {
                        // `\'`, `\a`, `\0`: the character itself (`\0` is NUL as in JS).
                        self.note(RepairKind::InvalidEscape, at);
                        self.buf.push(if e == '0' { '\0' } else { e });
                    }
                }
                self.pos += 1 + e.len_utf8();
            }
        }
        m.content(at, self.buf.len(), false);
    }

    /// `\uXXXX` at `at` (`u` at `u_at`): decoded, surrogate pairs combined, a lone surrogate
    /// U+FFFD (as the strict parser does). Cut off by the end: dropped. Broken: its text.
    fn unicode_escape(&mut self, at: usize, u_at: usize, stringified: bool) {
        let Some(cp) = self.hex4(u_at + 1) else {
            let mut k = u_at + 1;
            while k < self.b.len() && k < u_at + 5 && self.b[k].is_ascii_hexdigit() {
                k += 1;
            }
            if k >= self.b.len() {
                self.note(RepairKind::Truncated, at);
                self.pos = self.b.len();
            } else {
                self.note(RepairKind::InvalidEscape, at);
                self.buf.push_str(crate::text::sub(self.text, u_at..k));
                self.pos = k;
            }
            return;
        };
        self.pos = u_at + 5;
        let c = match cp {
            0xD800..=0xDBFF => {
                // A low half must follow, as `\u` (or `\\u` in stringified text).
                let low_u = if self.starts_with(b"\\u") {
                    Some(self.pos + 1)
                } else if stringified && self.starts_with(b"\\\\u") {
                    Some(self.pos + 2)
                } else {
                    None
                };
                match low_u.and_then(|u| Some((u, self.hex4(u + 1)?))) {
                    Some((u, lo @ 0xDC00..=0xDFFF)) => {
                        self.pos = u + 5;
                        char::from_u32(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)).unwrap_or('\u{FFFD}')
                    }
                    _ => '\u{FFFD}',
                }
            }
            _ => char::from_u32(cp).unwrap_or('\u{FFFD}'),
        };
        self.buf.push(c);
    }

    fn hex4(&self, i: usize) -> Option<u32> {
        let h = self.b.get(i..i + 4)?;
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(crate::text::sub(self.text, i..i + 4), 16).ok()
    }

    /// One step of a stringified string (opened by `\"`): one level of escaping is undone
    /// first, so `\"` ends it, `\\\"` is a quote, `\\n` and `\n` a line break. `true` at its end.
    fn escaped_step(&mut self, c: char, m: &mut Marks) -> bool {
        let at = self.pos;
        if c == '"' {
            // A raw quote: the end when the rest reads as JSON (`\"hello"`), else content.
            if self.ends_string(at + 1, self.calls > 0) {
                self.pos += 1;
                self.emit();
                return true;
            }
            self.buf.push('"');
            self.pos += 1;
            m.content(at, self.buf.len(), false);
            return false;
        }
        if c != '\\' {
            self.buf.push(c);
            self.pos += c.len_utf8();
            if (c as u32) < 0x20 {
                self.note(RepairKind::ControlCharacter, at);
            }
            m.content(at, self.buf.len(), false);
            return false;
        }
        let Some(&n) = self.b.get(at + 1) else {
            self.note(RepairKind::Truncated, at);
            self.pos += 1;
            return false;
        };
        match n {
            b'"' => {
                self.pos += 2;
                self.emit();
                return true;
            }
            b'\\' => {
                // A backslash of the inner JSON: its escaped character follows, itself
                // possibly escaped once more (`\\\"`, `\\\\`).
                let e_at = at + 2;
                match self.b.get(e_at) {
                    None => {
                        self.note(RepairKind::Truncated, at);
                        self.pos = e_at;
                    }
                    Some(b'\\') if matches!(self.b.get(e_at + 1), Some(b'"' | b'\\')) => {
                        self.buf.push(self.b[e_at + 1] as char);
                        self.pos = e_at + 2;
                    }
                    Some(b'u') => self.unicode_escape(at, e_at, true),
                    Some(_) => {
                        let e = self.char_at(e_at);
                        self.buf.push(simple_escape(e).unwrap_or(e));
                        self.pos = e_at + e.len_utf8();
                    }
                }
            }
            b'u' => self.unicode_escape(at, at + 1, true),
            _ => {
                let e = self.char_at(at + 1);
                self.buf.push(simple_escape(e).unwrap_or(e));
                self.pos = at + 1 + e.len_utf8();
            }
        }
        m.content(at, self.buf.len(), false);
        false
    }
}

/// The character a one-letter JSON escape stands for.
fn simple_escape(e: char) -> Option<char> {
    Some(match e {
        '"' => '"',
        '\\' => '\\',
        '/' => '/',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        _ => return None,
    })
}
