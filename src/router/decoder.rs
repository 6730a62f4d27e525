//! `ProviderDecoder`: raw stream bytes in, `ModelDelta`s out, for one provider format or
//! `auto`.
//!
//! Advice for hackers: one machine with three states. `Sniff` (only for `auto`) holds the
//! first bytes until they show whether the stream is an event stream (it starts, after an
//! optional BOM and leading whitespace, with an SSE field: `data:`, `event:`, `id:`, `retry:`
//! or a `:` comment), a binary event stream, Ollama NDJSON or plain text (`Sniffer`: a
//! function of the bytes, not of the chunking); the held bytes (leading whitespace and at
//! most one line cap more) are then replayed into the chosen state. `Sse` runs the shared `SseDecoder`; every dispatched event goes, whole, to the
//! format's reader (`openai_chat.rs`, `anthropic.rs`, ...). With `auto` the format is detected
//! from the first event that shows it (its `event:` name or its `type` / top-level keys) and
//! then kept. `Text` passes the bytes through as text (UTF-8 carried across chunks).
//!
//! Because events reach the readers whole, the deltas do not depend on how the bytes were
//! chunked; only plain text deltas follow the chunking (their concatenation does not).
//! A malformed event is an `error` delta (`provider_event_invalid`), an event of no known
//! format one with `provider_event_unknown`; decoding goes on with the next event. Nothing
//! after the provider's end marker (`[DONE]`, Anthropic's `message_stop`, Responses'
//! `response.completed` / `failed` / `incomplete`) is read: those events are dropped.

use super::anthropic::Anthropic;
use super::bedrock::Bedrock;
use super::cohere::{Cohere, COHERE_EVENTS};
use super::common::read_error;
use super::delta::DeltaSink;
use super::gemini::Gemini;
use super::gemini_interactions::GeminiInteractions;
use super::jscan::{Bad, Json, Kind};
use super::ollama::Ollama;
use super::openai_chat::{is_done, OpenAiChat};
use super::openai_responses::OpenAiResponses;
use crate::budget::try_extend as grow;
use crate::json::Quoted;
use crate::text::Utf8Carry;
use crate::{Error, ErrorKind, Result, SseDecoder, SseDecoderOptions, SseSink};
use crate::{EventStreamDecoder, EventStreamDecoderOptions, EventStreamMessage, EventStreamSink};

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
    /// Gemini's Interactions API (`POST /v1beta/interactions`, `stream: true`).
    GeminiInteractions,
    /// Ollama's NDJSON `/api/chat` and `/api/generate` streams.
    Ollama,
    /// Amazon Bedrock `ConverseStream` (binary `application/vnd.amazon.eventstream`).
    Bedrock,
    /// Cohere v2 chat (`message-start`, `content-delta`, ..., `message-end`).
    Cohere,
    /// Plain text (not an event stream).
    Text,
}

