//! Nonce-tagged block streaming (../shared/spec/nonce-tag-streaming.md).
//!
//! The model answers `[ARTIFACT:<NONCE>]…[/ARTIFACT:<NONCE>][USER:<NONCE>]…[/USER:<NONCE>]`.
//! This module splits such a response into its blocks while it streams ([`TagFilter`]) and
//! once it is complete ([`check_tagged`], [`parse_tagged`]). Both read the text the same way:
//!
//! - A *marker* is exactly `[` `/`? NAME `:` NONCE `]` for one of the configured block names
//!   (case-sensitive) and the request nonce. Anything else, including a marker with another
//!   nonce, another name, other case or extra spaces, is ordinary text.
//! - Since a marker holds no `[` after its first byte, markers never overlap: the text splits
//!   into one unique sequence of text runs and markers, which [`Contract`] judges.
//! - The nonce never reaches the user: an occurrence of it in text (leftmost first, not
//!   overlapping; `[/user:N]`, `[/USER: N]`, `［/USER:N］`, `[/USER:N0]`…) is a *nonce token*,
//!   the violation `nonce_in_text`, and U+FFFD takes its place in block text (a placeholder
//!   that is no nonce character, so the text around it can never join into the nonce, as
//!   dropping the characters could). The nonce inside a marker never overlaps another
//!   occurrence (a marker has `:` before it and `]` after), so the tokens stay unique.
//! - A response that ends inside a possible marker (cut by a length limit) drops that tail:
//!   it is never block text (the block is then unclosed, or the tail is text outside blocks:
//!   a violation either way).
//!
//! The two tokenizers are independent: the streaming one (`filter.rs`) jumps from one
//! NONCE to the next and holds a possible marker or nonce prefix at a chunk's end; the
//! whole-text one (`parse.rs`) jumps from `[` to `[`, then looks for the nonce in each run of
//! text. The judging of the token sequence (`contract.rs`) is shared, so they agree by
//! design, and the tests check that they do on every input.

mod contract;
mod filter;
mod mask;
mod parse;
mod prompt;
mod sanitize;
mod transport;
mod turn;

pub use filter::TagFilter;
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
pub(crate) use filter::{DeltaSink, TagInput};
pub(crate) use mask::{mask_whole, NonceMask};
pub use parse::{check_tagged, parse_tagged};
pub use prompt::{corrective_message, tag_contract};
pub use sanitize::sanitize_untrusted;
pub use transport::TagEventWriter;
pub use turn::{TagBlocks, TaggedTurn, TurnStep};

use crate::json::Quoted;
use crate::{Error, ErrorKind, Result};

/// Options of [`TagFilter`], [`check_tagged`] and [`parse_tagged`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFilterOptions {
    /// The block names in contract order (default `["ARTIFACT", "USER"]`). Each is 1 to 64
    /// ASCII letters, digits or `_`; names must differ even when lowercased (the lowercase
    /// name keys the result and names the JS delta type `<name>_delta`). At most 32 blocks.
    pub blocks: Vec<String>,
    /// Most bytes the filter keeps: the block text retained for the result plus the largest
    /// possible held tail (longest marker + 2). Default 8 MiB; at least the longest marker
    /// plus 3. Passing it is a `buffer_limit_exceeded` error at the byte offset where it
    /// happened. The whole-text parser does not apply it (its input is already in memory).
    pub max_buffer_bytes: usize,
}

/// The default cap of [`TagFilterOptions::max_buffer_bytes`] (8 MiB).
pub const DEFAULT_MAX_BUFFER_BYTES: usize = 8 << 20;
/// The longest nonce accepted, in bytes.
pub const MAX_NONCE_BYTES: usize = 128;
const MAX_NAME_BYTES: usize = 64;
const MAX_BLOCKS: usize = 32;

impl Default for TagFilterOptions {
    fn default() -> Self {
        TagFilterOptions { blocks: vec!["ARTIFACT".to_string(), "USER".to_string()], max_buffer_bytes: DEFAULT_MAX_BUFFER_BYTES }
    }
}

/// Text that became certain for one block. Adjacent deltas of the same block may be
/// coalesced; consumers compare concatenations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagDelta {
    /// Index of the block in [`TagFilterOptions::blocks`].
    pub block: usize,
    /// Valid UTF-8 that never holds a marker.
    pub text: String,
}

