//! UTF-8 carry-over for byte machines: the one helper every machine that turns chunks of
//! bytes into text uses, so that a sequence split across chunks decodes exactly as if it had
//! arrived whole, and invalid bytes become U+FFFD by the "maximal subpart" rule (as
//! `TextDecoder` and `String::from_utf8_lossy` do).

/// Holds at most 3 bytes: the start of a character whose remaining bytes have not arrived.
#[derive(Debug, Clone, Default)]
pub(crate) struct Utf8Carry {
    buf: [u8; 4],
    len: u8,
}

/// What went wrong in strict decoding: an invalid sequence at this index of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InvalidUtf8 {
    /// Index in the run (may be negative-relative to carried bytes; clamped to 0).
    pub at: usize,
}

pub(crate) const REPLACEMENT: &str = "\u{FFFD}";

/// How many bytes at the end of `run` start a character that needs more bytes than are
/// there (0 to 3), judged by the lead byte alone; the caller validates them.
pub(crate) fn incomplete_tail(run: &[u8]) -> usize {
    for k in 1..=run.len().min(3) {
        let b = run[run.len() - k];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0xF0..=0xFF => 4,
            0xE0..=0xEF => 3,
            0xC0..=0xDF => 2,
            _ => 1,
        };
        return if need > k { k } else { 0 };
    }
    0
}

/// `s[range]` when `range` is at char boundaries, which every caller knows it to be; `""`
/// otherwise (a bug, caught by the debug assertion in tests). Unlike `&s[range]`, it links no
/// slicing panic, whose message formatting (`char`'s `Debug`, the Unicode printability
/// tables) is large in a `.wasm` (bench/README "Sizes by entry"; bench/README.md,
/// "Measurements behind design choices").
#[inline]
pub(crate) fn sub<R: std::slice::SliceIndex<str, Output = str> + Clone>(s: &str, range: R) -> &str {
    debug_assert!(s.get(range.clone()).is_some(), "a string sliced off a char boundary");
    s.get(range).unwrap_or_default()
}

/// Where `needle` (non-empty, a few bytes: a delimiter) first occurs in `hay`: each
/// occurrence of its first byte (memchr) is compared with the rest, at most `needle.len()`
/// bytes each, so a search is linear for the short needles it is given. A one-shot
/// `memmem::find` links memmem's searcher builder and prefilters (bench/README.md,
/// "Measurements behind design choices").
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut at = 0;
    while let Some(i) = memchr::memchr(first, hay.get(at..)?) {
        let p = at + i;
        if hay.get(p + 1..).is_some_and(|tail| tail.starts_with(rest)) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

/// `hay.starts_with(prefix)`, comparing eight bytes at a time. Slice equality calls `memcmp`,
/// which in wasm is compiler-builtins' loop of one byte per step, a visible part of the stream
/// router's time on its document-prefix jumps (bench/README "Stream router"; bench/README.md,
/// "Measurements behind design choices").
#[inline]
pub(crate) fn starts_with(hay: &[u8], prefix: &[u8]) -> bool {
    let Some(head) = hay.get(..prefix.len()) else { return false };
    let mut a = head.chunks_exact(8);
    let mut b = prefix.chunks_exact(8);
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or_default());
    a.by_ref().zip(b.by_ref()).all(|(x, y)| word(x) == word(y)) && a.remainder() == b.remainder()
}

impl Utf8Carry {
    /// Bytes held back.
    pub(crate) fn pending(&self) -> usize {
        self.len as usize
    }

