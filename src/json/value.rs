//! `JsonValue`: a JSON tree that keeps key order and numbers exactly as written, and the
//! builder that assembles one from tokens (also as a partial snapshot mid-stream).

use super::keys::FirstKeys;
use super::tokenizer::{Sink, Token};
use crate::budget::{try_push, try_push_str, try_to_string};
use crate::Result;

/// A JSON value. Objects keep their keys in the order written; numbers keep their text, so
/// large integers are not rounded. A key that repeats counts once, its first occurrence:
/// parsing keeps only that member, and [`JsonValue::get`] finds the first one of a value
/// built with repeats.
#[derive(Debug, PartialEq, Eq)]
pub enum JsonValue {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, exactly as written (valid RFC 8259 number text).
    Number(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object, in written order.
    Object(Vec<(String, JsonValue)>),
}

// Written out rather than derived so that it is one function: the derived clone was inlined
// into each place that clones a value (`.cloned()` over members, `to_vec`)
// (bench/README.md, "Measurements behind design choices").
impl Clone for JsonValue {
    #[inline(never)]
    fn clone(&self) -> Self {
        match self {
            JsonValue::Null => JsonValue::Null,
            JsonValue::Bool(b) => JsonValue::Bool(*b),
            JsonValue::Number(n) => JsonValue::Number(n.clone()),
            JsonValue::String(s) => JsonValue::String(s.clone()),
            JsonValue::Array(a) => JsonValue::Array(a.clone()),
            JsonValue::Object(m) => JsonValue::Object(m.clone()),
        }
    }
}

impl JsonValue {
    /// An array of these strings (one copy of this code in a `.wasm`, whatever calls it).
    #[inline(never)]
    pub(crate) fn strings<S: AsRef<str>>(list: &[S]) -> JsonValue {
        JsonValue::Array(list.iter().map(|s| JsonValue::String(s.as_ref().to_string())).collect())
    }

    /// The value under `key` of an object (the first one when repeated).
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// Compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// [`JsonValue::write_json`], with room for all of the text reserved first:
    /// `memory_limit_exceeded` (and `out` unchanged) when there is none.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn try_write_json(&self, out: &mut String) -> crate::Result<()> {
        let n = self.json_len();
        out.try_reserve(n).map_err(|_| crate::budget::out_of_memory(n))?;
        self.write_json(out);
        Ok(())
    }

    /// The length of [`JsonValue::to_json`]'s text.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn json_len(&self) -> usize {
        match self {
            JsonValue::Null => 4,
            JsonValue::Bool(b) => {
                if *b {
                    4
                } else {
                    5
                }
            }
            JsonValue::Number(n) => n.len(),
            JsonValue::String(s) => json_string_len(s),
            JsonValue::Array(items) => 2 + items.len().saturating_sub(1) + items.iter().map(JsonValue::json_len).sum::<usize>(),
            JsonValue::Object(members) => {
                let inner: usize = members.iter().map(|(k, v)| json_string_len(k) + 1 + v.json_len()).sum();
                2 + members.len().saturating_sub(1) + inner
            }
        }
    }

    /// Appends compact JSON text to `out`.
    pub fn write_json(&self, out: &mut String) {
        match self {
            JsonValue::Null => out.push_str("null"),
            JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonValue::Number(n) => out.push_str(n),
            JsonValue::String(s) => write_json_string(s, out),
            JsonValue::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_json(out);
                }
                out.push(']');
            }
            JsonValue::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_string(k, out);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// The length of [`write_json_string`]'s text for `s`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn json_string_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// Writes `s` as a JSON string literal (escaping `"`, `\` and control characters).
pub fn write_json_string(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    write_json_escaped(s, out);
    out.push('"');
}

/// Writes the content of a JSON string literal for `s` (no quotes), escaped as
/// [`write_json_string`] does.
pub(crate) fn write_json_escaped(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(crate::text::sub(s, start..i));
        if esc.is_empty() {
            // `\u00XX` by hand rather than through a formatter (bench/README.md, "Measurements
            // behind design choices").
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(crate::text::sub(s, start..));
}

/// Shows a string in messages as a JSON string literal: `format!("got {}", Quoted(name))`.
/// Error messages use this instead of `{:?}` so the `.wasm` carries no `str`/`char` `Debug`
/// code and Unicode printability tables (bench/README "Size").
pub(crate) struct Quoted<'a>(pub &'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::new();
        write_json_string(self.0, &mut s);
        f.write_str(&s)
    }
}

#[derive(Debug, Clone)]
enum Frame {
    Array(Vec<JsonValue>),
    Object(Vec<(String, JsonValue)>, Option<String>),
}