/// One breach of the contract, at a byte offset of the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagViolation {
    /// `text_outside_blocks`, `missing_block`, `duplicate_block`, `wrong_order`,
    /// `unclosed_block`, `nested_marker` or `nonce_in_text`.
    pub code: &'static str,
    /// Byte offset in the response: the first non-whitespace byte of outside text, the
    /// offending marker, the opening marker of an unclosed block, or the end of the response
    /// for a missing block.
    pub offset: u64,
}

impl TagViolation {
    /// The code among the violation codes `code` is, as its static string (another is
    /// `"unknown"`).
    // A `match` compiles to a switch on the length and one comparison each; a search of a
    // constant array was unrolled into seven inlined comparisons (2 KB of `.wasm`).
    #[inline]
    pub fn known_code(code: &str) -> &'static str {
        match code {
            "text_outside_blocks" => "text_outside_blocks",
            "missing_block" => "missing_block",
            "duplicate_block" => "duplicate_block",
            "wrong_order" => "wrong_order",
            "unclosed_block" => "unclosed_block",
            "nested_marker" => "nested_marker",
            "nonce_in_text" => "nonce_in_text",
            _ => "unknown",
        }
    }

    /// `{"code": …, "offset": …}`, as the router's `done` event carries it.
    pub fn to_json_value(&self) -> crate::JsonValue {
        crate::JsonValue::Object(vec![
            ("code".into(), crate::JsonValue::String(self.code.into())),
            ("offset".into(), crate::JsonValue::Number(self.offset.to_string())),
        ])
    }
}

/// The verdict on a whole response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagResult {
    /// The response was read to its end without an error (`false` only when the filter
    /// failed, e.g. on `buffer_limit_exceeded`, before `finish`).
    pub ok: bool,
    /// The response met the contract: `ok` and no violations.
    pub parse_ok: bool,
    /// `(lowercase name, full text)` of every block in contract order (`""` when missing).
    pub blocks: Vec<(String, String)>,
    /// The violations, in the order they were found.
    pub violations: Vec<TagViolation>,
}

impl TagResult {
    /// The text of the block with this lowercase name.
    pub fn block(&self, name: &str) -> Option<&str> {
        self.blocks.iter().find(|(n, _)| n == name).map(|(_, t)| t.as_str())
    }
}

/// A marker found at some position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Marker {
    pub(crate) block: usize,
    pub(crate) close: bool,
    pub(crate) len: usize,
}

/// What [`MarkerSet::find`] found: a marker, or the nonce in text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// A whole marker.
    Marker(Marker),
    /// The nonce outside a marker (`len` bytes).
    Nonce { len: usize },
}

impl Token {
    /// Bytes of input the token spans.
    pub(crate) fn len(self) -> usize {
        match self {
            Token::Marker(m) => m.len,
            Token::Nonce { len } => len,
        }
    }
}

/// What the bytes at a `[` are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkerMatch {
    /// A whole marker.
    Full(Marker),
    /// The input ends inside something that may still become a marker.
    Partial,
    /// Not a marker: the `[` is text.
    None,
}

/// The markers of one request: `[NAME:NONCE]` and `[/NAME:NONCE]` per block.
#[derive(Debug, Clone)]
pub(crate) struct MarkerSet {
    /// `(bytes, block, close)`.
    markers: Vec<(Vec<u8>, usize, bool)>,
    lower_names: Vec<String>,
    max_len: usize,
    /// Bytes that may follow `[` in a marker (`/` and the first byte of each name): most
    /// `[` of ordinary text are rejected by this one lookup.
    second: [bool; 256],
    /// Finds the nonce, which every marker holds (just before its `]`).
    nonce: memchr::memmem::Finder<'static>,
    /// The KMP failure function of the nonce: `fail[i]` is the length of the longest proper
    /// prefix of `nonce[..=i]` that is also its suffix (see [`MarkerSet::hold_start`]).
    fail: Vec<u8>,
    /// The bytes the nonce is made of.
    in_nonce: [bool; 256],
    /// A block name holds the nonce (e.g. nonce `USER`): a nonce found may then lie inside the
    /// name part of a marker.
    nonce_in_names: bool,
}

fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::InvalidOption, msg)
}

