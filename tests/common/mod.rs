//! The one chunking helper every streaming test goes through.
//!
//! `assert_chunk_invariant(name, input, run)` runs `run` on `input` fed whole, one byte at a
//! time, and split at random points (several splittings, small and large pieces), and asserts
//! that every run gives the same result as the whole-input run, which it returns.
//!
//! The random splits come from a seed: `STREAMROUTE_SEED=<u64>` pins it; otherwise it is drawn
//! from the clock. The seed is printed in every failure message so a failure can be replayed.
#![allow(dead_code)]

use std::fmt::Debug;
use std::sync::OnceLock;

/// SplitMix64: tiny, deterministic, good enough to choose split points.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The session seed: `STREAMROUTE_SEED` or the clock, chosen once per test binary.
pub fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| match std::env::var("STREAMROUTE_SEED") {
        Ok(s) => s.trim().parse().expect("STREAMROUTE_SEED must be a u64"),
        Err(_) => {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0x5EED)
        }
    })
}

/// Splits `input` at random points. `max_piece` bounds the piece length.
pub fn random_split<'a>(input: &'a [u8], rng: &mut Rng, max_piece: usize) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let n = 1 + rng.below(max_piece.max(1));
        let end = (i + n).min(input.len());
        out.push(&input[i..end]);
        i = end;
    }
    out
}

/// A piece of text as a streaming machine may be given it from JS: as UTF-8 bytes or as
/// UTF-16 code units (little-endian bytes, as `Buffer#write(s, 'utf16le')` writes a string).
#[derive(Debug, Clone)]
pub enum TextPiece {
    Utf8(Vec<u8>),
    Utf16le(Vec<u8>),
}

fn text_piece(text: &str, units: bool) -> TextPiece {
    if units {
        TextPiece::Utf16le(text.encode_utf16().flat_map(u16::to_le_bytes).collect())
    } else {
        TextPiece::Utf8(text.as_bytes().to_vec())
    }
}

/// The text chunkings of a valid UTF-8 input (the ones JS strings allow: cuts at character
/// boundaries), for machines that also read UTF-16: whole as units, one character at a time
/// as units, and random cuts with each piece randomly UTF-8 or UTF-16, so representations mix
/// within one stream. Labelled for failure messages; every one must give the outcome of the
/// byte chunkings.
pub fn text_chunkings(text: &str, case_seed: u64) -> Vec<(String, Vec<TextPiece>)> {
    let mut v = vec![
        ("whole as UTF-16".to_string(), vec![text_piece(text, true)]),
        ("characters as UTF-16".to_string(), text.chars().map(|c| text_piece(c.encode_utf8(&mut [0; 4]), true)).collect()),
    ];
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let mut rng = Rng::new(case_seed ^ 0x7E57);
    for (k, max_chars) in [1usize, 3, 8, 40].into_iter().enumerate() {
        let mut pieces = Vec::new();
        let mut at = 0;
        while at + 1 < bounds.len() {
            let next = (at + 1 + rng.below(max_chars)).min(bounds.len() - 1);
            pieces.push(text_piece(&text[bounds[at]..bounds[next]], rng.below(2) == 0));
            at = next;
        }
        v.push((format!("mixed UTF-8/UTF-16 #{k}(max {max_chars} chars)"), pieces));
    }
    v
}

/// Every chunking a test input is run under, with a label for failure messages.
pub fn chunkings(input: &[u8], case_seed: u64) -> Vec<(String, Vec<&[u8]>)> {
    let mut v: Vec<(String, Vec<&[u8]>)> = vec![("whole".into(), vec![input]), ("bytewise".into(), input.chunks(1).collect())];
    if !input.is_empty() {
        // Whole input with an empty chunk in front and behind: empty feeds are no-ops.
        v.push(("with-empty-chunks".into(), vec![&input[..0], input, &input[input.len()..]]));
    }
    let mut rng = Rng::new(case_seed);
    for (k, max_piece) in [2usize, 3, 5, 8, 17, 64, 1000].into_iter().enumerate() {
        v.push((format!("random#{k}(max {max_piece})"), random_split(input, &mut rng, max_piece)));
    }
    // Every single split point, for short inputs: catches any boundary-dependent state.
    if input.len() <= 64 {
        for p in 1..input.len() {
            v.push((format!("split@{p}"), vec![&input[..p], &input[p..]]));
        }
    }
    v
}

pub fn case_seed(name: &str) -> u64 {
    // Mix the session seed with the case name so cases differ but stay reproducible.
    name.bytes().fold(seed(), |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3))
}

/// Runs `run` under every chunking of `input` and asserts identical results.
/// Returns the result of the whole-input run.
pub fn assert_chunk_invariant<T, F>(name: &str, input: &[u8], mut run: F) -> T
where
    T: PartialEq + Debug,
    F: FnMut(&[&[u8]]) -> T,
{
    let all = chunkings(input, case_seed(name));
    let mut expected: Option<T> = None;
    for (label, chunks) in &all {
        let got = run(chunks);
        match &expected {
            None => expected = Some(got),
            Some(want) => {
                if &got != want {
                    let sizes: Vec<usize> = chunks.iter().map(|c| c.len()).collect();
                    panic!(
                        "case {name:?}: chunking {label} differs from whole input \
                         (STREAMROUTE_SEED={seed})\n chunk sizes: {sizes:?}\n whole: {want:?}\n got:   {got:?}",
                        seed = seed()
                    );
                }
            }
        }
    }
    expected.expect("at least one chunking")
}
