//! JSON repair: broken JSON from models, logs and JavaScript in, valid compact JSON out.
//!
//! [`repair_json`] reads the text once, left to right, and writes compact RFC 8259 JSON
//! (no whitespace; key order and duplicate keys as written; numbers as written; strings with
//! every escape decoded and re-encoded minimally, a lone surrogate escape as U+FFFD). Valid
//! JSON comes out value-identical, and [`repair_json_with_log`] then reports no repairs.
//! Repairing the output again changes nothing.
//!
//! ```
//! let (json, repairs) = streamroute::repair_json_with_log(
//!     "Sure! ```json\n{name: 'Ada', langs: ['en', 'fr',], born: 1815, // a comment\n",
//! )
//! .unwrap();
//! assert_eq!(json, r#"{"name":"Ada","langs":["en","fr"],"born":1815}"#);
//! assert_eq!(repairs[0].kind, "prose");
//! assert_eq!(repairs[1].kind, "fence");
//! ```
//!
//! The repair kinds and the decisions taken where the input is ambiguous are documented on
//! [`repair_json`]; `src/repair/repairer.rs` explains how the single pass works.

mod kind;
mod lexical;
mod repairer;

pub use kind::RepairKind;

use crate::json::parse_strict;
use crate::{JsonValue, Result};

/// One repair applied to the input: a stable `kind` (see the table on [`repair_json`]; the
/// closed list is [`RepairKind`]) and the byte offset in the input where it applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(rename = "RepairEntry"))]
pub struct Repair {
    /// What was repaired: `"trailing_comma"`, `"quotes"`, `"truncated"`, … (the name of a
    /// [`RepairKind`]).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "RepairKind"))]
    pub kind: &'static str,
    /// Offset in the input of the first character concerned (the input length for what was
    /// missing at the end): bytes, UTF-16 code units in JS.
    pub offset: usize,
}