impl MarkerSet {
    /// # Errors
    /// `invalid_option` for a bad nonce, bad or duplicate block names, or a cap too small.
    pub(crate) fn new(nonce: &str, options: &TagFilterOptions) -> Result<MarkerSet> {
        let nonce_ok = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
        if nonce.is_empty() || nonce.len() > MAX_NONCE_BYTES || !nonce.bytes().all(nonce_ok) {
            return Err(invalid(format!("the nonce must be 1 to {MAX_NONCE_BYTES} ASCII letters, digits, '_' or '-'")));
        }
        if options.blocks.is_empty() || options.blocks.len() > MAX_BLOCKS {
            return Err(invalid(format!("blocks must name 1 to {MAX_BLOCKS} blocks")));
        }
        let mut markers = Vec::with_capacity(options.blocks.len() * 2);
        let mut lower_names: Vec<String> = Vec::with_capacity(options.blocks.len());
        for (i, name) in options.blocks.iter().enumerate() {
            let name_ok = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            if name.is_empty() || name.len() > MAX_NAME_BYTES || !name.bytes().all(name_ok) {
                return Err(invalid(format!(
                    "block name {} must be 1 to {MAX_NAME_BYTES} ASCII letters, digits or '_'",
                    Quoted(name)
                )));
            }
            let lower = name.to_ascii_lowercase();
            if lower_names.contains(&lower) {
                return Err(invalid(format!("block name {} is given twice", Quoted(name))));
            }
            lower_names.push(lower);
            for close in [false, true] {
                let slash = if close { "/" } else { "" };
                markers.push((format!("[{slash}{name}:{nonce}]").into_bytes(), i, close));
            }
        }
        let max_len = markers.iter().map(|m| m.0.len()).max().unwrap_or(0);
        if options.max_buffer_bytes < max_len + 3 {
            return Err(invalid(format!(
                "maxBufferBytes must be at least {} (the longest marker plus 3), got {}",
                max_len + 3,
                options.max_buffer_bytes
            )));
        }
        let mut second = [false; 256];
        for (m, _, _) in &markers {
            if let Some(&b) = m.get(1) {
                second[usize::from(b)] = true;
            }
        }
        // No prefilter: its rare-byte heuristic picks from the nonce's letters and digits,
        // which text has plenty of (bench/README.md, "Measurements behind design choices").
        let finder = memchr::memmem::FinderBuilder::new()
            .prefilter(memchr::memmem::Prefilter::None)
            .build_forward(nonce.as_bytes())
            .into_owned();
        let nonce_in_names = options.blocks.iter().any(|b| finder.find(b.as_bytes()).is_some());
        let fail = failure(nonce.as_bytes());
        let mut in_nonce = [false; 256];
        for b in nonce.bytes() {
            in_nonce[usize::from(b)] = true;
        }
        Ok(MarkerSet { markers, lower_names, max_len, second, nonce: finder, fail, in_nonce, nonce_in_names })
    }

    /// What `data` (which starts with `[`) begins with.
    #[inline]
    pub(crate) fn match_at(&self, data: &[u8]) -> MarkerMatch {
        match data.get(1) {
            None => return MarkerMatch::Partial,
            Some(&b) if !self.second[usize::from(b)] => return MarkerMatch::None,
            Some(_) => {}
        }
        let mut partial = false;
        for (m, block, close) in &self.markers {
            if data.len() >= m.len() {
                if data[..m.len()] == m[..] {
                    return MarkerMatch::Full(Marker { block: *block, close: *close, len: m.len() });
                }
            } else if m.starts_with(data) {
                partial = true;
            }
        }
        if partial {
            MarkerMatch::Partial
        } else {
            MarkerMatch::None
        }
    }

    /// The first token in `data`: `(start, token)`. Every marker holds the nonce, so the search
    /// jumps from one nonce to the next (memmem) and checks whether a marker ends just after
    /// it (`]`); if none does, the nonce is text. `None` when there is no token, or when the
    /// only candidate left ends `data` right after a possible marker prefix (held then: see
    /// [`MarkerSet::hold_start`]).
    pub(crate) fn find(&self, data: &[u8]) -> Option<(usize, Token)> {
        let n = self.nonce.needle().len();
        // (The length test first: small chunks skip the searcher's setup.)
        if data.len() < n {
            return None;
        }
        let p = self.nonce.find(data)?;
        let end = p + n;
        if data.get(end) == Some(&b']') {
            for (m, block, close) in &self.markers {
                if let Some(start) = (end + 1).checked_sub(m.len()) {
                    if data[start..=end] == m[..] {
                        return Some((start, Token::Marker(Marker { block: *block, close: *close, len: m.len() })));
                    }
                }
            }
        }
        if self.nonce_in_names {
            // The nonce may be in the name part of a marker, which starts at the last `[`.
            let lo = p.saturating_sub(self.max_len);
            if let Some(s) = memchr::memrchr(b'[', &data[lo..p]).map(|k| lo + k) {
                match self.match_at(&data[s..]) {
                    MarkerMatch::Full(m) if s + m.len > p => return Some((s, Token::Marker(m))),
                    MarkerMatch::Partial => return None,
                    _ => {}
                }
            }
        }
        // At the end of `data`, `]` may come next: a marker if a marker prefix ends here.
        let cut_marker =
            |(m, _, _): &(Vec<u8>, usize, bool)| end.checked_sub(m.len() - 1).is_some_and(|s| data[s..] == m[..m.len() - 1]);
        if end == data.len() && self.markers.iter().any(cut_marker) {
            return None;
        }
        Some((p, Token::Nonce { len: n }))
    }

