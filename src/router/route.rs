//! `StreamRouter`: raw provider bytes in, routed UI events out, in one pass.
//!
//! Advice for hackers: the router is a `ProviderDecoder` plus one `DeltaSink` (`Route`) that
//! turns each delta into `RoutedEvent`s as it arrives:
//! - text goes through the content mode: `text` passes it through as `answer_delta`;
//!   `action-json` feeds it to the `AnswerExtractor` (answer text as `answer_delta`, the
//!   top-level `thought` as `thinking_delta {source: "thought"}`) and, the moment the action
//!   object closes, normalises the text up to its closing brace into an `action` event (once
//!   answer text was streamed, the action is the object it came from, a final response whose
//!   answer begins with that text, equal when the object closed: `action::candidate`);
//!   `tagged` feeds it to the nonce `TagFilter`.
//! - reasoning is `thinking_delta {source: "reasoning"}`; tool call starts and argument text
//!   pass through; at a call's end its arguments are parsed (strict, else repaired) into a
//!   `tool_call` event.
//! - `finish()` ends open calls, flushes the content machine and closes with `done {ok,
//!   parse_ok, finish_reason}`; a stream that ended without its end marker gets an
//!   `error {code: "stream_truncated"}` first.
//!
//! Adjacent text events of the same kind are coalesced within one call, so a feed that
//! covers many provider events returns few events. Which call returns an event depends on
//! the chunking; the events and (for text) their concatenation do not. Caps: one SSE event
//! (`max_event_bytes`), and one budget (`max_buffer_bytes`) for everything kept between
//! events: every open tool call (id, name, arguments), the action text until the action
//! closes and the answer text the extractor holds back (its peak). The budget is checked
//! where a tool call grows and at the end of each batch of text (batches never span a tool
//! event, and the action charge only grows until the action closes), so whether it is hit
//! does not depend on the chunking. Hitting a cap is a thrown `buffer_limit_exceeded`;
//! running out of memory while a kept buffer grows is `memory_limit_exceeded`. After
//! either the router stays failed.

use super::decoder::{Provider, ProviderDecoder, ProviderDecoderOptions};
use super::delta::{DeltaSink, Usage};
use super::tools::ByIndex;
use crate::budget::{grow_string, try_push, try_push_str, try_to_string, Budget};
use crate::json::JsonValue;
use crate::json::Quoted;
use crate::{AnswerExtractor, AnswerExtractorOptions, Error, ErrorKind, PlannerAction, Result};

/// The default budget of bytes a router keeps (`max_buffer_bytes`): 16 MiB.
pub const DEFAULT_MAX_BUFFER_BYTES: usize = 16 << 20;

/// How text is routed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentMode {
    /// Text is a planner action: answer extraction plus the normalised action.
    ActionJson,
    /// Text is nonce-tagged blocks (`[ARTIFACT:<nonce>]...`).
    Tagged,
    /// Text is the answer.
    Text,
}

impl ContentMode {
    /// Parses `action-json`, `tagged` or `text`.
    ///
    /// # Errors
    /// `invalid_option` for any other name.
    pub fn parse(name: &str) -> Result<ContentMode> {
        match name {
            "action-json" => Ok(ContentMode::ActionJson),
            "tagged" => Ok(ContentMode::Tagged),
            "text" => Ok(ContentMode::Text),
            _ => Err(Error::new(
                ErrorKind::InvalidOption,
                format!("content must be one of action-json, tagged, text; got {}", Quoted(name)),
            )),
        }
    }
}

/// Options of [`StreamRouter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRouterOptions {
    /// The stream format.
    pub provider: Provider,
    /// How text is routed.
    pub content: ContentMode,
    /// The nonce of the tag contract (`content: Tagged` only).
    pub nonce: Option<String>,
    /// The most data bytes of one SSE event (default 8 MiB).
    pub max_event_bytes: usize,
    /// The most bytes kept between events, all together: open tool calls, the action text
    /// until it closes and held answer text (default 16 MiB, `buffer_limit_exceeded`).
    pub max_buffer_bytes: usize,
}

impl Default for StreamRouterOptions {
    fn default() -> Self {
        StreamRouterOptions {
            provider: Provider::Auto,
            content: ContentMode::Text,
            nonce: None,
            max_event_bytes: ProviderDecoderOptions::default().max_event_bytes,
            max_buffer_bytes: DEFAULT_MAX_BUFFER_BYTES,
        }
    }
}

/// Where a `thinking_delta` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), serde(rename_all = "snake_case"))]
pub enum ThinkingSource {
    /// The provider's reasoning / thinking channel.
    Reasoning,
    /// The `thought` key of a planner action.
    Thought,
}

impl ThinkingSource {
    /// `"reasoning"` or `"thought"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingSource::Reasoning => "reasoning",
            ThinkingSource::Thought => "thought",
        }
    }
}

