//! Memory budgets: the one limiter every machine charges its retained bytes to, and the
//! fallible growth helpers every retained buffer grows through.
//!
//! Two different failures, two codes:
//! - a machine that would retain more than its budget fails with `buffer_limit_exceeded`
//!   (a property of the input, the same for every chunking);
//! - a buffer that cannot grow because the process (the wasm instance) is out of memory
//!   fails with `memory_limit_exceeded` on the machine that asked; nothing traps, and every
//!   other machine goes on.
//!
//! One-shot functions take whole inputs instead; they share one input cap,
//! [`MAX_INPUT_BYTES`] (`input_too_large`).

use crate::{Error, ErrorKind, Result};

/// The longest input of a one-shot function (`parse_json`, `repair_json`, the action
/// normaliser, the payload functions): 64 MiB.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// The SSE decoder's default caps (`SseDecoderOptions`): one line, and the data of one event.
/// The client entry's JavaScript decoder (pkg/entry/classes/decoder.js) has the same.
pub const SSE_MAX_LINE_BYTES: usize = 1 << 20;
/// See [`SSE_MAX_LINE_BYTES`].
pub const SSE_MAX_EVENT_BYTES: usize = 8 << 20;

/// `input_too_large` unless `len` bytes of `what` are within [`MAX_INPUT_BYTES`].
pub(crate) fn check_input(len: usize, what: &str) -> Result<()> {
    if len > MAX_INPUT_BYTES {
        return Err(Error::new(ErrorKind::InputTooLarge, format!("{what} is {len} bytes; the most is {MAX_INPUT_BYTES}")));
    }
    Ok(())
}

/// A machine's budget of retained bytes: parts are charged as they are kept and released
/// when they are dropped; going past the limit is `buffer_limit_exceeded`.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    limit: usize,
    used: usize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Budget {
        Budget { limit, used: 0 }
    }

    /// Bytes charged now.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Bytes that can still be charged.
    pub(crate) fn room(&self) -> usize {
        self.limit.saturating_sub(self.used)
    }

    /// Would `extra` bytes more than are charged go past the limit?
    pub(crate) fn check(&self, extra: usize, what: &str) -> Result<()> {
        match self.used.checked_add(extra) {
            Some(n) if n <= self.limit => Ok(()),
            _ => Err(self.exceeded(what)),
        }
    }

    /// Charges `n` bytes, or fails (charging nothing) when that would pass the limit.
    pub(crate) fn charge(&mut self, n: usize, what: &str) -> Result<()> {
        self.check(n, what)?;
        self.used += n;
        Ok(())
    }

    /// Gives back `n` charged bytes.
    pub(crate) fn release(&mut self, n: usize) {
        self.used = self.used.saturating_sub(n);
    }

    #[cold]
    #[inline(never)]
    fn exceeded(&self, what: &str) -> Error {
        Error::new(ErrorKind::BufferLimitExceeded, format!("{what} would keep more than {} bytes (maxBufferBytes)", self.limit))
    }
}

/// `memory_limit_exceeded`: the allocator could not give `n` more bytes.
#[cold]
#[inline(never)]
pub(crate) fn out_of_memory(n: usize) -> Error {
    Error::new(ErrorKind::MemoryLimitExceeded, format!("out of memory growing a buffer by {n} bytes"))
}

/// Appends `bytes` to `buf`, reserving first so that running out of memory is an error.
#[inline]
pub(crate) fn try_extend(buf: &mut Vec<u8>, bytes: &[u8]) -> Result<()> {
    try_room(buf, bytes.len())?;
    buf.extend_from_slice(bytes);
    Ok(())
}

/// Makes room for `n` more items in `buf`, or `memory_limit_exceeded`. The room check is
/// inline (most appends fit); the growth is out of line.
#[inline]
pub(crate) fn try_room<T>(buf: &mut Vec<T>, n: usize) -> Result<()> {
    if buf.capacity() - buf.len() < n {
        return grow_vec(buf, n);
    }
    Ok(())
}

