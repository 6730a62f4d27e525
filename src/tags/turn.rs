//! `TaggedTurn`: the policy around one model turn (../shared/spec/nonce-tag-streaming.md,
//! "Failure handling"): a response that breaks the contract gets exactly one automatic retry
//! with a format-only corrective message; a second failure ends the turn with
//! `done { ok: false, parse_ok: false }` and changes nothing. A valid response becomes the
//! draft, kept in memory only; the draft becomes final only on an explicit [`confirm`].
//!
//! [`confirm`]: TaggedTurn::confirm

use super::prompt::{corrective_message, tag_contract};
use super::{TagDelta, TagFilter, TagFilterOptions, TagResult};
use crate::{Error, ErrorKind, Result};

/// Where the turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// An attempt is being streamed (or about to be).
    Streaming,
    /// The first attempt failed; the next `feed`/`finish` starts the retry.
    AwaitingRetry,
    /// The turn is over until [`TaggedTurn::next_turn`].
    Done,
}

/// What to do after a response ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnStep {
    /// The first response broke the contract: send `corrective` to the model (same nonce)
    /// and stream its new response through the same turn.
    Retry {
        /// The format-only corrective message.
        corrective: String,
        /// The verdict on the failed response.
        result: TagResult,
    },
    /// The turn is over; send `done { ok, parse_ok }`. On success the blocks are the draft.
    Done {
        /// `false` only when both attempts failed.
        ok: bool,
        /// Whether the last response met the contract.
        parse_ok: bool,
        /// The verdict on the last response.
        result: TagResult,
    },
}

/// The blocks of a response: `(lowercase name, text)` in contract order.
pub type TagBlocks = Vec<(String, String)>;

/// One turn (and the draft/final state carried across turns) under the tag contract.
#[derive(Debug, Clone)]
pub struct TaggedTurn {
    nonce: String,
    options: TagFilterOptions,
    filter: TagFilter,
    attempt: u32,
    state: State,
    draft: Option<TagBlocks>,
    confirmed: Option<TagBlocks>,
}

impl TaggedTurn {
    /// A turn for the request `nonce`, on attempt 1.
    ///
    /// # Errors
    /// `invalid_option` as for [`TagFilter::new`].
    pub fn new(nonce: &str, options: TagFilterOptions) -> Result<TaggedTurn> {
        Ok(TaggedTurn {
            filter: TagFilter::new(nonce, options.clone())?,
            nonce: nonce.to_string(),
            options,
            attempt: 1,
            state: State::Streaming,
            draft: None,
            confirmed: None,
        })
    }

    /// The nonce of this turn.
    pub fn nonce(&self) -> &str {
        &self.nonce
    }

    /// The block options of this turn.
    pub fn options(&self) -> &TagFilterOptions {
        &self.options
    }

    /// 1 for the first response, 2 for the retry.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The contract text for the system prompt (see [`tag_contract`]).
    ///
    /// # Errors
    /// None in practice (the options were checked by `new`).
    pub fn contract(&self, descriptions: &[(String, String)]) -> Result<String> {
        tag_contract(&self.nonce, &self.options, descriptions)
    }

    /// The filter of the current attempt (its lowercase block names, held bytes).
    pub fn filter(&self) -> &TagFilter {
        &self.filter
    }

    fn begin_retry(&mut self) -> Result<()> {
        if self.state == State::AwaitingRetry {
            self.filter = TagFilter::new(&self.nonce, self.options.clone())?;
            self.attempt = 2;
            self.state = State::Streaming;
        }
        Ok(())
    }

    /// Streams a chunk of the current response (the first one after a `Retry` step starts
    /// the retry).
    ///
    /// # Errors
    /// `invalid_state` after the turn is done; the filter's errors.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<TagDelta>) -> Result<()> {
        if self.state == State::Done {
            return Err(done());
        }
        self.begin_retry()?;
        self.filter.feed(chunk, out)
    }

    /// Ends the current response and applies the policy.
    ///
    /// # Errors
    /// `invalid_state` after the turn is done.
    pub fn finish(&mut self, out: &mut Vec<TagDelta>) -> Result<TurnStep> {
        if self.state == State::Done {
            return Err(done());
        }
        self.begin_retry()?;
        let result = self.filter.finish(out)?;
        if result.parse_ok {
            self.draft = Some(result.blocks.clone());
            self.state = State::Done;
            return Ok(TurnStep::Done { ok: true, parse_ok: true, result });
        }
        if self.attempt == 1 {
            self.state = State::AwaitingRetry;
            let corrective = corrective_message(&self.nonce, &self.options, &result.violations)?;
            return Ok(TurnStep::Retry { corrective, result });
        }
        self.state = State::Done;
        Ok(TurnStep::Done { ok: false, parse_ok: false, result })
    }

    /// Starts the next turn with a fresh `nonce`, keeping the draft and the final blocks.
    ///
    /// # Errors
    /// `invalid_option` for a bad nonce.
    pub fn next_turn(&mut self, nonce: &str) -> Result<()> {
        self.filter = TagFilter::new(nonce, self.options.clone())?;
        self.nonce = nonce.to_string();
        self.attempt = 1;
        self.state = State::Streaming;
        Ok(())
    }

    /// The blocks of the last valid response (memory only), if any.
    pub fn draft(&self) -> Option<&TagBlocks> {
        self.draft.as_ref()
    }

    /// The confirmed blocks, if any.
    pub fn confirmed(&self) -> Option<&TagBlocks> {
        self.confirmed.as_ref()
    }

    /// Makes the draft final (a plain copy) and returns it.
    ///
    /// # Errors
    /// `invalid_state` when there is no draft.
    pub fn confirm(&mut self) -> Result<&TagBlocks> {
        let Some(d) = &self.draft else {
            return Err(Error::new(ErrorKind::InvalidState, "there is no draft to confirm"));
        };
        Ok(self.confirmed.insert(d.clone()))
    }
}

fn done() -> Error {
    Error::new(ErrorKind::InvalidState, "the turn is done; call next_turn() for the next one")
}