/// One routed event; in JS an object tagged by `type`, the variant's name in snake_case.
// Its TypeScript declaration is `RoutedEventType`; src/wasm/router.rs declares `RoutedEvent`
// over it (a `tool_result` there also carries `provider_executed: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    serde(tag = "type", rename_all = "snake_case"),
    tsify(rename = "RoutedEventType", missing_as_null)
)]
pub enum RoutedEvent {
    /// User-facing answer text.
    AnswerDelta {
        /// The new text.
        text: String,
        /// The phase of the message the text belongs to, where the provider marks it (OpenAI
        /// `message.phase`: `"commentary"` or `"final_answer"`; absent in JS when unmarked).
        #[cfg_attr(target_arch = "wasm32", tsify(optional))]
        phase: Option<String>,
    },
    /// Reasoning or thought text.
    ThinkingDelta {
        /// The new text.
        text: String,
        /// Where it comes from.
        source: ThinkingSource,
    },
    /// Text of the tagged artifact block.
    ArtifactDelta {
        /// The new text.
        text: String,
    },
    /// Text of the tagged user block.
    UserDelta {
        /// The new text.
        text: String,
    },
    /// A tool call begins.
    ToolCallStart {
        /// The provider's index of the call.
        index: u32,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The provider runs the tool itself (web search, code execution, ...).
        provider_executed: bool,
        /// Who called the tool, as the provider says (`{type: "direct" | "code_execution_…" |
        /// "program", …}`; absent in JS when the provider says nothing).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown", optional))]
        caller: Option<JsonValue>,
    },
    /// Raw argument text of a tool call.
    ToolCallDelta {
        /// The call's index.
        index: u32,
        /// The new argument text.
        arguments: String,
    },
    /// A complete tool call with parsed arguments.
    ToolCall {
        /// The call's index.
        index: u32,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The parsed arguments (`{}` for empty text; `null` when nothing could be repaired).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
        arguments: JsonValue,
        /// The argument text was not valid JSON and went through the repairer.
        repaired: bool,
        /// The provider runs the tool itself; its result follows as `ToolResult`.
        provider_executed: bool,
        /// Who called the tool (as on `ToolCallStart`).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown", optional))]
        caller: Option<JsonValue>,
    },
    /// The result of a provider-executed tool call.
    ToolResult {
        /// The call's index.
        index: u32,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The result (parsed JSON; a string when it was not JSON).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
        result: JsonValue,
    },
    /// A cited source (citations, annotations, grounding), each once per stream.
    Source(#[cfg_attr(target_arch = "wasm32", tsify(type = "RoutedSource"))] super::delta::Source),
    /// Refusal text.
    RefusalDelta {
        /// The new text.
        text: String,
    },
    /// The normalised planner action (`content: ActionJson`).
    Action {
        /// The action.
        action: PlannerAction,
    },
    /// Token counts (only when they changed).
    Usage(#[cfg_attr(target_arch = "wasm32", tsify(type = "UsageCounts"))] Usage),
    /// The end of the stream.
    Done {
        /// The stream completed: its end marker came and no error was reported.
        ok: bool,
        /// The content parsed by its contract (always true for `content: Text`).
        parse_ok: bool,
        /// The provider's last finish reason.
        finish_reason: Option<String>,
        /// The finish reason, normalised.
        finish: Finish,
        /// `content: Tagged`: the contract's violations, those of the blocks in the order found,
        /// then a `nonce_in_text` for each occurrence of the nonce outside them (its `offset` is
        /// in that channel's text: the reasoning, the refusal, a call's arguments; 0 in a whole
        /// value). Empty in the other modes (absent in JS).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "TagViolation[]", optional))]
        violations: Vec<crate::TagViolation>,
        /// The provider's details of why it stopped (Anthropic `stop_details`), as sent.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown", optional))]
        stop_details: Option<JsonValue>,
        /// The provider's message about the finish (Gemini `finishMessage`).
        #[cfg_attr(target_arch = "wasm32", tsify(optional))]
        finish_message: Option<String>,
    },
    /// Something the next request must send back unmodified (a thinking signature, an
    /// encrypted reasoning item, a thought signature, ...): `kind` and the provider's own
    /// fields (in JS spread onto the event).
    Continuation {
        /// What it is (`thinking_signature`, `redacted_thinking`, `reasoning`, `compaction`,
        /// `thought_signature`, `item`).
        kind: String,
        /// The provider's own fields, a JSON object.
        #[cfg_attr(target_arch = "wasm32", serde(skip))]
        fields: JsonValue,
    },
    /// Context compaction text (Anthropic `compaction` blocks): not answer text.
    Compaction {
        /// The new text.
        text: String,
    },
    /// The provider answered with another model than the one asked for.
    ModelFallback {
        /// The model asked for.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
        from: JsonValue,
        /// The model that answered.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
        to: JsonValue,
    },
    /// The provider's execution container (Anthropic `container`): its fields, spread onto the
    /// event in JS (`id`, `expires_at`).
    Container {
        /// The provider's own fields, a JSON object.
        #[cfg_attr(target_arch = "wasm32", serde(skip))]
        fields: JsonValue,
    },
    /// A provider error, an unreadable event, or a truncated stream.
    Error {
        /// A stable code: the provider's own code or type where it sent one, else one of
        /// the router's (`provider_error`, `provider_event_invalid`, ...).
        code: String,
        /// A human message (the provider's own, where it sent one).
        message: String,
        /// The provider's own error code, where it sent one.
        provider_code: Option<String>,
    },
}

/// Why the model stopped, normalised across providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), serde(rename_all = "kebab-case"))]
pub enum Finish {
    /// A natural stop (`stop`, `end_turn`, `STOP`, `completed`, ...).
    Stop,
    /// The output hit its token limit.
    Length,
    /// The model stopped to have tools called (by the client).
    ToolCalls,
    /// A safety or content filter, or a refusal, stopped the output.
    ContentFilter,
    /// The stream failed (an error event, a truncated stream).
    Error,
    /// Any other reason.
    Other,
}

impl Finish {
    /// `"stop"`, `"length"`, `"tool-calls"`, `"content-filter"`, `"error"` or `"other"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Finish::Stop => "stop",
            Finish::Length => "length",
            Finish::ToolCalls => "tool-calls",
            Finish::ContentFilter => "content-filter",
            Finish::Error => "error",
            Finish::Other => "other",
        }
    }

