//! The one result format of the streaming machines, declared once.
//!
//! A JS class (`pkg/entry/classes/`) drives its machine's handle in four steps, the same for
//! every machine:
//!
//! 1. `inPtr(cap)`: where the handle's input buffer takes `cap` bytes; JS writes the chunk
//!    there (`pkg/entry/boundary.js`, the one write path).
//! 2. JS writes how the buffer holds the chunk (its *route*, [`ROUTE`]) into the handle's
//!    *header*, a `[u32; HEADER_LEN]` at the fixed address `header()`, and calls `feed(len)`,
//!    the one signature of every handle. The machine reads the chunk and describes what it
//!    produced in the header and in the memory the header points at. It returns the header's
//!    `COUNT`, or [`FAILED`] (the header still describes what came before the error, and
//!    `takeError()` has the error), or [`NOT_UNITS`].
//! 3. JS reads the header slots below by name and turns the text and op words (each
//!    machine's, in `crate::flat`) into the machine's JS values.
//! 4. `finish()` works as `feed`.
//!
//! What the header points at stays valid until the next call on the same handle. Reading it
//! never calls into wasm, so the memory cannot grow (and move) while JS reads.
//!
//! `scripts/gen-abi.mjs` turns every `pub const NAME: u32 = VALUE;` of this file and of
//! src/flat/mod.rs into
//! `export const NAME = VALUE;` of the generated `abi.js` that the JS side imports: no number
//! of this format is written twice.

/// Header slot: the address of the result's text.
pub const TEXT: u32 = 0;
/// Header slot: the text's length, in bytes or, for [`TEXT_UTF16`], in UTF-16 units.
pub const TEXT_LEN: u32 = 1;
/// Header slot: the text's encoding, [`TEXT_UTF8`], [`TEXT_UTF16`] or [`TEXT_ASCII`].
pub const WIDE: u32 = 2;
/// Text encoding: UTF-8 bytes.
pub const TEXT_UTF8: u32 = 0;
/// Text encoding: UTF-16 code units.
pub const TEXT_UTF16: u32 = 1;
/// Text encoding: ASCII bytes only (JS may decode them as Latin-1, a faster call in Node).
pub const TEXT_ASCII: u32 = 2;
/// Header slot: the address of the op words (`u32`, 4-aligned).
pub const OPS: u32 = 3;
/// Header slot: how many op words there are.
pub const OPS_LEN: u32 = 4;
/// Header slot: how many results (events, deltas, answers) the ops describe; also when the
/// call failed, for the results that came before the error.
pub const COUNT: u32 = 5;
/// Header slot: set by a handle that read a [`ROUTE_UNITS`] chunk: 1 when it was all ASCII
/// (JS then writes the next string as UTF-8, which `TextEncoder` does faster for ASCII).
pub const FLAGS: u32 = 6;
/// Header slot, written by JS before every `feed`: how the input buffer holds the chunk, one
/// of the `ROUTE_` values (`finish` reads bytes). Handles that read bytes only are given [`ROUTE_BYTES`]
/// or [`ROUTE_UTF8`], and may ignore it.
pub const ROUTE: u32 = 7;
/// The number of header slots.
pub const HEADER_LEN: u32 = 8;

/// Route: bytes, any (`len` bytes).
pub const ROUTE_BYTES: u32 = 0;
/// Route: the UTF-8 of a JS string that is not all ASCII (valid UTF-8, `len` bytes).
pub const ROUTE_UTF8: u32 = 1;
/// Route: the UTF-8 of a JS string that is all ASCII: byte offsets are UTF-16 offsets.
pub const ROUTE_ASCII: u32 = 2;
/// Route: a JS string's UTF-16LE code units (`len` units, `2 * len` bytes). A handle that
/// does not read them returns [`NOT_UNITS`], having read nothing; JS then writes the string
/// as UTF-8.
pub const ROUTE_UNITS: u32 = 3;

/// `feed` / `finish` result: the call failed; `takeError()` has the error.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const FAILED: u32 = u32::MAX;
/// `feed` result for a [`ROUTE_UNITS`] chunk: it was not read (a lone surrogate, or state that
/// needs bytes); JS writes it as UTF-8 and calls `feed` again.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const NOT_UNITS: u32 = u32::MAX - 1;

/// A machine's header: the `[u32; HEADER_LEN]` JS reads after each call.
pub struct Header(Box<[u32; HEADER_LEN as usize]>);

impl Default for Header {
    fn default() -> Self {
        Header(Box::new([0; HEADER_LEN as usize]))
    }
}

impl Header {
    /// Its address, for `header()` (stable for the handle's lifetime).
    pub fn ptr(&self) -> u32 {
        self.0.as_ptr() as usize as u32
    }

    /// Describes a result: UTF-8 `text` and `ops`, `count` results.
    pub fn utf8(&mut self, text: &[u8], ops: &[u32], count: u32) {
        self.set(text.as_ptr() as usize, text.len(), TEXT_UTF8, ops, count);
    }

    /// Describes a result whose text is all ASCII (the caller knows it).
    pub fn ascii(&mut self, text: &[u8], ops: &[u32], count: u32) {
        self.set(text.as_ptr() as usize, text.len(), TEXT_ASCII, ops, count);
    }

    /// Describes a result whose text is UTF-16 code units.
    pub fn utf16(&mut self, text: &[u16], ops: &[u32], count: u32) {
        self.set(text.as_ptr() as usize, text.len(), TEXT_UTF16, ops, count);
    }

