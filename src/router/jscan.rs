//! A cursor over one complete JSON document (one provider event's `data`), for reading a few
//! known paths without building a tree.
//!
//! Advice for hackers: the provider decoders know where their fields are
//! (`choices[0].delta.content`), so they walk the document with this cursor: `object()` /
//! `next_key()` step through members, `string_into()` decodes the one string that is wanted,
//! and `skip()` jumps over every other value. Invariants:
//! - Linear: every byte is looked at a constant number of times; strings are crossed with
//!   `memchr2` (quote or backslash), skipped containers by counting brackets, never by
//!   recursion (so any nesting depth is safe).
//! - Never panics: every index is checked; a malformed document is `Err(Bad)` with the byte
//!   offset, which the decoders turn into an `error` delta. Skipped values are checked only
//!   for balanced brackets and closed strings (their contents are not needed).

/// A malformed document: the byte offset where reading failed, or [`Bad::OUT_OF_MEMORY`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bad(pub usize);

impl Bad {
    /// Not a syntax error: memory ran out decoding a string (the one allocation a read makes,
    /// reserved fallibly). The decoders report it as `memory_limit_exceeded`.
    pub(crate) const OUT_OF_MEMORY: Bad = Bad(usize::MAX);

    /// This error `by` bytes further on (the offset of a document inside a larger one).
    #[inline]
    pub(crate) fn shifted(self, by: usize) -> Bad {
        if self == Bad::OUT_OF_MEMORY {
            self
        } else {
            Bad(self.0.saturating_add(by).min(usize::MAX - 1))
        }
    }
}

pub(crate) type R<T> = Result<T, Bad>;

/// What kind of value starts at the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