    /// Normalises a provider's finish reason. (The router finishes a stream that routed
    /// refusal text as `ContentFilter` whatever its reason.) A natural stop after client tool calls is
    /// `ToolCalls` (a Responses `completed` or a Gemini `STOP` that carries calls); an
    /// errored stream is `Error` unless a content filter stopped it.
    pub fn of(reason: Option<&str>, client_tool_calls: bool, errored: bool) -> Finish {
        let base = match reason {
            None
            | Some(
                "stop" | "end_turn" | "stop_sequence" | "STOP" | "completed" | "pause_turn" | "eos" | "COMPLETE"
                | "STOP_SEQUENCE",
            ) => {
                if reason.is_none() && errored {
                    Finish::Error
                } else if client_tool_calls {
                    Finish::ToolCalls
                } else {
                    Finish::Stop
                }
            }
            Some("length" | "max_tokens" | "MAX_TOKENS" | "max_output_tokens" | "model_length") => Finish::Length,
            Some("tool_calls" | "function_call" | "tool_use" | "requires_action" | "TOOL_CALL") => Finish::ToolCalls,
            Some(
                "content_filter"
                | "content_filtered"
                | "guardrail_intervened"
                | "refusal"
                | "SAFETY"
                | "RECITATION"
                | "BLOCKLIST"
                | "PROHIBITED_CONTENT"
                | "SPII"
                | "IMAGE_SAFETY"
                | "IMAGE_PROHIBITED_CONTENT"
                | "LANGUAGE",
            ) => Finish::ContentFilter,
            Some("MALFORMED_FUNCTION_CALL" | "UNEXPECTED_TOOL_CALL" | "error" | "failed" | "ERROR") => Finish::Error,
            Some(_) => Finish::Other,
        };
        match base {
            Finish::ContentFilter | Finish::Error => base,
            _ if errored => Finish::Error,
            _ => base,
        }
    }
}

/// Error codes the router itself gives (not a provider's own).
const OWN_CODES: [&str; 6] =
    ["provider_error", "provider_event_invalid", "provider_event_unknown", "provider_mismatch", "stream_truncated", "http_error"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Finished,
    Failed,
}

/// Routes a raw provider stream (see the module docs).
#[derive(Debug)]
pub struct StreamRouter {
    decoder: ProviderDecoder,
    route: Route,
    /// `content: Tagged`: the nonce masked out of the events outside the blocks.
    masks: Option<Box<super::tagged::Masks>>,
    state: State,
    failure: Option<Error>,
}

impl StreamRouter {
    /// A router.
    ///
    /// # Errors
    /// `invalid_option` for `content: Tagged` without a nonce or with a bad one.
    pub fn new(options: StreamRouterOptions) -> Result<StreamRouter> {
        let content = match options.content {
            ContentMode::Text => Content::Text,
            ContentMode::ActionJson => Content::Action(Box::new(ActionState::new(options.max_buffer_bytes))),
            ContentMode::Tagged => Content::tagged(options.nonce.as_deref())?,
        };
        let masks = match (&content, &options.nonce) {
            (Content::Tagged(_), Some(nonce)) => Some(Box::new(super::tagged::Masks::new(nonce))),
            _ => None,
        };
        Ok(StreamRouter {
            decoder: ProviderDecoder::new(ProviderDecoderOptions {
                provider: options.provider,
                max_event_bytes: options.max_event_bytes,
            }),
            route: Route {
                content,
                out: Vec::new(),
                calls: ByIndex::default(),
                finish_reason: None,
                errors: 0,
                usage: None,
                failure: None,
                answer: String::new(),
                answer_room: 0,
                client_calls: false,
                refused: false,
                sources: crate::hash::Set::default(),
                pending: String::new(),
                scratch: String::new(),
                budget: Budget::new(options.max_buffer_bytes),
                action_charge: 0,
                phase: None,
                stop_details: None,
                finish_message: None,
            },
            masks,
            state: State::Running,
            failure: None,
        })
    }