/// Repairs `text` into valid, compact JSON text.
///
/// ```
/// let json = streamroute::repair_json("{'a': True, b: [1, 2,]").unwrap();
/// assert_eq!(json, r#"{"a":true,"b":[1,2]}"#);
/// ```
///
/// # What is repaired
///
/// [`repair_json_with_log`] logs each repair as a [`Repair`] with one of these stable
/// `kind`s and the byte offset in the input where it applies (the first character
/// concerned; the input length for what was missing at the end).
///
/// | kind | what was wrong | what is written |
/// | --- | --- | --- |
/// | `prose` | text that is not JSON before the first value, or after the last one | nothing: leading prose is skipped up to the first `{`, `[` or code fence (`<think>…</think>` whole); trailing prose ends the document |
/// | `fence` | a Markdown code fence `` ```json `` / `` ``` `` | nothing; a fence inside an open value closes it |
/// | `comment` | `// …`, `/* … */`, `# …` outside strings | nothing |
/// | `whitespace` | a no-break, typographic or ideographic space, a byte order mark | nothing |
/// | `control_character` | a raw control character (a line break, a tab) in a string, or outside one | escaped in strings (`\n`, `\u0001`), dropped outside |
/// | `quotes` | a string in `'…'`, `“…”`, `‘…’`, `` `…` `` | a `"…"` string (`"` inside is escaped) |
/// | `inner_quote` | an unescaped quote inside a string (`"a 24" screen"`): the quote is followed by text, not by JSON | `\"` |
/// | `missing_quote` | a string that lost its end quote (`["a, "b"]`, `{"a: 1}`), or its start quote (`[a", "b"]`) | the string ends at its last delimiter, at the first colon of a key, or at a line break |
/// | `invalid_escape` | `\a`, `\'`, `\x41`, `\0`, a broken `\u12`, a backslash before a line break | the character itself (`a`, `'`, `A`, NUL; `u12`); the line break |
/// | `stringified` | escaped JSON outside a string: `{\"a\": \"b\"}`, literal `\n` between tokens | one level of escaping removed |
/// | `string_concatenation` | `"a" + "b"` | `"ab"` (a `+` followed by no string is dropped) |
/// | `unquoted_key` | `{a: 1}` | `{"a":1}` |
/// | `unquoted_string` | a word or text without quotes in a container (`[a, b]`, `{url: https://x.y/z}`) | a string of the text up to the next delimiter on its line, trailing spaces left out |
/// | `python_literal` | `True`, `False`, `None` | `true`, `false`, `null` |
/// | `js_literal` | `undefined`, `NaN`, `Infinity`, `-Infinity` | `null` |
/// | `number` | a number JSON does not allow: `+1`, `.5`, `5.`, `2e`; leading zeros `0789`, hexadecimal `0x1F` | `1`, `0.5`, `5.0`, `2e0`; the strings `"0789"`, `"0x1F"` |
/// | `regex` | a regular expression literal `/a+b/i` | the string `"/a+b/i"` |
/// | `mongo_wrapper` | `ObjectId("…")`, `NumberLong(2)`, `ISODate("…")`, any `name(value)` in a value | the (first) argument; `null` for `name()` |
/// | `jsonp` | `callback({…});` around the document | the argument |
/// | `missing_comma` | `[1 2]`, `{"a": 1 "b": 2}` | the comma |
/// | `trailing_comma` | `[1, 2,]`, `{"a": 1,}`, a comma after the last top-level value | nothing |
/// | `extra_comma` | `[1,,2]`, `{,"a": 1}` | nothing |
/// | `missing_colon` | `{"a" 1}`, `{"a" = 1}`, `{"a" => 1}` | the colon |
/// | `missing_value` | `{"a":}`, `{"a",}` | `null` |
/// | `missing_key` | `{: 1}` | the key `""` |
/// | `ellipsis` | `[1, 2, ...]`, `{"a": 1, …}` | nothing |
/// | `missing_bracket` | an object or array left open inside another (`[{"a": 1]`) | the closing bracket |
/// | `mismatched_bracket` | `{"a": 1]` with no array open | the right closing bracket |
/// | `unmatched_bracket` | a closing bracket with nothing to close (`{"a": 1}}`) | nothing |
/// | `skipped` | a stray `:` or `;` between values | nothing |
/// | `truncated` | the input ended inside a string, a number (`1.`, `-`), a literal (`tr`), an escape, or with objects and arrays open | the string, number or literal completed; `null` for a missing value; the closing brackets |
/// | `concatenated` | several top-level values: NDJSON, `{…}{…}`, `1, 2, 3` | one array of them |
///
/// Decisions where the input is ambiguous:
/// - A quote ends a string when what follows it (after whitespace) reads as the rest of the
///   JSON: the end, a line break, `,` `:` `}` `]` `{` `[`, another quote, a digit or `-`,
///   `+`, a comment; after a key also `=` or a keyword (`{"a" true}`). Two exceptions keep
///   the text: a quote followed by a quote that can only end the string (`"The TV is 72""`),
///   and a closing bracket that the string opened, with text after it
///   (`"the list [1, 2"] more"`), make the first quote content. Otherwise, if the string
///   holds a comment that ends right before the quote (or before `+` and the quote), the
///   string ends before the comment; if the last text before the quote is a delimiter
///   (`,` `}` `]`) or a line break, the string lost its end quote there (`missing_quote`; a
///   key is cut at its first colon instead, a top-level string only at a line break; a line
///   that ends with `+` joins the next string); else the quote is content (`inner_quote`).
/// - A string that runs to the end of the input: a key with a colon ends at it
///   (`{"a: 1` → `{"a":1}`); a value whose text ends with a delimiter ends at its first one,
///   and the rest is read again (`["hello, world]` → `["hello","world"]`); a top-level string
///   ends before the closing structure its text ends with; otherwise it was cut off and keeps
///   its text (whitespace and a `+` at its very end left out).
/// - Top-level text: a scalar counts only when its line goes on like JSON (`42`, `"x"`,
///   `true` alone or followed by `,`, a comment, another value); `1 apple` is prose while
///   JSON follows. Text with no JSON value at all (no `{`, `[`, fence or scalar) is read
///   again as bare text, as `jsonrepair` reads it: each line or comma-separated part is an
///   unquoted string (`hello world` → `"hello world"`, `a, b` → `["a","b"]`).
/// - Values after the first: a value that follows (after whitespace, commas, comments or
///   fences) makes the output an array (`concatenated`); prose after a value ends the
///   document, so JSON further inside that prose is not collected.
/// - A whole document that is one JSON string holding JSON (`"{\"a\":1}"`) is valid JSON
///   and stays a string.
///
/// # Limits
///
/// Nesting deeper than 512 objects, arrays and calls is `json_too_deep` (with the offset of
/// the bracket), as in the streaming parser. Time is linear in the input: the text is read
/// once (twice when it holds no JSON value and is read again as bare text); a string cut
/// short at an earlier delimiter re-reads at most the input length in all.
///
/// # Errors
/// `json_unrepairable` when the text holds no value at all (empty, or only whitespace,
/// comments and fences); `json_too_deep` (with the offset) past 512 levels of nesting;
/// `input_too_large` past [`MAX_INPUT_BYTES`](crate::MAX_INPUT_BYTES) (64 MiB) of text.
pub fn repair_json(text: &str) -> Result<String> {
    crate::budget::check_input(text.len(), "the text")?;
    repairer::Repairer::new(text, false).run().map(|(json, _)| json)
}

/// [`repair_json`], with the repairs applied, in input order (empty for valid JSON).
///
/// # Errors
/// As [`repair_json`].
pub fn repair_json_with_log(text: &str) -> Result<(String, Vec<Repair>)> {
    crate::budget::check_input(text.len(), "the text")?;
    repairer::Repairer::new(text, true).run()
}

/// Repairs `text` and parses the result (key order and number text kept).
///
/// # Errors
/// As [`repair_json`].
pub fn repair_json_value(text: &str) -> Result<JsonValue> {
    let json = repair_json(text)?;
    parse_strict(json.as_bytes())
}

/// Parses `text` strictly (RFC 8259), or, with `repair`, repairs it first.
///
/// # Errors
/// Strict: `json_invalid` with the byte offset, `json_too_deep`. Repairing: as
/// [`repair_json`]. Both: `input_too_large` past [`MAX_INPUT_BYTES`](crate::MAX_INPUT_BYTES).
pub fn parse_json(text: &str, repair: bool) -> Result<JsonValue> {
    crate::budget::check_input(text.len(), "the text")?;
    if repair {
        repair_json_value(text)
    } else {
        parse_strict(text.as_bytes())
    }
}
