//! `ProviderDecoder`: raw stream bytes in, `ModelDelta`s out, for one provider format or
//! `auto`.
//!
//! Advice for hackers: one machine with three states. `Sniff` (only for `auto`) holds the
//! first bytes until they show whether the stream is an event stream (it starts, after an
//! optional BOM and blank lines, with an SSE field: `data:`, `event:`, `id:`, `retry:` or a
//! `:` comment) or plain text; the held bytes (at most `MAX_SNIFF`) are then replayed into the
//! chosen state. `Sse` runs the shared `SseDecoder`; every dispatched event goes, whole, to the
//! format's reader (`openai_chat.rs`, `anthropic.rs`, ...). With `auto` the format is detected
//! from the first event that shows it (its `event:` name or its `type` / top-level keys) and
//! then kept. `Text` passes the bytes through as text (UTF-8 carried across chunks).
//!
//! Because events reach the readers whole, the deltas do not depend on how the bytes were
//! chunked; only plain text deltas follow the chunking (their concatenation does not).
//! A malformed event is an `error` delta (`provider_event_invalid`), an event of no known
//! format one with `provider_event_unknown`; decoding goes on with the next event.

use crate::json::Quoted;
use super::anthropic::Anthropic;
use super::delta::DeltaSink;
use super::gemini::Gemini;
use super::jscan::{Json, Kind};
use super::openai_chat::{read_error, OpenAiChat};
use super::openai_responses::OpenAiResponses;
use crate::text::Utf8Carry;
use crate::{Error, ErrorKind, Result, SseDecoder, SseDecoderOptions, SseSink};

/// Most bytes held while `auto` decides between an event stream and plain text.
pub(crate) const MAX_SNIFF: usize = 4096;

/// The stream formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Detect the format from the first bytes and events.
    Auto,
    /// OpenAI Chat Completions (and compatible servers).
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `streamGenerateContent?alt=sse`.
    Gemini,
    /// Plain text (not an event stream).
    Text,
}

impl Provider {
    /// The option name: `auto`, `openai-chat`, `openai-responses`, `anthropic`, `gemini`, `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Auto => "auto",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Text => "text",
        }
    }

    /// Parses an option name.
    ///
    /// # Errors
    /// `invalid_option` for any other name.
    pub fn parse(name: &str) -> Result<Provider> {
        Ok(match name {
            "auto" => Provider::Auto,
            "openai-chat" => Provider::OpenAiChat,
            "openai-responses" => Provider::OpenAiResponses,
            "anthropic" => Provider::Anthropic,
            "gemini" => Provider::Gemini,
            "text" => Provider::Text,
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidOption,
                    format!(
                        "provider must be one of auto, openai-chat, openai-responses, anthropic, gemini, text; got {}",
                        Quoted(name)
                    ),
                ))
            }
        })
    }
}

/// Options of [`ProviderDecoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderDecoderOptions {
    /// The stream format.
    pub provider: Provider,
    /// The most data bytes of one SSE event (default 8 MiB); also bounds SSE lines.
    pub max_event_bytes: usize,
}

impl Default for ProviderDecoderOptions {
    fn default() -> Self {
        ProviderDecoderOptions { provider: Provider::Auto, max_event_bytes: SseDecoderOptions::default().max_event_bytes }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Sniff,
    Sse,
    Text,
}

/// The per-format readers and the detected format.
#[derive(Debug, Default)]
struct Formats {
    /// The format in force (`None` while `auto` has not seen a telling event).
    active: Option<Provider>,
    chat: OpenAiChat,
    responses: OpenAiResponses,
    anthropic: Anthropic,
    gemini: Gemini,
    /// `data: [DONE]` was seen.
    done_marker: bool,
}

/// Decodes a raw provider stream into [`ModelDelta`](super::ModelDelta)s.
#[derive(Debug)]
pub struct ProviderDecoder {
    state: State,
    held: Vec<u8>,
    sse: SseDecoder,
    formats: Formats,
    utf8: Utf8Carry,
}

impl ProviderDecoder {
    /// A decoder for `options.provider`.
    pub fn new(options: ProviderDecoderOptions) -> Self {
        let max = options.max_event_bytes.max(1);
        let sse = SseDecoder::new(SseDecoderOptions {
            flush_on_finish: true,
            max_line_bytes: max.saturating_add(64),
            max_event_bytes: max,
        });
        let (state, active) = match options.provider {
            Provider::Auto => (State::Sniff, None),
            Provider::Text => (State::Text, Some(Provider::Text)),
            p => (State::Sse, Some(p)),
        };
        ProviderDecoder {
            state,
            held: Vec::new(),
            sse,
            formats: Formats { active, ..Formats::default() },
            utf8: Utf8Carry::default(),
        }
    }