    /// The detected (or configured) provider format.
    pub fn provider(&self) -> Provider {
        self.decoder.provider()
    }

    /// Routes a chunk, appending the events it completes to `out`.
    ///
    /// # Errors
    /// `sse_event_too_large`, `buffer_limit_exceeded` (caps), `memory_limit_exceeded` (a
    /// kept buffer could not grow), `invalid_state` after `finish()`. Events produced before
    /// the error are still appended; the router then stays failed.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<RoutedEvent>) -> Result<()> {
        self.check()?;
        let r = self.decoder.feed(chunk, &mut self.route);
        self.settle(r, out)
    }

    /// Ends the stream: the last events and `done`.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn finish(&mut self, out: &mut Vec<RoutedEvent>) -> Result<()> {
        self.check()?;
        let r = self.decoder.finish(&mut self.route);
        let r = r.and_then(|()| {
            let ended = self.decoder.ended();
            let plain = self.decoder.provider() == Provider::Text;
            self.route.end(ended || plain)
        });
        self.settle(r, out)?;
        self.state = State::Finished;
        Ok(())
    }

    fn check(&self) -> Result<()> {
        match self.state {
            State::Running => Ok(()),
            State::Failed => {
                Err(self.failure.clone().unwrap_or_else(|| Error::new(ErrorKind::InvalidState, "router failed earlier")))
            }
            State::Finished => Err(Error::new(ErrorKind::InvalidState, "feed or finish after finish()")),
        }
    }

    #[inline]
    fn settle(&mut self, r: Result<()>, out: &mut Vec<RoutedEvent>) -> Result<()> {
        self.route.flush_pending();
        self.route.flush_answer();
        if let Some(m) = &mut self.masks {
            m.apply(&mut self.route.out);
        }
        if !self.route.out.is_empty() {
            out.append(&mut self.route.out);
        }
        if r.is_ok() && self.route.failure.is_none() {
            return Ok(());
        }
        self.settle_failure(r)
    }

    /// The failure of a call: the router stays failed with it.
    #[cold]
    fn settle_failure(&mut self, r: Result<()>) -> Result<()> {
        let r = match (r, self.route.failure.take()) {
            (Err(e), _) | (Ok(()), Some(e)) => Err(e),
            (Ok(()), None) => Ok(()),
        };
        if let Err(e) = &r {
            self.state = State::Failed;
            self.failure = Some(e.clone());
        }
        r
    }
}

/// A tool call being assembled.
#[derive(Debug)]
struct Call {
    index: u32,
    id: String,
    name: String,
    args: String,
    provider_executed: bool,
    caller: Option<JsonValue>,
    /// The caller's JSON text length (what it is charged).
    caller_bytes: usize,
}

impl Call {
    /// The bytes this call keeps (what the budget charges for it while it is open).
    fn kept(&self) -> usize {
        OPEN_CALL_BYTES + self.id.len() + self.name.len() + self.args.len() + self.caller_bytes
    }
}

/// What an open tool call is charged besides its id, name and arguments: its place here and
/// in the provider reader that tracks it. Open calls have no count of their own; the budget
/// bounds them.
const OPEN_CALL_BYTES: usize = 64;

/// What every tool call started is charged until the stream ends: the reader remembers its
/// index, so that a repeated start does not start it again.
const STARTED_CALL_BYTES: usize = 16;

/// The action-json machine: the extractor and the text it has read (until the action closes).
#[derive(Debug)]
struct ActionState {
    extractor: AnswerExtractor,
    text: String,
    /// The answer text streamed so far (until the action closes).
    streamed: String,
    emitted: bool,
    parse_ok: bool,
}

impl ActionState {
    fn new(max_buffer_bytes: usize) -> Self {
        ActionState {
            extractor: AnswerExtractor::new(AnswerExtractorOptions { max_buffer_bytes }),
            text: String::new(),
            streamed: String::new(),
            emitted: false,
            parse_ok: false,
        }
    }

    /// The candidate the streamed answer came from, ending at `end` of the text.
    fn streamed_candidate(&mut self, end: usize, complete: bool) -> Option<crate::action::candidate::Streamed> {
        if self.streamed.is_empty() {
            return None;
        }
        let start = usize::try_from(self.extractor.action_start()?).ok()?;
        let text = std::mem::take(&mut self.streamed);
        Some(crate::action::candidate::Streamed { start: start.min(end), end, text, complete })
    }
}

#[derive(Debug)]
enum Content {
    Text,
    Action(Box<ActionState>),
    Tagged(Box<super::tagged::Tagged>),
}

impl Content {
    fn tagged(nonce: Option<&str>) -> Result<Content> {
        Ok(Content::Tagged(Box::new(super::tagged::Tagged::new(nonce)?)))
    }
}

