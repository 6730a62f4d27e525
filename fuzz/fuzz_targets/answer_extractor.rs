//! `AnswerExtractor`: chunking invariance, sticky errors, and an encode-then-extract round trip.
//!
//! The first input byte chooses the run: bits 0-4 give the piece size (1..=32), bit 5 makes
//! the pieces vary in size (1, 2, .., size, 1, 2, ..), bit 6 sets a 64-byte cap instead of the
//! default, bit 7 wraps the rest as the answer of a finish action (encoded here, escaping
//! bytes by a rule taken from the second byte) instead of using it as the raw stream.
//!
//! The pieces are fed, then `finish`; the outcome (answer text, decision, `next_node`,
//! emitted count, first error, and the thought when there was no error) must equal that of
//! the whole input fed in one call. After an error every further call must repeat it.
//! `takeThought` is called only at the end: a thought taken between feeds is never held, so
//! taking it after each feed would legitimately make the cap depend on the chunking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{AnswerExtractor, AnswerExtractorOptions, Error};
use streamroute_fuzz::pieces;

#[derive(Debug, PartialEq)]
struct Outcome {
    answer: String,
    is_finish_action: Option<bool>,
    next_node: Option<String>,
    emitted: u64,
    thought: Option<String>,
    error: Option<Error>,
}

fn run<'a>(opts: AnswerExtractorOptions, chunks: impl Iterator<Item = &'a [u8]>) -> Outcome {
    let mut x = AnswerExtractor::new(opts);
    let mut answer = String::new();
    let mut error = None;
    for chunk in chunks {
        if let Err(e) = x.feed_into(chunk, &mut answer) {
            error = Some(e);
            break;
        }
    }
    match &error {
        None => match x.finish() {
            Ok(t) => answer.push_str(&t),
            Err(e) => error = Some(e),
        },
        Some(e) => {
            let mut more = String::new();
            assert_eq!(x.feed_into(b"{\"answer\":\"x\"}", &mut more).as_ref().err(), Some(e));
            assert_eq!(x.finish().as_ref().err(), Some(e), "a failed extractor must repeat its error");
            assert!(more.is_empty(), "a failed extractor emitted text");
        }
    }
    assert_eq!(x.emitted_count(), answer.chars().count() as u64);
    let thought = x.take_thought();
    Outcome {
        answer,
        is_finish_action: x.is_finish_action(),
        next_node: x.next_node().map(str::to_string),
        emitted: x.emitted_count(),
        thought: error.is_none().then_some(thought),
        error,
    }
}

/// `text` as a JSON string: `"` and `\` and control characters always escaped, other
/// characters escaped as `\uXXXX` (surrogate pairs above U+FFFF) when `rule` picks them.
fn encode(text: &str, rule: u8) -> String {
    let mut out = String::from("\"");
    for (i, c) in text.chars().enumerate() {
        let pick = rule != 0 && i % usize::from(rule) == 0;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || pick => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let varying = control & 0x20 != 0;
    let opts =
        if control & 0x40 != 0 { AnswerExtractorOptions { max_buffer_bytes: 64 } } else { AnswerExtractorOptions::default() };

    let wrapped;
    let (stream, expected): (&[u8], Option<String>) = if control & 0x80 != 0 {
        let (rule, text) = rest.split_first().map_or((0, &[][..]), |(r, t)| (*r, t));
        let text = String::from_utf8_lossy(text).into_owned();
        wrapped = format!("```json\n{{\"next_node\":\"final_response\",\"args\":{{\"answer\":{}}}}}\n```", encode(&text, rule));
        (wrapped.as_bytes(), Some(text))
    } else {
        (rest, None)
    };

    let pieces = pieces(stream, size, varying);

    let split = run(opts, pieces.iter().copied());
    let whole = run(opts, std::iter::once(stream));
    assert_eq!(split, whole, "chunking changed the outcome (piece size {size}, varying {varying})");
    if let Some(text) = expected {
        if whole.error.is_none() {
            // The candidate rule: an answer of nothing but ASCII whitespace is no answer, and
            // streams nothing.
            let streamed = if text.bytes().all(|b| b.is_ascii_whitespace()) { "" } else { text.as_str() };
            assert_eq!(whole.answer, streamed, "the encoded answer did not round-trip");
            assert_eq!(whole.is_finish_action, Some(true));
        }
    }
});
