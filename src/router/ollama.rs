//! Ollama's NDJSON streams: `/api/chat` (`message.content`, `message.thinking`,
//! `message.tool_calls`) and `/api/generate` (`response`, `thinking`), one JSON object a line.
//!
//! Routed: text, reasoning, tool calls (each entry of `tool_calls` is a whole call: its
//! `function.arguments` object is the argument text; calls are numbered in stream order and
//! get `call_<n>` ids where Ollama sends none), and the last line's `done: true` with
//! `done_reason` (`stop` when absent) and its counts (`prompt_eval_count` as input tokens,
//! `eval_count` as output tokens). A line `{"error": "..."}` is an error delta.

use super::common::emit_string;
use super::delta::{DeltaSink, Usage};
use super::jscan::{Json, Kind, R};
use super::tools::OpenCalls;

/// The reader state.
#[derive(Debug, Default)]
pub(crate) struct Ollama {
    calls: OpenCalls,
    next_call: u32,
    scratch: String,
    /// A line with `done: true` was seen.
    pub(crate) ended: bool,
}

impl Ollama {
    /// One line (blank lines are skipped by the caller).
    pub(crate) fn line(&mut self, line: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(line);
        let (mut done, mut reason) = (false, None);
        let mut usage = Usage::default();
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "message" if j.kind()? == Kind::Object => self.message(&mut j, sink)?,
                "response" | "thinking" => self.text(&mut j, key == "thinking", sink)?,
                "done" => done = j.kind()? == Kind::Bool && j.bool_value()?,
                "done_reason" => reason = j.str_value(&mut self.scratch)?.map(|r| r.to_owned()),
                "prompt_eval_count" => usage.input_tokens = j.u64_value()?,
                "eval_count" => usage.output_tokens = j.u64_value()?,
                "error" => {
                    let message = match j.kind()? {
                        Kind::String => j.str_value(&mut self.scratch)?.map(|s| s.to_owned()).unwrap_or_default(),
                        _ => j.value_raw()?.to_string(),
                    };
                    sink.error("provider_error", &message);
                }
                _ => j.skip()?,
            }
        }
        j.end()?;
        if !usage.is_empty() {
            usage.sum_total();
            sink.usage(&usage);
        }
        if done {
            self.calls.end_all(sink);
            sink.finish(reason.as_deref().filter(|r| !r.is_empty()).unwrap_or("stop"));
            self.ended = true;
        }
        Ok(())
    }

    /// End of stream: open tool calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        self.calls.end_all(sink);
    }

    /// A string member as text or reasoning (empty ones are dropped).
    fn text(&mut self, j: &mut Json<'_>, reasoning: bool, sink: &mut dyn DeltaSink) -> R<()> {
        emit_string(j, &mut self.scratch, reasoning, sink)
    }

    fn message(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "content" | "thinking" => self.text(j, key == "thinking", sink)?,
                "tool_calls" if j.kind()? == Kind::Array => {
                    let mut a = j.array()?;
                    while j.next_item(&mut a)? {
                        self.tool_call(j, sink)?;
                    }
                }
                _ => j.skip()?,
            }
        }
        Ok(())
    }

    fn tool_call(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        let (mut id, mut name) = (String::new(), String::new());
        let mut args: Option<&str> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "id" if j.kind()? == Kind::String => {
                    j.string_into(&mut id)?;
                }
                "function" if j.kind()? == Kind::Object => {
                    let mut f = j.object()?;
                    while let Some(k) = j.next_key(&mut f)? {
                        match k {
                            "name" if j.kind()? == Kind::String => {
                                j.string_into(&mut name)?;
                            }
                            "arguments" => args = Some(j.value_raw()?),
                            _ => j.skip()?,
                        }
                    }
                }
                _ => j.skip()?,
            }
        }
        let index = self.next_call;
        self.next_call = self.next_call.saturating_add(1);
        self.calls.start_if_new(index, &id, &name, sink);
        // Arguments arrive as an object; some servers send its JSON text as a string.
        let args = args.map(str::trim).unwrap_or("{}");
        if args.starts_with('"') {
            let mut a = Json::new(args);
            if let Some(text) = a.str_value(&mut self.scratch)? {
                sink.tool_call_delta(index, text);
            }
        } else {
            sink.tool_call_delta(index, args);
        }
        self.calls.end(index, sink);
        Ok(())
    }
}
