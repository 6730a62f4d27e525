//! The `tagged` content mode: the model's text through the nonce [`TagFilter`] (blocks
//! `ARTIFACT` then `USER`), as `artifact_delta` / `user_delta` text; `finish` gives the
//! contract verdict (`parse_ok`).

use super::route::TextKind;
use crate::{Error, ErrorKind, Result, TagDelta, TagFilter, TagFilterOptions};

/// The tag filter, adapted to the router's text kinds.
#[derive(Debug)]
pub(crate) struct Tagged {
    filter: TagFilter,
    deltas: Vec<TagDelta>,
}

impl Tagged {
    /// # Errors
    /// `invalid_option` without a nonce, or with one the filter refuses.
    pub(crate) fn new(nonce: Option<&str>) -> Result<Tagged> {
        let Some(nonce) = nonce else {
            return Err(Error::new(ErrorKind::InvalidOption, "content 'tagged' needs the nonce of the tag contract"));
        };
        let mut filter = TagFilter::new(nonce, TagFilterOptions::default())?;
        // The router passes block text on as deltas and reads only the verdict: the filter
        // keeps no copy of it (what it holds is then a possible marker's tail, a few bytes).
        filter.stop_keeping_text();
        Ok(Tagged { filter, deltas: Vec::new() })
    }

    /// Feeds text; appends the block text that became certain.
    pub(crate) fn feed(&mut self, text: &[u8], out: &mut Vec<(TextKind, String)>) -> Result<()> {
        let r = self.filter.feed(text, &mut self.deltas);
        self.drain(out);
        r
    }

    /// Ends the text; returns `parse_ok` (the response met the contract).
    pub(crate) fn finish(&mut self, out: &mut Vec<(TextKind, String)>) -> Result<bool> {
        let r = self.filter.finish(&mut self.deltas);
        self.drain(out);
        r.map(|result| result.parse_ok)
    }

    fn drain(&mut self, out: &mut Vec<(TextKind, String)>) {
        for d in self.deltas.drain(..) {
            let kind = if self.filter.block_name(d.block) == "artifact" { TextKind::Artifact } else { TextKind::User };
            out.push((kind, d.text));
        }
    }
}