    /// Decodes `run`, calling `emit` with each valid piece (in order). Invalid sequences give
    /// U+FFFD, or `Err` when `strict`. An incomplete sequence at the end is held back.
    pub(crate) fn decode<E>(
        &mut self,
        mut run: &[u8],
        strict: bool,
        emit: &mut impl FnMut(&str) -> Result<(), E>,
    ) -> Result<Result<(), InvalidUtf8>, E> {
        let start_len = run.len();
        if self.len > 0 {
            let have = self.len as usize;
            let k = (4 - have).min(run.len());
            let mut tmp = [0u8; 4];
            tmp[..have].copy_from_slice(&self.buf[..have]);
            tmp[have..have + k].copy_from_slice(&run[..k]);
            let total = have + k;
            let consumed = match std::str::from_utf8(&tmp[..total]) {
                Ok(s) => {
                    let c = s.chars().next().map_or(0, char::len_utf8);
                    emit(crate::text::sub(s, ..c))?;
                    c
                }
                Err(e) if e.valid_up_to() > 0 => {
                    let s = std::str::from_utf8(&tmp[..e.valid_up_to()]).unwrap_or_default();
                    let c = s.chars().next().map_or(0, char::len_utf8);
                    emit(crate::text::sub(s, ..c))?;
                    c
                }
                Err(e) => match e.error_len() {
                    None => {
                        // Still incomplete: everything so far is held.
                        self.buf[..total].copy_from_slice(&tmp[..total]);
                        self.len = total as u8;
                        return Ok(Ok(()));
                    }
                    Some(n) => {
                        if strict {
                            self.len = 0;
                            return Ok(Err(InvalidUtf8 { at: 0 }));
                        }
                        emit(REPLACEMENT)?;
                        n
                    }
                },
            };
            self.len = 0;
            run = &run[consumed.saturating_sub(have)..];
        }
        // The common case in one validation pass: valid text, perhaps ending in the start of
        // a character whose remaining bytes have not arrived.
        let cut = run.len() - incomplete_tail(run);
        if let Ok(s) = std::str::from_utf8(&run[..cut]) {
            if !s.is_empty() {
                emit(s)?;
            }
            let tail = &run[cut..];
            if tail.is_empty() {
                return Ok(Ok(()));
            }
            if std::str::from_utf8(tail).is_err_and(|e| e.error_len().is_none()) {
                self.buf[..tail.len()].copy_from_slice(tail);
                self.len = tail.len() as u8;
                return Ok(Ok(()));
            }
            run = tail;
        }
        // Invalid bytes somewhere: `utf8_chunks` yields valid text and the invalid bytes
        // after it (maximal subparts), validating once.
        let base = start_len - run.len();
        let mut at = 0;
        for chunk in run.utf8_chunks() {
            let valid = chunk.valid();
            if !valid.is_empty() {
                emit(valid)?;
            }
            let bad = chunk.invalid();
            at += valid.len();
            if bad.is_empty() {
                continue;
            }
            if at + bad.len() == run.len() && std::str::from_utf8(bad).is_err_and(|e| e.error_len().is_none()) {
                // The start of a character whose remaining bytes have not arrived.
                self.buf[..bad.len()].copy_from_slice(bad);
                self.len = bad.len() as u8;
                return Ok(Ok(()));
            }
            if strict {
                return Ok(Err(InvalidUtf8 { at: base + at }));
            }
            emit(REPLACEMENT)?;
            at += bad.len();
        }
        Ok(Ok(()))
    }

    /// Ends the text: a held incomplete sequence becomes U+FFFD (or `Err` when `strict`).
    pub(crate) fn flush<E>(
        &mut self,
        strict: bool,
        emit: &mut impl FnMut(&str) -> Result<(), E>,
    ) -> Result<Result<(), InvalidUtf8>, E> {
        if self.len == 0 {
            return Ok(Ok(()));
        }
        self.len = 0;
        if strict {
            return Ok(Err(InvalidUtf8 { at: 0 }));
        }
        emit(REPLACEMENT)?;
        Ok(Ok(()))
    }