/// Builds `JsonValue`s from tokens. Complete top-level values are queued in `done`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ValueBuilder {
    stack: Vec<Frame>,
    /// The string value being read, if any.
    string: Option<String>,
    /// Complete top-level values, in order.
    pub(crate) done: Vec<JsonValue>,
    /// Bytes held in the partial tree (strings, keys, numbers): for caps.
    pub(crate) held: usize,
    /// A repeated key is dropped with its value: the first occurrence wins.
    keys: FirstKeys,
}

impl ValueBuilder {
    /// A builder for tokens already filtered by the caller's own [`FirstKeys`] (PartialJson):
    /// it keeps no second set of keys.
    pub(crate) fn prefiltered() -> Self {
        ValueBuilder { keys: FirstKeys::none(), ..ValueBuilder::default() }
    }

    fn attach(&mut self, v: JsonValue) -> Result<()> {
        match self.stack.last_mut() {
            None => try_push(&mut self.done, v),
            Some(Frame::Array(items)) => try_push(items, v),
            Some(Frame::Object(members, key)) => {
                let k = key.take().unwrap_or_default();
                try_push(members, (k, v))
            }
        }
    }

    /// The value being built, closed where it is open: partial strings as read so far,
    /// containers with their complete members, keys without a value left out.
    /// `None` before the first token of a value.
    pub(crate) fn snapshot(&self) -> Option<JsonValue> {
        let mut inner: Option<JsonValue> = self.string.clone().map(JsonValue::String);
        for frame in self.stack.iter().rev() {
            let v = match frame {
                Frame::Array(items) => {
                    let mut items = items.clone();
                    items.extend(inner.take());
                    JsonValue::Array(items)
                }
                Frame::Object(members, key) => {
                    let mut members = members.clone();
                    if let (Some(k), Some(v)) = (key, inner.take()) {
                        members.push((k.clone(), v));
                    }
                    JsonValue::Object(members)
                }
            };
            inner = Some(v);
        }
        inner
    }
}

impl Sink for ValueBuilder {
    fn token(&mut self, tok: Token<'_>, _depth: usize) -> Result<()> {
        if !self.keys.admit(&tok)? {
            return Ok(());
        }
        match tok {
            Token::ObjectStart => try_push(&mut self.stack, Frame::Object(Vec::new(), None)),
            Token::ArrayStart => try_push(&mut self.stack, Frame::Array(Vec::new())),
            Token::ObjectEnd => match self.stack.pop() {
                Some(Frame::Object(m, _)) => self.attach(JsonValue::Object(m)),
                _ => Ok(()),
            },
            Token::ArrayEnd => match self.stack.pop() {
                Some(Frame::Array(items)) => self.attach(JsonValue::Array(items)),
                _ => Ok(()),
            },
            Token::Key(k) => {
                self.held += k.len();
                if let Some(Frame::Object(_, key)) = self.stack.last_mut() {
                    *key = Some(try_to_string(k)?);
                }
                Ok(())
            }
            Token::StringStart => {
                self.string = Some(String::new());
                Ok(())
            }
            Token::StringPart(t) => {
                self.held += t.len();
                match &mut self.string {
                    Some(s) => try_push_str(s, t),
                    None => Ok(()),
                }
            }
            Token::StringEnd => {
                let s = self.string.take().unwrap_or_default();
                self.attach(JsonValue::String(s))
            }
            Token::Number(n) => {
                self.held += n.len();
                self.attach(JsonValue::Number(try_to_string(n)?))
            }
            Token::Bool(b) => self.attach(JsonValue::Bool(b)),
            Token::Null => self.attach(JsonValue::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_sink_that_reads_no_raw_text_refuses_it() {
        // Only the answer extractor turns `raw_text` on, and it reads the raw bytes itself;
        // another sink's default is an `invalid_state` error, never a silent decode.
        use super::super::tokenizer::{Tokenizer, TokenizerOptions};
        let mut tok = Tokenizer::new(TokenizerOptions { raw_text: true, strict: false, ..TokenizerOptions::default() });
        let mut b = super::ValueBuilder::default();
        let e = tok.feed(br#"{"a":"text"}"#, &mut b).and_then(|_| tok.finish(&mut b)).unwrap_err();
        assert_eq!(e.code(), "invalid_state");
    }

    #[test]
    fn json_len_is_the_length_of_the_text() {
        let v = crate::parse_strict(
            br#"{"a\n\u0001\"":[1,true,false,null,"\t\\x\u001f\u007f\u00e9\b\f\r",{}],"b":[],"c":{"d":-1.5e3}}"#,
        )
        .unwrap();
        assert_eq!(v.json_len(), v.to_json().len());
        let mut out = String::from("x");
        v.try_write_json(&mut out).unwrap();
        assert_eq!(out, format!("x{}", v.to_json()));
    }
}
