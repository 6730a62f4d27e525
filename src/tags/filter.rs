//! `TagFilter`: the streaming half of nonce-tag parsing.
//!
//! Advice for hackers. Every byte is text, part of a marker, or part of the nonce in text
//! (redacted). Every marker holds the nonce just before its `]` and holds `[` only at its
//! start, so the scan jumps from one nonce to the next (memmem, `MarkerSet::find`) and
//! checks whether a marker ends just after it; if not, the nonce is text, and the judge
//! (`Contract`) flags it and has U+FFFD put in its place. The text between tokens goes at
//! once, as one run, to the judge, which says where it belongs. At the end of a chunk only
//! what may still become a token is held (`State::Held`, `MarkerSet::hold_start`): a
//! possible marker prefix (the last `[` of the chunk's tail, when what follows it may still
//! become a marker), else the longest suffix that is a proper prefix of the nonce. At the end
//! of the stream a held nonce prefix is text; a held marker prefix is dropped.
//!
//! Invariants:
//! - Held bytes ≤ longest marker − 1 (a possible marker prefix; a nonce prefix is shorter),
//!   plus 3 (an incomplete UTF-8 sequence of block text, in `Utf8Carry`): see
//!   [`TagFilter::buffered_bytes`]. Held input bytes are ASCII.
//! - Each input byte is looked at a constant number of times: a feed reads the held tail
//!   once more, with at most a marker's length of the new chunk, then the rest of the chunk
//!   once.
//! - No delta holds the nonce: runs between tokens hold none (the search is leftmost
//!   first), and what replaces a token, U+FFFD, is no nonce character.
//! - Text is emitted when certain and never taken back. Block text is decoded with the
//!   shared UTF-8 carry (invalid bytes become U+FFFD); a marker ends a decoding run.
//! - The cap counts the block text kept for the result plus the largest possible held tail;
//!   hitting it fails the filter at a byte offset that does not depend on the chunking.
//!   Errors are sticky for `feed`; `finish` then reports `ok: false`.

use super::contract::{Contract, State as Judge, NESTED_MARK};
use super::{MarkerSet, TagDelta, TagFilterOptions, TagResult, Token};
use crate::budget::{out_of_memory, try_extend, try_push_str, try_to_string};
use crate::text::{incomplete_tail, Utf8Carry};
use crate::{Error, ErrorKind, Result};

/// The lifecycle of the filter.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Reading; `held` is empty.
    Reading,
    /// Reading; `held` starts with `[` and may still become a marker.
    Held,
    /// A cap was hit: `feed` repeats the error, `finish` reports `ok: false`.
    Failed(Error),
    /// `finish` was called.
    Finished,
}

/// Streams the blocks of a nonce-tagged response: text inside a block is emitted as soon as
/// it cannot be part of a marker; markers, text outside blocks and partial markers never are.
///
/// ```
/// use streamroute::{TagFilter, TagFilterOptions};
///
/// let mut f = TagFilter::new("n0nce", TagFilterOptions::default()).unwrap();
/// let mut out = Vec::new();
/// f.feed(b"[ARTIFACT:n0nce]Hello[/ARTI", &mut out).unwrap();
/// f.feed(b"FACT:n0nce]\n[USER:n0nce]Any questions?[/USER:n0nce]", &mut out).unwrap();
/// let result = f.finish(&mut out).unwrap();
/// assert!(result.parse_ok);
/// assert_eq!(result.block("artifact"), Some("Hello"));
/// assert_eq!(out.iter().map(|d| d.text.as_str()).collect::<String>(), "HelloAny questions?");
/// ```
#[derive(Debug, Clone)]
pub struct TagFilter {
    markers: MarkerSet,
    contract: Contract,
    state: State,
    /// A possible marker prefix (only in `State::Held`).
    held: Vec<u8>,
    carry: Utf8Carry,
    /// The text of each block so far.
    blocks: Vec<String>,
    /// Bytes of block text read (for the cap).
    kept: usize,
    /// Whether `blocks` keeps the text (see [`TagFilter::stop_keeping_text`]).
    keep_text: bool,
    /// The chunk being fed is known to be whole valid UTF-8 (`TagInput::Utf8`).
    trusted: bool,
    /// The chunk being fed is a skeleton of UTF-16 text (`TagInput::Units`).
    units: bool,
    /// The UTF-8 length of the skeleton being fed (`TagInput::Units`).
    units_len8: u64,
    cap: usize,
    /// Stream offset of the next byte of input (held bytes included).
    offset: u64,
}