    /// Forgets held bytes.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

/// The bytes of a UTF-16 *skeleton* (see [`utf16_skeleton`]) that stand for non-ASCII code
/// units: each says how many UTF-8 bytes its unit takes.
pub(crate) mod skeleton {
    /// A unit below U+0800 (2 UTF-8 bytes).
    pub(crate) const TWO: u8 = 0x80;
    /// Any other unit of the Basic Multilingual Plane (3 bytes).
    pub(crate) const THREE: u8 = 0x81;
    /// The high half of a surrogate pair (the pair takes 4 bytes: 2 for each half).
    pub(crate) const HIGH: u8 = 0x82;
    /// The low half of a surrogate pair.
    pub(crate) const LOW: u8 = 0x83;
}

/// Writes the skeleton of the UTF-16LE code units `units_le` to `out` (replacing its
/// contents): one byte per unit, ASCII as itself and any other unit as one of the
/// [`skeleton`] bytes. Returns the UTF-8 length of the text (equal to the number of units
/// when it is all ASCII), or `None` (with `out` unspecified) when it holds a lone surrogate,
/// whose UTF-8 form would be U+FFFD, not a skeleton of it; an odd trailing byte counts as
/// that too.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn utf16_skeleton(units_le: &[u8], out: &mut Vec<u8>) -> Option<u64> {
    if units_le.len() % 2 != 0 {
        return None;
    }
    // Every byte is written below: only bytes beyond the last length are zeroed first.
    out.resize(units_le.len() / 2, 0);
    // Blocks of 16 units with SIMD where there is, then one unit at a time.
    let mut st = SkeletonState::default();
    let done = simd::skeleton_blocks(units_le, out, &mut st);
    for (o, p) in out[done..].iter_mut().zip(units_le[2 * done..].chunks_exact(2)) {
        let u = u16::from_le_bytes([p[0], p[1]]);
        let (high, low) = (u & 0xFC00 == 0xD800, u & 0xFC00 == 0xDC00);
        st.bad |= st.prev_high != low;
        st.prev_high = high;
        st.len8 += 1 + u64::from(u >= 0x80) + u64::from(u >= 0x800) - u64::from(high | low);
        *o = match u {
            0..=0x7F => u as u8,
            0x80..=0x7FF => skeleton::TWO,
            0xD800..=0xDBFF => skeleton::HIGH,
            0xDC00..=0xDFFF => skeleton::LOW,
            _ => skeleton::THREE,
        };
    }
    (!st.bad && !st.prev_high).then_some(st.len8)
}

/// What [`utf16_skeleton`] carries from one unit (or block) to the next.
#[derive(Default)]
struct SkeletonState {
    /// UTF-8 length so far.
    len8: u64,
    /// The last unit was a high surrogate.
    prev_high: bool,
    /// A surrogate without its other half was seen.
    bad: bool,
}

/// Transcodes in place: `buf[units..3 * units]` holds `units` UTF-16LE code units (as JS's
/// `Buffer#write(s, 'utf16le')` writes a string); their UTF-8 is written from `buf[0]` on and
/// its length returned. Lone surrogates become U+FFFD, as `TextEncoder` makes them. The
/// output never overtakes the input: after `k` units at most `3k` bytes are written, and the
/// next unit starts at `units + 2k`. All-ASCII blocks of eight units go eight at a time
/// (SIMD in wasm). A `buf` shorter than `3 * units` transcodes nothing (returns 0).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn utf16_to_utf8_in_place(buf: &mut [u8], units: usize) -> usize {
    let end = units.saturating_mul(3);
    let Some(buf) = buf.get_mut(..end) else { return 0 };
    let unit = |buf: &[u8], r: usize| u32::from(u16::from_le_bytes([buf[r], buf[r + 1]]));
    let (mut r, mut o) = (units, 0);
    while r + 1 < end {
        (r, o) = simd::ascii_units(buf, r, end, o);
        // The block with a unit beyond ASCII (or the tail) one unit at a time, then blocks
        // again.
        let stop = (r + 16).min(end);
        while r + 1 < stop {
            let u = unit(buf, r);
            r += 2;
            if u < 0x80 {
                buf[o] = u as u8;
                o += 1;
                continue;
            }
            let cp = match u {
                0xD800..=0xDBFF if r + 1 < end && (0xDC00..0xE000).contains(&unit(buf, r)) => {
                    let low = unit(buf, r);
                    r += 2;
                    0x1_0000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                }
                0xD800..=0xDFFF => 0xFFFD,
                _ => u,
            };
            let c = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
            o += c.encode_utf8(&mut buf[o..o + c.len_utf8()]).len();
        }
    }
    o
}

