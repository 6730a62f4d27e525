//! `TagFilter`: the streaming half of nonce-tag parsing.
//!
//! Advice for hackers. Every byte is either text or part of a marker, and only a `[` can start
//! a marker. The scan jumps from `[` to `[` (memchr); the text between goes at once to the
//! judge (`Contract`), which says where it belongs. At a `[` the marker set answers `Full`,
//! `None` (the `[` is text) or `Partial`: the chunk ended inside something that may still
//! become a marker, and only that tail is held (`State::Held`).
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

use super::contract::{Contract, State as Judge};
use super::{MarkerMatch, MarkerSet, TagDelta, TagFilterOptions, TagResult};
use crate::text::Utf8Carry;
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
    /// Bytes of block text kept (for the cap).
    kept: usize,
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

    fn feed_inner(&mut self, mut chunk: &[u8], out: &mut Vec<TagDelta>) -> Result<()> {
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
    fn scan(&mut self, data: &[u8], base: u64, out: &mut Vec<TagDelta>) -> Result<usize> {
        let mut i = 0;
        while i < data.len() {
            let j = memchr::memchr(b'[', &data[i..]).map_or(data.len(), |k| i + k);
            self.text(&data[i..j], base + i as u64, out)?;
            if j == data.len() {
                break;
            }
            match self.markers.match_at(&data[j..]) {
                MarkerMatch::Full(m) => {
                    self.end_run(out);
                    self.contract.marker(m, base + j as u64);
                    i = j + m.len;
                }
                MarkerMatch::Partial => return Ok(j),
                MarkerMatch::None => {
                    self.text(&data[j..j + 1], base + j as u64, out)?;
                    i = j + 1;
                }
            }
        }
        Ok(data.len())
    }

    /// Text at stream offset `at`: judged outside, kept and emitted inside a block.
    #[inline]
    fn text(&mut self, text: &[u8], at: u64, out: &mut Vec<TagDelta>) -> Result<()> {
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
                self.decode(block, now, out);
                if over {
                    return Err(Error::new(
                        ErrorKind::BufferLimitExceeded,
                        format!("the tagged response holds more than {} bytes of block text", self.cap),
                    )
                    .at(at + now.len() as u64));
                }
                Ok(())
            }
        }
    }

    /// Decodes block text and appends it to the block and to the deltas.
    fn decode(&mut self, block: usize, bytes: &[u8], out: &mut Vec<TagDelta>) {
        let Some(text) = self.blocks.get_mut(block) else { return };
        let start = text.len();
        let mut push = |s: &str| -> Result<(), ()> {
            text.push_str(s);
            Ok(())
        };
        let _ = self.carry.decode(bytes, false, &mut push);
        emit(out, block, &text[start..]);
    }

    /// A marker ends the current run of block text: a held incomplete UTF-8 sequence is
    /// U+FFFD.
    fn end_run(&mut self, out: &mut Vec<TagDelta>) {
        if self.carry.pending() == 0 {
            return;
        }
        if let Judge::In { block, emit: true } = self.contract.state() {
            if let Some(text) = self.blocks.get_mut(block) {
                let start = text.len();
                let mut push = |s: &str| -> Result<(), ()> {
                    text.push_str(s);
                    Ok(())
                };
                let _ = self.carry.flush(false, &mut push);
                emit(out, block, &text[start..]);
                return;
            }
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

/// Appends `text` to the last delta when it is of the same block, else as a new delta.
#[inline]
fn emit(out: &mut Vec<TagDelta>, block: usize, text: &str) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(d) if d.block == block => d.text.push_str(text),
        _ => out.push(TagDelta { block, text: text.to_string() }),
    }
}

fn finished() -> Error {
    Error::new(ErrorKind::InvalidState, "the tag filter was used after finish()")
}