impl TagFilter {
    /// A filter for the request `nonce` (e.g. from [`make_nonce`](crate::make_nonce)).
    ///
    /// # Errors
    /// `invalid_option`: the nonce is not 1 to 128 ASCII letters, digits, `_` or `-`; block
    /// names are empty, malformed or repeated; or the cap is below the longest marker + 3.
    pub fn new(nonce: &str, options: TagFilterOptions) -> Result<TagFilter> {
        let markers = MarkerSet::new(nonce, &options)?;
        let n = markers.block_count();
        Ok(TagFilter {
            contract: Contract::new(n),
            markers,
            state: State::Reading,
            held: Vec::new(),
            carry: Utf8Carry::default(),
            blocks: vec![String::new(); n],
            kept: 0,
            keep_text: true,
            trusted: false,
            units: false,
            units_len8: 0,
            cap: options.max_buffer_bytes,
            offset: 0,
        })
    }

    /// Lowercase name of block `i` (`"artifact"`, `"user"`); `""` when out of range. The JS
    /// delta type is `<name>_delta`.
    pub fn block_name(&self, i: usize) -> &str {
        self.markers.lower_name(i)
    }

    /// How many blocks the contract has.
    pub fn block_count(&self) -> usize {
        self.markers.block_count()
    }

    /// Bytes held back right now: a possible marker prefix plus an incomplete UTF-8
    /// sequence. Never more than [`TagFilter::max_buffered_bytes`].
    pub fn buffered_bytes(&self) -> usize {
        self.held.len() + self.carry.pending()
    }

    /// The bound on [`TagFilter::buffered_bytes`]: the longest marker − 1 + 3.
    pub fn max_buffered_bytes(&self) -> usize {
        self.markers.max_len() - 1 + 3
    }

    /// Returns the block text kept so far and keeps no more: the caller assembles the blocks
    /// from these texts and the deltas that follow (the result's blocks are then `""`). Saves
    /// a copy of every block when the deltas are kept anyway (the JS class does this). The
    /// cap still counts all block text.
    pub fn stop_keeping_text(&mut self) -> Vec<String> {
        self.keep_text = false;
        self.blocks.iter_mut().map(std::mem::take).collect()
    }

