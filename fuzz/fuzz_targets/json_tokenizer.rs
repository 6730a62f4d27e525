//! The strict tokenizers (`parse_strict_chunks`, the streaming tokenizer, and
//! `parse_strict_document`, the whole-document one): the same result for every input, chunking
//! invariance and a differential check against serde_json.
//!
//! `parse_strict_document` on the whole input must equal `parse_strict_chunks` on it as one
//! piece (the same value, or the same error: code, message and offset), and so must
//! `parse_strict` (whichever of the two the build reads with).
//!
//! The first input byte chooses how the rest is cut: bits 0-4 give the piece size (1..=32),
//! bit 5 makes the pieces vary in size. The chunked parse must give exactly the whole-input
//! result (the same value, or the same error: code, message and offset); short inputs are also
//! fed byte by byte. Then serde_json (preserve_order + arbitrary_precision) must accept exactly
//! what we accept, with the same value (read with our first-wins rule for repeated keys,
//! `tests/common/first_wins.rs`), modulo the two documented differences (see
//! tests/json_strict.rs): a lone surrogate escape is U+FFFD for us and an error for serde_json
//! (serde_json is given the document with those escapes spelled `\ufffd`), and serde_json stops
//! at 128 levels of nesting where we stop at 512.
#![no_main]

#[path = "../../tests/common/first_wins.rs"]
mod first_wins;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use streamroute::{parse_strict, parse_strict_chunks, parse_strict_document, JsonValue};
use streamroute_fuzz::pieces;

fn to_serde(v: &JsonValue) -> Value {
    match v {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::Number(n) => serde_json::from_str(n).expect("number text is valid JSON"),
        JsonValue::String(s) => Value::String(s.clone()),
        JsonValue::Array(items) => Value::Array(items.iter().map(to_serde).collect()),
        JsonValue::Object(members) => {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k.clone(), to_serde(v));
            }
            Value::Object(map)
        }
    }
}

fn hex4(doc: &[u8], at: usize) -> Option<u16> {
    let digits = doc.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// `doc` with every lone surrogate escape inside a string replaced by `\ufffd`.
fn lone_surrogates_to_fffd(doc: &[u8]) -> Vec<u8> {
    let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
    let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
    let unit = |at: usize| {
        if doc.get(at) == Some(&b'\\') && doc.get(at + 1) == Some(&b'u') {
            hex4(doc, at + 2)
        } else {
            None
        }
    };
    let mut out = Vec::with_capacity(doc.len());
    let (mut i, mut in_string) = (0, false);
    while i < doc.len() {
        let b = doc[i];
        if !in_string {
            in_string = b == b'"';
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' => match unit(i) {
                Some(u) if is_high(u) && unit(i + 6).is_some_and(is_low) => {
                    out.extend_from_slice(&doc[i..i + 12]);
                    i += 12;
                }
                Some(u) if is_high(u) || is_low(u) => {
                    out.extend_from_slice(b"\\ufffd");
                    i += 6;
                }
                Some(_) => {
                    out.extend_from_slice(&doc[i..i + 6]);
                    i += 6;
                }
                None => {
                    out.extend_from_slice(&doc[i..(i + 2).min(doc.len())]);
                    i += 2;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else {
        return;
    };
    let size = usize::from(control & 0x1f) + 1;
    let varying = control & 0x20 != 0;

    let pieces = pieces(rest, size, varying);

    let whole = parse_strict(rest);
    assert_eq!(
        parse_strict_document(rest),
        parse_strict_chunks(&[rest]),
        "the whole-document tokenizer and the streaming one disagree"
    );
    assert_eq!(parse_strict_document(rest), whole, "parse_strict reads differently");
    assert_eq!(parse_strict_chunks(&pieces), whole, "chunking changed the result (piece size {size}, varying {varying})");
    if rest.len() <= 256 {
        let bytes: Vec<&[u8]> = rest.chunks(1).collect();
        assert_eq!(parse_strict_chunks(&bytes), whole, "byte-by-byte feed changed the result");
    }
    if let Err(e) = &whole {
        assert!(matches!(e.code(), "json_invalid" | "json_too_deep"), "{e}");
        assert!(e.offset().is_some_and(|at| at <= rest.len() as u64), "{e}");
    }

    let theirs: Result<Value, _> = serde_json::from_slice::<first_wins::FirstWins>(&lone_surrogates_to_fffd(rest)).map(|v| v.0);
    match (&whole, &theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(&to_serde(ours), theirs),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) if e.to_string().starts_with("recursion limit exceeded") => {}
        (ours, theirs) => {
            panic!("disagreement with serde_json: ours {ours:?}, serde_json {theirs:?}")
        }
    }
});