impl Provider {
    /// The option name: `auto`, `openai-chat`, `openai-responses`, `anthropic`, `gemini`,
    /// `gemini-interactions`, `ollama`, `bedrock`, `cohere`, `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Auto => "auto",
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::GeminiInteractions => "gemini-interactions",
            Provider::Ollama => "ollama",
            Provider::Bedrock => "bedrock",
            Provider::Cohere => "cohere",
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
            "gemini-interactions" => Provider::GeminiInteractions,
            "ollama" => Provider::Ollama,
            "bedrock" => Provider::Bedrock,
            "cohere" => Provider::Cohere,
            "text" => Provider::Text,
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidOption,
                    format!(
                        "provider must be one of auto, openai-chat, openai-responses, anthropic, gemini, gemini-interactions, ollama, bedrock, cohere, text; got {}",
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
    /// Newline-delimited JSON (Ollama).
    Ndjson,
    /// The binary event-stream framing (Bedrock).
    EventStream,
    /// A stream named Bedrock whose first message could not be read: nothing more is
    /// decoded; its end says whether it is another format's (`provider_mismatch`) or a
    /// corrupt Bedrock stream (the framing error).
    NotFrames,
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
    interactions: GeminiInteractions,
    ollama: Ollama,
    bedrock: Bedrock,
    cohere: Cohere,
    /// `data: [DONE]` was seen.
    done_marker: bool,
    /// An event of the configured format was recognised (always true for `auto` and
    /// `text`, which cannot be the wrong format).
    recognised: bool,
}

impl Formats {
    /// The provider's end marker came: nothing after it is routed.
    fn closed(&self) -> bool {
        self.done_marker || self.responses.ended || self.anthropic.ended || self.interactions.ended || self.cohere.ended
    }
}

/// Decodes a raw provider stream into [`ModelDelta`](super::ModelDelta)s.
#[derive(Debug)]
pub struct ProviderDecoder {
    state: State,
    /// `Sniff`: the first bytes; `Ndjson`: the unterminated last line.
    held: Vec<u8>,
    /// `Sniff`: how far `held` was read.
    sniffer: Sniffer,
    /// Most bytes of one NDJSON line.
    max_line: usize,
    sse: SseDecoder,
    frames: EventStreamDecoder,
    /// The framing error that sent a Bedrock stream to `NotFrames`.
    frames_error: Option<Error>,
    formats: Formats,
    /// The first bytes (at most `LOOK_BYTES`) while no event of the configured format was
    /// recognised: what the stream looks like instead, at its end.
    look: Vec<u8>,
    utf8: Utf8Carry,
}

/// Most bytes kept to tell, at the end of a stream of the wrong format, which format it is.
const LOOK_BYTES: usize = 64 << 10;

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
            Provider::Ollama => (State::Ndjson, Some(Provider::Ollama)),
            Provider::Bedrock => (State::EventStream, Some(Provider::Bedrock)),
            p => (State::Sse, Some(p)),
        };
        ProviderDecoder {
            state,
            held: Vec::new(),
            sniffer: Sniffer::default(),
            max_line: max,
            sse,
            frames: EventStreamDecoder::new(EventStreamDecoderOptions { max_message_bytes: max.saturating_add(1 << 16) }),
            frames_error: None,
            formats: Formats {
                active,
                recognised: matches!(options.provider, Provider::Auto | Provider::Text),
                ..Formats::default()
            },
            look: Vec::new(),
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
        f.done_marker
            || f.chat.ended
            || f.responses.ended
            || f.anthropic.ended
            || f.interactions.ended
            || f.ollama.ended
            || f.bedrock.ended
            || f.cohere.ended
    }

    /// Decodes a chunk, handing every delta it completes to `sink`.
    ///
    /// # Errors
    /// `sse_event_too_large` when an event passes `max_event_bytes` (the decoder then stays
    /// failed).
    pub fn feed(&mut self, chunk: &[u8], sink: &mut dyn DeltaSink) -> Result<()> {
        if !self.formats.recognised && self.look.len() < LOOK_BYTES {
            let take = chunk.len().min(LOOK_BYTES - self.look.len());
            grow(&mut self.look, &chunk[..take])?;
        }
        let r = self.decode(chunk, sink);
        if self.formats.recognised && self.look.capacity() > 0 {
            self.look = Vec::new();
        }
        r
    }

    fn decode(&mut self, chunk: &[u8], sink: &mut dyn DeltaSink) -> Result<()> {
        match self.state {
            State::Sse => self.sse.feed(chunk, &mut Dispatch { f: &mut self.formats, sink }),
            State::Text => {
                self.text(chunk, sink);
                Ok(())
            }
            State::Ndjson => self.ndjson(chunk, sink),
            State::EventStream => {
                let formats = &mut self.formats;
                match self.frames.feed(chunk, &mut Frames { f: formats, sink }) {
                    // Not one message read, and the first prelude does not check: this may be
                    // another format altogether. (A prelude that checks is this framing's, even
                    // with impossible lengths.)
                    Err(e)
                        if !self.formats.recognised
                            && e.kind() == ErrorKind::EventStreamInvalid
                            && !prelude_checks(&self.look) =>
                    {
                        self.state = State::NotFrames;
                        self.frames_error = Some(e);
                        Ok(())
                    }
                    r => r,
                }
            }
            State::NotFrames => Ok(()),
            State::Sniff => {
                crate::budget::try_extend(&mut self.held, chunk)?;
                match self.sniffer.decide(&self.held, self.max_line, false) {
                    None => Ok(()),
                    Some(state) => self.decide(state, sink),
                }
            }
        }
    }

    /// Complete lines go to the Ollama reader; the unterminated last one is held.
    fn ndjson(&mut self, chunk: &[u8], sink: &mut dyn DeltaSink) -> Result<()> {
        let mut rest = chunk;
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            let (line, after) = (&rest[..nl], &rest[nl + 1..]);
            if self.held.is_empty() {
                self.check_line(line.len())?;
                ndjson_line(&mut self.formats, line, sink);
            } else {
                self.check_line(self.held.len() + line.len())?;
                grow(&mut self.held, line)?;
                let held = std::mem::take(&mut self.held);
                ndjson_line(&mut self.formats, &held, sink);
                self.held = held;
                self.held.clear();
            }
            rest = after;
        }
        self.check_line(self.held.len() + rest.len())?;
        grow(&mut self.held, rest)
    }

    fn check_line(&self, len: usize) -> Result<()> {
        if len > self.max_line {
            return Err(Error::new(ErrorKind::SseEventTooLarge, format!("an NDJSON line longer than {} bytes", self.max_line)));
        }
        Ok(())
    }

    /// Ends the stream: an unterminated last event is still decoded, open tool calls end.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish(&mut self, sink: &mut dyn DeltaSink) -> Result<()> {
        if self.state == State::Sniff {
            let state = self.sniffer.decide(&self.held, self.max_line, true).unwrap_or(State::Text);
            self.decide(state, sink)?;
        }
        match self.state {
            State::Sse => self.sse.finish(&mut Dispatch { f: &mut self.formats, sink })?,
            State::Ndjson => {
                let held = std::mem::take(&mut self.held);
                ndjson_line(&mut self.formats, &held, sink);
            }
            State::EventStream => {
                if let Err(e) = self.frames.finish() {
                    if self.formats.recognised || !self.mismatch(sink) {
                        return Err(e);
                    }
                    return Ok(());
                }
            }
            State::NotFrames => {
                if self.mismatch(sink) {
                    return Ok(());
                }
                return Err(self
                    .frames_error
                    .take()
                    .unwrap_or_else(|| Error::new(ErrorKind::EventStreamInvalid, "not an event stream")));
            }
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
        f.interactions.finish(sink);
        f.ollama.finish(sink);
        f.bedrock.finish(sink);
        f.cohere.finish(sink);
        self.mismatch(sink);
        Ok(())
    }

    fn decide(&mut self, state: State, sink: &mut dyn DeltaSink) -> Result<()> {
        let held = std::mem::take(&mut self.held);
        self.state = state;
        match state {
            State::Text => self.formats.active = Some(Provider::Text),
            State::Ndjson => self.formats.active = Some(Provider::Ollama),
            State::EventStream => self.formats.active = Some(Provider::Bedrock),
            _ => {}
        }
        self.decode(&held, sink)
    }

    /// At the end of a stream routed as a named format: when no event of that format was
    /// recognised and the bytes look like another format's, `provider_mismatch` naming it.
    /// `false`: they do not.
    fn mismatch(&mut self, sink: &mut dyn DeltaSink) -> bool {
        if self.formats.recognised {
            return false;
        }
        let named = self.provider();
        match looks_like(&self.look) {
            Some(other) if other != named => {
                sink.error(
                    ErrorKind::ProviderMismatch.code(),
                    &format!(
                        "the stream was routed as {} but no event of that format came: it looks like {}",
                        named.as_str(),
                        other.as_str()
                    ),
                );
                true
            }
            _ => false,
        }
    }

    fn text(&mut self, chunk: &[u8], sink: &mut dyn DeltaSink) {
        let _ = self.utf8.decode(chunk, false, &mut |s: &str| {
            sink.text(s);
            Ok::<(), ()>(())
        });
    }
}

