//! Chunking invariance of `SseDecoder`.
//!
//! The first input byte chooses how the rest is cut: bits 0-4 give the piece size (1..=32),
//! bit 5 makes the pieces vary in size (1, 2, .., size, 1, 2, ..), bit 6 sets
//! `flush_on_finish`. The pieces are fed to a decoder with small caps, then `finish`; the
//! outcome (events, last event ID, retry, first error) must equal that of the whole input fed
//! in one call. After an error every further call must return that same error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{Error, SseDecoder, SseDecoderOptions, SseEvent};

type Outcome = (Vec<SseEvent>, String, Option<u64>, Option<Error>);

/// The first error, and how many events had been emitted when it happened.
#[derive(Default)]
struct Failure(Option<(Error, usize)>);

impl Failure {
    fn see(&mut self, r: Result<(), Error>, n_events: usize) {
        match (&self.0, r) {
            (None, Ok(())) => {}
            (None, Err(e)) => self.0 = Some((e, n_events)),
            (Some((first, n)), r) => {
                assert_eq!(r.err().as_ref(), Some(first), "a failed decoder must repeat its error");
                assert_eq!(n_events, *n, "a failed decoder emitted events");
            }
        }
    }
}

fn run<'a>(opts: SseDecoderOptions, chunks: impl Iterator<Item = &'a [u8]>) -> Outcome {
    let mut dec = SseDecoder::new(opts);
    let mut events = Vec::new();
    let mut failure = Failure::default();
    for chunk in chunks {
        let r = dec.feed(chunk, &mut events);
        failure.see(r, events.len());
    }
    let r = dec.finish(&mut events);
    failure.see(r, events.len());
    if failure.0.is_some() {
        let r = dec.feed(b"data: x\n\n", &mut events);
        failure.see(r, events.len());
        let r = dec.finish(&mut events);
        failure.see(r, events.len());
    }
    (events, dec.last_event_id().to_owned(), dec.retry(), failure.0.map(|(e, _)| e))
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, rest)) = input.split_first() else { return };
    let size = usize::from(control & 0x1f) + 1;
    let varying = control & 0x20 != 0;
    let opts = SseDecoderOptions {
        flush_on_finish: control & 0x40 != 0,
        max_line_bytes: 64,
        max_event_bytes: 256,
    };

    let mut pieces = Vec::new();
    let (mut i, mut k) = (0, 0);
    while i < rest.len() {
        let n = if varying { k % size + 1 } else { size };
        let end = (i + n).min(rest.len());
        pieces.push(&rest[i..end]);
        i = end;
        k += 1;
    }

    let split = run(opts, pieces.iter().copied());
    let whole = run(opts, std::iter::once(rest));
    assert_eq!(split, whole, "chunking changed the outcome (piece size {size}, varying {varying})");
});