/// The sink half of the router.
#[derive(Debug)]
struct Route {
    content: Content,
    out: Vec<RoutedEvent>,
    /// Open calls by index, in start order.
    calls: ByIndex<Call>,
    finish_reason: Option<String>,
    errors: usize,
    usage: Option<Usage>,
    failure: Option<Error>,
    /// Answer text not yet pushed as an event (coalesced across deltas).
    answer: String,
    /// The length of the last answer event's text (at most `MAX_PENDING`): the room
    /// `answer` takes when it grows again.
    answer_room: usize,
    /// A client (not provider-executed) tool call was routed.
    client_calls: bool,
    /// Refusal text was routed: the stream finishes as `content-filter`, whatever the
    /// provider's reason.
    refused: bool,
    /// Hashes of the sources routed so far (each source once).
    sources: crate::hash::Set<u64>,
    /// Model text not yet given to the content machine (action-json, tagged): the text
    /// deltas of one call go in at once, which spares a machine call per delta.
    pending: String,
    scratch: String,
    /// Everything kept between events: open calls and `action_charge`.
    budget: Budget,
    /// What the open action is charged: its text plus the extractor's peak held answer.
    action_charge: usize,
    /// The phase of the answer text being routed (`DeltaSink::phase`).
    phase: Option<String>,
    /// The provider's stop details and finish message, for `done`.
    stop_details: Option<JsonValue>,
    finish_message: Option<String>,
}

/// Most text batched for the content machine before it is fed.
const MAX_PENDING: usize = 64 << 10;

/// Which text event kind a piece of text belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextKind {
    Thinking(ThinkingSource),
    Artifact,
    User,
}

impl Route {
    fn fail(&mut self, e: Error) {
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }

    /// Feeds the batched text to the content machine.
    #[inline]
    fn flush_pending(&mut self) {
        if !self.pending.is_empty() {
            self.feed_pending();
        }
    }

    fn feed_pending(&mut self) {
        let text = std::mem::take(&mut self.pending);
        self.content_text(&text);
        self.pending = text;
        self.pending.clear();
    }

    /// Pushes the pending answer text as one event.
    #[inline]
    fn flush_answer(&mut self) {
        if !self.answer.is_empty() {
            self.push_answer_event();
        }
    }

    fn push_answer_event(&mut self) {
        let r = match self.out.last_mut() {
            Some(RoutedEvent::AnswerDelta { text: t, phase }) if *phase == self.phase => {
                let r = try_push_str(t, &self.answer);
                if self.answer.capacity() > MAX_PENDING {
                    self.answer = String::new(); // a large buffer is not kept between feeds
                } else {
                    self.answer.clear();
                }
                r
            }
            _ => {
                self.answer_room = self.answer.len().min(MAX_PENDING);
                let text = std::mem::take(&mut self.answer);
                let phase = self.phase.clone();
                try_push(&mut self.out, RoutedEvent::AnswerDelta { text, phase })
            }
        };
        self.kept(r);
    }

    /// Appends answer text. A buffer that has to grow (after `flush_answer` handed the last
    /// one out) takes at once the room the last event's text took, not a doubling per push.
    #[inline]
    fn push_answer(&mut self, text: &str) -> Result<()> {
        if self.answer.capacity() - self.answer.len() < text.len() {
            grow_string(&mut self.answer, text.len().max(self.answer_room))?;
        }
        self.answer.push_str(text);
        Ok(())
    }

    /// Fails the router when keeping something ran out of memory.
    fn kept(&mut self, r: Result<()>) {
        if let Err(e) = r {
            self.fail(e);
        }
    }

    /// Appends text of `kind`, coalescing with the event before it.
    pub(crate) fn push_text(&mut self, kind: TextKind, text: &str) {
        if text.is_empty() {
            return;
        }
        self.flush_answer();
        let r = match (self.out.last_mut(), kind) {
            (Some(RoutedEvent::ThinkingDelta { text: t, source }), TextKind::Thinking(s)) if *source == s => {
                try_push_str(t, text)
            }
            (Some(RoutedEvent::ArtifactDelta { text: t }), TextKind::Artifact)
            | (Some(RoutedEvent::UserDelta { text: t }), TextKind::User) => try_push_str(t, text),
            _ => try_to_string(text).and_then(|text| {
                let e = match kind {
                    TextKind::Thinking(source) => RoutedEvent::ThinkingDelta { text, source },
                    TextKind::Artifact => RoutedEvent::ArtifactDelta { text },
                    TextKind::User => RoutedEvent::UserDelta { text },
                };
                try_push(&mut self.out, e)
            }),
        };
        self.kept(r);
    }

    fn push(&mut self, e: RoutedEvent) {
        self.flush_answer();
        let r = try_push(&mut self.out, e);
        self.kept(r);
    }

