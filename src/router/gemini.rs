//! Gemini `streamGenerateContent?alt=sse` streams (one `GenerateContentResponse` per event,
//! CRLF framing).
//!
//! Routed: `candidates[0].content.parts[]` (`text`, as reasoning when the part has
//! `"thought": true`; a `functionCall {name, args, id?}` is a whole tool call: start, its
//! `args` as JSON text, end; calls are numbered in stream order), `candidates[0].finishReason`,
//! `usageMetadata`, `promptFeedback.blockReason` (a finish reason) and a top-level `error`.
//! After a finish reason no candidate content is routed; usage and errors still are.

use super::delta::DeltaSink;
use super::jscan::{Json, Kind, R};
use super::openai_chat::{emit_counts, emit_error, Count};
use super::tools::OpenCalls;

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct Gemini {
    calls: OpenCalls,
    next_call: u32,
    scratch: String,
    text: String,
    /// A finish reason came: later candidates are not routed (usage and errors still are).
    finished: bool,
}

impl Gemini {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let mut j = Json::new(data);
        let mut finish: Option<String> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "candidates" if !self.finished && j.kind()? == Kind::Array => {
                    j.first_item(|j| self.candidate(j, &mut finish, sink))?;
                }
                "usageMetadata" if j.kind()? == Kind::Object => emit_counts(&mut j, &GEMINI_COUNTS, sink)?,
                "promptFeedback" if j.kind()? == Kind::Object => {
                    let mut p = j.object()?;
                    while let Some(k) = j.next_key(&mut p)? {
                        if k == "blockReason" {
                            if let Some(r) = j.str_value(&mut self.scratch)? {
                                finish = Some(r.into_owned());
                            }
                        } else {
                            j.skip()?;
                        }
                    }
                }
                "error" if j.kind()? == Kind::Object => emit_error(&mut j, &mut self.scratch, sink)?,
                _ => j.skip()?,
            }
        }
        j.end()?;
        self.finished |= self.calls.finish(finish, sink);
        Ok(())
    }

    fn candidate(&mut self, j: &mut Json<'_>, finish: &mut Option<String>, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "content" if j.kind()? == Kind::Object => {
                    let mut c = j.object()?;
                    while let Some(k) = j.next_key(&mut c)? {
                        if k == "parts" && j.kind()? == Kind::Array {
                            let mut a = j.array()?;
                            while j.next_item(&mut a)? {
                                self.part(j, sink)?;
                            }
                        } else {
                            j.skip()?;
                        }
                    }
                }
                "finishReason" => {
                    if let Some(r) = j.str_value(&mut self.scratch)? {
                        *finish = Some(r.into_owned());
                    }
                }
                _ => j.skip()?,
            }
        }
        Ok(())
    }

    fn part(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        // `thought: true` may come after the text, so the text is held until the part ends.
        self.text.clear();
        let mut thought = false;
        let mut call: Option<&str> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "text" if j.kind()? == Kind::String => {
                    j.string_into(&mut self.text)?;
                }
                "thought" => thought = j.bool_value()?,
                "functionCall" if j.kind()? == Kind::Object => call = Some(j.value_raw()?),
                _ => j.skip()?,
            }
        }
        if let Some(call) = call {
            self.function_call(call, sink)?;
        }
        if !self.text.is_empty() {
            if thought {
                sink.reasoning(&self.text);
            } else {
                sink.text(&self.text);
            }
        }
        Ok(())
    }

    fn function_call(&mut self, call: &str, sink: &mut dyn DeltaSink) -> R<()> {
        let (mut id, mut name) = (String::new(), String::new());
        let mut args: Option<&str> = None;
        let mut j = Json::new(call);
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "id" if j.kind()? == Kind::String => {
                    j.string_into(&mut id)?;
                }
                "name" if j.kind()? == Kind::String => {
                    j.string_into(&mut name)?;
                }
                "args" => args = Some(j.value_raw()?),
                _ => j.skip()?,
            }
        }
        let index = self.next_call;
        self.next_call = self.next_call.saturating_add(1);
        self.calls.start_if_new(index, &id, &name, sink);
        sink.tool_call_delta(index, args.unwrap_or("{}"));
        self.calls.end(index, sink);
        Ok(())
    }
}

const GEMINI_COUNTS: [(&str, Count); 5] = [
    ("promptTokenCount", Count::Input),
    ("candidatesTokenCount", Count::Output),
    ("totalTokenCount", Count::Total),
    ("thoughtsTokenCount", Count::Reasoning),
    ("cachedContentTokenCount", Count::Cached),
];