/// The cursor.
pub(crate) struct Json<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Json<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        Json { s, i: 0 }
    }

    /// The byte offset of the cursor.
    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    #[inline]
    fn b(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    #[inline]
    fn ws(&mut self) {
        let b = self.b();
        while let Some(&c) = b.get(self.i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.i += 1;
        }
    }

    #[inline]
    fn byte(&mut self) -> Option<u8> {
        self.ws();
        self.b().get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, c: u8) -> R<()> {
        if self.byte() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(Bad(self.i))
        }
    }

    /// The kind of the next value (after whitespace).
    #[inline]
    pub(crate) fn kind(&mut self) -> R<Kind> {
        Ok(match self.byte() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b'-' | b'0'..=b'9') => Kind::Number,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => return Err(Bad(self.i)),
        })
    }

    /// Only whitespace is left.
    #[inline]
    pub(crate) fn end(&mut self) -> R<()> {
        match self.byte() {
            None => Ok(()),
            Some(_) => Err(Bad(self.i)),
        }
    }

    /// Enters an object (`{`); then call [`next_key`](Self::next_key) until it returns `None`.
    #[inline]
    pub(crate) fn object(&mut self) -> R<Members> {
        self.eat(b'{')?;
        Ok(Members { first: true })
    }

    /// Enters an array (`[`); then call [`next_item`](Self::next_item) until it is `false`.
    #[inline]
    pub(crate) fn array(&mut self) -> R<Members> {
        self.eat(b'[')?;
        Ok(Members { first: true })
    }

    /// The next key of the object (raw: escapes are kept, which never matters for the ASCII
    /// names compared against), with the cursor on its value; `None` after the closing `}`.
    #[inline]
    pub(crate) fn next_key(&mut self, m: &mut Members) -> R<Option<&'a str>> {
        match self.byte() {
            Some(b'}') => {
                self.i += 1;
                return Ok(None);
            }
            Some(b',') if !m.first => self.i += 1,
            _ if m.first => {}
            _ => return Err(Bad(self.i)),
        }
        m.first = false;
        if self.byte() != Some(b'"') {
            return Err(Bad(self.i));
        }
        let key = self.string_raw()?;
        self.eat(b':')?;
        Ok(Some(key))
    }

    /// Moves to the next array item: `true` with the cursor on it, `false` after the `]`.
    #[inline]
    pub(crate) fn next_item(&mut self, m: &mut Members) -> R<bool> {
        match self.byte() {
            Some(b']') => {
                self.i += 1;
                return Ok(false);
            }
            Some(b',') if !m.first => self.i += 1,
            _ if m.first => {}
            _ => return Err(Bad(self.i)),
        }
        m.first = false;
        Ok(true)
    }

    /// Runs `f` on the first item of the array at the cursor and skips the others (the
    /// providers' `choices` / `candidates`: only the first is routed).
    pub(crate) fn first_item(&mut self, mut f: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        let mut a = self.array()?;
        let mut first = true;
        while self.next_item(&mut a)? {
            if first {
                f(self)?;
                first = false;
            } else {
                self.skip()?;
            }
        }
        Ok(())
    }

    /// A string's raw content (between the quotes, escapes not decoded).
    #[inline]
    pub(crate) fn string_raw(&mut self) -> R<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        let b = self.b();
        // Keys and short values end within a few bytes: look there before calling memchr.
        let short = b.get(start..).unwrap_or_default();
        for (k, &c) in short.iter().take(16).enumerate() {
            if c == b'"' {
                let raw = self.s.get(start..start + k).ok_or(Bad(start))?;
                self.i = start + k + 1;
                return Ok(raw);
            }
            if c == b'\\' {
                break;
            }
        }
        loop {
            let rest = b.get(self.i..).unwrap_or_default();
            let Some(p) = memchr::memchr2(b'"', b'\\', rest) else {
                return Err(Bad(b.len()));
            };
            self.i += p;
            if b[self.i] == b'"' {
                let raw = self.s.get(start..self.i).ok_or(Bad(start))?;
                self.i += 1;
                return Ok(raw);
            }
            self.i += 2; // the backslash and the escaped byte (a `\"` does not end the string)
        }
    }

    /// Decodes a string value, appending it to `out`. `null` appends nothing and is `Ok(false)`.
    pub(crate) fn string_into(&mut self, out: &mut String) -> R<bool> {
        if self.kind()? == Kind::Null {
            self.skip()?;
            return Ok(false);
        }
        let at = self.i;
        let raw = self.string_raw()?;
        unescape(raw, out).map_err(|k| k.shifted(at + 1))?;
        Ok(true)
    }

    /// A string value without escapes borrowed as it is; with escapes decoded into `scratch`.
    /// `None` for `null` or any other non-string (skipped).
    #[inline]
    pub(crate) fn str_value<'s>(&mut self, scratch: &'s mut String) -> R<Option<&'s str>>
    where
        'a: 's,
    {
        if self.kind()? != Kind::String {
            self.skip()?;
            return Ok(None);
        }
        self.string_value(scratch).map(Some)
    }

    /// [`str_value`](Self::str_value) for a cursor known to be on a string.
    #[inline]
    pub(crate) fn string_value<'s>(&mut self, scratch: &'s mut String) -> R<&'s str>
    where
        'a: 's,
    {
        let at = self.i;
        let raw = self.string_raw()?;
        if !raw.as_bytes().contains(&b'\\') {
            return Ok(raw);
        }
        scratch.clear();
        unescape(raw, scratch).map_err(|k| k.shifted(at + 1))?;
        Ok(scratch.as_str())
    }

    /// A non-negative integer (`None` for `null`, other kinds or non-integers, which are
    /// skipped).
    pub(crate) fn u64_value(&mut self) -> R<Option<u64>> {
        if self.kind()? != Kind::Number {
            self.skip()?;
            return Ok(None);
        }
        let raw = self.value_raw()?;
        Ok(raw.parse::<u64>().ok())
    }

    /// `true` only for the literal `true` (anything else is skipped and `false`).
    pub(crate) fn bool_value(&mut self) -> R<bool> {
        let t = self.byte() == Some(b't');
        self.skip()?;
        Ok(t)
    }

    /// The raw text of the next value (any kind), skipping it.
    pub(crate) fn value_raw(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.i;
        self.skip()?;
        self.s.get(start..self.i).ok_or(Bad(start))
    }

    /// Skips one value of any kind (containers by bracket counting, no recursion).
    pub(crate) fn skip(&mut self) -> R<()> {
        let b = self.b();
        match self.kind()? {
            Kind::String => self.string_raw().map(|_| ()),
            Kind::Number | Kind::Bool | Kind::Null => {
                let start = self.i;
                while let Some(&c) = b.get(self.i) {
                    if !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' | b'a'..=b'z') {
                        break;
                    }
                    self.i += 1;
                }
                let lit = &b[start..self.i];
                let ok = match lit.first() {
                    Some(b't') => lit == b"true",
                    Some(b'f') => lit == b"false",
                    Some(b'n') => lit == b"null",
                    _ => crate::json::tokenizer::valid_number(lit),
                };
                if ok {
                    Ok(())
                } else {
                    Err(Bad(start))
                }
            }
            Kind::Object | Kind::Array => {
                let mut depth = 0usize;
                loop {
                    let rest = b.get(self.i..).unwrap_or_default();
                    let Some(p) = rest.iter().position(|&c| matches!(c, b'"' | b'{' | b'[' | b'}' | b']')) else {
                        return Err(Bad(b.len()));
                    };
                    self.i += p;
                    match b[self.i] {
                        b'"' => {
                            self.string_raw()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        _ => depth -= 1,
                    }
                    self.i += 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// The raw text of the members of object `data` named in `names` (in that order; `None`
/// when absent). Other members are skipped. Not an object: `Err`.
pub(crate) fn members<'a, const N: usize>(data: &'a str, names: [&str; N]) -> R<[Option<&'a str>; N]> {
    let mut found = [None; N];
    members_into(data, &names, &mut found)?;
    Ok(found)
}

/// [`members`] for any number of names (one copy of the scan, whatever `N`).
fn members_into<'a>(data: &'a str, names: &[&str], found: &mut [Option<&'a str>]) -> R<()> {
    let mut j = Json::new(data);
    let mut m = j.object()?;
    while let Some(key) = j.next_key(&mut m)? {
        match names.iter().position(|n| *n == key) {
            Some(k) => found[k] = Some(j.value_raw()?),
            None => j.skip()?,
        }
    }
    j.end()
}

/// A raw member holding a string, decoded (`""` when absent or not a string).
pub(crate) fn string_of(raw: Option<&str>) -> R<String> {
    let mut s = String::new();
    if let Some(raw) = raw {
        let mut j = Json::new(raw);
        if j.kind()? == Kind::String {
            j.string_into(&mut s)?;
        }
    }
    Ok(s)
}

/// A raw member holding a small index (`None`, non-integers and `null` are 0).
pub(crate) fn index_of(raw: Option<&str>) -> u32 {
    raw.and_then(|r| r.trim().parse::<u64>().ok()).map_or(0, |i| i.min(u64::from(u32::MAX)) as u32)
}

/// Where an object or array is in its members.
pub(crate) struct Members {
    first: bool,
}

impl Members {
    /// Inside an object, after at least one member key.
    pub(crate) fn after_key() -> Members {
        Members { first: false }
    }
}

/// Longest document prefix a [`SkipCache`] keeps.
const MAX_SKIP_PREFIX: usize = 512;

/// The beginning of the last document that a reader only skipped through (members it does
/// not read) up to the member it reads. Streams repeat it byte for byte (OpenAI's `id`,
/// `object`, `created`, `model` before `choices`), and the parse of a prefix depends on its
/// bytes alone, so when the next document starts with the same bytes the cursor jumps past
/// them with one comparison instead of scanning every key again.
#[derive(Debug, Default)]
pub(crate) struct SkipCache {
    prefix: Vec<u8>,
}

impl SkipCache {
    /// Jumps past the cached prefix if the input at the cursor starts with it (the cursor is
    /// then on the value of the member the prefix ends with).
    #[inline]
    pub(crate) fn jump(&self, j: &mut Json<'_>) -> bool {
        let rest = j.b().get(j.i..).unwrap_or_default();
        let hit = !self.prefix.is_empty() && crate::text::starts_with(rest, &self.prefix);
        if hit {
            j.i += self.prefix.len();
        }
        hit
    }

    /// Remembers the input from `start` (where [`jump`](Self::jump) will be tried) to the
    /// cursor (on the value of a member, after only skipped members).
    pub(crate) fn remember(&mut self, j: &Json<'_>, start: usize) {
        self.prefix.clear();
        if let Some(p) = j.b().get(start..j.i).filter(|p| p.len() <= MAX_SKIP_PREFIX) {
            self.prefix.extend_from_slice(p);
        }
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b.get(..4)? {
        v = (v << 4) | (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Decodes JSON string content (`raw`, between the quotes) into `out`. A lone surrogate
/// escape becomes U+FFFD. `Err(Bad(k))`: an invalid escape at byte `k` of `raw`; `Bad::OUT_OF_MEMORY`: no room for the text.
pub(crate) fn unescape(raw: &str, out: &mut String) -> R<()> {
    let b = raw.as_bytes();
    let mut i = 0;
    // The decoded text is never longer than `raw`: this is the only allocation.
    if out.capacity() - out.len() < raw.len() && out.try_reserve(raw.len()).is_err() {
        return Err(Bad::OUT_OF_MEMORY);
    }
    while i < b.len() {
        let Some(p) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(crate::text::sub(raw, i..));
            return Ok(());
        };
        out.push_str(crate::text::sub(raw, i..i + p));
        i += p;
        let c = match b.get(i + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let Some(cp) = b.get(i + 2..).and_then(hex4) else { return Err(Bad(i)) };
                i += 6;
                if (0xD800..0xDC00).contains(&cp) {
                    let low = (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
                        .then(|| b.get(i + 2..).and_then(hex4))
                        .flatten()
                        .filter(|l| (0xDC00..0xE000).contains(l));
                    if let Some(low) = low {
                        i += 6;
                        let c = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        continue;
                    }
                }
                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                continue;
            }
            _ => return Err(Bad(i)),
        };
        out.push(c);
        i += 2;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_memory_is_kept_apart_from_offsets() {
        assert_eq!(Bad(3).shifted(5), Bad(8));
        assert_eq!(Bad::OUT_OF_MEMORY.shifted(5), Bad::OUT_OF_MEMORY);
        // An offset never becomes the out-of-memory value by shifting.
        assert_ne!(Bad(usize::MAX - 1).shifted(5), Bad::OUT_OF_MEMORY);
        let mut out = String::new();
        assert_eq!(unescape(r"a\qb", &mut out), Err(Bad(1)));
    }

    #[test]
    fn reads_known_paths_and_skips_the_rest() {
        let doc = r#" {"id":"x\"y","n":[1,{"a":"}"}],"choices":[{"delta":{"content":"caf\u00e9 \ud83d\ude00 \ud800"}}]} "#;
        let mut j = Json::new(doc);
        let mut m = j.object().unwrap();
        let mut got = String::new();
        while let Some(k) = j.next_key(&mut m).unwrap() {
            if k == "choices" {
                let mut a = j.array().unwrap();
                while j.next_item(&mut a).unwrap() {
                    let mut o = j.object().unwrap();
                    while let Some(k) = j.next_key(&mut o).unwrap() {
                        assert_eq!(k, "delta");
                        let mut d = j.object().unwrap();
                        assert_eq!(j.next_key(&mut d).unwrap(), Some("content"));
                        j.string_into(&mut got).unwrap();
                        assert_eq!(j.next_key(&mut d).unwrap(), None);
                    }
                }
            } else {
                j.skip().unwrap();
            }
        }
        j.end().unwrap();
        assert_eq!(got, "café 😀 \u{FFFD}");
    }

    #[test]
    fn malformed_documents_are_errors_not_panics() {
        for doc in
            ["", "{", "{\"a\"", "{\"a\":", "{\"a\":tru}", "{\"a\":\"x", "[1,,2]", "{\"a\":1 \"b\":2}", "\"\\u12\"", "{\"a\":[}"]
        {
            let mut j = Json::new(doc);
            let r = (|| {
                let mut m = j.object()?;
                while j.next_key(&mut m)?.is_some() {
                    let mut s = String::new();
                    if j.kind()? == Kind::String {
                        j.string_into(&mut s)?;
                    } else {
                        j.skip()?;
                    }
                }
                j.end()
            })();
            assert!(r.is_err(), "{doc:?} should fail");
        }
    }
}
