//! `TagFilter`, `check_tagged` and `sanitize_untrusted`: no panics, chunking invariance,
//! agreement with the whole-text parser, the held-bytes bound, no marker in any delta.
//!
//! The first input byte chooses the run: bits 0-4 give the piece size (1..=32), bit 5 makes
//! the pieces vary in size, bit 6 sets a small cap (64 bytes) instead of the default, bit 7
//! wraps the rest, sanitised, as the ARTIFACT block of a valid response (its deltas must then
//! be exactly the sanitised text). Otherwise the rest is the raw response, with the nonce `n1`
//! so that short inputs can spell markers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{check_tagged, sanitize_untrusted, TagDelta, TagFilter, TagFilterOptions, TagResult};
use streamroute_fuzz::pieces;

const NONCE: &str = "n1";

fn run<'a>(opts: &TagFilterOptions, chunks: impl Iterator<Item = &'a [u8]>) -> (Vec<String>, TagResult, Option<&'static str>) {
    let mut f = TagFilter::new(NONCE, opts.clone()).unwrap();
    let bound = f.max_buffered_bytes();
    let mut out: Vec<TagDelta> = Vec::new();
    let mut error = None;
    for c in chunks {
        let r = f.feed(c, &mut out);
        assert!(f.buffered_bytes() <= bound, "held {} > {bound}", f.buffered_bytes());
        if let Err(e) = r {
            error = Some(e.code());
            assert_eq!(f.feed(b"x", &mut Vec::new()).unwrap_err().code(), e.code(), "errors are sticky");
            break;
        }
    }
    let result = f.finish(&mut out).unwrap();
    assert!(f.finish(&mut Vec::new()).is_err());
    let mut texts = vec![String::new(); f.block_count()];
    for d in &out {
        assert!(!d.text.is_empty());
        texts[d.block].push_str(&d.text);
    }
    // No marker in what a UI shows: the deltas of a block joined.
    for t in &texts {
        for m in ["[ARTIFACT:n1]", "[/ARTIFACT:n1]", "[USER:n1]", "[/USER:n1]"] {
            assert!(!t.contains(m), "the text of a block holds {m}");
        }
    }
    (texts, result, error)
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let varying = control & 0x20 != 0;
    let opts = TagFilterOptions {
        max_buffer_bytes: if control & 0x40 != 0 { 64 } else { TagFilterOptions::default().max_buffer_bytes },
        ..Default::default()
    };
    let wrapped;
    let (stream, expected): (&[u8], Option<String>) = if control & 0x80 != 0 {
        let text = sanitize_untrusted(&String::from_utf8_lossy(rest));
        assert_eq!(sanitize_untrusted(&text), text, "sanitize_untrusted is idempotent");
        wrapped = format!("[ARTIFACT:{NONCE}]{text}[/ARTIFACT:{NONCE}]\n[USER:{NONCE}]u[/USER:{NONCE}]");
        (wrapped.as_bytes(), Some(text))
    } else {
        (rest, None)
    };
    let pieces = pieces(stream, size, varying);
    let split = run(&opts, pieces.iter().copied());
    let whole = run(&opts, std::iter::once(stream));
    assert_eq!(split, whole, "chunking changed the outcome (piece size {size}, varying {varying})");
    let (texts, result, error) = whole;
    if error.is_none() && result.ok {
        let parsed = check_tagged(stream, NONCE, &opts).unwrap();
        assert_eq!(parsed, result, "check_tagged disagrees with the filter");
        for (i, (_, t)) in result.blocks.iter().enumerate() {
            assert_eq!(&texts[i], t);
        }
        if let Some(text) = expected {
            if text.contains(NONCE) {
                // Sanitising does not know the nonce (a real one is long and random; this
                // one is two bytes): text that holds it is a violation, and the nonce never
                // reaches the block.
                assert!(result.violations.iter().all(|v| v.code == "nonce_in_text"), "{:?}", result.violations);
                assert!(!texts[0].contains(NONCE), "the nonce reached the block");
            } else {
                assert!(result.parse_ok, "{:?}", result.violations);
                assert_eq!(texts[0], text, "the sanitised block did not come through exactly");
            }
        }
    }
});
