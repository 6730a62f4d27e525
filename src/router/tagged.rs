//! The `tagged` content mode: text through the nonce tag filter (`src/tags/`, issue 5).
//!
//! Until the tag filter is part of the crate, `content: "tagged"` is refused with
//! `invalid_option`.

use super::route::TextKind;
use crate::{Error, ErrorKind, Result};

/// The tag filter, adapted to the router's text kinds.
#[derive(Debug)]
pub(crate) struct Tagged {
    _private: (),
}

impl Tagged {
    pub(crate) fn new(_nonce: Option<&str>) -> Result<Tagged> {
        Err(Error::new(ErrorKind::InvalidOption, "content 'tagged' not available"))
    }

    pub(crate) fn feed(&mut self, _text: &[u8], _out: &mut Vec<(TextKind, String)>) -> Result<()> {
        Ok(())
    }

    /// Returns `parse_ok`.
    pub(crate) fn finish(&mut self, _out: &mut Vec<(TextKind, String)>) -> Result<bool> {
        Ok(false)
    }
}
