//! The judge of a token sequence (text runs and markers), shared by the streaming filter and
//! the whole-text parser so that both reach the same verdict.
//!
//! The contract: optional whitespace, then each block once, in order, as
//! `[NAME:NONCE]text[/NAME:NONCE]`, with only whitespace between and after. The judge is a
//! machine over `State::Outside | State::In { block, emit }` and decides, for every token,
//! where its text goes and which violation it is:
//!
//! | token | state | effect |
//! | --- | --- | --- |
//! | text | `Outside` | dropped; `text_outside_blocks` (once per run between markers) unless ASCII whitespace |
//! | text | `In` | the block's text (when `emit`; a duplicate block's text is dropped) |
//! | open j | `Outside` | enter j; `duplicate_block` if j was opened before (its text is then dropped), `wrong_order` if a later block was opened before |
//! | close j | `In j` | back `Outside` |
//! | any other marker | `In` | dropped, U+FFFD in its place in a kept block; `nested_marker` |
//! | the nonce in text | `In` | dropped, U+FFFD in its place in a kept block; `nonce_in_text` (once per run between markers) |
//! | the nonce in text | `Outside` | dropped; `nonce_in_text` (once per run) after the outside text it is |
//! | close j | `Outside` | dropped; `duplicate_block` if j was closed before, else `wrong_order` |
//! | end | `In j` | `unclosed_block` (at its opening marker) |
//! | end | any | `missing_block` (at the end) for every block never opened |

use super::{Marker, TagViolation};

/// What a marker or the nonce dropped inside a kept block leaves in the block's text: U+FFFD.
/// Without it, `[/ART` + a dropped `[USER:N]` + `IFACT:N]` would show the user
/// `[/ARTIFACT:N]`; with it, no block text can hold a marker or the nonce (neither holds
/// U+FFFD).
pub(crate) const NESTED_MARK: &str = "\u{FFFD}";

/// Where the judge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Between blocks.
    Outside,
    /// Inside block `block`; its text is kept and emitted only when `emit` (not a duplicate).
    In { block: usize, emit: bool },
}

#[derive(Debug, Clone)]
pub(crate) struct Contract {
    state: State,
    opened: Vec<bool>,
    closed: Vec<bool>,
    /// Highest block index opened so far.
    highest_opened: Option<usize>,
    /// Offset of the marker that opened the current block.
    open_offset: u64,
    /// This run of outside text was already reported.
    outside_reported: bool,
    /// The nonce was already reported in this run of text (between two markers).
    nonce_reported: bool,
    violations: Vec<TagViolation>,
}

impl Contract {
    pub(crate) fn new(blocks: usize) -> Contract {
        Contract {
            state: State::Outside,
            opened: vec![false; blocks],
            closed: vec![false; blocks],
            highest_opened: None,
            open_offset: 0,
            outside_reported: false,
            nonce_reported: false,
            violations: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn state(&self) -> State {
        self.state
    }

    fn violate(&mut self, code: &'static str, offset: u64) {
        self.violations.push(TagViolation { code, offset });
    }

    /// Text read while `Outside`, starting at `offset`.
    pub(crate) fn outside_text(&mut self, text: &[u8], offset: u64) {
        if self.outside_reported {
            return;
        }
        if let Some(k) = text.iter().position(|b| !b.is_ascii_whitespace()) {
            self.outside_text_at(offset + k as u64);
        }
    }

    /// Whether text outside the blocks still matters (its first non-whitespace byte since
    /// the last marker is reported once).
    #[inline]
    pub(crate) fn wants_outside_text(&self) -> bool {
        !self.outside_reported
    }

    /// Non-whitespace text outside the blocks at `offset`.
    pub(crate) fn outside_text_at(&mut self, offset: u64) {
        if !self.outside_reported {
            self.outside_reported = true;
            self.violate("text_outside_blocks", offset);
        }
    }

    /// A marker at `offset`. Returns `true` when it was dropped inside a block whose text is
    /// kept (`nested_marker`): the caller then puts [`NESTED_MARK`] in the block's text in its
    /// place, so that the text before and after it can never join into a marker.
    pub(crate) fn marker(&mut self, m: Marker, offset: u64) -> bool {
        self.nonce_reported = false;
        match (self.state, m.close) {
            (State::Outside, false) => {
                let j = m.block;
                let emit = !self.opened.get(j).copied().unwrap_or(true);
                if !emit {
                    self.violate("duplicate_block", offset);
                } else if self.highest_opened.is_some_and(|h| h > j) {
                    self.violate("wrong_order", offset);
                }
                if let Some(o) = self.opened.get_mut(j) {
                    *o = true;
                }
                self.highest_opened = Some(self.highest_opened.map_or(j, |h| h.max(j)));
                self.open_offset = offset;
                self.state = State::In { block: j, emit };
            }
            (State::In { block, .. }, true) if block == m.block => {
                if let Some(c) = self.closed.get_mut(block) {
                    *c = true;
                }
                self.state = State::Outside;
                self.outside_reported = false;
            }
            (State::In { emit, .. }, _) => {
                self.violate("nested_marker", offset);
                return emit;
            }
            (State::Outside, true) => {
                let code = if self.closed.get(m.block).copied().unwrap_or(false) { "duplicate_block" } else { "wrong_order" };
                self.violate(code, offset);
                // A marker ends the run of outside text.
                self.outside_reported = false;
            }
        }
        false
    }

    /// The nonce in text (outside any marker) at `offset`. Returns `true` inside a block whose
    /// text is kept: the caller then puts [`NESTED_MARK`] in the block's text in its place.
    /// Outside the blocks it is outside text as well.
    pub(crate) fn nonce(&mut self, offset: u64) -> bool {
        if self.state == State::Outside {
            self.outside_text_at(offset);
        }
        if !self.nonce_reported {
            self.nonce_reported = true;
            self.violate("nonce_in_text", offset);
        }
        matches!(self.state, State::In { emit: true, .. })
    }

    /// The end of the response at byte `end`; returns every violation.
    pub(crate) fn end(&mut self, end: u64) -> Vec<TagViolation> {
        if let State::In { .. } = self.state {
            let at = self.open_offset;
            self.violate("unclosed_block", at);
        }
        for j in 0..self.opened.len() {
            if !self.opened[j] {
                self.violate("missing_block", end);
            }
        }
        std::mem::take(&mut self.violations)
    }

    /// The violations found so far.
    pub(crate) fn violations(&self) -> &[TagViolation] {
        &self.violations
    }
}
