//! `SseDecoder`'s events, packed.

use super::{SSE_RANGE, SSE_SAME};
use crate::budget::out_of_memory;
use crate::sse::{Emit, LineInput};
use crate::SseSink;

/// Events packed for JS: the raw UTF-8 of the fields, each followed by CR, and per event three
/// UTF-16 lengths `[event, data, id]` in `lens`. CR can never be part of a decoded SSE field
/// (it ends lines) and is ASCII, so no multi-byte sequence runs from one field into the next:
/// `TextDecoder` decodes the whole buffer at once (replacing invalid sequences by the same rule
/// as the core) and JS slices the fields at the given lengths, with no scan for separators.
/// Within one batch an `event` or `id` equal to the previous event's is not repeated: its
/// length is [`SSE_SAME`] and JS reuses the previous string. The fast path hands JS the UTF-16
/// form (`wide`) instead when the batch is not all ASCII.
#[derive(Default)]
pub struct SsePack {
    pub bytes: Vec<u8>,
    /// The same text as UTF-16 code units (invalid UTF-8 replaced as `TextDecoder` does), the
    /// fast path's output when some of it is not ASCII: JS turns UTF-16 into a string several
    /// times faster than it decodes non-ASCII UTF-8. Empty while the batch is all ASCII.
    pub wide: Vec<u16>,
    /// Per event `[event, data, id]` ([`SSE_SAME`], [`SSE_RANGE`]).
    pub lens: Vec<u32>,
    pub count: u32,
    /// Where the last packed `event` and `id` are in `bytes`.
    last_event: (usize, usize),
    last_id: (usize, usize),
    /// A buffer could not grow: no more events are packed this call, and the decoder fails
    /// with this `memory_limit_exceeded` (see [`Packed::take_oom`]).
    oom: Option<crate::Error>,
}

impl SsePack {
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.wide.clear();
        self.lens.clear();
        self.count = 0;
        self.oom = None;
    }

    /// Whether `buf` has room for `n` more items; if not, packing stops (`oom`). The buffers
    /// are reused from call to call, so they rarely grow: the check is inline, the growth not.
    #[inline]
    fn room<T>(oom: &mut Option<crate::Error>, buf: &mut Vec<T>, n: usize) -> bool {
        if buf.capacity() - buf.len() >= n {
            return oom.is_none();
        }
        Self::grow(oom, buf, n)
    }

    #[cold]
    #[inline(never)]
    fn grow<T>(oom: &mut Option<crate::Error>, buf: &mut Vec<T>, n: usize) -> bool {
        if oom.is_none() && buf.try_reserve(n).is_err() {
            *oom = Some(out_of_memory(n * std::mem::size_of::<T>()));
        }
        oom.is_none()
    }

    /// The `memory_limit_exceeded` of this call's packing, if a buffer could not grow.
    pub fn take_oom(&mut self) -> crate::Result<()> {
        self.oom.take().map_or(Ok(()), Err)
    }

    /// Appends `field` and its separator to `bytes` (and to `wide` once the batch stopped
    /// being all ASCII); returns its UTF-16 length (0 when out of memory: see `oom`).
    fn push(&mut self, field: &[u8]) -> u32 {
        let at = self.bytes.len();
        if !Self::room(&mut self.oom, &mut self.bytes, field.len() + 1) {
            return 0;
        }
        self.bytes.extend_from_slice(field);
        self.bytes.push(b'\r');
        if self.wide.is_empty() {
            if field.is_ascii() {
                return field.len() as u32;
            }
            // First non-ASCII field: everything before it is ASCII, one unit per byte.
            if !Self::room(&mut self.oom, &mut self.wide, at + field.len() + 1) {
                return 0;
            }
            self.wide.extend(self.bytes[..at].iter().map(|&b| u16::from(b)));
        } else if !Self::room(&mut self.oom, &mut self.wide, field.len() + 1) {
            return 0;
        }
        let before = self.wide.len();
        // push_utf16 decodes any bytes as from_utf8_lossy does: no validation pass first.
        crate::text::push_utf16(field, &mut self.wide);
        let n = (self.wide.len() - before) as u32;
        self.wide.push(u16::from(b'\r'));
        n
    }

    /// Packs `field` unless it repeats the previous event's; returns its `lens` entry.
    fn field(&mut self, field: &[u8], last: (usize, usize)) -> (u32, (usize, usize)) {
        if self.count > 0 && self.bytes.get(last.0..last.1) == Some(field) {
            return (SSE_SAME, last);
        }
        let at = self.bytes.len();
        (self.push(field), (at, at + field.len()))
    }
}

impl SseSink for SsePack {
    fn event(&mut self, event: &str, data: &str, id: &str) {
        self.event_bytes(event.as_bytes(), data.as_bytes(), id);
    }

    fn event_bytes(&mut self, event: &[u8], data: &[u8], id: &str) {
        if Self::room(&mut self.oom, &mut self.bytes, event.len() + data.len() + id.len() + 10) {
            self.pack(event, Ok(data), id);
        }
    }
}

impl SsePack {
    /// Packs one event; `data` `Err((from, to))` is that UTF-16 range of the string chunk.
    #[inline]
    fn pack(&mut self, event: &[u8], data: Result<&[u8], (u32, u32)>, id: &str) {
        let event: &[u8] = if event.is_empty() { b"message" } else { event };
        let (event_len, last_event) = self.field(event, self.last_event);
        let data_len = match data {
            Ok(data) => self.push(data),
            Err(_) => SSE_RANGE,
        };
        let (id_len, last_id) = self.field(id.as_bytes(), self.last_id);
        if !Self::room(&mut self.oom, &mut self.lens, 5) {
            return; // not counted: JS reads only the events counted
        }
        self.last_event = last_event;
        self.last_id = last_id;
        self.lens.extend_from_slice(&[event_len, data_len]);
        if let Err((from, to)) = data {
            self.lens.extend_from_slice(&[from, to]);
        }
        self.lens.push(id_len);
        self.count += 1;
    }
}

impl<I: LineInput> Emit<I> for SsePack {
    fn bytes(&mut self, event: &[u8], data: &[u8], id: &str) {
        self.event_bytes(event, data, id);
    }

    fn range(&mut self, event: &[u8], from: usize, to: usize, id: &str, _input: &I) {
        self.pack(event, Err((from as u32, to as u32)), id);
    }
}
