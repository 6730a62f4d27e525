//! The strict parser over a complete response: an independent whole-text tokenizer (no held
//! tail, no UTF-8 carry: each run of block text between markers is decoded at once) feeding
//! the same judge as the streaming filter.

use super::contract::{Contract, State, NESTED_MARK};
use super::{MarkerMatch, MarkerSet, TagFilterOptions, TagResult};
use crate::{Error, ErrorKind, Result};

/// Judges a complete response: the blocks and every violation (never fails on a broken
/// contract; see [`parse_tagged`] for the strict form). Agrees with [`TagFilter`]
/// (crate::TagFilter) on every input: same blocks (the concatenated deltas), same violations.
/// `max_buffer_bytes` is not applied.
///
/// # Errors
/// `invalid_option` for a bad nonce or bad block names.
pub fn check_tagged(text: impl AsRef<[u8]>, nonce: &str, options: &TagFilterOptions) -> Result<TagResult> {
    let data = text.as_ref();
    let relaxed = TagFilterOptions { blocks: options.blocks.clone(), max_buffer_bytes: usize::MAX };
    let markers = MarkerSet::new(nonce, &relaxed)?;
    let mut contract = Contract::new(markers.block_count());
    let mut texts = vec![String::new(); markers.block_count()];
    // Start of the current run of text (between two markers).
    let mut run = 0;
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'[', &data[i..]) {
        let j = i + k;
        match markers.match_at(&data[j..]) {
            MarkerMatch::Full(m) => {
                text_run(&mut contract, &markers, data, run..j, &mut texts);
                if contract.marker(m, j as u64) {
                    end_run(&mut contract, NESTED_MARK.as_bytes(), j, &mut texts);
                }
                i = j + m.len;
                run = i;
            }
            // The text ends inside a possible marker (it was cut): that tail is dropped, and
            // judged as outside text when outside the blocks.
            MarkerMatch::Partial => {
                text_run(&mut contract, &markers, data, run..j, &mut texts);
                if contract.state() == State::Outside {
                    end_run(&mut contract, &data[j..], j, &mut texts);
                }
                run = data.len();
                break;
            }
            MarkerMatch::None => i = j + 1,
        }
    }
    text_run(&mut contract, &markers, data, run..data.len(), &mut texts);
    let violations = contract.end(data.len() as u64);
    Ok(TagResult {
        ok: true,
        parse_ok: violations.is_empty(),
        blocks: texts.into_iter().enumerate().map(|(i, t)| (markers.lower_name(i).to_string(), t)).collect(),
        violations,
    })
}

/// The text between two markers: split at each occurrence of the nonce (leftmost first),
/// which is a token of its own (`nonce_in_text`, U+FFFD in its place in a kept block).
fn text_run(contract: &mut Contract, markers: &MarkerSet, data: &[u8], range: std::ops::Range<usize>, texts: &mut [String]) {
    let finder = markers.nonce_finder();
    let mut from = range.start;
    for p in finder.find_iter(&data[range.clone()]) {
        let at = range.start + p;
        end_run(contract, &data[from..at], from, texts);
        if contract.nonce(at as u64) {
            end_run(contract, NESTED_MARK.as_bytes(), at, texts);
        }
        from = at + finder.needle().len();
    }
    end_run(contract, &data[from..range.end], from, texts);
}

/// A run of text between tokens, at offset `at`: judged outside, decoded into its block.
fn end_run(contract: &mut Contract, text: &[u8], at: usize, texts: &mut [String]) {
    match contract.state() {
        State::Outside => contract.outside_text(text, at as u64),
        State::In { block, emit: true } => {
            if let Some(t) = texts.get_mut(block) {
                t.push_str(&String::from_utf8_lossy(text));
            }
        }
        State::In { emit: false, .. } => {}
    }
}

/// The strict final parser: the blocks `(lowercase name, text)` in contract order, or an
/// error.
///
/// ```
/// use streamroute::{parse_tagged, TagFilterOptions};
///
/// let text = "[ARTIFACT:n1]Plan A[/ARTIFACT:n1]\n[USER:n1]OK?[/USER:n1]\n";
/// let blocks = parse_tagged(text, "n1", &TagFilterOptions::default()).unwrap();
/// assert_eq!(blocks[0], ("artifact".to_string(), "Plan A".to_string()));
/// let err = parse_tagged("Sure! [ARTIFACT:n1]x[/ARTIFACT:n1]", "n1", &TagFilterOptions::default());
/// assert_eq!(err.unwrap_err().code(), "tag_contract_violation");
/// ```
///
/// # Errors
/// `tag_contract_violation` listing every violation (`code@offset`, offset of the first one
/// attached); `invalid_option` as for [`check_tagged`].
pub fn parse_tagged(text: impl AsRef<[u8]>, nonce: &str, options: &TagFilterOptions) -> Result<Vec<(String, String)>> {
    let r = check_tagged(text, nonce, options)?;
    match r.violations.first() {
        None => Ok(r.blocks),
        Some(first) => {
            let list: Vec<String> = r.violations.iter().map(|v| format!("{}@{}", v.code, v.offset)).collect();
            Err(Error::new(ErrorKind::TagContractViolation, format!("the response breaks the tag contract: {}", list.join(", ")))
                .at(first.offset))
        }
    }
}
