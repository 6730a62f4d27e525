//! The `tagged` content mode: the model's text through the nonce [`TagFilter`] (blocks
//! `ARTIFACT` then `USER`), as `artifact_delta` / `user_delta` text; `finish` gives the
//! contract verdict (`parse_ok`).

use super::route::TextKind;
use crate::hash::Map;
use crate::tags::{mask_whole, NonceMask};
use crate::{
    Error, ErrorKind, JsonValue, Result, RoutedEvent, TagDelta, TagFilter, TagFilterOptions, TagResult, TagViolation,
    ThinkingSource,
};

/// The tag filter, adapted to the router's text kinds.
#[derive(Debug)]
pub(crate) struct Tagged {
    filter: TagFilter,
    deltas: Vec<TagDelta>,
}

impl Tagged {
    /// # Errors
    /// `invalid_option` without a nonce, or with one the filter refuses.
    pub(crate) fn new(nonce: Option<&str>) -> Result<Tagged> {
        let Some(nonce) = nonce else {
            return Err(Error::new(ErrorKind::InvalidOption, "content 'tagged' needs the nonce of the tag contract"));
        };
        let mut filter = TagFilter::new(nonce, TagFilterOptions::default())?;
        // The router passes block text on as deltas and reads only the verdict: the filter
        // keeps no copy of it (what it holds is then a possible marker's tail, a few bytes).
        filter.stop_keeping_text();
        Ok(Tagged { filter, deltas: Vec::new() })
    }

    /// Feeds text; appends the block text that became certain.
    pub(crate) fn feed(&mut self, text: &[u8], out: &mut Vec<(TextKind, String)>) -> Result<()> {
        let r = self.filter.feed(text, &mut self.deltas);
        self.drain(out);
        r
    }

    /// Ends the text; returns the verdict (`parse_ok`: the response met the contract).
    pub(crate) fn finish(&mut self, out: &mut Vec<(TextKind, String)>) -> Result<TagResult> {
        let r = self.filter.finish(&mut self.deltas);
        self.drain(out);
        r
    }

    fn drain(&mut self, out: &mut Vec<(TextKind, String)>) {
        for d in self.deltas.drain(..) {
            let kind = if self.filter.block_name(d.block) == "artifact" { TextKind::Artifact } else { TextKind::User };
            out.push((kind, d.text));
        }
    }
}

/// The rest of a tagged response's text, outside the blocks: in `content: "tagged"` the nonce
/// leaves through no channel. Every routed event that carries model or provider text goes
/// through here after the blocks: streamed channels (reasoning, thought, refusal, each tool
/// call's arguments, and the block text for the nonce with invisible characters inside, which
/// the tag filter does not read as the nonce) through a [`NonceMask`] each, whole values (tool names and ids, parsed
/// arguments and results, error messages, sources) masked string by string. Each occurrence
/// becomes U+FFFD and a `nonce_in_text` violation; `done` then has `parse_ok: false`.
#[derive(Debug)]
pub(crate) struct Masks {
    nonce: Vec<u8>,
    /// Reasoning, thought, refusal, and the two kinds of block text (the filter masks the
    /// nonce as written; these catch it written with invisible characters inside), by
    /// [`Channel::slot`].
    fixed: [NonceMask; 5],
    /// One per tool call index with argument text held.
    args: Map<u32, NonceMask>,
    /// Occurrences found outside the blocks (their offsets in their channel's text).
    found: Vec<u64>,
    text: String,
}

impl Masks {
    pub(crate) fn new(nonce: &str) -> Masks {
        Masks {
            nonce: nonce.as_bytes().to_vec(),
            fixed: Default::default(),
            args: Map::default(),
            found: Vec::new(),
            text: String::new(),
        }
    }

    /// Masks `events` (the events of one call, in order) in place.
    pub(crate) fn apply(&mut self, events: &mut Vec<RoutedEvent>) {
        if events.is_empty() {
            return;
        }
        let input = std::mem::take(events);
        for e in input {
            self.event(e, events);
        }
    }

    /// `text` of a streamed channel through its mask; `None` when all of it is held.
    fn stream(&mut self, channel: Channel, text: &str) -> Option<String> {
        let mask = match channel {
            Channel::Args(i) => self.args.entry(i).or_default(),
            c => &mut self.fixed[c.slot()],
        };
        self.text.clear();
        mask.feed(&self.nonce, text, &mut self.text, &mut self.found);
        (!self.text.is_empty()).then(|| self.text.clone())
    }

    /// The end of a streamed channel: what it held.
    fn end(&mut self, channel: Channel) -> Option<String> {
        let mask = match channel {
            Channel::Args(i) => &mut self.args.remove(&i)?,
            c => &mut self.fixed[c.slot()],
        };
        if !mask.holds() {
            return None;
        }
        let mut out = String::new();
        mask.finish(&mut out);
        Some(out)
    }

