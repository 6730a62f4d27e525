//! The one error type of the crate.
//!
//! Every failure carries a stable machine-readable [`ErrorKind::code`], a human message and,
//! where the failure is tied to a position in the input, a byte offset. The JavaScript
//! bindings turn it into a `StreamrouteError` with the same `code`, `message` and `offset`.

use std::fmt;

/// What went wrong, as a small stable enum. New kinds may be added in later versions.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// An SSE line or event grew past the decoder's cap (`maxLineBytes` / `maxEventBytes`).
    SseEventTooLarge,
    /// An SSE field to encode cannot be represented on the wire (CR/LF in `event` or `id`).
    SseInvalidField,
    /// A machine was used after `finish()` or after it failed.
    InvalidState,
    /// An option had a value outside its allowed range.
    InvalidOption,
    /// Input is not valid JSON (strict mode), or ended inside a value at `finish()`.
    JsonInvalid,
    /// JSON nested deeper than the depth cap.
    JsonTooDeep,
    /// The repairer found no JSON value to repair (empty input, or only prose and comments).
    JsonUnrepairable,
    /// A machine would have to buffer more than its cap (a key, a number, a held answer).
    BufferLimitExceeded,
    /// No planner action could be found in the input.
    ActionPayloadUnparseable,
    /// The action's `next_node` is empty, blank or not a string, or missing while the object
    /// carries no answer.
    ActionMissingNextNode,
    /// An argument had the wrong type or shape (for example a chunk that is neither a
    /// string nor bytes).
    InvalidInput,
    /// A tagged response broke the nonce-tag contract (`parseTagged`); the violations are
    /// listed in the message (and on the JS error as `violations`).
    TagContractViolation,
    /// A value does not follow the `FinalPayload` contract (the message lists every problem
    /// with its path).
    PayloadInvalid,
    /// Extracted planning requirements break the schema or use labels outside the closed
    /// sets (every problem is listed with its path).
    RequirementsInvalid,
    /// `connectSse` could not connect or reconnect (an HTTP 4xx, or more failed attempts in
    /// a row than allowed). Raised by the JS client; listed here so every code lives in one
    /// place.
    SseConnectionFailed,
    /// Growing a buffer inside the machine failed because the process (the wasm instance)
    /// ran out of memory, or its memory cap (`init({ maxMemoryBytes })`). Only the machine
    /// that asked fails; every other machine goes on. In JS also a call refused before it
    /// began for want of room, and a call that trapped (see [`ErrorKind::InstanceLost`]).
    MemoryLimitExceeded,
    /// The argument of a one-shot function is longer than its documented cap.
    InputTooLarge,
    /// A JSON Schema is too large or too deeply linked to expand within the caps; nothing
    /// was left unmarked because of it.
    SchemaTooComplex,
    /// A frame of a wire vocabulary (`fromSse`) could not be read. Raised by the JS client;
    /// listed here so every code lives in one place.
    WireInvalid,
    /// A binary event-stream frame (Amazon Bedrock) is corrupt: a CRC mismatch, impossible
    /// lengths, a malformed header, or a frame cut by the end of the stream.
    EventStreamInvalid,
    /// A stream routed as one provider's format carried none of its events and looks like
    /// another format's (an `error` event of the stream router, then `done {ok: false}`);
    /// listed here so every code lives in one place.
    ProviderMismatch,
    /// The object belonged to a wasm instance that was lost: a call trapped (memory ran out
    /// where it could not fail gracefully) and the instance was replaced. Raised by the JS
    /// glue; listed here so every code lives in one place.
    InstanceLost,
}

impl ErrorKind {
    /// The stable code string that JavaScript sees as `error.code`.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorKind::SseEventTooLarge => "sse_event_too_large",
            ErrorKind::SseInvalidField => "sse_invalid_field",
            ErrorKind::InvalidState => "invalid_state",
            ErrorKind::InvalidOption => "invalid_option",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::ActionPayloadUnparseable => "action_payload_unparseable",
            ErrorKind::ActionMissingNextNode => "action_missing_next_node",
            ErrorKind::JsonInvalid => "json_invalid",
            ErrorKind::JsonTooDeep => "json_too_deep",
            ErrorKind::JsonUnrepairable => "json_unrepairable",
            ErrorKind::BufferLimitExceeded => "buffer_limit_exceeded",
            ErrorKind::TagContractViolation => "tag_contract_violation",
            ErrorKind::PayloadInvalid => "payload_invalid",
            ErrorKind::RequirementsInvalid => "requirements_invalid",
            ErrorKind::SseConnectionFailed => "sse_connection_failed",
            ErrorKind::MemoryLimitExceeded => "memory_limit_exceeded",
            ErrorKind::InputTooLarge => "input_too_large",
            ErrorKind::SchemaTooComplex => "schema_too_complex",
            ErrorKind::WireInvalid => "wire_invalid",
            ErrorKind::EventStreamInvalid => "eventstream_invalid",
            ErrorKind::ProviderMismatch => "provider_mismatch",
            ErrorKind::InstanceLost => "instance_lost",
        }
    }
}

/// An error with a stable code, a message and an optional byte offset into the input.
#[derive(Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    offset: Option<u64>,
}

impl Error {
    /// Builds an error of `kind` with a human-readable `message`.
    // Errors are built on failure paths only: one out-of-line copy instead of the string
    // allocation inlined at each of the ~100 call sites (bench/README.md, "Measurements behind
    // design choices").
    #[inline(never)]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), offset: None }
    }

    /// Attaches the byte offset in the input at which the problem was found.
    #[inline(never)]
    pub fn at(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The stable code string (same as `self.kind().code()`).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// The human-readable message, without the code.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The byte offset in the input where the problem was found, if there is one.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message)?;
        if let Some(off) = self.offset {
            write!(f, " (at byte {off})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl Clone for Error {
    // A failed machine repeats its error from every call: out of line, as `new`.
    #[inline(never)]
    fn clone(&self) -> Self {
        Error { kind: self.kind, message: self.message.clone(), offset: self.offset }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