    /// The format in force: the configured one, or what `auto` detected (`Auto` until then).
    pub fn provider(&self) -> Provider {
        self.formats.active.unwrap_or(Provider::Auto)
    }

    /// True once the stream sent its own end marker (`[DONE]`, `message_stop`, a terminal
    /// `response.*` event).
    pub fn ended(&self) -> bool {
        let f = &self.formats;
        f.done_marker || f.chat.ended || f.responses.ended || f.anthropic.ended
    }

    /// Decodes a chunk, handing every delta it completes to `sink`.
    ///
    /// # Errors
    /// `sse_event_too_large` when an event passes `max_event_bytes` (the decoder then stays
    /// failed).
    pub fn feed(&mut self, chunk: &[u8], sink: &mut dyn DeltaSink) -> Result<()> {
        match self.state {
            State::Sse => self.sse.feed(chunk, &mut Dispatch { f: &mut self.formats, sink }),
            State::Text => {
                self.text(chunk, sink);
                Ok(())
            }
            State::Sniff => {
                crate::budget::try_extend(&mut self.held, chunk)?;
                match sniff(&self.held) {
                    None => Ok(()),
                    Some(sse) => self.decide(sse, sink),
                }
            }
        }
    }

    /// Ends the stream: an unterminated last event is still decoded, open tool calls end.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish(&mut self, sink: &mut dyn DeltaSink) -> Result<()> {
        if self.state == State::Sniff {
            let sse = !self.held.is_empty() && sniff(&self.held) == Some(true);
            self.decide(sse, sink)?;
        }
        match self.state {
            State::Sse => self.sse.finish(&mut Dispatch { f: &mut self.formats, sink })?,
            _ => {
                let _ = self.utf8.flush(false, &mut |s: &str| {
                    sink.text(s);
                    Ok::<(), ()>(())
                });
            }
        }
        let f = &mut self.formats;
        f.chat.finish(sink);
        f.responses.finish(sink);
        f.anthropic.finish(sink);
        Ok(())
    }

    fn decide(&mut self, sse: bool, sink: &mut dyn DeltaSink) -> Result<()> {
        let held = std::mem::take(&mut self.held);
        if sse {
            self.state = State::Sse;
        } else {
            self.state = State::Text;
            self.formats.active = Some(Provider::Text);
        }
        self.feed(&held, sink)
    }

    fn text(&mut self, chunk: &[u8], sink: &mut dyn DeltaSink) {
        let _ = self.utf8.decode(chunk, false, &mut |s: &str| {
            sink.text(s);
            Ok::<(), ()>(())
        });
    }
}

/// `Some(true)`: an event stream; `Some(false)`: plain text; `None`: not known yet.
fn sniff(held: &[u8]) -> Option<bool> {
    let mut b = held;
    let bom = [0xEF, 0xBB, 0xBF];
    let n = b.len().min(3);
    if b[..n] == bom[..n] {
        if n < 3 {
            return None;
        }
        b = &b[3..];
    }
    let start = b.iter().position(|&c| c != b'\r' && c != b'\n');
    let Some(start) = start else {
        return if held.len() >= MAX_SNIFF { Some(false) } else { None };
    };
    let b = &b[start..];
    const FIELDS: [&[u8]; 5] = [b":", b"data:", b"event:", b"id:", b"retry:"];
    let mut maybe = false;
    for f in FIELDS {
        if b.starts_with(f) {
            return Some(true);
        }
        maybe |= f.starts_with(b);
    }
    if maybe && held.len() < MAX_SNIFF {
        None
    } else {
        Some(false)
    }
}

/// The text of `b`, invalid sequences replaced by U+FFFD.
fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// Hands each SSE event to the format's reader.
struct Dispatch<'a> {
    f: &'a mut Formats,
    sink: &'a mut dyn DeltaSink,
}

impl SseSink for Dispatch<'_> {
    fn event(&mut self, event: &str, data: &str, _id: &str) {
        self.route(event, data);
    }

    fn event_bytes(&mut self, event: &[u8], data: &[u8], _id: &str) {
        // Valid UTF-8 is the rule: checked once, without the lossy decoder's per-chunk walk.
        let data = lossy(data);
        let event = lossy(event);
        self.route(&event, &data);
    }
}

