//! The `text/event-stream` encoder.
//!
//! Invariant: for every message it accepts, [`SseDecoder`](super::SseDecoder) reads back the
//! same event. Data may hold any text: it is split into one `data:` line per line, and since
//! the wire format cannot carry a bare CR, CR and CRLF line breaks come back as LF.
//! `event` and `id` are single-line fields, so CR or LF in them is rejected, as is NUL in `id`
//! (decoders ignore such an id).

use crate::{Error, ErrorKind, Result};

/// One event to encode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SseMessage<'a> {
    /// The event type; `None` or `""` leaves it unnamed (`"message"` for the reader).
    pub event: Option<&'a str>,
    /// The data, possibly spanning several lines.
    pub data: &'a str,
    /// An explicit event id. Overrides the automatic id.
    pub id: Option<&'a str>,
    /// A reconnection time in milliseconds.
    pub retry: Option<u64>,
}

/// Options of [`SseEncoder`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SseEncoderOptions {
    /// Give every message without an explicit id the next number of a monotonic counter.
    pub auto_id: bool,
    /// The first automatic id (default 1 when `auto_id` is set).
    pub first_id: u64,
}

/// Encodes events, comments and heartbeats as `text/event-stream` text.
#[derive(Debug, Clone)]
pub struct SseEncoder {
    auto_id: bool,
    next_id: u64,
    /// `u64::MAX` was handed out: ids never wrap, the next automatic message fails.
    exhausted: bool,
}

impl Default for SseEncoder {
    fn default() -> Self {
        SseEncoder::new(SseEncoderOptions::default())
    }
}

impl SseEncoder {
    /// An encoder with the given options.
    pub fn new(opts: SseEncoderOptions) -> Self {
        SseEncoder { auto_id: opts.auto_id, next_id: opts.first_id.max(u64::from(opts.auto_id)), exhausted: false }
    }

    /// The id the next automatic message will carry.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Appends the wire form of `msg` (ending with the blank line that dispatches it) to `out`.
    ///
    /// # Errors
    /// `sse_invalid_field` when `event` or `id` contains CR or LF, or `id` contains NUL;
    /// `invalid_state` when automatic ids would pass `u64::MAX`.
    pub fn encode_into(&mut self, msg: &SseMessage<'_>, out: &mut String) -> Result<()> {
        if let Some(ev) = msg.event {
            check_single_line("event", ev)?;
        }
        if msg.id.is_none() && self.auto_id && self.exhausted {
            return Err(Error::new(ErrorKind::InvalidState, "automatic SSE ids exhausted"));
        }
        if let Some(id) = msg.id {
            check_single_line("id", id)?;
            if id.contains('\0') {
                return Err(Error::new(ErrorKind::SseInvalidField, "SSE id must not contain NUL"));
            }
        }
        out.reserve(msg.data.len() + 16);
        if let Some(ev) = msg.event.filter(|e| !e.is_empty()) {
            push_field(out, "event", ev);
        }
        match msg.id {
            Some(id) => push_field(out, "id", id),
            None if self.auto_id => {
                out.push_str("id: ");
                out.push_str(&self.next_id.to_string());
                out.push('\n');
                match self.next_id.checked_add(1) {
                    Some(n) => self.next_id = n,
                    None => self.exhausted = true,
                }
            }
            None => {}
        }
        if let Some(ms) = msg.retry {
            out.push_str("retry: ");
            out.push_str(&ms.to_string());
            out.push('\n');
        }
        for line in split_lines(msg.data) {
            push_field(out, "data", line);
        }
        out.push('\n');
        Ok(())
    }

    /// The wire form of `msg`.
    ///
    /// # Errors
    /// As [`encode_into`](SseEncoder::encode_into).
    pub fn encode(&mut self, msg: &SseMessage<'_>) -> Result<String> {
        let mut out = String::new();
        self.encode_into(msg, &mut out)?;
        Ok(out)
    }

    /// A comment block (`: text` per line), ignored by readers; useful to keep proxies open.
    pub fn comment(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 4);
        for line in split_lines(text) {
            out.push(':');
            if !line.is_empty() {
                out.push(' ');
                out.push_str(line);
            }
            out.push('\n');
        }
        out.push('\n');
        out
    }

    /// The heartbeat comment `: ping`.
    pub fn ping(&self) -> String {
        self.comment("ping")
    }
}

fn check_single_line(field: &str, value: &str) -> Result<()> {
    if value.contains(['\r', '\n']) {
        return Err(Error::new(ErrorKind::SseInvalidField, format!("SSE {field} must not contain CR or LF")));
    }
    Ok(())
}

fn push_field(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push(':');
    if !value.is_empty() {
        out.push(' ');
        out.push_str(value);
    }
    out.push('\n');
}

/// Splits on LF, CRLF and lone CR, the three SSE line terminators. `""` is one empty line.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        let Some(i) = s.find(['\r', '\n']) else {
            rest = None;
            return Some(s);
        };
        let skip = if s.as_bytes().get(i..i + 2) == Some(b"\r\n") { 2 } else { 1 };
        // `i` and `i + skip` are at ASCII line breaks, so char boundaries: `get` always
        // succeeds (and links no slicing panic).
        rest = s.get(i + skip..);
        s.get(..i)
    })
}
