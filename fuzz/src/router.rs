//! What the router targets share: feeding a stream in pieces and comparing the outcome with
//! that of the whole.

use streamroute::{Error, RoutedEvent, StreamRouter, StreamRouterOptions};

pub use crate::shared::coalesce as merge;

/// Routes the chunks, then `finish`: the merged events and the first error. A failed router
/// must repeat its error; one that finished ends with `done`.
pub fn run<'a>(opts: &StreamRouterOptions, chunks: impl Iterator<Item = &'a [u8]>) -> (Vec<RoutedEvent>, Option<Error>) {
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

/// The stream whole, and in pieces of `size` bytes: the same events, or (a cap may stop at a
/// different feed, with fewer events before it) the same error.
pub fn assert_chunk_invariant(opts: &StreamRouterOptions, stream: &[u8], size: usize) -> (Vec<RoutedEvent>, Option<Error>) {
    let whole = run(opts, std::iter::once(stream));
    let split = run(opts, stream.chunks(size.max(1)));
    if whole.1.is_some() || split.1.is_some() {
        assert_eq!(whole.1.as_ref().map(|e| e.code()), split.1.as_ref().map(|e| e.code()));
    } else {
        assert_eq!(whole.0, split.0, "chunking changed the events (piece size {size})");
    }
    whole
}