impl Dispatch<'_> {
    fn route(&mut self, event: &str, data: &str) {
        if data.trim() == "[DONE]" {
            // The OpenAI end marker (some proxies append it to other formats too).
            self.f.done_marker = true;
            if matches!(self.f.active, None | Some(Provider::OpenAiChat)) {
                self.f.active = Some(Provider::OpenAiChat);
                let _ = self.f.chat.event(data, self.sink);
            }
            return;
        }
        let provider = match self.f.active {
            Some(p) => p,
            None => match detect(event, data) {
                Detected::Format(p) => {
                    self.f.active = Some(p);
                    p
                }
                Detected::Error => {
                    let mut j = Json::new(data);
                    let mut scratch = String::new();
                    let r = (|| -> super::jscan::R<Option<(String, String)>> {
                        let mut m = j.object()?;
                        let mut out = None;
                        while let Some(k) = j.next_key(&mut m)? {
                            if k == "error" && j.kind()? == Kind::Object {
                                out = Some(read_error(&mut j, &mut scratch)?);
                            } else {
                                j.skip()?;
                            }
                        }
                        Ok(out)
                    })();
                    if let Ok(Some((code, message))) = r {
                        self.sink.error(&code, &message);
                    }
                    return;
                }
                Detected::Unknown => {
                    let mut shown: String = data.chars().take(80).collect();
                    if shown.len() < data.len() {
                        shown.push('…');
                    }
                    self.sink.error(
                        "provider_event_unknown",
                        &format!("an event of no known provider format: {}", Quoted(&shown)),
                    );
                    return;
                }
            },
        };
        let f = &mut *self.f;
        let sink = &mut *self.sink;
        let r = match provider {
            Provider::OpenAiChat => f.chat.event(data, sink),
            Provider::OpenAiResponses => f.responses.event(data, sink),
            Provider::Anthropic => f.anthropic.event(data, sink),
            Provider::Gemini => f.gemini.event(data, sink),
            Provider::Text | Provider::Auto => {
                sink.text(data);
                Ok(())
            }
        };
        if let Err(bad) = r {
            sink.error(
                "provider_event_invalid",
                &format!("malformed {} event: bad JSON at byte {} of its data", provider.as_str(), bad.0),
            );
        }
    }
}

enum Detected {
    Format(Provider),
    /// A bare `{"error": {...}}` (OpenAI and Gemini both send it): reported, format unknown.
    Error,
    Unknown,
}

const ANTHROPIC_EVENTS: [&str; 7] = [
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "ping",
];

/// The format an event shows, from its name or its top-level members.
fn detect(event: &str, data: &str) -> Detected {
    if event.starts_with("response.") {
        return Detected::Format(Provider::OpenAiResponses);
    }
    if ANTHROPIC_EVENTS.contains(&event) {
        return Detected::Format(Provider::Anthropic);
    }
    let mut kind = String::new();
    let (mut choices, mut gemini, mut error_object, mut object_chat) = (false, false, false, false);
    let mut j = Json::new(data);
    let scanned = (|| -> super::jscan::R<()> {
        let mut m = j.object()?;
        while let Some(k) = j.next_key(&mut m)? {
            match k {
                "type" if j.kind()? == Kind::String => {
                    j.string_into(&mut kind)?;
                }
                "object" if j.kind()? == Kind::String => {
                    object_chat = j.string_raw()?.starts_with("chat.completion");
                }
                "choices" => {
                    choices = true;
                    j.skip()?;
                }
                "candidates" | "usageMetadata" | "promptFeedback" | "modelVersion" => {
                    gemini = true;
                    j.skip()?;
                }
                "error" => {
                    error_object = j.kind()? == Kind::Object;
                    j.skip()?;
                }
                _ => j.skip()?,
            }
        }
        j.end()
    })();
    if scanned.is_err() {
        return Detected::Unknown;
    }
    if kind.starts_with("response.") {
        return Detected::Format(Provider::OpenAiResponses);
    }
    if ANTHROPIC_EVENTS.contains(&kind.as_str()) {
        return Detected::Format(Provider::Anthropic);
    }
    if kind == "error" {
        return Detected::Format(if error_object { Provider::Anthropic } else { Provider::OpenAiResponses });
    }
    if choices || object_chat {
        return Detected::Format(Provider::OpenAiChat);
    }
    if gemini {
        return Detected::Format(Provider::Gemini);
    }
    if error_object {
        return Detected::Error;
    }
    Detected::Unknown
}