/// `auto`'s first decision, between the framings: the bytes held so far and how far they
/// were read. What it decides is a function of the bytes alone, never of where chunks end:
/// - a first byte 0 is a binary event-stream prelude when the CRC of the first 12 bytes
///   checks (else text);
/// - after an optional BOM, leading whitespace (blank lines, spaces, tabs) is skipped, and
///   counts towards nothing but the line cap (`max_line` bytes of it are text);
/// - a line that begins with an SSE field (`data:`, `event:`, `id:`, `retry:` or a `:`
///   comment) is an event stream;
/// - a `{` is an Ollama line when its first members are `model` and `created_at` (with only
///   `remote_*` members between them) or it is a lone `{"error": "..."}`. The prefix read
///   decides as soon as it can (plain JSON text shows it is not Ollama at its first key, and
///   streams at once); a prefix that cannot decide yet waits, at most for `max_line` bytes
///   (then it is text). A prefix that decides gives the same answer as any longer one, so
///   reading it again only when it has doubled (or reached the cap) keeps the work linear;
/// - anything else is text.
#[derive(Debug, Default)]
struct Sniffer {
    /// Where the first byte that is not leading whitespace is (once it arrived).
    start: Option<usize>,
    /// Held bytes already searched for it.
    scanned: usize,
    /// How many bytes from `start` the Ollama check last read.
    parsed: usize,
}