    fn content_text(&mut self, text: &str) {
        let a = match &mut self.content {
            Content::Text => {
                let r = self.push_answer(text);
                self.kept(r);
                return;
            }
            Content::Tagged(t) => {
                let mut pieces = Vec::new();
                let r = t.feed(text.as_bytes(), &mut pieces);
                for (kind, piece) in pieces {
                    self.push_text(kind, &piece);
                }
                if let Err(e) = r {
                    self.fail(e);
                }
                return;
            }
            Content::Action(a) => a,
        };
        if !a.emitted {
            // Charged after the batch (`charge_action`), when it is known where the action
            // closed: what comes after its end is not the action's. A batch is at most 64 KiB
            // plus one SSE event's text, so this never outgrows the budget by more.
            if let Err(e) = try_push_str(&mut a.text, text) {
                self.fail(e);
                return;
            }
        }
        let mut fresh = std::mem::take(&mut self.scratch);
        fresh.clear();
        let r = a.extractor.feed_into(text.as_bytes(), &mut fresh);
        let late = a.extractor.thought_follows_answer();
        let thought = a.extractor.take_thought();
        let closed = if a.emitted { None } else { a.extractor.action_end() };
        let streamed = if a.emitted { Ok(()) } else { try_push_str(&mut a.streamed, &fresh) };
        self.kept(r.and(streamed));
        // Thought and answer in the order the action wrote them.
        if late {
            let r = self.push_answer(&fresh);
            self.kept(r);
            self.push_text(TextKind::Thinking(ThinkingSource::Thought), &thought);
        } else {
            self.push_text(TextKind::Thinking(ThinkingSource::Thought), &thought);
            let r = self.push_answer(&fresh);
            self.kept(r);
        }
        self.scratch = fresh;
        if let Err(e) = self.charge_action(closed) {
            self.fail(e);
        } else if let Some(end) = closed {
            self.action_closed(end as usize);
        }
    }

    /// Charges the open action (its text, up to its end when it closed, plus the extractor's
    /// peak held answer) to the budget.
    fn charge_action(&mut self, closed: Option<u64>) -> Result<()> {
        let Content::Action(a) = &self.content else { return Ok(()) };
        if a.emitted {
            return Ok(());
        }
        let text = closed.map_or(a.text.len(), |end| a.text.len().min(end as usize));
        let now = text + a.extractor.peak_held_bytes();
        self.budget.release(self.action_charge);
        self.action_charge = 0;
        self.budget.charge(now, "the action text and held answer")?;
        self.action_charge = now;
        Ok(())
    }

    /// The action object closed at byte `end` of the action text: normalise it.
    fn action_closed(&mut self, end: usize) {
        let Content::Action(a) = &mut self.content else { return };
        a.emitted = true;
        let mut end = end.min(a.text.len());
        while !a.text.is_char_boundary(end) {
            end -= 1;
        }
        let streamed = a.streamed_candidate(end, true);
        let r = crate::action::normalize_streamed(crate::text::sub(&a.text, ..end), streamed.as_ref());
        a.text = String::new();
        self.budget.release(self.action_charge);
        self.action_charge = 0;
        if let Ok(action) = r {
            a.parse_ok = true;
            self.push(RoutedEvent::Action { action });
        }
    }

    fn call_done(&mut self, c: Call) {
        self.budget.release(c.kept());
        let (arguments, repaired) = parse_arguments(&c.args);
        self.client_calls |= !c.provider_executed;
        self.push(RoutedEvent::ToolCall {
            index: c.index,
            id: c.id,
            name: c.name,
            arguments,
            repaired,
            provider_executed: c.provider_executed,
            caller: c.caller,
        });
    }

