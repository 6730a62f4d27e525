//! What the provider decoders produce: `ModelDelta`s, handed to a `DeltaSink` as they are
//! decoded (the router is a sink that routes them without allocating per delta).

/// Token counts, as far as the provider reports them (`None` where it does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(rename = "UsageCounts", missing_as_null))]
pub struct Usage {
    /// Every input (prompt) token, those read from or written to a prompt cache included
    /// (Anthropic and Bedrock count those apart: here they are added in).
    pub input_tokens: Option<u64>,
    /// Completion / output tokens (reasoning included where the provider counts it so).
    pub output_tokens: Option<u64>,
    /// The total, when the provider sends one.
    pub total_tokens: Option<u64>,
    /// Reasoning ("thinking") tokens, when reported separately.
    pub reasoning_tokens: Option<u64>,
    /// The input tokens served from a prompt cache (a part of `input_tokens`).
    pub cached_input_tokens: Option<u64>,
}

impl Usage {
    /// True when no count is known.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// The total as input plus output, for providers that send none (Anthropic, Cohere,
    /// Ollama); unchanged until both are known.
    pub(crate) fn sum_total(&mut self) {
        if let (Some(i), Some(o)) = (self.input_tokens, self.output_tokens) {
            self.total_tokens = Some(i.saturating_add(o));
        }
    }
}

/// One provider-neutral piece of a model's output stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelDelta {
    /// Output text.
    Text(String),
    /// Reasoning / thinking text (summaries included).
    Reasoning(String),
    /// A tool call begins (`index` is the provider's index of the call).
    ToolCallStart {
        /// The call's index in the provider's numbering.
        index: u32,
        /// The call id (synthesised as `call_<index>` where the provider sends none).
        id: String,
        /// The tool name.
        name: String,
        /// The provider runs the tool itself (web search, code execution, ...): the client
        /// must not.
        provider_executed: bool,
    },
    /// The result of a provider-executed tool call.
    ToolResult {
        /// The call's index.
        index: u32,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The result as JSON text.
        result: String,
    },
    /// A cited source (citation, annotation, grounding chunk).
    Source(Source),
    /// Refusal text (the model declined).
    Refusal(String),
    /// More argument text of a tool call (raw JSON text, possibly partial).
    ToolCallDelta {
        /// The call's index.
        index: u32,
        /// The new argument text.
        arguments: String,
    },
    /// The tool call's arguments are complete.
    ToolCallEnd {
        /// The call's index.
        index: u32,
    },
    /// Token counts.
    Usage(Usage),
    /// Why the model stopped, as the provider words it (`stop`, `end_turn`, `STOP`, ...).
    Finish {
        /// The provider's reason.
        reason: String,
    },
    /// A provider error, or an event that could not be read.
    Error {
        /// A stable code: the provider's error code or type, `provider_event_invalid` for
        /// malformed JSON, `provider_event_unknown` for an event of no known format.
        code: String,
        /// A human message.
        message: String,
    },
}

/// A cited source; every field may be unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(rename = "RoutedSource", missing_as_null))]
pub struct Source {
    /// The provider's id of the source, where it has one.
    pub id: Option<String>,
    /// The URL.
    pub url: Option<String>,
    /// The title.
    pub title: Option<String>,
    /// The cited text or a snippet of it.
    pub snippet: Option<String>,
}