impl Sniffer {
    /// The framing `held` shows; `None`: not known yet. `at_end`: nothing more will come.
    fn decide(&mut self, held: &[u8], max_line: usize, at_end: bool) -> Option<State> {
        let wait = |full: bool| if at_end || full { Some(State::Text) } else { None };
        if held.first() == Some(&0) {
            // A message length below 16 MiB starts with a zero byte; text never does.
            if held.len() < 12 {
                return wait(false);
            }
            return Some(if prelude_checks(held) { State::EventStream } else { State::Text });
        }
        const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
        let n = held.len().min(3);
        let from = match () {
            _ if held[..n] != BOM[..n] => 0,
            _ if n < 3 => return wait(false),
            _ => 3,
        };
        let start = match self.start {
            Some(s) => s,
            None => {
                // Only the first `max_line` bytes of whitespace are read: whatever follows.
                let at = self.scanned.max(from);
                let end = held.len().min(from.saturating_add(max_line));
                let found = held[at..end].iter().position(|c| !matches!(c, b'\r' | b'\n' | b' ' | b'\t'));
                self.scanned = end;
                match found {
                    Some(p) => *self.start.insert(at + p),
                    None => return wait(held.len() - from >= max_line),
                }
            }
        };
        let line = &held[start..];
        if line[0] == b'{' {
            let view = &line[..line.len().min(max_line)];
            let full = line.len() >= max_line;
            if !(at_end || full || view.len() >= 2 * self.parsed) {
                return None;
            }
            self.parsed = view.len();
            return match ollama_line(view, at_end) {
                Some(true) => Some(State::Ndjson),
                None => wait(full),
                Some(false) => Some(State::Text),
            };
        }
        // A field is one only at the start of a line.
        if start > from && !matches!(held[start - 1], b'\r' | b'\n') {
            return Some(State::Text);
        }
        const FIELDS: [&[u8]; 5] = [b":", b"data:", b"event:", b"id:", b"retry:"];
        if FIELDS.iter().any(|f| line.starts_with(f)) {
            return Some(State::Sse);
        }
        if FIELDS.iter().any(|f| f.starts_with(line)) {
            return wait(false);
        }
        Some(State::Text)
    }
}

/// Does a text starting with `{` begin an Ollama line? `None`: not known yet. `whole`: the
/// text is all there is (a line that ends the stream without its newline).
fn ollama_line(b: &[u8], whole: bool) -> Option<bool> {
    let valid = match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&b[..e.valid_up_to()]).unwrap_or(""),
    };
    let mut j = Json::new(valid);
    let r = (|| -> super::jscan::R<bool> {
        let mut m = j.object()?;
        let first = j.next_key(&mut m)?;
        match first {
            Some("model") => {
                j.skip()?;
                // Cloud models name where they ran (`remote_model`, `remote_host`) between the
                // two.
                loop {
                    match j.next_key(&mut m)? {
                        Some(k) if k.starts_with("remote_") => j.skip()?,
                        k => return Ok(k == Some("created_at")),
                    }
                }
            }
            Some("error") if j.kind()? == Kind::String => {
                j.skip()?;
                Ok(j.next_key(&mut m)?.is_none())
            }
            _ => Ok(false),
        }
    })();
    match r {
        Ok(yes) => Some(yes),
        // Ran off the end of what has arrived: wait for more.
        Err(bad) if bad.0 >= valid.len() && !whole => None,
        Err(_) => Some(false),
    }
}

