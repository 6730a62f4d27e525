//! Amazon Bedrock `ConverseStream` events (each message of the binary event-stream framing,
//! `crate::eventstream`, carries one event as JSON; its `:event-type` header names it).
//!
//! Routed: `contentBlockStart` (`start.toolUse {toolUseId, name}` starts a tool call, indexed
//! by `contentBlockIndex`), `contentBlockDelta` (`delta.text`; `delta.toolUse.input` as
//! argument text; `delta.reasoningContent.text` as reasoning, its `signature` gathered for the
//! block's end, where it goes out as a `thinking_signature` continuation (kept charged to the
//! sink's budget until then), its `redactedContent` a `redacted_thinking` continuation as
//! sent), `contentBlockStop` (ends a tool call), `messageStop`
//! (`stopReason`, the end of the message), `metadata` (`usage`: it comes after
//! `messageStop` and still counts). `messageStart` carries only the role. Exception messages
//! (`:message-type: exception`, named by `:exception-type`, with a JSON `message`) and error
//! messages (`:error-code`, `:error-message`) are error deltas with the provider's code and
//! message. An event of a type added later is ignored.

use super::anthropic::Kept;
use super::common::{emit_counts, Count};
use super::delta::DeltaSink;
use super::jscan::{index_of, members, string_of, Json, Kind, R};
use super::tools::OpenCalls;
use crate::EventStreamMessage;

/// The reader state.
#[derive(Debug, Default)]
pub(crate) struct Bedrock {
    calls: OpenCalls,
    scratch: String,
    /// The reasoning block whose signature is gathered, and the signature so far (raw JSON
    /// string content, escapes kept).
    signature: Option<(u32, Kept)>,
    /// `messageStop` was seen.
    pub(crate) ended: bool,
}

impl Bedrock {
    /// One decoded message; `Err` when its JSON is malformed.
    pub(crate) fn message(&mut self, m: &EventStreamMessage<'_>, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        match m.message_type {
            "exception" => {
                let [message] = members(data, ["message"]).unwrap_or([None]);
                let message = string_of(message).unwrap_or_default();
                let code = if m.exception_type.is_empty() { "provider_error" } else { m.exception_type };
                sink.error(code, &message);
                return Ok(());
            }
            "error" => {
                let code = if m.error_code.is_empty() { "provider_error" } else { m.error_code };
                sink.error(code, m.error_message);
                return Ok(());
            }
            _ => {}
        }
        let [index, start, delta, stop, usage] = members(data, ["contentBlockIndex", "start", "delta", "stopReason", "usage"])?;
        let index = index_of(index);
        match m.event_type {
            "contentBlockStart" => {
                if let Some(start) = start {
                    let [tool] = members(start, ["toolUse"])?;
                    if let Some(tool) = tool {
                        let [id, name] = members(tool, ["toolUseId", "name"])?;
                        self.calls.start_if_new(index, &string_of(id)?, &string_of(name)?, sink);
                    }
                }
            }
            "contentBlockDelta" => {
                if let Some(delta) = delta {
                    self.delta(delta, index, sink)?;
                }
            }
            "contentBlockStop" => {
                if self.signature.as_ref().is_some_and(|(at, _)| *at == index) {
                    self.signature_ends(sink);
                }
                self.calls.end(index, sink);
            }
            "messageStop" => {
                let reason = string_of(stop)?;
                self.signature_ends(sink);
                self.calls.end_all(sink);
                sink.finish(if reason.is_empty() { "end_turn" } else { &reason });
                self.ended = true;
            }
            "metadata" => {
                if let Some(usage) = usage {
                    let mut j = Json::new(usage);
                    if j.kind()? == Kind::Object {
                        emit_counts(&mut j, &BEDROCK_COUNTS, sink)?;
                    }
                }
            }
            _ => {} // messageStart, and event types added later
        }
        Ok(())
    }

    /// End of stream: open tool calls end. A signature whose block never ended was cut off and
    /// is dropped (a part of one is no token to send back).
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        if let Some((_, mut kept)) = self.signature.take() {
            kept.clear(sink);
        }
        self.calls.end_all(sink);
    }

    /// The reasoning block ended: its whole signature goes out.
    fn signature_ends(&mut self, sink: &mut dyn DeltaSink) {
        if let Some((_, mut kept)) = self.signature.take() {
            if !kept.text().is_empty() {
                sink.continuation("thinking_signature", &format!("{{\"signature\":\"{}\"}}", kept.text()));
            }
            kept.clear(sink);
        }
    }

    fn delta(&mut self, delta: &str, index: u32, sink: &mut dyn DeltaSink) -> R<()> {
        let [text, tool, reasoning] = members(delta, ["text", "toolUse", "reasoningContent"])?;
        if let Some(text) = text {
            let mut j = Json::new(text);
            if let Some(t) = j.str_value(&mut self.scratch)?.filter(|t| !t.is_empty()) {
                sink.text(t);
            }
        }
        if let Some(tool) = tool {
            let [input] = members(tool, ["input"])?;
            let input = string_of(input)?;
            if !input.is_empty() && self.calls.is_open(index) {
                sink.tool_call_delta(index, &input);
            }
        }
        if let Some(reasoning) = reasoning {
            let [text, signature, redacted] = members(reasoning, ["text", "signature", "redactedContent"])?;
            let text = string_of(text)?;
            if !text.is_empty() {
                sink.reasoning(&text);
            }
            if let Some(raw) = signature.filter(|s| s.starts_with('"')) {
                if self.signature.as_ref().is_some_and(|(at, _)| *at != index) {
                    self.signature_ends(sink); // a block that never ended
                }
                let (_, kept) = self.signature.get_or_insert_with(|| (index, Kept::default()));
                kept.push(Json::new(raw).string_raw()?, "a reasoning block's signature", sink);
            }
            if let Some(raw) = redacted {
                sink.continuation("redacted_thinking", &format!("{{\"redactedContent\":{raw}}}"));
            }
        }
        Ok(())
    }
}

const BEDROCK_COUNTS: [(&str, Count); 5] = [
    ("inputTokens", Count::Fresh),
    ("outputTokens", Count::Output),
    ("totalTokens", Count::Total),
    ("cacheReadInputTokens", Count::Cached),
    ("cacheWriteInputTokens", Count::Written),
];