    /// The end of the stream (`terminated`: the provider's end marker came, or plain text).
    fn end(&mut self, terminated: bool) -> Result<()> {
        self.flush_pending();
        while let Some((_, c)) = self.calls.pop_first() {
            self.call_done(c);
        }
        let mut violations = Vec::new();
        let parse_ok = match &mut self.content {
            Content::Text => true,
            Content::Action(a) => {
                let tail = a.extractor.finish();
                let thought = a.extractor.take_thought();
                let pending = !a.emitted && !a.text.trim().is_empty();
                let kept = match &tail {
                    Ok(t) => try_push_str(&mut a.streamed, t),
                    Err(_) => Ok(()),
                };
                let streamed = if pending { a.streamed_candidate(a.text.len(), false) } else { None };
                let text = std::mem::take(&mut a.text);
                let parse_ok = a.parse_ok;
                self.push_text(TextKind::Thinking(ThinkingSource::Thought), &thought);
                self.kept(kept);
                match tail {
                    Ok(t) => {
                        let r = self.push_answer(&t);
                        self.kept(r);
                    }
                    Err(e) => self.fail(e),
                }
                if pending {
                    // No complete action object: the normaliser may still recover one
                    // (repaired or truncated), but the content did not parse as written.
                    // Once answer text was streamed, it is the action's answer.
                    if let Ok(action) = crate::action::normalize_streamed(&text, streamed.as_ref()) {
                        self.push(RoutedEvent::Action { action });
                    }
                }
                parse_ok
            }
            Content::Tagged(t) => {
                let mut pieces = Vec::new();
                let r = t.finish(&mut pieces);
                for (kind, piece) in pieces {
                    self.push_text(kind, &piece);
                }
                match r {
                    Ok(result) => {
                        violations = result.violations;
                        result.parse_ok
                    }
                    Err(e) => {
                        self.fail(e);
                        false
                    }
                }
            }
        };
        if !terminated && self.finish_reason.is_none() && self.errors == 0 {
            self.push(RoutedEvent::Error {
                code: "stream_truncated".into(),
                message: "the stream ended without its end marker or a finish reason".into(),
                provider_code: None,
            });
            self.errors += 1;
        }
        let ok = self.errors == 0;
        let finish_reason = self.finish_reason.clone();
        // A refusal is what a content filter is to a UI, for every provider (Anthropic says
        // `refusal` as its stop reason; OpenAI sends refusal text and then `stop`).
        let finish =
            if self.refused { Finish::ContentFilter } else { Finish::of(finish_reason.as_deref(), self.client_calls, !ok) };
        let (stop_details, finish_message) = (self.stop_details.take(), self.finish_message.take());
        self.push(RoutedEvent::Done { ok, parse_ok, finish_reason, finish, violations, stop_details, finish_message });
        match self.failure.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Route {
    /// Keeps `arguments` of call `index` (charged to the budget) and passes them on.
    fn call_delta(&mut self, index: u32, arguments: &str) -> Result<()> {
        let Some(c) = self.calls.get_mut(index) else { return Ok(()) };
        self.budget.charge(arguments.len(), "tool call arguments")?;
        if let Err(e) = try_push_str(&mut c.args, arguments) {
            self.budget.release(arguments.len());
            return Err(e);
        }
        match self.out.last_mut() {
            Some(RoutedEvent::ToolCallDelta { index: i, arguments: a }) if *i == index && self.answer.is_empty() => {
                try_push_str(a, arguments)
            }
            _ => {
                let arguments = try_to_string(arguments)?;
                self.push(RoutedEvent::ToolCallDelta { index, arguments });
                Ok(())
            }
        }
    }
}

/// A JSON value a provider reader hands over as text (already scanned; `null` if it is not
/// JSON after all).
fn json_of(text: &str) -> JsonValue {
    crate::parse_strict(text.as_bytes()).unwrap_or(JsonValue::Null)
}

/// Parses tool call arguments: strict JSON, else repaired; blank text is `{}`.
fn parse_arguments(args: &str) -> (JsonValue, bool) {
    if args.trim().is_empty() {
        return (JsonValue::Object(Vec::new()), false);
    }
    if let Ok(v) = crate::parse_strict(args.as_bytes()) {
        return (v, false);
    }
    match crate::repair_json_value(args) {
        Ok(v) => (v, true),
        Err(_) => (JsonValue::Null, true),
    }
}

impl DeltaSink for Route {
    fn text(&mut self, text: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        if matches!(self.content, Content::Text) {
            let r = self.push_answer(text);
            self.kept(r);
            return;
        }
        if let Err(e) = try_push_str(&mut self.pending, text) {
            self.fail(e);
            return;
        }
        if self.pending.len() >= MAX_PENDING {
            self.flush_pending();
        }
    }

    fn reasoning(&mut self, text: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.push_text(TextKind::Thinking(ThinkingSource::Reasoning), text);
    }

    fn tool_call_start(&mut self, index: u32, id: &str, name: &str, provider_executed: bool) {
        self.tool_call_start_by(index, id, name, provider_executed, None);
    }

    fn tool_call_start_by(&mut self, index: u32, id: &str, name: &str, provider_executed: bool, caller: Option<&str>) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        if let Some(c) = self.calls.remove(index) {
            self.call_done(c); // a reused index: the earlier call is complete
        }
        let caller_bytes = caller.map_or(0, str::len);
        let caller = caller.map(json_of);
        let charge = STARTED_CALL_BYTES + OPEN_CALL_BYTES + id.len() + name.len() + caller_bytes;
        if let Err(e) = self.budget.charge(charge, "an open tool call") {
            self.fail(e);
            return;
        }
        let call = Call {
            index,
            id: id.to_string(),
            name: name.to_string(),
            args: String::new(),
            provider_executed,
            caller: caller.clone(),
            caller_bytes,
        };
        self.calls.push(index, call);
        self.push(RoutedEvent::ToolCallStart { index, id: id.to_string(), name: name.to_string(), provider_executed, caller });
    }

    fn tool_result(&mut self, index: u32, id: &str, name: &str, result: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        if let Some(c) = self.calls.remove(index) {
            self.call_done(c); // the call's input is complete once its result is there
        }
        let result = match crate::parse_strict(result.as_bytes()) {
            Ok(v) => v,
            Err(_) => JsonValue::String(result.to_string()),
        };
        self.push(RoutedEvent::ToolResult { index, id: id.to_string(), name: name.to_string(), result });
    }

    fn source(&mut self, source: &super::delta::Source) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        let key = source_key(source);
        if self.sources.contains(&key) {
            return;
        }
        // Each source seen is remembered (a hash), and counts against the budget.
        if let Err(e) = self.budget.charge(std::mem::size_of::<u64>(), "the sources seen") {
            self.fail(e);
            return;
        }
        self.sources.insert(key);
        self.push(RoutedEvent::Source(source.clone()));
    }