/// [`try_room`] for text.
#[inline]
pub(crate) fn try_room_str(buf: &mut String, n: usize) -> Result<()> {
    if buf.capacity() - buf.len() < n {
        return grow_string(buf, n);
    }
    Ok(())
}

/// Pushes `item` onto `v`, reserving first (amortised: the vector doubles) so that running
/// out of memory is an error.
#[inline]
pub(crate) fn try_push<T>(v: &mut Vec<T>, item: T) -> Result<()> {
    if v.len() == v.capacity() {
        v.try_reserve(1).map_err(|_| out_of_memory(std::mem::size_of::<T>()))?;
    }
    v.push(item);
    Ok(())
}

/// [`try_extend`] for text.
#[inline]
pub(crate) fn try_push_str(buf: &mut String, text: &str) -> Result<()> {
    try_room_str(buf, text.len())?;
    buf.push_str(text);
    Ok(())
}

/// Reserves room for at least `n` more bytes (amortised), or `memory_limit_exceeded`.
#[inline(never)]
pub(crate) fn grow_string(buf: &mut String, n: usize) -> Result<()> {
    buf.try_reserve(n).map_err(|_| out_of_memory(n))
}

/// Reserves room for `n` more bytes (out of line: the rare path of [`try_room`]).
#[cold]
#[inline(never)]
fn grow_vec<T>(buf: &mut Vec<T>, n: usize) -> Result<()> {
    buf.try_reserve(n).map_err(|_| out_of_memory(n.saturating_mul(std::mem::size_of::<T>())))
}

/// A copy of `text`, or `memory_limit_exceeded`.
pub(crate) fn try_to_string(text: &str) -> Result<String> {
    let mut s = String::new();
    s.try_reserve_exact(text.len()).map_err(|_| out_of_memory(text.len()))?;
    s.push_str(text);
    Ok(s)
}

/// [`try_to_string`] as a `Box<str>`: the key type of the crate's kept-name tables
/// (`Map<Box<str>, usize>`, one table type in the `.wasm`).
pub(crate) fn try_boxed_str(text: &str) -> Result<Box<str>> {
    // Reserved exactly, so the conversion does not reallocate.
    try_to_string(text).map(String::into_boxed_str)
}

// Used by the wasm input buffer (`src/wasm/handle.rs`).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
/// Makes `buf` at least `len` bytes long (new bytes are 0), or `memory_limit_exceeded`.
pub(crate) fn try_grow_to(buf: &mut Vec<u8>, len: usize) -> Result<()> {
    if let Some(more) = len.checked_sub(buf.len()).filter(|&n| n > 0) {
        buf.try_reserve(more).map_err(|_| out_of_memory(more))?;
        buf.resize(len, 0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_and_releases() {
        let mut b = Budget::new(10);
        b.charge(6, "x").unwrap();
        assert_eq!(b.charge(5, "x").unwrap_err().code(), "buffer_limit_exceeded");
        assert_eq!(b.used(), 6, "a failed charge charges nothing");
        b.charge(4, "x").unwrap();
        b.release(6);
        b.charge(6, "x").unwrap();
        assert_eq!(b.used(), 10);
        assert!(b.check(usize::MAX, "x").is_err(), "no overflow");
    }

    #[test]
    fn failed_reservation_is_memory_limit_exceeded() {
        // More than any allocator can give: the reservation fails instead of aborting.
        let mut v = vec![0u8; 1];
        let e = v.try_reserve(usize::MAX / 2).map_err(|_| out_of_memory(usize::MAX / 2)).unwrap_err();
        assert_eq!(e.code(), "memory_limit_exceeded");
        assert_eq!(try_grow_to(&mut v, usize::MAX).unwrap_err().code(), "memory_limit_exceeded");
        assert_eq!(v.len(), 1);
        try_extend(&mut v, b"ab").unwrap();
        assert_eq!(v, b"\0ab");
    }

    #[test]
    fn input_cap() {
        assert!(check_input(MAX_INPUT_BYTES, "text").is_ok());
        assert_eq!(check_input(MAX_INPUT_BYTES + 1, "text").unwrap_err().code(), "input_too_large");
    }
}
