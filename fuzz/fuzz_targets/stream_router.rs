//! `StreamRouter`: never panics, and chunking never changes the events.
//!
//! The first input byte chooses the run: bits 0-4 give the piece size (1..=32), bits 5-6 the
//! content mode (text, action-json, tagged with a fixed nonce), bit 7 the provider (`auto` or
//! OpenAI Chat). The rest is the raw stream. The pieces are fed, then `finish`; the events
//! (adjacent text deltas merged, as their cut follows the chunking) and the first error must
//! equal those of the whole input fed in one call.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{ContentMode, Error, Provider, RoutedEvent, StreamRouter, StreamRouterOptions};

fn merge(events: Vec<RoutedEvent>) -> Vec<RoutedEvent> {
    let mut out: Vec<RoutedEvent> = Vec::new();
    for e in events {
        match (out.last_mut(), &e) {
            (Some(RoutedEvent::AnswerDelta { text: a }), RoutedEvent::AnswerDelta { text: b })
            | (Some(RoutedEvent::ArtifactDelta { text: a }), RoutedEvent::ArtifactDelta { text: b })
            | (Some(RoutedEvent::UserDelta { text: a }), RoutedEvent::UserDelta { text: b }) => a.push_str(b),
            (Some(RoutedEvent::ThinkingDelta { text: a, source: s }), RoutedEvent::ThinkingDelta { text: b, source: t })
                if s == t =>
            {
                a.push_str(b)
            }
            (Some(RoutedEvent::ToolCallDelta { index: i, arguments: a }), RoutedEvent::ToolCallDelta { index: j, arguments: b })
                if i == j =>
            {
                a.push_str(b)
            }
            _ => out.push(e),
        }
    }
    out
}

fn run<'a>(opts: &StreamRouterOptions, chunks: impl Iterator<Item = &'a [u8]>) -> (Vec<RoutedEvent>, Option<Error>) {
    let mut r = StreamRouter::new(opts.clone()).expect("valid options");
    let mut out = Vec::new();
    for c in chunks {
        if let Err(e) = r.feed(c, &mut out) {
            assert_eq!(r.finish(&mut out).as_ref().err(), Some(&e), "a failed router must repeat its error");
            return (merge(out), Some(e));
        }
    }
    let err = r.finish(&mut out).err();
    if err.is_none() {
        assert!(matches!(out.last(), Some(RoutedEvent::Done { .. })), "finish ends with done");
    }
    (merge(out), err)
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, stream)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let content = match (control >> 5) & 3 {
        0 | 3 => ContentMode::Text,
        1 => ContentMode::ActionJson,
        _ => ContentMode::Tagged,
    };
    let provider = if control & 0x80 != 0 { Provider::OpenAiChat } else { Provider::Auto };
    let opts = StreamRouterOptions {
        provider,
        content,
        nonce: Some("5f0c9a2be4d1487fa3c6b8e2d9f17a40".into()),
        max_event_bytes: 4096,
        // Small enough that fuzzed tool calls and actions reach it: whether it is hit must
        // not depend on the chunking either.
        max_buffer_bytes: 4096,
    };
    let whole = run(&opts, std::iter::once(stream));
    let split = run(&opts, stream.chunks(size));
    // A cap error may stop at a different feed, with fewer events before it: compare errors
    // only then.
    if whole.1.is_some() || split.1.is_some() {
        assert_eq!(whole.1.map(|e| e.code()), split.1.map(|e| e.code()));
    } else {
        assert_eq!(whole.0, split.0, "chunking changed the events (piece size {size})");
    }
});
