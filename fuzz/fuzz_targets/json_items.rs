//! Chunking invariance of `JsonItemStream`, and agreement with `parse_strict`.
//!
//! The first input byte chooses how the rest is cut (bits 0-3: piece size 1..=16, bit 4:
//! varying sizes), the path (bits 5-7, from `PATHS`). The outcome (items, first error) of the
//! pieces must equal that of the whole input in one call. For `$` and `$.items`, a document
//! that `parse_strict` accepts must give exactly the elements of its array.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{parse_strict, Error, JsonItemStream, JsonItemStreamOptions, JsonValue};
use streamroute_fuzz::pieces;

const PATHS: [&str; 8] = ["$", "$*", "$.items", "$.a.b", "$[1]", "$.items[0].x", "$['k k']", "$*"];

type Outcome = (Vec<JsonValue>, Option<Error>);

fn run<'a>(path: &str, opts: JsonItemStreamOptions, chunks: impl Iterator<Item = &'a [u8]>) -> Outcome {
    let mut s = JsonItemStream::new(path, opts).expect("valid path");
    let mut items = Vec::new();
    for chunk in chunks {
        if let Err(e) = s.feed(chunk, &mut items) {
            let n = items.len();
            assert_eq!(s.finish(&mut items).as_ref().err(), Some(&e), "a failed stream repeats its error");
            assert_eq!(items.len(), n);
            return (items, Some(e));
        }
    }
    let r = s.finish(&mut items);
    (items, r.err())
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x0f) + 1;
    let varying = control & 0x10 != 0;
    let path = PATHS[usize::from(control >> 5)];
    let opts = JsonItemStreamOptions { strict: true, max_depth: 64, max_item_bytes: 4096 };

    let pieces = pieces(rest, size, varying);

    let split = run(path, opts, pieces.iter().copied());
    let whole = run(path, opts, std::iter::once(rest));
    assert_eq!(split, whole, "chunking changed the outcome (piece size {size}, varying {varying})");

    if whole.1.is_none() && path != "$*" {
        assert!(parse_strict(rest).is_ok(), "items accepted a document parse_strict rejects");
    }
    if let (Ok(doc), "$" | "$.items") = (parse_strict(rest), path) {
        let target = if path == "$" { Some(&doc) } else { doc.get("items") };
        let want: &[JsonValue] = match target {
            Some(JsonValue::Array(items)) if !matches!(doc, JsonValue::Object(ref m) if m.iter().filter(|(k, _)| k == "items").count() > 1) => {
                items
            }
            _ => return,
        };
        match &whole.1 {
            None => assert_eq!(whole.0, want),
            Some(e) => {
                assert!(matches!(e.code(), "buffer_limit_exceeded" | "json_too_deep"), "{e}")
            }
        }
    }
});