/// UTF-8 length of the text a skeleton stands for (see [`utf16_skeleton`]): its length plus
/// one per byte ≥ 0x80 and one more per `THREE`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn skeleton_len8(s: &[u8]) -> u64 {
    let done = simd::skeleton_len8_blocks(s);
    let mut n = done.1;
    for &b in &s[done.0..] {
        n += 1;
        if b >= 0x80 {
            n += if b == skeleton::THREE { 2 } else { 1 };
        }
    }
    n
}

/// The SIMD halves of [`utf16_skeleton`] and [`skeleton_len8`] (wasm with `simd128`, as the
/// package is built); elsewhere they do nothing and the scalar loops do all the work.
mod simd {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    use core::arch::wasm32::*;

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn load(b: &[u8]) -> v128 {
        let (mut lo, mut hi) = ([0u8; 8], [0u8; 8]);
        lo.copy_from_slice(&b[..8]);
        hi.copy_from_slice(&b[8..16]);
        u64x2(u64::from_le_bytes(lo), u64::from_le_bytes(hi))
    }

    /// The sum of the byte lanes of `acc` (each at most 255).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn lane_sum(acc: v128) -> u64 {
        let s = u32x4_extadd_pairwise_u16x8(u16x8_extadd_pairwise_u8x16(acc));
        let lane = |k: u32| u64::from(k);
        lane(u32x4_extract_lane::<0>(s))
            + lane(u32x4_extract_lane::<1>(s))
            + lane(u32x4_extract_lane::<2>(s))
            + lane(u32x4_extract_lane::<3>(s))
    }

    /// Sixteen units at a time; returns how many units were done. Each block is narrowed to
    /// bytes twice, once saturated at 0x80 (ASCII as itself, any other unit 0x80) and once
    /// as the units' high bytes, and the rest is byte arithmetic on those 16 lanes: the
    /// skeleton byte is 0x80, +1 from U+0800, +1 for a surrogate, +1 more for a low one; the
    /// extra UTF-8 bytes per unit (+1 beyond ASCII, +1 from U+0800, -1 for a surrogate) add
    /// up in byte lanes; a surrogate pair is checked by comparing the low-surrogate lanes
    /// with the high-surrogate lanes shifted by one (the last lane of the block before
    /// comes in first). No bitmasks and no branches: ~30 operations per 16 units.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub(super) fn skeleton_blocks(units_le: &[u8], out: &mut [u8], st: &mut super::SkeletonState) -> usize {
        // Each block adds at most 2 to a byte lane of `extra`: summed before it can wrap.
        const FLUSH: u32 = 120;
        let mut done = 0;
        let (mut extra, mut bad) = (u8x16_splat(0), u8x16_splat(0));
        let mut prev_high = u8x16_splat(if st.prev_high { 0xFF } else { 0 });
        let mut blocks = 0;
        for (src, dst) in units_le.chunks_exact(32).zip(out.chunks_exact_mut(16)) {
            let (a, b) = (load(&src[..16]), load(&src[16..]));
            let cap = u16x8_splat(0x80);
            let lo = u8x16_narrow_i16x8(u16x8_min(a, cap), u16x8_min(b, cap));
            let hi = u8x16_narrow_i16x8(u16x8_shr(a, 8), u16x8_shr(b, 8));
            let ge800 = u8x16_ge(hi, u8x16_splat(0x08));
            let surrogate = u8x16_eq(v128_and(hi, u8x16_splat(0xF8)), u8x16_splat(0xD8));
            let low = u8x16_eq(v128_and(hi, u8x16_splat(0xFC)), u8x16_splat(0xDC));
            // The masks are all ones (-1) where true.
            let bytes = i8x16_sub(i8x16_sub(i8x16_sub(lo, ge800), surrogate), low);
            let wide = i8x16_lt(lo, i8x16_splat(0));
            extra = i8x16_add(i8x16_sub(i8x16_sub(extra, wide), ge800), surrogate);
            let high = v128_andnot(surrogate, low);
            let after_high = i8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(prev_high, high);
            bad = v128_or(bad, v128_xor(after_high, low));
            prev_high = high;
            dst[..8].copy_from_slice(&u64x2_extract_lane::<0>(bytes).to_le_bytes());
            dst[8..].copy_from_slice(&u64x2_extract_lane::<1>(bytes).to_le_bytes());
            done += 16;
            blocks += 1;
            if blocks == FLUSH {
                st.len8 += lane_sum(extra);
                extra = u8x16_splat(0);
                blocks = 0;
            }
        }
        st.len8 += lane_sum(extra) + done as u64;
        st.bad |= v128_any_true(bad);
        st.prev_high = u8x16_extract_lane::<15>(prev_high) != 0;
        done
    }

    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub(super) fn skeleton_blocks(_: &[u8], _: &mut [u8], _: &mut super::SkeletonState) -> usize {
        0
    }

    /// Sixteen skeleton bytes at a time: `(bytes done, their UTF-8 length)`.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub(super) fn skeleton_len8_blocks(s: &[u8]) -> (usize, u64) {
        let three = u8x16_splat(super::skeleton::THREE);
        let (mut done, mut n) = (0, 0u64);
        for b in s.chunks_exact(16) {
            let v = load(b);
            let m = i8x16_bitmask(v);
            n += 16;
            if m != 0 {
                n += u64::from(m.count_ones() + i8x16_bitmask(i8x16_eq(v, three)).count_ones());
            }
            done += 16;
        }
        (done, n)
    }

    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub(super) fn skeleton_len8_blocks(_: &[u8]) -> (usize, u64) {
        (0, 0)
    }

    /// The all-ASCII blocks of eight UTF-16LE units at `buf[r..end]`, narrowed to bytes at
    /// `buf[o..]` (`o <= r`: each block is read before its bytes are stored, which never
    /// reach past it); returns `(r, o)` after the last such block.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub(super) fn ascii_units(buf: &mut [u8], mut r: usize, end: usize, mut o: usize) -> (usize, usize) {
        while r + 16 <= end {
            let Some(src) = buf.get(r..r + 16) else { break };
            let v = load(src);
            if v128_any_true(v128_and(v, u16x8_splat(0xFF80))) {
                break;
            }
            let bytes = u8x16_narrow_i16x8(v, v);
            let Some(dst) = buf.get_mut(o..o + 8) else { break };
            dst.copy_from_slice(&u64x2_extract_lane::<0>(bytes).to_le_bytes());
            r += 16;
            o += 8;
        }
        (r, o)
    }

    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub(super) fn ascii_units(_: &mut [u8], r: usize, _: usize, o: usize) -> (usize, usize) {
        (r, o)
    }
}

