//! `TagFilter`: the streaming half of nonce-tag parsing.
//!
//! Advice for hackers. Every byte is either text or part of a marker. Every marker ends with
//! `:NONCE]` and holds `[` only at its start, so the scan jumps from one `:NONCE]` to the
//! next (memmem, `MarkerSet::find`) and checks which marker ends there; the text between
//! markers goes at once, as one run, to the judge (`Contract`), which says where it belongs.
//! At the end of a chunk only a possible marker prefix is held (`State::Held`): the last `[`
//! of the chunk's tail, when what follows it may still become a marker.
//!
//! Invariants:
//! - Held bytes ≤ longest marker − 1 (a possible marker prefix) + 3 (an incomplete UTF-8
//!   sequence of block text, in `Utf8Carry`): see [`TagFilter::buffered_bytes`].
//! - Each input byte is looked at a constant number of times: a held prefix holds no `[`
//!   after its first byte, so when it turns out to be text only its last byte can start a
//!   new marker.
//! - Text is emitted when certain and never taken back. Block text is decoded with the
//!   shared UTF-8 carry (invalid bytes become U+FFFD); a marker ends a decoding run.
//! - The cap counts the block text kept for the result plus the largest possible held tail;
//!   hitting it fails the filter at a byte offset that does not depend on the chunking.
//!   Errors are sticky for `feed`; `finish` then reports `ok: false`.