/// One NDJSON line to the Ollama reader (blank lines skipped; a malformed one is an error
/// delta, and reading goes on).
fn ndjson_line(f: &mut Formats, line: &[u8], sink: &mut dyn DeltaSink) {
    // Nothing after the `done: true` line is routed.
    if f.ollama.ended {
        return;
    }
    let line = lossy(line);
    let line = line.trim();
    if line.is_empty() {
        return;
    }
    if !f.recognised {
        f.recognised = ollama_line(line.as_bytes(), true) == Some(true);
    }
    if let Err(bad) = f.ollama.line(line, sink) {
        bad_json(sink, bad, format_args!("malformed ollama line: bad JSON at byte {} of it", bad.0));
    }
}

/// Hands each event-stream message to the Bedrock reader.
struct Frames<'a> {
    f: &'a mut Formats,
    sink: &'a mut dyn DeltaSink,
}

impl EventStreamSink for Frames<'_> {
    fn message(&mut self, m: &EventStreamMessage<'_>) {
        self.f.recognised = true;
        let data = lossy(m.payload);
        if let Err(bad) = self.f.bedrock.message(m, &data, self.sink) {
            bad_json(
                self.sink,
                bad,
                format_args!("malformed bedrock {} event: bad JSON at byte {} of its payload", Quoted(m.event_type), bad.0),
            );
        }
    }
}

