//! The transport events of the design, as `text/event-stream` text through [`SseEncoder`]:
//! `<block>_delta {"text"}` (`artifact_delta`, `user_delta`), `done {"ok", "parse_ok"}` and
//! `ping {}`, every event with the next id of a monotonic counter, the first one also with
//! the optional `retry:` advice.

use super::{TagDelta, TagFilter};
use crate::json::write_json_string;
use crate::{Result, SseEncoder, SseEncoderOptions, SseMessage};

/// Writes the SSE events of one stream (one writer per client stream, so ids stay
/// monotonic across attempts).
#[derive(Debug, Clone)]
pub struct TagEventWriter {
    encoder: SseEncoder,
    /// `retry:` to send with the next event.
    retry: Option<u64>,
    data: String,
}

impl TagEventWriter {
    /// A writer whose first event gets id `first_id` and, when given, `retry: <ms>`.
    pub fn new(first_id: u64, retry: Option<u64>) -> TagEventWriter {
        TagEventWriter { encoder: SseEncoder::new(SseEncoderOptions { auto_id: true, first_id }), retry, data: String::new() }
    }

    /// The id the next event will carry.
    pub fn next_id(&self) -> u64 {
        self.encoder.next_id()
    }

    /// Appends one event `event` whose data is the JSON text in `self.data`.
    fn event(&mut self, event: &str, out: &mut String) -> Result<()> {
        let msg = SseMessage { event: Some(event), data: &self.data, id: None, retry: self.retry };
        self.encoder.encode_into(&msg, out)?;
        self.retry = None;
        Ok(())
    }

    /// Appends `event: <event>` with data `{"text": text}` (e.g. `artifact_delta`).
    ///
    /// # Errors
    /// `sse_invalid_field` when `event` has CR/LF; `invalid_state` when ids run out.
    pub fn delta(&mut self, event: &str, text: &str, out: &mut String) -> Result<()> {
        self.data.clear();
        self.data.push_str("{\"text\":");
        write_json_string(text, &mut self.data);
        self.data.push('}');
        self.event(event, out)
    }

    /// Appends one `<block>_delta` event per delta of `filter`.
    ///
    /// # Errors
    /// As [`TagEventWriter::delta`].
    pub fn deltas(&mut self, filter: &TagFilter, deltas: &[TagDelta], out: &mut String) -> Result<()> {
        let mut name = String::new();
        for d in deltas {
            name.clear();
            name.push_str(filter.block_name(d.block));
            name.push_str("_delta");
            self.delta(&name, &d.text, out)?;
        }
        Ok(())
    }

    /// Appends `event: done` with data `{"ok": ok, "parse_ok": parse_ok}`.
    ///
    /// # Errors
    /// `invalid_state` when ids run out.
    pub fn done(&mut self, ok: bool, parse_ok: bool, out: &mut String) -> Result<()> {
        self.data.clear();
        self.data.push_str(&format!("{{\"ok\":{ok},\"parse_ok\":{parse_ok}}}"));
        self.event("done", out)
    }

    /// Appends the heartbeat `event: ping` with data `{}`.
    ///
    /// # Errors
    /// `invalid_state` when ids run out.
    pub fn ping(&mut self, out: &mut String) -> Result<()> {
        self.data.clear();
        self.data.push_str("{}");
        self.event("ping", out)
    }
}