use super::contract::{Contract, State as Judge, NESTED_MARK};
use super::{MarkerSet, TagDelta, TagFilterOptions, TagResult};
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
    /// The chunk being fed is known to be whole valid UTF-8 (`feed_utf8_with`).
    trusted: bool,
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
        // Resolve a held prefix with as few new bytes as it needs (at most a marker's length).
        while self.state == State::Held && !chunk.is_empty() {
            let take = chunk.len().min(self.markers.max_len());
            let mut window = std::mem::take(&mut self.held);
            let held_len = window.len();
            window.extend_from_slice(&chunk[..take]);
            let base = self.offset - held_len as u64;
            let done = self.scan(&window, base, out)?;
            chunk = &chunk[take..];
            self.offset += take as u64;
            if done < window.len() {
                // Still (or again) a possible marker prefix at the end of the window.
                self.held.extend_from_slice(&window[done..]);
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
        self.offset += chunk.len() as u64;
        let done = self.scan(chunk, base, out)?;
        if done < chunk.len() {
            self.held.extend_from_slice(&chunk[done..]);
            self.state = State::Held;
        }
        Ok(())
    }

    /// Reads `data` (which starts at stream offset `base`) up to a possible marker prefix at
    /// its end; returns how many bytes were consumed.
    fn scan<S: DeltaSink>(&mut self, data: &[u8], base: u64, out: &mut S) -> Result<usize> {
        // Start of the current run of text.
        let mut run = 0;
        while let Some((k, m)) = self.markers.find(&data[run..]) {
            let start = run + k;
            self.text(&data[run..start], base + run as u64, out)?;
            self.end_run(out);
            if self.contract.marker(m, base + start as u64) {
                self.nested_mark(base + start as u64, out)?;
            }
            run = start + m.len;
        }
        let end = self.markers.partial_start(&data[run..]).map_or(data.len(), |k| run + k);
        self.text(&data[run..end], base + run as u64, out)?;
        Ok(end)
    }

    /// Text at stream offset `at`: judged outside, kept and emitted inside a block.
    #[inline]
    fn text<S: DeltaSink>(&mut self, text: &[u8], at: u64, out: &mut S) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        match self.contract.state() {
            Judge::Outside => {
                self.contract.outside_text(text, at);
                Ok(())
            }
            Judge::In { emit: false, .. } => Ok(()),
            Judge::In { block, emit: true } => {
                // The largest possible held tail is reserved, so the cap does not depend on
                // how much happens to be held at this chunking.
                let room = self.cap.saturating_sub(self.kept + self.max_buffered_bytes());
                let (now, over) = if text.len() > room { (&text[..room], true) } else { (text, false) };
                self.kept += now.len();
                self.decode(block, Some(now), out);
                if over {
                    return Err(self.cap_error(at + now.len() as u64));
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
            self.decode(block, Some(NESTED_MARK.as_bytes()), out);
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
    /// (when kept) and to the deltas.
    fn decode<S: DeltaSink>(&mut self, block: usize, bytes: Option<&[u8]>, out: &mut S) {
        let keep = self.keep_text;
        if let (Some(b), true, false, 0) = (bytes, self.trusted, keep, self.carry.pending()) {
            // A slice of a valid UTF-8 chunk, cut before or after ASCII marker bytes; a cut
            // inside a character (the held window, the cap) takes the checked path.
            if b.first().is_some_and(|c| c & 0xC0 != 0x80) && incomplete_tail(b) == 0 {
                out.utf8(block, b);
                return;
            }
        }
        let Some(text) = self.blocks.get_mut(block) else { return };
        let mut push = |s: &str| -> Result<(), ()> {
            if keep {
                text.push_str(s);
            }
            out.text(block, s);
            Ok(())
        };
        let _ = match bytes {
            Some(b) => self.carry.decode(b, false, &mut push),
            None => self.carry.flush(false, &mut push),
        };
    }

    /// A marker ends the current run of block text: a held incomplete UTF-8 sequence is
    /// U+FFFD.
    fn end_run<S: DeltaSink>(&mut self, out: &mut S) {
        if self.carry.pending() == 0 {
            return;
        }
        if let Judge::In { block, emit: true } = self.contract.state() {
            self.decode(block, None, out);
        }
        self.carry.clear();
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

    /// [`TagFilter::feed_with`] for a chunk that is known to be complete valid UTF-8 (the
    /// encoding of a JS string): block text is handed on unchecked while no UTF-8 sequence
    /// is carried and the text is not kept.
    /// The bytes are not checked: were they not UTF-8, the sink would get invalid text (safe,
    /// but wrong).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn feed_utf8_with<S: DeltaSink>(&mut self, chunk: &[u8], out: &mut S) -> Result<()> {
        self.trusted = true;
        let r = self.feed_with(chunk, out);
        self.trusted = false;
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
        if self.text(&held, at, out).is_err() {
            return Ok(self.failed_result());
        }
        self.end_run(out);
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
            blocks: blocks
                .into_iter()
                .enumerate()
                .map(|(i, t)| (self.markers.lower_name(i).to_string(), t))
                .collect(),
            violations,
        }
    }
}

/// Where the filter's block text goes, piece by piece, in order.
pub(crate) trait DeltaSink {
    /// `text` (never empty) of block `block` became certain. It may be a slice of the chunk
    /// being fed (the wasm fast path uses that to hand text out without copying).
    fn text(&mut self, block: usize, text: &str);

    /// The same for text known to be valid UTF-8 without checking (see
    /// `TagFilter::feed_utf8_with`).
    fn utf8(&mut self, block: usize, text: &[u8]) {
        self.text(block, &String::from_utf8_lossy(text));
    }
}

/// Appends to the last delta when it is of the same block, else pushes a new delta.
impl DeltaSink for Vec<TagDelta> {
    #[inline]
    fn text(&mut self, block: usize, text: &str) {
        match self.last_mut() {
            Some(d) if d.block == block => d.text.push_str(text),
            _ => self.push(TagDelta { block, text: text.to_string() }),
        }
    }
}

fn finished() -> Error {
    Error::new(ErrorKind::InvalidState, "the tag filter was used after finish()")
}

#[cfg(test)]
mod tests {
    use super::*;

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
                        let r = if trusted { f.feed_utf8_with(piece, &mut out) } else { f.feed(piece, &mut out) };
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

    const DEFAULT_CAP: usize = super::super::DEFAULT_MAX_BUFFER_BYTES;
}