/// Appends the UTF-16 code units of the UTF-8 `bytes` to `out` (what JS holds for the text):
/// ASCII eight bytes at a time, other characters one by one, each checked as it is decoded.
/// A malformed sequence becomes one U+FFFD per maximal subpart, exactly as
/// `String::from_utf8_lossy` (and `TextDecoder`) decode it, so `bytes` need not be validated
/// first and no input can make this panic. Returns `true` when every byte was ASCII.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn push_utf16(bytes: &[u8], out: &mut Vec<u16>) -> bool {
    const HI: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    out.reserve(n);
    let (mut i, mut ascii) = (0, true);
    while i < n {
        // The ASCII run from `i`: found a word at a time, copied in one widening pass.
        let mut end = i;
        while let Some(w) = bytes.get(end..end + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(w);
            let hi = u64::from_le_bytes(word) & HI;
            if hi != 0 {
                end += (hi.trailing_zeros() / 8) as usize;
                break;
            }
            end += 8;
        }
        while bytes.get(end).is_some_and(|&c| c < 0x80) {
            end += 1;
        }
        out.extend(bytes[i..end].iter().map(|&c| u16::from(c)));
        i = end;
        // A byte beyond ASCII (the run ended at one, or at the end).
        let Some(&c) = bytes.get(i) else { break };
        ascii = false;
        let (unit, len) = decode_one(c, &bytes[i + 1..]);
        match unit {
            Ok(cp) if cp >= 0x1_0000 => {
                let v = cp - 0x1_0000;
                out.extend([0xD800 | (v >> 10) as u16, 0xDC00 | (v & 0x3FF) as u16]);
            }
            Ok(cp) => out.push(cp as u16),
            Err(()) => out.push(0xFFFD),
        }
        i += len;
    }
    ascii
}