    fn refusal(&mut self, text: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.flush_answer();
        self.refused = true;
        match self.out.last_mut() {
            Some(RoutedEvent::RefusalDelta { text: t }) => {
                let r = try_push_str(t, text);
                self.kept(r);
            }
            _ => {
                let r = try_to_string(text).and_then(|text| try_push(&mut self.out, RoutedEvent::RefusalDelta { text }));
                self.kept(r);
            }
        }
    }

    fn tool_call_delta(&mut self, index: u32, arguments: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        if let Err(e) = self.call_delta(index, arguments) {
            self.fail(e);
        }
    }

    fn tool_call_end(&mut self, index: u32) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        if let Some(c) = self.calls.remove(index) {
            self.call_done(c);
        }
    }

    fn usage(&mut self, usage: &Usage) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        if self.usage.as_ref() != Some(usage) {
            self.usage = Some(*usage);
            self.push(RoutedEvent::Usage(*usage));
        }
    }

    fn finish(&mut self, reason: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.finish_reason = Some(reason.to_string());
    }

    fn error(&mut self, code: &str, message: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.errors += 1;
        let provider_code = (!OWN_CODES.contains(&code)).then(|| code.to_string());
        self.push(RoutedEvent::Error { code: code.to_string(), message: message.to_string(), provider_code });
    }

    fn phase(&mut self, phase: Option<&str>) {
        if self.phase.as_deref() != phase {
            self.flush_pending();
            self.flush_answer();
            self.phase = phase.map(str::to_string);
        }
    }

    fn continuation(&mut self, kind: &str, fields: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.push(RoutedEvent::Continuation { kind: kind.to_string(), fields: json_of(fields) });
    }

    fn compaction(&mut self, text: &str) {
        if self.failure.is_some() || text.is_empty() {
            return;
        }
        self.flush_pending();
        self.flush_answer();
        match self.out.last_mut() {
            Some(RoutedEvent::Compaction { text: t }) => {
                let r = try_push_str(t, text);
                self.kept(r);
            }
            _ => self.push(RoutedEvent::Compaction { text: text.to_string() }),
        }
    }

    fn model_fallback(&mut self, from: &str, to: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.push(RoutedEvent::ModelFallback { from: json_of(from), to: json_of(to) });
    }

    fn container(&mut self, fields: &str) {
        if self.failure.is_some() {
            return; // nothing after the failure is routed
        }
        self.flush_pending();
        self.push(RoutedEvent::Container { fields: json_of(fields) });
    }

    fn stop_details(&mut self, details: &str) {
        self.stop_details = Some(json_of(details));
    }

    fn finish_message(&mut self, message: &str) {
        self.finish_message = Some(message.to_string());
    }

    fn tool_call_abandon(&mut self, index: u32) {
        if let Some(c) = self.calls.remove(index) {
            self.budget.release(c.kept());
        }
    }

    fn retain(&mut self, bytes: usize, what: &str) -> bool {
        if self.failure.is_some() {
            return false;
        }
        match self.budget.charge(bytes, what) {
            Ok(()) => true,
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    fn release(&mut self, bytes: usize) {
        self.budget.release(bytes);
    }

    fn room(&self) -> usize {
        if self.failure.is_some() {
            return 0;
        }
        self.budget.room()
    }
}

/// A source's identity for de-duplication: its URL, else its id, else its title and snippet
/// (FNV-1a over the parts).
fn source_key(s: &super::delta::Source) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let parts: [&Option<String>; 2] = match (&s.url, &s.id) {
        (Some(_), _) => [&s.url, &None],
        (None, Some(_)) => [&s.id, &None],
        (None, None) => [&s.title, &s.snippet],
    };
    for p in parts {
        for b in p.as_deref().unwrap_or("").bytes().chain(std::iter::once(0xFF)) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_buffer_is_not_kept_large_between_feeds() {
        let opts = StreamRouterOptions { provider: Provider::Text, ..StreamRouterOptions::default() };
        let mut r = StreamRouter::new(opts).unwrap();
        let mut out = Vec::new();
        r.feed(&vec![b'a'; 4 * MAX_PENDING], &mut out).unwrap();
        assert!(r.route.answer.capacity() <= MAX_PENDING && r.route.answer_room <= MAX_PENDING);
        r.feed(b"b", &mut out).unwrap();
        assert!(r.route.answer.capacity() <= 2 * MAX_PENDING);
        let text: String = out
            .iter()
            .map(|e| match e {
                RoutedEvent::AnswerDelta { text, .. } => text.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(text.len(), 4 * MAX_PENDING + 1);
    }
}
