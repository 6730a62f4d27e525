//! `TagFilter`'s and `TaggedTurn`'s deltas, as pieces of the chunk or copies.

use super::{TAG_BYTES, TAG_SLICE, TAG_UNITS};
use crate::budget::{out_of_memory, try_extend};
use crate::tags::{DeltaSink, TagDelta};
use crate::text::utf16_units;

/// A piece at `[a, b)` of `packed`, until [`TagPieces::describe`] (then `TAG_BYTES` at its
/// address). Never seen by JS.
pub(crate) const PACKED: u32 = 2;
/// A piece at `[a, b)` of the chunk's bytes, until [`TagPieces::describe`] (then `TAG_BYTES`
/// at its address). Never seen by JS.
pub(crate) const INPUT: u32 = 4;
// `TagPieces::describe` reads its table by these numbers.
const _: () = assert!(TAG_SLICE == 0 && TAG_BYTES == 1 && PACKED == 2 && WIDE == 3 && INPUT == 4);
/// A piece of a byte chunk with characters beyond ASCII, as UTF-16 code units at `[a, b)`
/// of `wide` (byte offsets until the end of the call, then addresses: `TAG_UNITS`): JS turns
/// UTF-16 into a string several times faster than it decodes such UTF-8.
const WIDE: u32 = TAG_UNITS;

/// The deltas without copies: text that is a slice of the chunk is described by
/// where it is, `[block, kind, a, b]` per piece: for a string chunk as a UTF-16 range of the
/// very string JS passed (JS slices it), else as bytes in wasm memory (JS decodes them). Text
/// that is not in the chunk (a held tail that was text, a carried UTF-8 sequence) is copied
/// to `packed`. A string range holding U+FFFD is read as bytes: it may stand for a lone
/// surrogate of the string, which the string itself still holds.
pub struct RangeSink<'a> {
    input: &'a [u8],
    string: bool,
    /// UTF-16 length of the string chunk (`input` is its UTF-8).
    units: u32,
    ascii: Option<bool>,
    /// `(byte, UTF-16 unit)` of the last converted offset (offsets come in ascending order).
    cursor: (usize, u32),
    out: &'a mut TagPieces,
}

/// The pieces of one call (see [`RangeSink`]).
#[derive(Default)]
pub struct TagPieces {
    /// `[block, kind, a, b]` per piece.
    pub meta: Vec<u32>,
    /// Text that is not a slice of the chunk (a held tail that was text).
    pub packed: Vec<u8>,
    /// UTF-16 of pieces of a byte chunk (see [`WIDE`]).
    pub wide: Vec<u16>,
}

impl TagPieces {
    pub fn clear(&mut self) {
        self.meta.clear();
        self.packed.clear();
        self.wide.clear();
    }

    /// Copies `deltas` (text not in the chunk) as pieces; `memory_limit_exceeded` when the
    /// buffers cannot grow.
    pub fn copy(&mut self, deltas: &[TagDelta]) -> crate::Result<()> {
        self.meta.try_reserve(4 * deltas.len()).map_err(|_| out_of_memory(16 * deltas.len()))?;
        for d in deltas {
            let at = self.packed.len() as u32;
            try_extend(&mut self.packed, d.text.as_bytes())?;
            self.meta.extend([d.block as u32, PACKED, at, self.packed.len() as u32]);
        }
        Ok(())
    }

    /// The pieces get their final addresses (their buffers no longer grow; `input` is the
    /// chunk the sink read); returns their count (the host reads `meta`).
    pub fn describe(&mut self, input: &[u8]) -> u32 {
        let at = |p: *const u8| p as usize as u32;
        // By kind: what it becomes, and the base its offsets are from.
        let kinds = [
            (TAG_SLICE, 0),
            (TAG_BYTES, 0),
            (TAG_BYTES, at(self.packed.as_ptr())),
            (TAG_UNITS, at(self.wide.as_ptr().cast())),
            (TAG_BYTES, at(input.as_ptr())),
        ];
        for piece in self.meta.chunks_exact_mut(4) {
            let (kind, base) = kinds.get(piece[1] as usize).copied().unwrap_or((piece[1], 0));
            piece[1] = kind;
            // (In wasm32 no address wraps; natively, in tests, the low 32 bits may.)
            piece[2] = piece[2].wrapping_add(base);
            piece[3] = piece[3].wrapping_add(base);
        }
        (self.meta.len() / 4) as u32
    }
}