    fn set(&mut self, text: usize, len: usize, wide: u32, ops: &[u32], count: u32) {
        let h = &mut self.0;
        h[TEXT as usize] = text as u32;
        h[TEXT_LEN as usize] = len as u32;
        h[WIDE as usize] = wide;
        h[OPS as usize] = ops.as_ptr() as usize as u32;
        h[OPS_LEN as usize] = ops.len() as u32;
        h[COUNT as usize] = count;
    }

    /// Sets the [`FLAGS`] slot.
    pub fn flags(&mut self, flags: u32) {
        self.0[FLAGS as usize] = flags;
    }

    /// The route of the chunk in the input buffer (JS wrote it before the call); the slot
    /// says [`ROUTE_BYTES`] again after it, for `finish(len)`, whose input is bytes.
    pub fn take_route(&mut self) -> Route {
        match std::mem::replace(&mut self.0[ROUTE as usize], ROUTE_BYTES) {
            ROUTE_UTF8 => Route::Utf8,
            ROUTE_ASCII => Route::Ascii,
            ROUTE_UNITS => Route::Units,
            _ => Route::Bytes,
        }
    }
}

/// How the input buffer holds a chunk (the [`ROUTE`] slot).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Bytes, any.
    Bytes,
    /// The UTF-8 of a JS string that is not all ASCII.
    Utf8,
    /// The UTF-8 of an all-ASCII JS string.
    Ascii,
    /// A JS string's UTF-16LE code units.
    Units,
}

/// The input buffer JS writes chunks into.
#[derive(Default)]
pub struct InputBuffer {
    buf: Vec<u8>,
}

impl InputBuffer {
    /// Makes room for `cap` bytes and returns where JS may write them.
    ///
    /// # Errors
    /// `memory_limit_exceeded` when wasm memory cannot hold them (the buffer is unchanged).
    pub fn ptr(&mut self, cap: u32) -> crate::Result<u32> {
        let cap = cap as usize;
        if self.buf.len() < cap {
            crate::budget::try_grow_to(&mut self.buf, cap.next_power_of_two())?;
        }
        Ok(self.buf.as_mut_ptr() as usize as u32)
    }

    /// The `len` bytes JS wrote.
    pub fn bytes(&self, len: u32) -> &[u8] {
        &self.buf[..(len as usize).min(self.buf.len())]
    }

    /// JS wrote a string's `units` UTF-16 code units at offset `units` of the buffer (it
    /// asked for `3 * units` bytes): turns them into UTF-8 at its start and returns the
    /// UTF-8 length (see `text::utf16_to_utf8_in_place`).
    pub fn units_to_utf8(&mut self, units: u32) -> u32 {
        crate::text::utf16_to_utf8_in_place(&mut self.buf, units as usize) as u32
    }

    /// Gives the buffer back to the allocator (a finished machine that JS has not freed yet
    /// then holds no scratch memory). JS asks `inPtr` again before writing (boundary.js rule 3).
    pub fn release(&mut self) {
        self.buf = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_says_where_a_calls_results_are_and_how_the_chunk_came() {
        let mut h = Header::default();
        let at = h.ptr();
        let slot = |h: &Header, s: u32| h.0[s as usize];
        let (text, ops) = ("h\u{e9}".as_bytes(), [7u32, 8]);
        h.utf8(text, &ops, 2);
        let addr = |p: *const u8| p as usize as u32;
        let want = [addr(text.as_ptr()), 3, TEXT_UTF8, addr(ops.as_ptr().cast()), 2, 2];
        assert_eq!([TEXT, TEXT_LEN, WIDE, OPS, OPS_LEN, COUNT].map(|s| slot(&h, s)), want);
        h.ascii(b"ab", &[], 1);
        assert_eq!((slot(&h, WIDE), slot(&h, TEXT_LEN)), (TEXT_ASCII, 2));
        h.utf16(&[0x68, 0xe9, 0x21], &[], 1);
        assert_eq!((slot(&h, WIDE), slot(&h, TEXT_LEN)), (TEXT_UTF16, 3));
        h.flags(1);
        assert_eq!(slot(&h, FLAGS), 1);
        for (route, want) in
            [(ROUTE_UTF8, Route::Utf8), (ROUTE_ASCII, Route::Ascii), (ROUTE_UNITS, Route::Units), (9, Route::Bytes)]
        {
            h.0[ROUTE as usize] = route;
            assert!(h.take_route() == want);
            // Then `finish(len)`, which JS does not route, reads bytes.
            assert!(slot(&h, ROUTE) == ROUTE_BYTES && h.take_route() == Route::Bytes);
        }
        assert_eq!(h.ptr(), at, "the header stays where JS found it");
    }

    #[test]
    fn the_input_buffer_takes_bytes_and_turns_units_into_utf8_in_place() {
        let mut b = InputBuffer::default();
        let at = b.ptr(5).unwrap();
        assert_eq!(b.ptr(8).unwrap(), at, "room for 8 already (powers of two)");
        b.buf[..5].copy_from_slice(b"hello");
        assert_eq!(b.bytes(5), b"hello");
        // A string of `n` units written as UTF-16LE at offset `n` of a `3n`-byte buffer.
        let units: Vec<u16> = "h\u{e9}\u{1f600}!".encode_utf16().collect();
        let n = units.len();
        b.ptr(3 * n as u32).unwrap();
        for (i, u) in units.iter().enumerate() {
            b.buf[n + 2 * i..n + 2 * i + 2].copy_from_slice(&u.to_le_bytes());
        }
        let len = b.units_to_utf8(n as u32);
        assert_eq!(b.bytes(len), "h\u{e9}\u{1f600}!".as_bytes());
        b.release();
        assert_eq!(b.bytes(5), b"");
    }
}