    /// Bytes of input read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Appends the deltas that became certain; text is valid UTF-8 and never holds a marker.
    ///
    /// # Errors
    /// `buffer_limit_exceeded` when the kept block text would pass `max_buffer_bytes` (the
    /// text before that byte is still appended to `out`); `invalid_state` after `finish`.
    /// A failed filter repeats its error.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<TagDelta>) -> Result<()> {
        self.feed_with(chunk, out)
    }

    /// [`TagFilter::feed`] into any [`DeltaSink`].
    pub(crate) fn feed_with<S: DeltaSink>(&mut self, chunk: &[u8], out: &mut S) -> Result<()> {
        match &self.state {
            State::Failed(e) => return Err(e.clone()),
            State::Finished => return Err(finished()),
            State::Reading | State::Held => {}
        }
        let r = self.feed_inner(chunk, out);
        if let Err(e) = &r {
            self.state = State::Failed(e.clone());
            self.held.clear();
            self.carry.clear();
        }
        r
    }

    fn feed_inner<S: DeltaSink>(&mut self, mut chunk: &[u8], out: &mut S) -> Result<()> {
        // The UTF-8 length of what is left of a skeleton chunk (known, so never counted).
        let mut rest8 = self.units.then_some(self.units_len8);
        // Resolve a held prefix with as few new bytes as it needs (at most a marker's length).
        while self.state == State::Held && !chunk.is_empty() {
            let mut take = chunk.len().min(self.markers.max_len());
            if self.units && take < chunk.len() && chunk[take - 1] == crate::text::skeleton::HIGH {
                // Never between the halves of a surrogate pair.
                take += 1;
            }
            let mut window = std::mem::take(&mut self.held);
            let held_len = window.len();
            try_extend(&mut window, &chunk[..take])?;
            // Held bytes are a marker prefix: ASCII, one byte each in every mode.
            let base = self.offset - held_len as u64;
            let done = self.scan(&window, Some((held_len, &chunk[..take])), base, None, out)?;
            let taken8 = self.len8(&chunk[..take]);
            self.offset += taken8;
            rest8 = rest8.map(|r| r - taken8);
            chunk = &chunk[take..];
            if done < window.len() {
                // Still (or again) a possible marker prefix at the end of the window.
                try_extend(&mut self.held, &window[done..])?;
            } else {
                self.state = State::Reading;
            }
            window.clear();
            if self.held.is_empty() {
                // Keep the allocation for the next time.
                self.held = window;
                self.state = State::Reading;
            }
        }
        if chunk.is_empty() {
            return Ok(());
        }
        let base = self.offset;
        let len8 = rest8.unwrap_or_else(|| self.len8(chunk));
        self.offset += len8;
        let done = self.scan(chunk, None, base, Some(len8), out)?;
        if done < chunk.len() {
            try_extend(&mut self.held, &chunk[done..])?;
            self.state = State::Held;
        }
        Ok(())
    }

    /// Reads `data` (which starts at stream offset `base`) up to a possible marker prefix at
    /// its end; returns how many bytes were consumed. `window: Some((h, chunk))` says that
    /// `data[h..]` is `chunk`, the start of the chunk being fed (`data` is then the held
    /// window): text there is handed on as a slice of the chunk itself. `len8`, when known,
    /// is the UTF-8 length of `data`.
    fn scan<S: DeltaSink>(
        &mut self,
        data: &[u8],
        window: Option<(usize, &[u8])>,
        base: u64,
        len8: Option<u64>,
        out: &mut S,
    ) -> Result<usize> {
        // Start of the current run of text, and the stream offset of `data[at.0]`.
        let mut run = 0;
        let mut at = (0, base);
        while let Some((k, token)) = self.markers.find(&data[run..]) {
            let start = run + k;
            let o = self.offset_at(&mut at, data, run);
            self.text_of(data, window, len8, run..start, o, out)?;
            self.end_run(out)?;
            let o = self.offset_at(&mut at, data, start);
            let dropped_in_block = match token {
                Token::Marker(m) => self.contract.marker(m, o),
                Token::Nonce { .. } => self.contract.nonce(o),
            };
            if dropped_in_block {
                self.nested_mark(o, out)?;
            }
            run = start + token.len();
        }
        let end = self.markers.hold_start(&data[run..]).map_or(data.len(), |k| run + k);
        let o = self.offset_at(&mut at, data, run);
        self.text_of(data, window, len8, run..end, o, out)?;
        Ok(end)
    }

    /// The stream offset (in UTF-8 bytes) of `data[k]`, moving the cursor `at` (offsets are
    /// asked for in ascending order, so each byte is counted once).
    #[inline]
    fn offset_at(&self, at: &mut (usize, u64), data: &[u8], k: usize) -> u64 {
        if k > at.0 {
            at.1 += self.len8(&data[at.0..k]);
            at.0 = k;
        }
        at.1
    }

    /// UTF-8 length of input bytes: their number, or for a skeleton (`TagInput::Units`) the
    /// UTF-8 length of the text it stands for.
    #[inline]
    fn len8(&self, bytes: &[u8]) -> u64 {
        if self.units {
            crate::text::skeleton_len8(bytes)
        } else {
            bytes.len() as u64
        }
    }

    /// [`TagFilter::text`] for `data[range]`, taking the part beyond a held window's head
    /// from the chunk itself (see [`TagFilter::scan`]).
    fn text_of<S: DeltaSink>(
        &mut self,
        data: &[u8],
        window: Option<(usize, &[u8])>,
        len8: Option<u64>,
        range: std::ops::Range<usize>,
        at: u64,
        out: &mut S,
    ) -> Result<()> {
        match window {
            Some((h, chunk)) if range.end > h => {
                let mut at = at;
                if range.start < h {
                    let head = &data[range.start..h];
                    let n8 = self.len8(head);
                    self.text(head, n8, at, out)?;
                    at += n8;
                }
                let rest = &chunk[range.start.max(h) - h..range.end - h];
                self.text(rest, self.len8(rest), at, out)
            }
            _ => {
                // Most of `data` (the common case: all of it): count what is outside.
                let n8 = match len8 {
                    Some(total) if 2 * range.len() > data.len() => {
                        total - self.len8(&data[..range.start]) - self.len8(&data[range.end..])
                    }
                    _ => self.len8(&data[range.clone()]),
                };
                self.text(&data[range], n8, at, out)
            }
        }
    }

    /// Text at stream offset `at`: judged outside, kept and emitted inside a block.
    #[inline]
    fn text<S: DeltaSink>(&mut self, text: &[u8], n8: u64, at: u64, out: &mut S) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        match self.contract.state() {
            Judge::Outside => {
                if self.contract.wants_outside_text() {
                    if let Some(k) = text.iter().position(|b| !b.is_ascii_whitespace()) {
                        self.contract.outside_text_at(at + self.len8(&text[..k]));
                    }
                }
                Ok(())
            }
            Judge::In { emit: false, .. } => Ok(()),
            Judge::In { block, emit: true } => {
                // The largest possible held tail is reserved, so the cap does not depend on
                // how much happens to be held at this chunking.
                let room = self.cap.saturating_sub(self.kept + self.max_buffered_bytes());
                let n8 = n8 as usize;
                let (now, over) = if n8 <= room {
                    (text, false)
                } else if !self.units {
                    (&text[..room], true)
                } else {
                    skeleton_fit(text, room)
                };
                self.kept += if over { room } else { n8 };
                self.decode(block, Some(now), out)?;
                if over {
                    return Err(self.cap_error(at + room as u64));
                }
                Ok(())
            }
        }
    }

    /// Puts [`NESTED_MARK`] in the block's text where a marker at `at` was dropped (it counts
    /// toward the cap like text).
    fn nested_mark<S: DeltaSink>(&mut self, at: u64, out: &mut S) -> Result<()> {
        if let Judge::In { block, emit: true } = self.contract.state() {
            let room = self.cap.saturating_sub(self.kept + self.max_buffered_bytes());
            if NESTED_MARK.len() > room {
                return Err(self.cap_error(at));
            }
            self.kept += NESTED_MARK.len();
            self.decode(block, Some(NESTED_MARK.as_bytes()), out)?;
        }
        Ok(())
    }

    fn cap_error(&self, at: u64) -> Error {
        Error::new(
            ErrorKind::BufferLimitExceeded,
            format!("the tagged response holds more than {} bytes of block text", self.cap),
        )
        .at(at)
    }

    /// Decodes block text (`None`: flushes the UTF-8 carry) and appends it to the block
    /// (when kept) and to the deltas; `memory_limit_exceeded` when either cannot grow.
    fn decode<S: DeltaSink>(&mut self, block: usize, bytes: Option<&[u8]>, out: &mut S) -> Result<()> {
        let keep = self.keep_text;
        if self.units {
            // A skeleton holds no partial characters (see `TagInput::Units`); the sink knows
            // which text a slice of it stands for.
            return match bytes {
                Some(b) if !b.is_empty() => out.utf8(block, b),
                _ => Ok(()),
            };
        }
        if let (Some(b), false, 0) = (bytes, keep, self.carry.pending()) {
            if self.trusted {
                // A slice of a valid UTF-8 chunk, cut before or after ASCII marker bytes; a
                // cut inside a character (the held window, the cap) takes the checked path.
                if b.first().is_some_and(|c| c & 0xC0 != 0x80) && incomplete_tail(b) == 0 {
                    return out.utf8(block, b);
                }
            } else if !b.is_empty() && incomplete_tail(b) == 0 {
                // Nothing carried in and nothing to carry out: the text is what
                // `from_utf8_lossy` makes of the bytes, which the sink may decode itself.
                return out.lossy(block, b);
            }
        }
        let Some(text) = self.blocks.get_mut(block) else { return Ok(()) };
        let mut push = |s: &str| -> Result<()> {
            if keep {
                try_push_str(text, s)?;
            }
            out.text(block, s)
        };
        // Lossy decoding: the inner result (invalid UTF-8) is always `Ok`.
        let _ = match bytes {
            Some(b) => self.carry.decode(b, false, &mut push)?,
            None => self.carry.flush(false, &mut push)?,
        };
        Ok(())
    }

    /// A marker ends the current run of block text: a held incomplete UTF-8 sequence is
    /// U+FFFD.
    fn end_run<S: DeltaSink>(&mut self, out: &mut S) -> Result<()> {
        if self.carry.pending() == 0 {
            return Ok(());
        }
        let r = match self.contract.state() {
            Judge::In { block, emit: true } => self.decode(block, None, out),
            _ => Ok(()),
        };
        self.carry.clear();
        r
    }

    /// Ends the stream: a held tail is text after all; returns the verdict.
    ///
    /// When the filter failed (in a `feed`, or now while flushing the tail) this returns
    /// `ok: false, parse_ok: false` with the text kept before the failure and the violations
    /// found before it.
    ///
    /// # Errors
    /// `invalid_state` when called twice.
    pub fn finish(&mut self, out: &mut Vec<TagDelta>) -> Result<TagResult> {
        self.finish_with(out)
    }

    /// Whether a [`TagInput::Units`] chunk may be fed now: the block text is not kept and
    /// no UTF-8 sequence of a byte chunk is carried.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn accepts_units(&self) -> bool {
        !self.keep_text && self.carry.pending() == 0
    }

    /// [`TagFilter::feed_with`] for a chunk of any [`TagInput`] kind.
    ///
    /// A [`TagInput::Units`] chunk only when [`TagFilter::accepts_units`]; otherwise (a bug of
    /// the caller) nothing is read and `invalid_state` is returned.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn feed_input<S: DeltaSink>(&mut self, input: TagInput<'_>, out: &mut S) -> Result<()> {
        let bytes = match input {
            TagInput::Bytes(bytes) => return self.feed_with(bytes, out),
            TagInput::Utf8(bytes) => {
                self.trusted = true;
                bytes
            }
            TagInput::Units(skeleton, len8) => {
                if !self.accepts_units() {
                    return Err(Error::new(ErrorKind::InvalidState, "a skeleton feed needs unkept text and no carried UTF-8"));
                }
                self.units = true;
                self.units_len8 = len8;
                skeleton
            }
        };
        let r = self.feed_with(bytes, out);
        self.trusted = false;
        self.units = false;
        r
    }

    /// [`TagFilter::finish`] into any [`DeltaSink`].
    pub(crate) fn finish_with<S: DeltaSink>(&mut self, out: &mut S) -> Result<TagResult> {
        match std::mem::replace(&mut self.state, State::Finished) {
            State::Finished => return Err(finished()),
            State::Failed(_) => return Ok(self.failed_result()),
            State::Reading | State::Held => {}
        }
        let held = std::mem::take(&mut self.held);
        let at = self.offset - held.len() as u64;
        // A held nonce prefix is text after all. A held marker prefix (the response was cut
        // inside a marker) is dropped: outside the blocks it is judged as outside text; in a
        // block it is never block text, and the block is unclosed.
        let cut_marker = held.first() == Some(&b'[');
        if (!cut_marker || self.contract.state() == Judge::Outside) && self.text(&held, held.len() as u64, at, out).is_err() {
            return Ok(self.failed_result());
        }
        if self.end_run(out).is_err() {
            return Ok(self.failed_result());
        }
        let violations = self.contract.end(self.offset);
        Ok(self.result(true, violations))
    }

    fn failed_result(&mut self) -> TagResult {
        self.carry.clear();
        let violations = self.contract.violations().to_vec();
        self.result(false, violations)
    }

    fn result(&mut self, ok: bool, violations: Vec<super::TagViolation>) -> TagResult {
        let blocks = std::mem::take(&mut self.blocks);
        TagResult {
            ok,
            parse_ok: ok && violations.is_empty(),
            blocks: blocks.into_iter().enumerate().map(|(i, t)| (self.markers.lower_name(i).to_string(), t)).collect(),
            violations,
        }
    }
}

