//! Chunking invariance of `PartialJson`, and agreement with `parse_strict`.
//!
//! The first input byte chooses how the rest is cut: bits 0-4 give the piece size (1..=32),
//! bit 5 makes the pieces vary in size, bit 6 clears `strict`, bit 7 sets small caps (depth 8,
//! 200 held bytes). The pieces are fed, then `finish`; the outcome (events with adjacent
//! appends of one path merged, the final value or first error, the snapshot) must equal that of
//! the whole input fed in one call. In strict mode without small caps a successful parse must
//! give `parse_strict`'s value, and every `set` must be the final value at its path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{parse_strict, Error, JsonEvent, JsonValue, PartialJson, PartialJsonOptions, PathSegment};
use streamroute_fuzz::pieces;

type Outcome = (Vec<JsonEvent>, Result<JsonValue, Error>, Option<JsonValue>);

fn run<'a>(opts: PartialJsonOptions, chunks: impl Iterator<Item = &'a [u8]>) -> Outcome {
    let mut p = PartialJson::new(opts);
    let mut events = Vec::new();
    let mut failure = None;
    for chunk in chunks {
        if let Err(e) = p.feed(chunk, &mut events) {
            failure = Some(e);
            break;
        }
    }
    let result = match failure {
        Some(e) => {
            let n = events.len();
            assert_eq!(p.feed(b"[", &mut events).as_ref().err(), Some(&e), "a failed parser repeats its error");
            assert_eq!(p.finish(&mut events).as_ref().err(), Some(&e));
            assert_eq!(events.len(), n, "a failed parser reported events");
            Err(e)
        }
        None => p.finish(&mut events),
    };
    let mut merged: Vec<JsonEvent> = Vec::new();
    for ev in events {
        if let (Some(JsonEvent::Append { path: p, text: t }), JsonEvent::Append { path, text }) = (merged.last_mut(), &ev) {
            if p == path {
                t.push_str(text);
                continue;
            }
        }
        merged.push(ev);
    }
    (merged, result, p.value())
}

fn at<'a>(v: &'a JsonValue, path: &[PathSegment]) -> Option<&'a JsonValue> {
    path.iter().try_fold(v, |v, seg| match (seg, v) {
        (PathSegment::Key(k), JsonValue::Object(_)) => v.get(k),
        (PathSegment::Index(i), JsonValue::Array(items)) => items.get(*i),
        _ => None,
    })
}

fn has_duplicate_keys(v: &JsonValue) -> bool {
    match v {
        JsonValue::Object(m) => {
            m.iter().enumerate().any(|(i, (k, _))| m[..i].iter().any(|(k2, _)| k2 == k))
                || m.iter().any(|(_, v)| has_duplicate_keys(v))
        }
        JsonValue::Array(items) => items.iter().any(has_duplicate_keys),
        _ => false,
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let varying = control & 0x20 != 0;
    let strict = control & 0x40 == 0;
    let small = control & 0x80 != 0;
    let opts = PartialJsonOptions {
        strict,
        max_depth: if small { 8 } else { 512 },
        max_buffer_bytes: if small { 200 } else { 64 << 20 },
    };

    let pieces = pieces(rest, size, varying);

    let split = run(opts, pieces.iter().copied());
    let whole = run(opts, std::iter::once(rest));
    assert_eq!(split, whole, "chunking changed the outcome (piece size {size}, varying {varying})");

    if strict && !small {
        let reference = parse_strict(rest);
        match (&whole.1, &reference) {
            (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs),
            (Err(ours), Err(theirs)) => assert_eq!(ours.code(), theirs.code()),
            (ours, theirs) => panic!("PartialJson {ours:?} but parse_strict {theirs:?}"),
        }
        if let Ok(fin) = &whole.1 {
            if !has_duplicate_keys(fin) {
                for ev in &whole.0 {
                    let want = at(fin, ev.path()).expect("every event's path is in the final value");
                    if let JsonEvent::Set { value, .. } = ev {
                        assert_eq!(value, want);
                    }
                }
            }
        }
    }
});