    fn event(&mut self, e: RoutedEvent, out: &mut Vec<RoutedEvent>) {
        match e {
            RoutedEvent::ThinkingDelta { text, source } => {
                let channel = if source == ThinkingSource::Reasoning { Channel::Reasoning } else { Channel::Thought };
                if let Some(text) = self.stream(channel, &text) {
                    out.push(RoutedEvent::ThinkingDelta { text, source });
                }
            }
            RoutedEvent::RefusalDelta { text } => {
                if let Some(text) = self.stream(Channel::Refusal, &text) {
                    out.push(RoutedEvent::RefusalDelta { text });
                }
            }
            RoutedEvent::ArtifactDelta { text } => {
                if let Some(text) = self.stream(Channel::Artifact, &text) {
                    out.push(RoutedEvent::ArtifactDelta { text });
                }
            }
            RoutedEvent::UserDelta { text } => {
                if let Some(text) = self.stream(Channel::User, &text) {
                    out.push(RoutedEvent::UserDelta { text });
                }
            }
            RoutedEvent::ToolCallDelta { index, arguments } => {
                if let Some(arguments) = self.stream(Channel::Args(index), &arguments) {
                    out.push(RoutedEvent::ToolCallDelta { index, arguments });
                }
            }
            RoutedEvent::ToolCallStart { index, mut id, mut name, provider_executed, mut caller } => {
                self.whole(&mut id);
                self.whole(&mut name);
                if let Some(c) = &mut caller {
                    self.value(c);
                }
                out.push(RoutedEvent::ToolCallStart { index, id, name, provider_executed, caller });
            }
            RoutedEvent::ToolCall { index, mut id, mut name, mut arguments, repaired, provider_executed, mut caller } => {
                if let Some(arguments) = self.end(Channel::Args(index)) {
                    out.push(RoutedEvent::ToolCallDelta { index, arguments });
                }
                self.whole(&mut id);
                self.whole(&mut name);
                self.value(&mut arguments);
                if let Some(c) = &mut caller {
                    self.value(c);
                }
                out.push(RoutedEvent::ToolCall { index, id, name, arguments, repaired, provider_executed, caller });
            }
            RoutedEvent::ToolResult { index, mut id, mut name, mut result } => {
                self.whole(&mut id);
                self.whole(&mut name);
                self.value(&mut result);
                out.push(RoutedEvent::ToolResult { index, id, name, result });
            }
            RoutedEvent::Source(mut s) => {
                for field in [&mut s.id, &mut s.url, &mut s.title, &mut s.snippet].into_iter().flatten() {
                    self.whole(field);
                }
                out.push(RoutedEvent::Source(s));
            }
            RoutedEvent::Error { mut code, mut message, mut provider_code } => {
                self.whole(&mut code);
                self.whole(&mut message);
                if let Some(p) = &mut provider_code {
                    self.whole(p);
                }
                out.push(RoutedEvent::Error { code, message, provider_code });
            }
            RoutedEvent::Compaction { mut text } => {
                self.whole(&mut text);
                out.push(RoutedEvent::Compaction { text });
            }
            RoutedEvent::ModelFallback { mut from, mut to } => {
                self.value(&mut from);
                self.value(&mut to);
                out.push(RoutedEvent::ModelFallback { from, to });
            }
            RoutedEvent::Container { mut fields } => {
                self.value(&mut fields);
                out.push(RoutedEvent::Container { fields });
            }
            RoutedEvent::Done { ok, parse_ok, finish_reason, finish, mut violations, mut stop_details, mut finish_message } => {
                if let Some(d) = &mut stop_details {
                    self.value(d);
                }
                if let Some(m) = &mut finish_message {
                    self.whole(m);
                }
                for (channel, source) in
                    [(Channel::Reasoning, ThinkingSource::Reasoning), (Channel::Thought, ThinkingSource::Thought)]
                {
                    if let Some(text) = self.end(channel) {
                        out.push(RoutedEvent::ThinkingDelta { text, source });
                    }
                }
                if let Some(text) = self.end(Channel::Refusal) {
                    out.push(RoutedEvent::RefusalDelta { text });
                }
                if let Some(text) = self.end(Channel::Artifact) {
                    out.push(RoutedEvent::ArtifactDelta { text });
                }
                if let Some(text) = self.end(Channel::User) {
                    out.push(RoutedEvent::UserDelta { text });
                }
                let parse_ok = parse_ok && self.found.is_empty();
                violations.extend(self.found.drain(..).map(|offset| TagViolation { code: "nonce_in_text", offset }));
                out.push(RoutedEvent::Done { ok, parse_ok, finish_reason, finish, violations, stop_details, finish_message });
            }
            e => out.push(e),
        }
    }

    /// Masks a whole string in place.
    fn whole(&mut self, s: &mut String) {
        if let Some(masked) = mask_whole(&self.nonce, s) {
            self.found.push(0);
            *s = masked;
        }
    }

    /// Masks every key and string of a value (no recursion: an explicit stack).
    fn value(&mut self, v: &mut JsonValue) {
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                JsonValue::String(s) => self.whole(s),
                JsonValue::Array(items) => stack.extend(items.iter_mut()),
                JsonValue::Object(members) => {
                    for (k, v) in members.iter_mut() {
                        self.whole(k);
                        stack.push(v);
                    }
                }
                _ => {}
            }
        }
    }
}

/// A streamed channel of text outside the blocks.
#[derive(Debug, Clone, Copy)]
enum Channel {
    Reasoning,
    Thought,
    Refusal,
    Artifact,
    User,
    Args(u32),
}

impl Channel {
    /// The index of a channel's mask in `Masks::fixed` (`Args` has its own map).
    fn slot(self) -> usize {
        match self {
            Channel::Reasoning => 0,
            Channel::Thought => 1,
            Channel::Refusal => 2,
            Channel::Artifact => 3,
            Channel::User | Channel::Args(_) => 4,
        }
    }
}