impl RangeSink<'_> {
    fn is_ascii(&mut self) -> bool {
        let input = self.input;
        *self.ascii.get_or_insert_with(|| input.is_ascii())
    }

    /// The UTF-16 offset of byte offset `byte`, counted from the last converted offset or
    /// back from the end, whichever is nearer: a piece that is the whole chunk (the common
    /// case) costs no counting at all.
    fn unit(&mut self, byte: usize) -> u32 {
        if self.is_ascii() {
            return byte as u32;
        }
        let (b0, u0) = if byte >= self.cursor.0 { self.cursor } else { (0, 0) };
        let u = if byte - b0 <= self.input.len() - byte {
            u0 + utf16_units(self.input.get(b0..byte).unwrap_or_default())
        } else {
            self.units - utf16_units(self.input.get(byte..).unwrap_or_default())
        };
        self.cursor = (byte, u);
        u
    }
}

fn has_replacement(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, "\u{FFFD}".as_bytes()).is_some()
}

impl RangeSink<'_> {
    /// Describes a piece of text; `memory_limit_exceeded` when the buffers cannot grow.
    fn piece(&mut self, block: usize, text: &[u8]) -> crate::Result<()> {
        let base = self.input.as_ptr() as usize;
        let p = text.as_ptr() as usize;
        let b = block as u32;
        self.out.meta.try_reserve(4).map_err(|_| out_of_memory(16))?;
        if p >= base && p + text.len() <= base + self.input.len() {
            let (from, to) = (p - base, p - base + text.len());
            if self.string && (self.is_ascii() || !has_replacement(text)) {
                let (ua, ub) = (self.unit(from), self.unit(to));
                self.out.meta.extend([b, TAG_SLICE, ua, ub]);
            } else if self.string || text.is_ascii() {
                self.out.meta.extend([b, INPUT, from as u32, to as u32]);
            } else {
                let at = 2 * self.out.wide.len() as u32;
                // `push_utf16` writes at most one unit per byte.
                self.out.wide.try_reserve(text.len()).map_err(|_| out_of_memory(2 * text.len()))?;
                crate::text::push_utf16(text, &mut self.out.wide);
                self.out.meta.extend([b, WIDE, at, 2 * self.out.wide.len() as u32]);
            }
        } else {
            let at = self.out.packed.len() as u32;
            try_extend(&mut self.out.packed, text)?;
            self.out.meta.extend([b, PACKED, at, self.out.packed.len() as u32]);
        }
        Ok(())
    }
}

impl DeltaSink for RangeSink<'_> {
    fn text(&mut self, block: usize, text: &str) -> crate::Result<()> {
        self.piece(block, text.as_bytes())
    }

    /// Unchecked UTF-8 only comes from string chunks, whose bytes `TextEncoder` wrote.
    fn utf8(&mut self, block: usize, text: &[u8]) -> crate::Result<()> {
        self.piece(block, text)
    }

    /// Byte chunks: `piece` leaves them as bytes (ASCII, read by JS as such; or copied,
    /// decoded by JS's `TextDecoder`) or decodes them with `push_utf16`: both make of
    /// malformed bytes what `from_utf8_lossy` makes (no validation pass first).
    fn lossy(&mut self, block: usize, bytes: &[u8]) -> crate::Result<()> {
        self.piece(block, bytes)
    }
}

impl<'a> RangeSink<'a> {
    /// A sink over `input`: the UTF-8 of a string chunk of `units` UTF-16 units, or bytes
    /// when `units` is negative.
    pub fn new(input: &'a [u8], units: i32, ascii: Option<bool>, out: &'a mut TagPieces) -> Self {
        RangeSink { input, string: units >= 0, units: units.max(0) as u32, ascii, cursor: (0, 0), out }
    }
}