/// The character whose UTF-8 starts with lead byte `c` (not ASCII) followed by `rest`, and
/// how many bytes it takes; or `Err` and the length of the maximal subpart of a valid
/// sequence there (at least 1), which decodes to one U+FFFD (the Unicode "best practice"
/// that `from_utf8_lossy` and `TextDecoder` follow).
#[inline]
fn decode_one(c: u8, rest: &[u8]) -> (Result<u32, ()>, usize) {
    let at = |k: usize| rest.get(k).copied().unwrap_or(0);
    let tail = |b: u8| b & 0xC0 == 0x80;
    // The range of the second byte, which alone rules out overlongs, surrogates and code
    // points beyond U+10FFFF.
    let (need, lo, hi) = match c {
        0xC2..=0xDF => (1, 0x80, 0xBF),
        0xE0 => (2, 0xA0, 0xBF),
        0xED => (2, 0x80, 0x9F),
        0xE1..=0xEF => (2, 0x80, 0xBF),
        0xF0 => (3, 0x90, 0xBF),
        0xF4 => (3, 0x80, 0x8F),
        0xF1..=0xF3 => (3, 0x80, 0xBF),
        _ => return (Err(()), 1),
    };
    let b1 = at(0);
    if !(lo..=hi).contains(&b1) {
        return (Err(()), 1);
    }
    let bits = |b: u8| u32::from(b & 0x3F);
    match need {
        1 => (Ok((u32::from(c & 0x1F) << 6) | bits(b1)), 2),
        2 if tail(at(1)) => (Ok((u32::from(c & 0x0F) << 12) | (bits(b1) << 6) | bits(at(1))), 3),
        2 => (Err(()), 2),
        _ if !tail(at(1)) => (Err(()), 2),
        _ if !tail(at(2)) => (Err(()), 3),
        _ => (Ok((u32::from(c & 0x07) << 18) | (bits(b1) << 12) | (bits(at(1)) << 6) | bits(at(2))), 4),
    }
}

/// UTF-16 length of a UTF-8 string: what `String.prototype.length` reports for it.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn utf16_len(s: &str) -> u32 {
    utf16_units(s.as_bytes())
}

/// UTF-16 length of valid UTF-8 bytes (see [`utf16_len`]).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn utf16_units(b: &[u8]) -> u32 {
    if b.is_ascii() {
        return b.len() as u32;
    }
    let mut n = b.len() as u32;
    for &c in b {
        // Continuation bytes add no unit; a 4-byte lead adds a second (surrogate) unit.
        n -= u32::from((c & 0xC0) == 0x80);
        n += u32::from(c >= 0xF0);
    }
    n
}

