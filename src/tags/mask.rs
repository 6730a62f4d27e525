//! `NonceMask`: the nonce masked out of one channel of text as it streams (reasoning, a
//! refusal, one tool call's arguments), as the tag filter masks it in block text.
//!
//! Invariants:
//! - Occurrences are found leftmost first and never overlap; each becomes one U+FFFD (no
//!   nonce character, so the text around it cannot join into the nonce).
//! - Invisible characters (U+200B–U+200D, U+2060, U+00AD, U+FEFF) between two characters of
//!   the nonce are part of the occurrence: `ab\u{200B}cd` is the nonce `abcd`. An occurrence
//!   spans at most [`SPAN`] bytes per nonce character.
//! - Held text is a possible occurrence cut at the end of a delta: at most the nonce's
//!   characters with the invisible characters between them (so at most `SPAN × nonce length`
//!   bytes), and it is rescanned once the next delta comes. The output does not depend on
//!   how the channel's text was split into deltas.
//! - Work per byte is bounded by the nonce's length: one comparison per nonce character at
//!   each occurrence of its first byte.

use super::contract::NESTED_MARK;

/// Most bytes an occurrence may span per nonce character (one 3-byte invisible each).
const SPAN: usize = 4;

/// The nonce masker of one channel of text.
#[derive(Debug, Default)]
pub(crate) struct NonceMask {
    /// A possible occurrence cut at the end of the last delta.
    held: String,
    /// Bytes of the channel's text before `held`.
    offset: u64,
}

/// How the nonce matches at a position.
enum Match {
    /// An occurrence, ending at this byte.
    Full(usize),
    /// The text ended inside a possible occurrence.
    Partial,
    /// None starts here.
    No,
}

impl NonceMask {
    /// Masks `text`, the next delta of the channel, into `out`; the channel offset of each
    /// occurrence goes to `found`. `nonce` is the same on every call.
    pub(crate) fn feed(&mut self, nonce: &[u8], text: &str, out: &mut String, found: &mut Vec<u64>) {
        let joined;
        let buf = if self.held.is_empty() {
            text
        } else {
            joined = [self.held.as_str(), text].concat();
            joined.as_str()
        };
        let base = self.offset;
        let b = buf.as_bytes();
        let (mut from, mut i) = (0, 0);
        while let Some(k) = b[i..].iter().position(|&c| c == nonce[0]) {
            let j = i + k;
            match match_at(b, j, nonce) {
                Match::Full(end) => {
                    out.push_str(crate::text::sub(buf, from..j));
                    out.push_str(NESTED_MARK);
                    found.push(base + j as u64);
                    (from, i) = (end, end);
                }
                Match::Partial => {
                    out.push_str(crate::text::sub(buf, from..j));
                    self.held = crate::text::sub(buf, j..).to_string();
                    self.offset = base + j as u64;
                    return;
                }
                Match::No => i = j + 1,
            }
        }
        out.push_str(crate::text::sub(buf, from..));
        self.held.clear();
        self.offset = base + b.len() as u64;
    }

    /// Ends the channel: the held text (no occurrence after all) goes to `out`.
    pub(crate) fn finish(&mut self, out: &mut String) {
        out.push_str(&self.held);
        self.offset += self.held.len() as u64;
        self.held.clear();
    }

    /// Whether text is held.
    pub(crate) fn holds(&self) -> bool {
        !self.held.is_empty()
    }
}

/// `text` with every occurrence of the nonce masked (a whole value: a name, a message, a
/// string of a tool's arguments or result); `None` when it has none.
pub(crate) fn mask_whole(nonce: &[u8], text: &str) -> Option<String> {
    if !text.as_bytes().contains(&nonce[0]) {
        return None;
    }
    let (mut mask, mut out, mut found) = (NonceMask::default(), String::new(), Vec::new());
    mask.feed(nonce, text, &mut out, &mut found);
    mask.finish(&mut out);
    (!found.is_empty()).then_some(out)
}

/// Whether the nonce, possibly with invisible characters inside it, starts at `j`.
fn match_at(b: &[u8], j: usize, nonce: &[u8]) -> Match {
    let limit = j + SPAN * nonce.len();
    let mut p = j;
    for (k, &c) in nonce.iter().enumerate() {
        if k > 0 {
            while let Some(n) = invisible(&b[p..]).filter(|_| p < limit) {
                p += n;
            }
        }
        if p >= limit {
            return Match::No;
        }
        if p >= b.len() {
            return Match::Partial;
        }
        if b[p] != c {
            return Match::No;
        }
        p += 1;
    }
    Match::Full(p)
}

/// The length of the invisible character `b` starts with (U+00AD, U+200B–U+200D, U+2060,
/// U+FEFF), if it starts with one.
fn invisible(b: &[u8]) -> Option<usize> {
    match b {
        [0xC2, 0xAD, ..] => Some(2),
        [0xE2, 0x80, 0x8B..=0x8D, ..] | [0xE2, 0x81, 0xA0, ..] | [0xEF, 0xBB, 0xBF, ..] => Some(3),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn masked(deltas: &[&str]) -> (String, Vec<u64>) {
        let (mut m, mut out, mut found) = (NonceMask::default(), String::new(), Vec::new());
        for d in deltas {
            m.feed(N, d, &mut out, &mut found);
        }
        m.finish(&mut out);
        (out, found)
    }

    #[test]
    fn occurrences_are_masked_at_every_split_and_with_invisibles_inside() {
        let nonce = std::str::from_utf8(N).unwrap();
        let soft = "0123\u{AD}4567\u{200B}89ab\u{200C}cdef\u{200D}0123\u{2060}4567\u{FEFF}89abcdef";
        let text = format!("a [ARTIFACT:{nonce}] b {soft} c 0123 {nonce}{nonce}\u{200B}");
        let want = "a [ARTIFACT:\u{FFFD}] b \u{FFFD} c 0123 \u{FFFD}\u{FFFD}\u{200B}";
        assert_eq!(masked(&[&text]).0, want);
        assert_eq!(masked(&[&text]).1.len(), 4);
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        for &(i, _) in &chars {
            for &(j, _) in chars.iter().filter(|(j, _)| *j >= i) {
                let (a, b, c) = (&text[..i], &text[i..j], &text[j..]);
                assert_eq!(masked(&[a, b, c]), masked(&[&text]), "{i} {j}");
            }
        }
        assert_eq!(mask_whole(N, "no nonce here"), None);
        assert_eq!(mask_whole(N, &format!("x{nonce}")).as_deref(), Some("x\u{FFFD}"));
    }
}