    /// The nonce finder (the whole-text parser looks for the nonce in its runs of text).
    pub(crate) fn nonce_finder(&self) -> &memchr::memmem::Finder<'static> {
        &self.nonce
    }

    /// Where the tail of `data` (which holds no whole token) that may still become a token
    /// starts: a possible marker prefix (the last `[`, if what follows it may still become a
    /// marker), else the longest suffix that is a proper prefix of the nonce. Both are ASCII
    /// and shorter than the longest marker.
    pub(crate) fn hold_start(&self, data: &[u8]) -> Option<usize> {
        // A nonce prefix holds no `[`, so a marker prefix starts before it when both exist.
        self.partial_start(data).or_else(|| self.nonce_prefix_start(data))
    }

    /// Where the possible marker prefix at the end of `data` (which holds no whole marker)
    /// starts: the last `[`, if what follows it may still become a marker.
    pub(crate) fn partial_start(&self, data: &[u8]) -> Option<usize> {
        let lo = data.len().saturating_sub(self.max_len - 1);
        let s = lo + memchr::memrchr(b'[', &data[lo..])?;
        (self.match_at(&data[s..]) == MarkerMatch::Partial).then_some(s)
    }

    /// Where the longest suffix of `data` that is a proper prefix of the nonce starts: the KMP
    /// automaton over the last `nonce − 1` bytes, from the first byte that may begin it.
    #[inline]
    fn nonce_prefix_start(&self, data: &[u8]) -> Option<usize> {
        // Such a suffix is made of nonce bytes: most text ends in a byte that is not one.
        if !self.in_nonce[usize::from(*data.last()?)] {
            return None;
        }
        self.nonce_prefix_start_in(data)
    }

    /// [`MarkerSet::nonce_prefix_start`] once the last byte may end a nonce prefix.
    #[inline(never)]
    fn nonce_prefix_start_in(&self, data: &[u8]) -> Option<usize> {
        let nonce = self.nonce.needle();
        // Walk back over nonce bytes first (text ends in a short run of them, if any).
        let mut lo = data.len();
        while lo > 0 && data.len() - lo < nonce.len() - 1 && self.in_nonce[usize::from(data[lo - 1])] {
            lo -= 1;
        }
        let lo = lo + data[lo..].iter().position(|&b| b == nonce[0])?;
        let mut q = 0;
        for &b in &data[lo..] {
            while q > 0 && nonce[q] != b {
                q = usize::from(self.fail[q - 1]);
            }
            if nonce[q] == b {
                q += 1;
            }
            // (A whole nonce does not fit in the window.)
        }
        (q > 0).then(|| data.len() - q)
    }

    /// The longest marker in bytes.
    pub(crate) fn max_len(&self) -> usize {
        self.max_len
    }

    pub(crate) fn lower_name(&self, i: usize) -> &str {
        self.lower_names.get(i).map_or("", String::as_str)
    }

    pub(crate) fn block_count(&self) -> usize {
        self.lower_names.len()
    }
}

/// The KMP failure function of `pattern` (at most 128 bytes, so each entry fits a byte).
fn failure(pattern: &[u8]) -> Vec<u8> {
    let mut fail = vec![0u8; pattern.len()];
    let mut k = 0;
    for i in 1..pattern.len() {
        while k > 0 && pattern[i] != pattern[k] {
            k = usize::from(fail[k - 1]);
        }
        if pattern[i] == pattern[k] {
            k += 1;
        }
        fail[i] = k as u8;
    }
    fail
}