/// A chunk for [`TagFilter::feed_input`]: the one input type of the filter's modes.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) enum TagInput<'a> {
    /// Bytes of any kind, as [`TagFilter::feed`] reads them.
    Bytes(&'a [u8]),
    /// Bytes known to be whole valid UTF-8 (the encoding of a JS string): block text is handed
    /// on unchecked ([`DeltaSink::utf8`]) while no UTF-8 sequence is carried and the text is
    /// not kept. Not checked: were they not UTF-8, the sink would get invalid text (safe, but
    /// wrong).
    Utf8(&'a [u8]),
    /// A *skeleton* of UTF-16 text (see [`utf16_skeleton`]) and the UTF-8 length of the text
    /// (as [`utf16_skeleton`] returns it): one byte per code unit, ASCII as itself, any other
    /// unit as a byte ≥ 0x80 that says how many UTF-8 bytes it stands for. Markers are ASCII,
    /// so the filter finds exactly the markers of the text; offsets and the cap count the
    /// UTF-8 bytes of the text; block text goes to the sink as slices of the skeleton
    /// ([`DeltaSink::utf8`]), which stand for the same code units of the text (any other text
    /// the sink gets is real UTF-8). The deltas, violations and errors are those of feeding
    /// the UTF-8 of the text.
    ///
    /// [`utf16_skeleton`]: crate::text::utf16_skeleton
    Units(&'a [u8], u64),
}

/// Where the filter's block text goes, piece by piece, in order.
pub(crate) trait DeltaSink {
    /// `text` (never empty) of block `block` became certain. It may be a slice of the chunk
    /// being fed (the wasm fast path uses that to hand text out without copying).
    /// `memory_limit_exceeded` when the sink cannot grow.
    fn text(&mut self, block: usize, text: &str) -> Result<()>;

    /// The same for text known to be valid UTF-8 without checking (see
    /// `TagInput::Utf8`).
    fn utf8(&mut self, block: usize, text: &[u8]) -> Result<()> {
        self.text(block, &String::from_utf8_lossy(text))
    }

    /// The same for bytes that may not be UTF-8: the text is `String::from_utf8_lossy` of
    /// them (a sink may decode them in its own way, to the same text).
    fn lossy(&mut self, block: usize, bytes: &[u8]) -> Result<()> {
        self.text(block, &String::from_utf8_lossy(bytes))
    }
}

/// Appends to the last delta when it is of the same block, else pushes a new delta.
impl DeltaSink for Vec<TagDelta> {
    #[inline]
    fn text(&mut self, block: usize, text: &str) -> Result<()> {
        match self.last_mut() {
            Some(d) if d.block == block => try_push_str(&mut d.text, text),
            _ => {
                let text = try_to_string(text)?;
                self.try_reserve(1).map_err(|_| out_of_memory(std::mem::size_of::<TagDelta>()))?;
                self.push(TagDelta { block, text });
                Ok(())
            }
        }
    }
}

/// The longest prefix of skeleton `text` whose text fits in `room` UTF-8 bytes, never
/// ending between the halves of a surrogate pair; `true` when that is not all of it.
fn skeleton_fit(text: &[u8], room: usize) -> (&[u8], bool) {
    use crate::text::skeleton as sk;
    let mut used = 0;
    for (k, &b) in text.iter().enumerate() {
        let w = match b {
            sk::THREE => 3,
            0x80.. => 2,
            _ => 1,
        };
        if used + w > room {
            let k = if k > 0 && text[k - 1] == sk::HIGH { k - 1 } else { k };
            return (&text[..k], true);
        }
        used += w;
    }
    (text, false)
}

fn finished() -> Error {
    Error::new(ErrorKind::InvalidState, "the tag filter was used after finish()")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink whose memory runs out after `room` bytes of text.
    struct Scarce {
        room: usize,
        got: String,
    }

    impl DeltaSink for Scarce {
        fn text(&mut self, _block: usize, text: &str) -> Result<()> {
            if text.len() > self.room {
                return Err(out_of_memory(text.len()));
            }
            self.room -= text.len();
            self.got.push_str(text);
            Ok(())
        }
    }

    #[test]
    fn a_sink_out_of_memory_fails_the_filter_with_memory_limit_exceeded() {
        let mut f = TagFilter::new("n", TagFilterOptions::default()).unwrap();
        f.stop_keeping_text();
        let mut sink = Scarce { room: 5, got: String::new() };
        f.feed(b"[ARTIFACT:n]ab", &mut Vec::new()).unwrap();
        let e = f.feed_with(b"cdefgh[/ARTIFACT:n]", &mut sink).unwrap_err();
        assert_eq!(e.code(), "memory_limit_exceeded");
        assert_eq!(f.feed_with(b"x", &mut sink).unwrap_err().code(), "memory_limit_exceeded", "it stays failed");
        let r = f.finish(&mut Vec::new()).unwrap();
        assert!(!r.ok && !r.parse_ok);
        assert_eq!(sink.got, "", "a piece that did not fit is not half emitted");
    }

    /// The unchecked path gives the deltas of the checked one, for string chunks split at
    /// every character boundary and small caps.
    #[test]
    fn unchecked_utf8_feed_matches_the_checked_one() {
        let inputs = [
            "[ARTIFACT:n]caf\u{e9} \u{4e2d}\u{1F600}[/ARTIFACT:n][USER:n]\u{1F600}[/USER:n]",
            "x[ARTIFACT:n]\u{4e2d}[/ARTI\u{4e2d}[USER:n]\u{e9}[/ARTIFACT:n][USER:n]\u{FFFD}\u{1F680}[",
        ];
        for text in inputs {
            for cap in [DEFAULT_CAP, 20, 22, 23, 25] {
                let opts = TagFilterOptions { max_buffer_bytes: cap, ..Default::default() };
                let run = |cuts: &[usize], trusted: bool| {
                    let mut f = TagFilter::new("n", opts.clone()).unwrap();
                    f.stop_keeping_text();
                    let mut out: Vec<TagDelta> = Vec::new();
                    let mut err = None;
                    for w in cuts.windows(2) {
                        let piece = &text.as_bytes()[w[0]..w[1]];
                        let r = if trusted { f.feed_input(TagInput::Utf8(piece), &mut out) } else { f.feed(piece, &mut out) };
                        if let Err(e) = r {
                            err = Some(e);
                            break;
                        }
                    }
                    let r = f.finish(&mut out).unwrap();
                    (out, r, err)
                };
                let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
                for &p in &bounds {
                    let cuts = [0, p, text.len()];
                    assert_eq!(run(&cuts, true), run(&cuts, false), "{text:?} cap {cap} split {p}");
                }
            }
        }
    }

    /// Block text as UTF-16 (a skeleton slice stands for units of the chunk's text).
    struct UnitSink<'a> {
        skeleton: &'a [u8],
        units: &'a [u16],
        out: &'a mut Vec<(usize, Vec<u16>)>,
    }

    impl UnitSink<'_> {
        fn push(&mut self, block: usize, units: &[u16]) {
            match self.out.last_mut() {
                Some((b, t)) if *b == block => t.extend_from_slice(units),
                _ => self.out.push((block, units.to_vec())),
            }
        }
    }

    impl DeltaSink for UnitSink<'_> {
        fn text(&mut self, block: usize, text: &str) -> Result<()> {
            self.push(block, &text.encode_utf16().collect::<Vec<_>>());
            Ok(())
        }

        fn utf8(&mut self, block: usize, text: &[u8]) -> Result<()> {
            let (base, p) = (self.skeleton.as_ptr() as usize, text.as_ptr() as usize);
            if p >= base && p + text.len() <= base + self.skeleton.len() {
                let units = self.units;
                self.push(block, &units[p - base..p - base + text.len()]);
                Ok(())
            } else {
                let s = std::str::from_utf8(text).expect("text beside the skeleton is UTF-8");
                self.text(block, s)
            }
        }
    }

    type Run = (Vec<(usize, String)>, TagResult, Option<Error>);

    /// Feeds `text` cut at the character offsets `cuts` as skeletons, or as UTF-8.
    fn run_cut(text: &str, cuts: &[usize], opts: &TagFilterOptions, units: bool) -> Run {
        let mut f = TagFilter::new("n", opts.clone()).unwrap();
        f.stop_keeping_text();
        let chars: Vec<char> = text.chars().collect();
        let mut pieces: Vec<(usize, Vec<u16>)> = Vec::new();
        let mut deltas: Vec<TagDelta> = Vec::new();
        let mut err = None;
        for w in cuts.windows(2) {
            let piece: String = chars[w[0]..w[1]].iter().collect();
            let r = if units {
                let utf16: Vec<u16> = piece.encode_utf16().collect();
                let le: Vec<u8> = utf16.iter().flat_map(|u| u.to_le_bytes()).collect();
                let mut skeleton = Vec::new();
                let len8 = crate::text::utf16_skeleton(&le, &mut skeleton).unwrap();
                assert_eq!(len8, piece.len() as u64);
                assert_eq!(crate::text::skeleton_len8(&skeleton), piece.len() as u64);
                let mut sink = UnitSink { skeleton: &skeleton, units: &utf16, out: &mut pieces };
                f.feed_input(TagInput::Units(&skeleton, len8), &mut sink)
            } else {
                f.feed(piece.as_bytes(), &mut deltas)
            };
            if let Err(e) = r {
                err = Some(e);
                break;
            }
        }
        let r = if units {
            let mut sink = UnitSink { skeleton: &[], units: &[], out: &mut pieces };
            f.finish_with(&mut sink).unwrap()
        } else {
            f.finish(&mut deltas).unwrap()
        };
        let out = if units {
            pieces.into_iter().map(|(b, u)| (b, String::from_utf16(&u).unwrap())).collect()
        } else {
            deltas.into_iter().map(|d| (d.block, d.text)).collect()
        };
        (out, r, err)
    }

    /// Feeding the skeleton of UTF-16 text gives the deltas, violations and errors of
    /// feeding its UTF-8, at every split, with caps that cut inside characters.
    #[test]
    fn skeleton_feed_matches_the_utf8_one() {
        let inputs = [
            "[ARTIFACT:n]caf\u{e9} \u{4e2d}\u{1F600}[/ARTIFACT:n][USER:n]\u{1F600}[/USER:n]",
            "x[ARTIFACT:n]\u{4e2d}[/ARTI\u{4e2d}[USER:n]\u{e9}[/ARTIFACT:n][USER:n]\u{FFFD}\u{1F680}[",
            "\u{e9} [ARTIFACT:n]\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}[USER:n]\u{4e2d}\u{4e2d}\u{4e2d}[/ARTIFACT:n]\u{3000}[USER:n]\u{7ff}\u{800}[/USER:n] \u{4e2d}",
            "[ARTIFACT:n][ARTIFACT:n]\u{1F680}[/ARTIFACT:n\u{e9}][/ARTIFACT:n]\n\u{e9}[/USER:n][USER:n]x[/USER:n][ARTI",
            // The nonce in near-miss markers and bare, and a cut inside the closing marker.
            "[ARTIFACT:n]a[/user:n]\u{4e2d}n\u{1F600}\u{FF3B}/USER:n\u{FF3D}[/ARTIFACT:n][USER:n]\u{e9}[/USER:n0]\u{3000}[/USER:n",
        ];
        for text in inputs {
            let n = text.chars().count();
            for cap in [DEFAULT_CAP, 20, 22, 23, 24, 25, 26, 27, 30, 33, 40] {
                let opts = TagFilterOptions { max_buffer_bytes: cap, ..Default::default() };
                let mut cuts_list = vec![vec![0, n]];
                for p in 0..=n {
                    cuts_list.push(vec![0, p, n]);
                    cuts_list.push(vec![0, p / 2, p, n]);
                }
                cuts_list.push((0..=n).collect());
                for cuts in &cuts_list {
                    assert_eq!(
                        run_cut(text, cuts, &opts, true),
                        run_cut(text, cuts, &opts, false),
                        "{text:?} cap {cap} cuts {cuts:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn skeletons_refuse_lone_surrogates() {
        let le = |u: &[u16]| u.iter().flat_map(|u| u.to_le_bytes()).collect::<Vec<u8>>();
        let mut out = Vec::new();
        assert_eq!(crate::text::utf16_skeleton(&le(&[0x61, 0xD83D, 0xDE00, 0x4E2D, 0xE9, 0x62]), &mut out), Some(11));
        assert_eq!(out, [0x61, 0x82, 0x83, 0x81, 0x80, 0x62]);
        for bad in [
            &[0xD83D][..],
            &[0xDE00],
            &[0x61, 0xD83D, 0x62],
            &[0xDE00, 0xD83D],
            &[0xD83D, 0xD83D, 0xDE00],
            &[0xD83D, 0x61, 0xDE00],
        ] {
            assert_eq!(crate::text::utf16_skeleton(&le(bad), &mut out), None, "{bad:x?}");
        }
        assert_eq!(crate::text::utf16_skeleton(&[0x61, 0, 0x62], &mut out), None);
        let long: Vec<u16> = "abcdefghijklmnop\u{e9}qrstuvwxyz0123456789".encode_utf16().collect();
        assert_eq!(crate::text::utf16_skeleton(&le(&long), &mut out), Some(38));
        assert_eq!(out, "abcdefghijklmnop\u{80}qrstuvwxyz0123456789".bytes().filter(|&b| b != 0xC2).collect::<Vec<_>>());
        // The UTF-8 length of every mix, word by word and in the tail.
        let pieces = ["a", "\u{e9}", "\u{7ff}", "\u{800}", "\u{4e2d}", "\u{ffff}", "\u{1F600}", "\u{10FFFF}", " "];
        for len in 0..200 {
            let text: String = (0..len).map(|i| pieces[(i * 7 + len) % pieces.len()]).collect();
            let units: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(crate::text::utf16_skeleton(&le(&units), &mut out), Some(text.len() as u64));
            assert_eq!(crate::text::skeleton_len8(&out), text.len() as u64, "{text:?}");
        }
    }

    const DEFAULT_CAP: usize = super::super::DEFAULT_MAX_BUFFER_BYTES;
}
