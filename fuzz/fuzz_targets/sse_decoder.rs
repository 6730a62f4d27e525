//! Chunking invariance of `SseDecoder`.
//!
//! The first input byte chooses how the rest is cut: bits 0-4 give the piece size (1..=32),
//! bit 5 makes the pieces vary in size (1, 2, .., size, 1, 2, ..), bit 6 sets
//! `flush_on_finish`. The pieces are fed to a decoder with small caps, then `finish`; the
//! outcome (events, last event ID, retry, first error) must equal that of the whole input fed
//! in one call. After an error every further call must return that same error.
//!
//! When the rest is valid UTF-8 it is also fed as text: the pieces as UTF-16 code units
//! (`feed_utf16le`, cut at the character boundaries nearest the byte cuts), every other one
//! as UTF-8 when bit 7 is set, with the same outcome required.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{Error, SseDecoder, SseDecoderOptions, SseEvent};
use streamroute_fuzz::pieces;

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

/// A chunk as bytes, or as UTF-16LE code units.
enum Piece<'a> {
    Utf8(&'a [u8]),
    Utf16le(Vec<u8>),
}

fn run<'a>(opts: SseDecoderOptions, chunks: impl Iterator<Item = &'a [u8]>) -> Outcome {
    run_pieces(opts, chunks.map(Piece::Utf8))
}

fn run_pieces<'a>(opts: SseDecoderOptions, chunks: impl Iterator<Item = Piece<'a>>) -> Outcome {
    let mut dec = SseDecoder::new(opts);
    let mut events = Vec::new();
    let mut failure = Failure::default();
    for chunk in chunks {
        let r = match chunk {
            Piece::Utf8(b) => dec.feed(b, &mut events),
            Piece::Utf16le(u) => match dec.feed_utf16le(&u, &mut events) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    let units: Vec<u16> = u.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
                    dec.feed(String::from_utf16_lossy(&units).as_bytes(), &mut events)
                }
                Err(e) => Err(e),
            },
        };
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
    let opts = SseDecoderOptions { flush_on_finish: control & 0x40 != 0, max_line_bytes: 64, max_event_bytes: 256 };

    let pieces = pieces(rest, size, varying);

    let split = run(opts, pieces.iter().copied());
    let whole = run(opts, std::iter::once(rest));
    assert_eq!(split, whole, "chunking changed the outcome (piece size {size}, varying {varying})");

    if let Ok(text) = std::str::from_utf8(rest) {
        let mixed = control & 0x80 != 0;
        let mut text_pieces = Vec::new();
        let (mut from, mut k) = (0, 0);
        for p in &pieces {
            let mut to = (p.as_ptr() as usize - rest.as_ptr() as usize) + p.len();
            while !text.is_char_boundary(to) {
                to += 1;
            }
            if to > from {
                let t = &text[from..to];
                text_pieces.push(if mixed && k % 2 == 1 {
                    Piece::Utf8(t.as_bytes())
                } else {
                    Piece::Utf16le(t.encode_utf16().flat_map(u16::to_le_bytes).collect())
                });
                from = to;
                k += 1;
            }
        }
        let as_text = run_pieces(opts, text_pieces.into_iter());
        assert_eq!(as_text, whole, "UTF-16 pieces changed the outcome (piece size {size}, mixed {mixed})");
    }
});