/// Walks the text once, turning ascending byte offsets into UTF-16 offsets.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) struct Utf16Offsets<'a> {
    text: &'a str,
    byte: usize,
    unit: u64,
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
impl<'a> Utf16Offsets<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Utf16Offsets { text, byte: 0, unit: 0 }
    }

    pub(crate) fn at(&mut self, byte: usize) -> u64 {
        let mut byte = byte.min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        if byte < self.byte {
            // Not ascending (never for the repair log): count from the start.
            self.byte = 0;
            self.unit = 0;
        }
        self.unit += u64::from(utf16_len(sub(self.text, self.byte..byte)));
        self.byte = byte;
        self.unit
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn starts_with_is_slice_starts_with() {
        let mut x = 0x2545_f491_u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for _ in 0..4000 {
            let n = (next() % 40) as usize;
            let hay: Vec<u8> = (0..n).map(|_| b"ab"[(next() % 2) as usize]).collect();
            let k = (next() % 42) as usize;
            // A prefix of the hay (most), or a random one, of any length (past the hay's too).
            let prefix: Vec<u8> = if next() % 4 != 0 && k <= n {
                hay[..k].to_vec()
            } else {
                (0..k).map(|_| b"ab"[(next() % 2) as usize]).collect()
            };
            let mut flipped = prefix.clone();
            if let Some(c) = flipped.get_mut((next() as usize) % k.max(1)) {
                *c ^= 0x80;
            }
            for p in [&prefix, &flipped] {
                assert_eq!(super::starts_with(&hay, p), hay.starts_with(p), "{hay:?} {p:?}");
            }
        }
    }

    #[test]
    fn find_is_memmem_find() {
        let hays: [&[u8]; 8] = [
            b"",
            b"*",
            b"*/",
            b"a*/b*/",
            b"***//",
            b"<think></think></thinking>",
            b"</thin</think>",
            "x\u{FFFD}y\u{FFFD}".as_bytes(),
        ];
        let needles: [&[u8]; 5] = [b"*/", b"</think>", b"</thinking>", "\u{FFFD}".as_bytes(), b"\"error\""];
        for hay in hays {
            for needle in needles {
                assert_eq!(super::find(hay, needle), memchr::memmem::find(hay, needle), "{hay:?} {needle:?}");
            }
        }
        let mut x = 0x9e37_79b9_u32;
        for _ in 0..2000 {
            let hay: Vec<u8> = (0..64)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    b"*/<>ab"[(x % 6) as usize]
                })
                .collect();
            for needle in [&b"*/"[..], b"<>", b"*/*", b"a*/b"] {
                assert_eq!(super::find(&hay, needle), memchr::memmem::find(&hay, needle));
            }
        }
    }

    #[test]
    fn push_utf16_is_encode_utf16() {
        for s in [
            "",
            "abc",
            "abcdefghijklmnop",
            "abcdefghijklmnopqrstuvwxyz0123456789é01234567890123456789",
            "héllo wörld 你好 😀 ok",
            "😀😀😀😀😀😀😀😀😀",
            "a\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}z",
        ] {
            let mut out = vec![7u16];
            let ascii = super::push_utf16(s.as_bytes(), &mut out);
            let want: Vec<u16> = std::iter::once(7).chain(s.encode_utf16()).collect();
            assert_eq!(out, want, "{s:?}");
            assert_eq!(ascii, s.is_ascii());
        }
        // Every mix of character widths at every length and offset (ASCII runs that end at
        // every position of an eight-byte word).
        let pieces = ["a", "bcdefgh", "\u{e9}", "\u{4e2d}", "\u{1F600}", "0123456789abcdefXYZ", "\u{7ff}"];
        for len in 0..120 {
            let s: String = (0..len).map(|k| pieces[(k * 5 + len * 3) % pieces.len()]).collect();
            let mut out = vec![1u16, 2];
            let ascii = super::push_utf16(s.as_bytes(), &mut out);
            let want: Vec<u16> = [1, 2].into_iter().chain(s.encode_utf16()).collect();
            assert_eq!(out, want, "{s:?}");
            assert_eq!(ascii, s.is_ascii());
        }
    }

    /// In-place UTF-16 to UTF-8 gives what `String::from_utf16_lossy` then UTF-8 gives (lone
    /// surrogates as U+FFFD), for every mix of widths and lengths.
    #[test]
    fn utf16_to_utf8_in_place_is_from_utf16_lossy() {
        let pieces: [&[u16]; 9] = [
            &[0x61],
            &[0x7F, 0x80],
            &[0x7FF, 0x800],
            &[0x4E2D, 0x6587],
            &[0xD83D, 0xDE00],
            &[0xFFFF],
            &[0xD800],
            &[0xDC00],
            &[0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38],
        ];
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..3000 {
            let mut units: Vec<u16> = Vec::new();
            let len = round % 70;
            while units.len() < len {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                units.extend_from_slice(pieces[(s % pieces.len() as u64) as usize]);
            }
            let n = units.len();
            let mut buf = vec![0xAAu8; 3 * n];
            for (k, u) in units.iter().enumerate() {
                buf[n + 2 * k..n + 2 * k + 2].copy_from_slice(&u.to_le_bytes());
            }
            let len8 = super::utf16_to_utf8_in_place(&mut buf, n);
            let want = String::from_utf16_lossy(&units);
            assert_eq!(&buf[..len8], want.as_bytes(), "{units:x?}");
        }
        assert_eq!(super::utf16_to_utf8_in_place(&mut [0u8; 5], 2), 0);
    }

    /// Any bytes at all give what `String::from_utf8_lossy` gives: one U+FFFD per maximal
    /// subpart of a malformed sequence (overlongs, surrogates, beyond U+10FFFF, truncated).
    #[test]
    fn push_utf16_is_from_utf8_lossy_for_any_bytes() {
        let check = |b: &[u8]| {
            let mut out = vec![9u16];
            let ascii = super::push_utf16(b, &mut out);
            let want: Vec<u16> = std::iter::once(9).chain(String::from_utf8_lossy(b).encode_utf16()).collect();
            assert_eq!(out, want, "{b:x?}");
            assert_eq!(ascii, b.is_ascii(), "{b:x?}");
        };
        // Every sequence of up to 3 bytes from the bytes that matter at each boundary.
        let edge = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF,
            0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        for &a in &edge {
            check(&[a]);
            for &b in &edge {
                check(&[a, b]);
                for &c in &edge {
                    check(&[a, b, c]);
                    check(&[a, b, c, 0x80, 0x41]);
                    check(&[0xF0, 0x9F, a, b, c]);
                }
            }
        }
        // Random bytes biased to UTF-8 shapes.
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let b: Vec<u8> = (0..len)
                .map(|_| match next() % 4 {
                    0 => (next() % 0x80) as u8,
                    1 => 0x80 | (next() % 0x40) as u8,
                    _ => edge[(next() % edge.len() as u64) as usize],
                })
                .collect();
            check(&b);
        }
    }

    use super::*;

    fn lossy_chunked(bytes: &[u8], split: usize) -> String {
        let mut c = Utf8Carry::default();
        let mut out = String::new();
        let mut emit = |s: &str| -> Result<(), ()> {
            out.push_str(s);
            Ok(())
        };
        for piece in bytes.chunks(split.max(1)) {
            c.decode(piece, false, &mut emit).unwrap().unwrap();
        }
        c.flush(false, &mut emit).unwrap().unwrap();
        out
    }

    #[test]
    fn matches_from_utf8_lossy_for_every_split() {
        let samples: &[&[u8]] = &[
            "caf\u{e9} \u{4e16}\u{754c} \u{1F600}!".as_bytes(),
            b"\xE0\x80\xAF x \xF0\x9F\x98 y \xED\xA0\x80 z \xC3",
            b"\xF4\x90\x80\x80\xC0\xAF\xFF\xFE\xE2\x82",
            b"\xEF\xBB\xBF\xF0\x9F\x98\x80\xF0",
        ];
        for s in samples {
            let want = String::from_utf8_lossy(s);
            for split in 1..=s.len() {
                assert_eq!(lossy_chunked(s, split), want, "split {split} of {s:?}");
            }
        }
    }
}
