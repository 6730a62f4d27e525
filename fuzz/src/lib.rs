//! What the fuzz targets share: cutting an input into the pieces that are fed one by one
//! (`pieces`), and, for the router targets, feeding a stream in pieces and comparing the
//! outcome with that of the whole (`router`).

pub mod router;

#[path = "../../tests/common/router.rs"]
mod shared;

/// `input` cut into pieces of `size` bytes, or with `varying` of 1, 2, .., `size`, 1, 2, ..
/// bytes; the last piece is what is left. A `size` of 0 counts as 1.
pub fn pieces(input: &[u8], size: usize, varying: bool) -> Vec<&[u8]> {
    let size = size.max(1);
    let mut pieces = Vec::new();
    let (mut i, mut k) = (0, 0);
    while i < input.len() {
        let n = if varying { k % size + 1 } else { size };
        let end = (i + n).min(input.len());
        pieces.push(&input[i..end]);
        i = end;
        k += 1;
    }
    pieces
}