/// Reports a document a reader could not read: `provider_event_invalid` with `what`, or
/// `memory_limit_exceeded` when memory ran out decoding one of its strings.
#[cold]
fn bad_json(sink: &mut dyn DeltaSink, bad: Bad, what: std::fmt::Arguments<'_>) {
    if bad == Bad::OUT_OF_MEMORY {
        sink.error("memory_limit_exceeded", "out of memory decoding a string of a provider event");
    } else {
        sink.error("provider_event_invalid", &what.to_string());
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
        if self.f.closed() {
            return;
        }
        if is_done(data) {
            // The OpenAI end marker (some proxies append it to other formats too).
            self.f.done_marker = true;
            if matches!(self.f.active, None | Some(Provider::OpenAiChat)) {
                self.f.active = Some(Provider::OpenAiChat);
                let _ = self.f.chat.event(data, self.sink);
            }
            return;
        }
        let provider = match self.f.active {
            Some(p) => {
                if !self.f.recognised {
                    self.f.recognised = shows(detect(event, data), p);
                }
                p
            }
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
                    self.sink
                        .error("provider_event_unknown", &format!("an event of no known provider format: {}", Quoted(&shown)));
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
            Provider::GeminiInteractions => f.interactions.event(data, sink),
            Provider::Cohere => f.cohere.event(event, data, sink),
            // NDJSON and binary framings never reach the SSE dispatcher; an SSE stream named
            // one of them is read as plain event data.
            Provider::Ollama | Provider::Bedrock | Provider::Text | Provider::Auto => {
                sink.text(data);
                Ok(())
            }
        };
        if let Err(bad) = r {
            bad_json(sink, bad, format_args!("malformed {} event: bad JSON at byte {} of its data", provider.as_str(), bad.0));
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
    if is_interactions_event(event) {
        return Detected::Format(Provider::GeminiInteractions);
    }
    if COHERE_EVENTS.contains(&event) {
        return Detected::Format(Provider::Cohere);
    }
    let mut kind = String::new();
    // Gemini Interactions events name themselves in `event_type`.
    let mut event_type = String::new();
    let (mut choices, mut gemini, mut error_object, mut object_chat) = (false, false, false, false);
    // Every Responses event carries a `sequence_number`; Anthropic's never do.
    let mut sequenced = false;
    let mut j = Json::new(data);
    let scanned = (|| -> super::jscan::R<()> {
        let mut m = j.object()?;
        while let Some(k) = j.next_key(&mut m)? {
            match k {
                "type" if j.kind()? == Kind::String => {
                    j.string_into(&mut kind)?;
                }
                "event_type" if j.kind()? == Kind::String => {
                    j.string_into(&mut event_type)?;
                }
                "object" if j.kind()? == Kind::String => {
                    object_chat = j.string_raw()?.starts_with("chat.completion");
                }
                "choices" => {
                    choices = true;
                    j.skip()?;
                }
                "sequence_number" => {
                    sequenced = true;
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
    if is_interactions_event(&event_type) || event_type == "error" {
        return Detected::Format(Provider::GeminiInteractions);
    }
    if ANTHROPIC_EVENTS.contains(&kind.as_str()) {
        return Detected::Format(Provider::Anthropic);
    }
    if COHERE_EVENTS.contains(&kind.as_str()) {
        return Detected::Format(Provider::Cohere);
    }
    if kind == "error" {
        return Detected::Format(if error_object && !sequenced { Provider::Anthropic } else { Provider::OpenAiResponses });
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

/// Is `name` a Gemini Interactions event name (`interaction.created`, `step.delta`, ...)?
fn is_interactions_event(name: &str) -> bool {
    name.starts_with("interaction.") || name.starts_with("step.")
}

/// Do the first 12 bytes make an event-stream prelude whose CRC checks?
fn prelude_checks(first: &[u8]) -> bool {
    first.len() >= 12 && crate::eventstream::crc32(&first[..8]).to_be_bytes() == first[8..12]
}

/// Is `detected` an event of format `p`? (A bare `{"error": {...}}`, OpenAI's and Gemini's
/// alike, shows no format: such a stream looks like none either.)
fn shows(detected: Detected, p: Provider) -> bool {
    matches!(detected, Detected::Format(f) if f == p)
}

/// The format the first bytes of a stream look like (as `auto` would tell them: the framing,
/// then for an event stream its first telling event); `None` when they tell none (nothing
/// but whitespace, an event stream of no known format, a cut prelude).
fn looks_like(first: &[u8]) -> Option<Provider> {
    if first.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    if prelude_checks(first) {
        return Some(Provider::Bedrock);
    }
    match Sniffer::default().decide(first, usize::MAX, true)? {
        State::Ndjson => Some(Provider::Ollama),
        State::EventStream => Some(Provider::Bedrock),
        State::Text if first.first() == Some(&0) => None,
        State::Text => Some(Provider::Text),
        _ => {
            struct First(Option<Provider>);
            impl SseSink for First {
                fn event(&mut self, event: &str, data: &str, _id: &str) {
                    if self.0.is_none() {
                        match detect(event, data) {
                            Detected::Format(p) => self.0 = Some(p),
                            _ if is_done(data) => self.0 = Some(Provider::OpenAiChat),
                            _ => {}
                        }
                    }
                }
            }
            let mut sse = SseDecoder::new(SseDecoderOptions { flush_on_finish: true, ..SseDecoderOptions::default() });
            let mut found = First(None);
            let _ = sse.feed(first, &mut found);
            let _ = sse.finish(&mut found);
            found.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::delta::ModelDelta;
    use super::*;

    #[test]
    fn a_document_that_ran_out_of_memory_is_memory_limit_exceeded() {
        let mut out: Vec<ModelDelta> = Vec::new();
        bad_json(&mut out, Bad::OUT_OF_MEMORY, format_args!("malformed x event: bad JSON at byte {} of its data", 1));
        bad_json(&mut out, Bad(7), format_args!("malformed x event: bad JSON at byte {} of its data", 7));
        let codes: Vec<(&str, &str)> = out
            .iter()
            .map(|d| match d {
                ModelDelta::Error { code, message } => (code.as_str(), message.as_str()),
                _ => ("", ""),
            })
            .collect();
        assert_eq!(
            codes,
            [
                ("memory_limit_exceeded", "out of memory decoding a string of a provider event"),
                ("provider_event_invalid", "malformed x event: bad JSON at byte 7 of its data"),
            ]
        );
    }
}
