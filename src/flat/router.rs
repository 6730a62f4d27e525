//! `StreamRouter`'s events, packed.

use super::*;
use crate::budget::{out_of_memory, try_push_str, try_room, try_room_str};
use crate::json::write_json_string;
use crate::text::utf16_len;
use crate::{JsonValue, RoutedEvent, ThinkingSource, Usage};

#[derive(Default)]
/// `StreamRouter`'s events, packed: per event a `ROUTE_` opcode and its words; strings in
/// `text`, values as JSON text.
pub struct RouterPack {
    pub text: String,
    pub ops: Vec<u32>,
    json: String,
}

impl RouterPack {
    fn str(&mut self, s: &str) -> u32 {
        self.text.push_str(s);
        utf16_len(s)
    }

    /// Moves the JSON text written to `json` into the packed text (`memory_limit_exceeded`
    /// when there is no room for it).
    fn json(&mut self) -> crate::Result<u32> {
        let json = std::mem::take(&mut self.json);
        let r = try_push_str(&mut self.text, &json).map(|()| utf16_len(&json));
        self.json = json;
        self.json.clear();
        r
    }

    /// Room for `n` more bytes of JSON text.
    fn json_room(&mut self, n: usize) -> crate::Result<()> {
        self.json.try_reserve(n).map_err(|_| out_of_memory(n))
    }

    /// Packs `events`; the text is reserved first (the deltas, what can be large), so running
    /// out of memory is `memory_limit_exceeded`, not a trap.
    pub fn pack(&mut self, events: &[RoutedEvent]) -> crate::Result<()> {
        self.text.clear();
        self.ops.clear();
        let need = events.iter().map(text_len).sum::<usize>();
        try_room_str(&mut self.text, need)?;
        try_room(&mut self.ops, events.len() * 8)?;
        for e in events {
            match e {
                RoutedEvent::AnswerDelta { text, phase: None } => self.text_op(ROUTE_ANSWER, text),
                RoutedEvent::AnswerDelta { text, phase: Some(phase) } => {
                    let a = self.str(phase);
                    let b = self.str(text);
                    self.ops.extend_from_slice(&[ROUTE_ANSWER_PHASE, a, b]);
                }
                RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Reasoning } => self.text_op(ROUTE_REASONING, text),
                RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Thought } => self.text_op(ROUTE_THOUGHT, text),
                RoutedEvent::ArtifactDelta { text } => self.text_op(ROUTE_ARTIFACT, text),
                RoutedEvent::UserDelta { text } => self.text_op(ROUTE_USER, text),
                RoutedEvent::ToolCallStart { index, id, name, provider_executed, caller } => {
                    let (a, b) = (self.str(id), self.str(name));
                    let c = self.more(&[("caller", caller.as_ref())])?;
                    self.ops.extend_from_slice(&[ROUTE_TOOL_START, *index, a, b, u32::from(*provider_executed), c]);
                }
                RoutedEvent::ToolCallDelta { index, arguments } => {
                    let n = self.str(arguments);
                    self.ops.extend_from_slice(&[ROUTE_TOOL_DELTA, *index, n]);
                }
                RoutedEvent::ToolCall { index, id, name, arguments, repaired, provider_executed, caller } => {
                    let (a, b) = (self.str(id), self.str(name));
                    arguments.try_write_json(&mut self.json)?;
                    let c = self.json()?;
                    let d = self.more(&[("caller", caller.as_ref())])?;
                    self.ops.extend_from_slice(&[
                        ROUTE_TOOL_CALL,
                        *index,
                        a,
                        b,
                        c,
                        u32::from(*repaired),
                        u32::from(*provider_executed),
                        d,
                    ]);
                }
                RoutedEvent::ToolResult { index, id, name, result } => {
                    let (a, b) = (self.str(id), self.str(name));
                    result.try_write_json(&mut self.json)?;
                    let c = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_TOOL_RESULT, *index, a, b, c]);
                }
                RoutedEvent::Source(src) => {
                    // Each byte escapes to at most 6 (`\u001f`); keys, quotes and nulls fit in 64.
                    let fields = [&src.id, &src.url, &src.title, &src.snippet];
                    self.json_room(64 + 6 * fields.iter().map(|v| v.as_ref().map_or(0, String::len)).sum::<usize>())?;
                    self.json.push('{');
                    for (i, (k, v)) in [("id", &src.id), ("url", &src.url), ("title", &src.title), ("snippet", &src.snippet)]
                        .into_iter()
                        .enumerate()
                    {
                        if i > 0 {
                            self.json.push(',');
                        }
                        write_json_string(k, &mut self.json);
                        self.json.push(':');
                        match v {
                            Some(v) => write_json_string(v, &mut self.json),
                            None => self.json.push_str("null"),
                        }
                    }
                    self.json.push('}');
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_SOURCE, n]);
                }
                RoutedEvent::RefusalDelta { text } => self.text_op(ROUTE_REFUSAL, text),
                RoutedEvent::Action { action } => {
                    action.to_json_value().try_write_json(&mut self.json)?;
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_ACTION, n]);
                }
                RoutedEvent::Usage(u) => {
                    self.json_room(USAGE_JSON_ROOM)?;
                    usage_json(u, &mut self.json);
                    let n = self.json()?;
                    self.ops.extend_from_slice(&[ROUTE_USAGE, n]);
                }
                RoutedEvent::Done { ok, parse_ok, finish_reason, finish, violations, stop_details, finish_message } => {
                    let n = finish_reason.as_deref().map_or(0, |r| self.str(r));
                    let f = self.str(finish.as_str());
                    let violations = (!violations.is_empty())
                        .then(|| JsonValue::Array(violations.iter().map(crate::TagViolation::to_json_value).collect()));
                    let message = finish_message.clone().map(JsonValue::String);
                    let fields = [
                        ("violations", violations.as_ref()),
                        ("stop_details", stop_details.as_ref()),
                        ("finish_message", message.as_ref()),
                    ];
                    let v = self.more(&fields)?;
                    self.ops.extend_from_slice(&[
                        ROUTE_DONE,
                        u32::from(*ok),
                        u32::from(*parse_ok),
                        u32::from(finish_reason.is_some()),
                        n,
                        f,
                        v,
                    ]);
                }
                RoutedEvent::Continuation { kind, fields } => {
                    let kind = JsonValue::String(kind.clone());
                    self.object("continuation", &[("kind", Some(&kind))], Some(fields))?;
                }
                RoutedEvent::Compaction { text } => {
                    let text = JsonValue::String(text.clone());
                    self.object("compaction", &[("text", Some(&text))], None)?;
                }
                RoutedEvent::ModelFallback { from, to } => {
                    self.object("model_fallback", &[("from", Some(from)), ("to", Some(to))], None)?;
                }
                RoutedEvent::Container { fields } => self.object("container", &[], Some(fields))?,
                RoutedEvent::Error { code, message, provider_code } => {
                    let (a, b) = (self.str(code), self.str(message));
                    let c = provider_code.as_deref().map_or(0, |p| self.str(p));
                    self.ops.extend_from_slice(&[ROUTE_ERROR, a, b, u32::from(provider_code.is_some()), c]);
                }
            }
        }
        Ok(())
    }
}