/// Receives deltas as they are decoded.
pub trait DeltaSink {
    /// Output text (never empty).
    fn text(&mut self, text: &str);
    /// Reasoning text (never empty).
    fn reasoning(&mut self, text: &str);
    /// A tool call begins (`provider_executed`: the provider runs it).
    fn tool_call_start(&mut self, index: u32, id: &str, name: &str, provider_executed: bool);
    /// The result (JSON text) of a provider-executed call.
    fn tool_result(&mut self, index: u32, id: &str, name: &str, result: &str);
    /// A cited source.
    fn source(&mut self, source: &Source);
    /// Refusal text (never empty).
    fn refusal(&mut self, text: &str);
    /// Tool call argument text (never empty).
    fn tool_call_delta(&mut self, index: u32, arguments: &str);
    /// A tool call's arguments are complete.
    fn tool_call_end(&mut self, index: u32);
    /// Token counts.
    fn usage(&mut self, usage: &Usage);
    /// The finish reason.
    fn finish(&mut self, reason: &str);
    /// An error.
    fn error(&mut self, code: &str, message: &str);
    /// A started tool call is given up: its arguments could not be assembled (an error says
    /// why). No end follows, and the call must not be run. By default nothing happens.
    fn tool_call_abandon(&mut self, index: u32) {
        let _ = index;
    }
    /// A reader keeps `bytes` more between events (`what` names them: a tool call's
    /// arguments it assembles itself, the provider-executed calls it remembers). `false`:
    /// the sink's budget does not allow them; the sink has then failed
    /// (`buffer_limit_exceeded`), and the reader keeps nothing more for it. By default there
    /// is no budget.
    fn retain(&mut self, bytes: usize, what: &str) -> bool {
        let _ = (bytes, what);
        true
    }
    /// Bytes [`retain`](Self::retain) counted are let go.
    fn release(&mut self, bytes: usize) {
        let _ = bytes;
    }
    /// How many more bytes [`retain`](Self::retain) would allow (by default, no limit).
    fn room(&self) -> usize {
        usize::MAX
    }
    /// A tool call begins, with the provider's `caller` (JSON text of its object) where it
    /// names one. By default the caller is dropped.
    fn tool_call_start_by(&mut self, index: u32, id: &str, name: &str, provider_executed: bool, caller: Option<&str>) {
        let _ = caller;
        self.tool_call_start(index, id, name, provider_executed);
    }
    /// The phase of the message the text that follows belongs to (OpenAI `message.phase`:
    /// `commentary`, `final_answer`); `None`: unmarked. By default nothing happens.
    fn phase(&mut self, phase: Option<&str>) {
        let _ = phase;
    }
    /// A token the next request must send back: `kind` and a JSON object text of the
    /// provider's own fields. By default nothing happens.
    fn continuation(&mut self, kind: &str, fields: &str) {
        let _ = (kind, fields);
    }
    /// Context compaction text (never empty). By default nothing happens.
    fn compaction(&mut self, text: &str) {
        let _ = text;
    }
    /// The provider answered with another model: `from` and `to` as JSON text. By default
    /// nothing happens.
    fn model_fallback(&mut self, from: &str, to: &str) {
        let _ = (from, to);
    }
    /// The provider's execution container: a JSON object text of its fields. By default
    /// nothing happens.
    fn container(&mut self, fields: &str) {
        let _ = fields;
    }
    /// The provider's details of why it stopped (JSON text, Anthropic `stop_details`).
    fn stop_details(&mut self, details: &str) {
        let _ = details;
    }
    /// The provider's message about the finish (Gemini `finishMessage`).
    fn finish_message(&mut self, message: &str) {
        let _ = message;
    }
}

impl DeltaSink for Vec<ModelDelta> {
    fn text(&mut self, text: &str) {
        self.push(ModelDelta::Text(text.to_string()));
    }
    fn reasoning(&mut self, text: &str) {
        self.push(ModelDelta::Reasoning(text.to_string()));
    }
    fn tool_call_start(&mut self, index: u32, id: &str, name: &str, provider_executed: bool) {
        self.push(ModelDelta::ToolCallStart { index, id: id.to_string(), name: name.to_string(), provider_executed });
    }
    fn tool_result(&mut self, index: u32, id: &str, name: &str, result: &str) {
        self.push(ModelDelta::ToolResult { index, id: id.to_string(), name: name.to_string(), result: result.to_string() });
    }
    fn source(&mut self, source: &Source) {
        self.push(ModelDelta::Source(source.clone()));
    }
    fn refusal(&mut self, text: &str) {
        self.push(ModelDelta::Refusal(text.to_string()));
    }
    fn tool_call_delta(&mut self, index: u32, arguments: &str) {
        self.push(ModelDelta::ToolCallDelta { index, arguments: arguments.to_string() });
    }
    fn tool_call_end(&mut self, index: u32) {
        self.push(ModelDelta::ToolCallEnd { index });
    }
    fn usage(&mut self, usage: &Usage) {
        self.push(ModelDelta::Usage(*usage));
    }
    fn finish(&mut self, reason: &str) {
        self.push(ModelDelta::Finish { reason: reason.to_string() });
    }
    fn error(&mut self, code: &str, message: &str) {
        self.push(ModelDelta::Error { code: code.to_string(), message: message.to_string() });
    }
}