/// The bytes of strings `e` puts in the packed text as they are (JSON values come on top).
fn text_len(e: &RoutedEvent) -> usize {
    match e {
        RoutedEvent::AnswerDelta { text, phase } => text.len() + phase.as_ref().map_or(0, String::len),
        RoutedEvent::ThinkingDelta { text, .. }
        | RoutedEvent::ArtifactDelta { text }
        | RoutedEvent::UserDelta { text }
        | RoutedEvent::RefusalDelta { text } => text.len(),
        RoutedEvent::ToolCallStart { id, name, .. }
        | RoutedEvent::ToolCall { id, name, .. }
        | RoutedEvent::ToolResult { id, name, .. } => id.len() + name.len(),
        RoutedEvent::ToolCallDelta { arguments, .. } => arguments.len(),
        RoutedEvent::Error { code, message, provider_code } => {
            code.len() + message.len() + provider_code.as_ref().map_or(0, String::len)
        }
        RoutedEvent::Done { finish_reason, finish, .. } => finish_reason.as_ref().map_or(0, String::len) + finish.as_str().len(),
        _ => 0,
    }
}

impl RouterPack {
    /// The fields of an event beyond its op words, as packed JSON object text (`{"k":v,…}`
    /// of the present ones); 0 (no text) when none is present.
    fn more(&mut self, fields: &[(&str, Option<&JsonValue>)]) -> crate::Result<u32> {
        if fields.iter().all(|(_, v)| v.is_none()) {
            return Ok(0);
        }
        self.object_text(None, fields, None)?;
        self.json()
    }

    /// A whole event as packed JSON (`ROUTE_OBJECT`): its `type`, `fields`, then the members
    /// of `spread` (an object; its own `type` member is left out).
    fn object(&mut self, kind: &str, fields: &[(&str, Option<&JsonValue>)], spread: Option<&JsonValue>) -> crate::Result<()> {
        self.object_text(Some(kind), fields, spread)?;
        let n = self.json()?;
        self.ops.extend_from_slice(&[ROUTE_OBJECT, n]);
        Ok(())
    }

    fn object_text(
        &mut self,
        kind: Option<&str>,
        fields: &[(&str, Option<&JsonValue>)],
        spread: Option<&JsonValue>,
    ) -> crate::Result<()> {
        let mut members: Vec<(&str, &JsonValue)> = fields.iter().filter_map(|(k, v)| v.map(|v| (*k, v))).collect();
        if let Some(JsonValue::Object(m)) = spread {
            members.extend(
                m.iter().filter(|(k, _)| k != "type" && !fields.iter().any(|(f, _)| f == k)).map(|(k, v)| (k.as_str(), v)),
            );
        }
        let type_value = kind.map(|k| JsonValue::String(k.to_string()));
        if let Some(t) = &type_value {
            members.insert(0, ("type", t));
        }
        self.json_room(2 + members.iter().map(|(k, v)| 8 + 6 * k.len() + v.json_len()).sum::<usize>())?;
        self.json.push('{');
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                self.json.push(',');
            }
            write_json_string(k, &mut self.json);
            self.json.push(':');
            v.write_json(&mut self.json);
        }
        self.json.push('}');
        Ok(())
    }

    fn text_op(&mut self, code: u32, text: &str) {
        let n = self.str(text);
        self.ops.extend_from_slice(&[code, n]);
    }
}

/// Room enough for [`usage_json`]'s text: five keys, five 20-digit numbers, punctuation.
const USAGE_JSON_ROOM: usize = 256;

fn usage_json(u: &Usage, out: &mut String) {
    let fields = [
        ("input_tokens", u.input_tokens),
        ("output_tokens", u.output_tokens),
        ("total_tokens", u.total_tokens),
        ("reasoning_tokens", u.reasoning_tokens),
        ("cached_input_tokens", u.cached_input_tokens),
    ];
    out.push('{');
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(k, out);
        out.push(':');
        match v {
            Some(n) => {
                let _ = std::fmt::Write::write_fmt(out, format_args!("{n}"));
            }
            None => out.push_str("null"),
        }
    }
    out.push('}');
}
