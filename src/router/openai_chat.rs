//! OpenAI Chat Completions streams (`chat.completion.chunk` events; also what most
//! "OpenAI-compatible" servers send).
//!
//! Read per event: `choices[0].delta.content` (text; Mistral's content arrays of `text` and
//! `thinking` chunks), the reasoning (`delta.reasoning_content`; else OpenRouter's
//! `delta.reasoning_details`; else `delta.reasoning`: one of them, as servers that send two
//! send the same text twice), `delta.refusal` (text), `delta.annotations` (sources),
//! `delta.tool_calls[]`, a choice's `text` without a `delta` (the legacy Completions API,
//! `text_completion` chunks, which compatible servers still serve at `/v1/completions`),
//! `choices[0].finish_reason`, a top-level `usage` object (the usage-only
//! chunk has `choices: []`; Groq's `x_groq.usage` too), Perplexity's top-level `citations`
//! and `search_results` (sources), a top-level `error` object (or string), and
//! `data: [DONE]`. Within one delta the reasoning goes first, then the text, the sources and
//! the tool calls, whatever the order of its members. Only choice 0 is routed (the choice
//! whose `index` is 0, or the first one without an `index`): with `n > 1` the other choices
//! are dropped, not interleaved. After choice 0's finish reason no more of its content is
//! routed; `usage` (sent after it with `stream_options.include_usage`) and errors still are.
//!
//! Tool calls: a delta belongs to the call with its `index` (unless it names another `id`
//! than that call's: then it starts a new call), or, without an `index`, to the latest call
//! (unless it names another `id`). A new call whose index is taken gets the next free one. A
//! call starts once its name is known: argument text that comes before the name is held
//! (charged to the budget) until it does; a call that never gets a name is dropped with a
//! `provider_error`. Calls have no end marker of their own: they stream one after another,
//! so a call ends when the next one starts, and every open call ends at the finish reason, at
//! `[DONE]`, or at the end of the stream. A tool call index that is not a whole number from
//! 0 to 2^32 - 1 is a `provider_error` and that delta is dropped. Gemini's compatible
//! endpoint puts a call's thought signature in `extra_content.google.thought_signature`: a
//! `thought_signature` continuation with the call's index, after that delta's events.

use super::common::{emit_error, emit_string, emit_usage, read_url_citation};
use super::delta::{DeltaSink, Source};
use super::jscan::{members, string_of, Json, Kind, Members, SkipCache, R};
use super::tools::{bad_index, call_index, ByIndex, OpenCalls};
use crate::hash::Map;

/// The decoder state.
#[derive(Debug, Default)]
pub(crate) struct OpenAiChat {
    calls: OpenCalls,
    /// The chunks' repeated beginning, up to the `choices` value.
    prefix: SkipCache,
    /// Choice 0's repeated beginning (`{"index":0,`), up to the `delta` value; only learnt
    /// from a beginning that holds `"index":0`, so a jump proves the choice is choice 0.
    choice_prefix: SkipCache,
    scratch: String,
    args: String,
    /// The call each provider index names (its routed index and id).
    by_index: Map<u32, CallSlot>,
    /// The latest call (what a delta without an `index` continues).
    latest: Option<CallSlot>,
    /// Above every routed index given so far.
    next_free: u32,
    /// Calls whose name has not come yet, by routed index.
    unnamed: ByIndex<Unnamed>,
    /// `[DONE]` or a finish reason was seen.
    pub(crate) ended: bool,
}

/// A call as a provider index or the latest delta names it.
#[derive(Debug, Clone)]
struct CallSlot {
    routed: u32,
    id: String,
}

/// A call whose name has not come yet: its id and argument text so far (charged to the
/// budget).
#[derive(Debug)]
struct Unnamed {
    id: String,
    args: String,
}

/// What a budget charge for a remembered call id adds to its bytes.
const SLOT_BYTES: usize = 32;

/// Is `data` OpenAI's end marker, `[DONE]` (whitespace around it allowed)? Most events end
/// in `}`: the last byte tells them apart without trimming.
#[inline]
pub(crate) fn is_done(data: &str) -> bool {
    match data.as_bytes().last() {
        None => false,
        // An ASCII byte that is neither `]` nor whitespace ends no `[DONE]`.
        Some(&c) if c.is_ascii() && c != b']' && !matches!(c, b'\t'..=b'\r' | b' ') => false,
        _ => data.trim() == "[DONE]",
    }
}

impl OpenAiChat {
    /// One SSE event's data.
    pub(crate) fn event(&mut self, data: &str, sink: &mut dyn DeltaSink) -> R<()> {
        if is_done(data) {
            self.drop_unnamed(sink);
            self.calls.end_all(sink);
            self.ended = true;
            return Ok(());
        }
        let mut j = Json::new(data);
        let mut finish: Option<String> = None;
        let mut held = HeldSources::default();
        // Chunks repeat `{"id":...,"object":...,"created":...,"model":...,"choices":` byte for
        // byte: after the first, the cursor jumps straight to the choices.
        let (mut m, mut skipped_only) = if self.prefix.jump(&mut j) {
            self.choices(&mut j, &mut finish, sink)?;
            (Members::after_key(), false)
        } else {
            (j.object()?, true)
        };
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "choices" if j.kind()? == Kind::Array => {
                    if skipped_only {
                        self.prefix.remember(&j, 0);
                    }
                    skipped_only = false;
                    self.sources(&mut held, sink)?;
                    self.choices(&mut j, &mut finish, sink)?;
                }
                // Perplexity repeats them in every chunk.
                "citations" | "search_results" if j.kind()? == Kind::Array => {
                    skipped_only = false;
                    let at = j.pos();
                    let raw = j.value_raw()?;
                    *if key == "citations" { &mut held.citations } else { &mut held.search_results } = Some((at, raw));
                }
                "usage" if j.kind()? == Kind::Object => {
                    skipped_only = false;
                    emit_usage(&mut j, sink)?
                }
                "error" if j.kind()? == Kind::Object => {
                    skipped_only = false;
                    emit_error(&mut j, &mut self.scratch, sink)?
                }
                "error" if j.kind()? == Kind::String => {
                    skipped_only = false;
                    let message = j.string_value(&mut self.scratch)?;
                    sink.error("provider_error", message);
                }
                // Groq puts the usage of the last chunk here.
                "x_groq" if j.kind()? == Kind::Object => {
                    skipped_only = false;
                    let mut x = j.object()?;
                    while let Some(k) = j.next_key(&mut x)? {
                        if k == "usage" && j.kind()? == Kind::Object {
                            emit_usage(&mut j, sink)?;
                        } else {
                            j.skip()?;
                        }
                    }
                }
                _ => j.skip()?,
            }
        }
        j.end()?;
        self.sources(&mut held, sink)?;
        if finish.is_some() {
            self.drop_unnamed(sink);
        }
        self.ended |= self.calls.finish(finish, sink);
        Ok(())
    }

    /// End of stream: open tool calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        self.drop_unnamed(sink);
        self.calls.end_all(sink);
    }

    /// Perplexity's sources, held until the chunk's choices: `search_results` (with titles)
    /// first, then the bare `citations` URLs (the router drops a URL it routed before).
    fn sources(&mut self, held: &mut HeldSources<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        if let Some((at, raw)) = held.search_results.take() {
            let mut j = Json::new(raw);
            let mut a = j.array().map_err(|b| b.shifted(at))?;
            while j.next_item(&mut a).map_err(|b| b.shifted(at))? {
                let item = j.value_raw().map_err(|b| b.shifted(at))?;
                if item.starts_with('{') {
                    let [url, title, snippet] = members(item, ["url", "title", "snippet"]).map_err(|b| b.shifted(at))?;
                    let source = Source {
                        id: None,
                        url: Some(string_of(url)?).filter(|u| !u.is_empty()),
                        title: Some(string_of(title)?).filter(|t| !t.is_empty()),
                        snippet: Some(string_of(snippet)?).filter(|t| !t.is_empty()),
                    };
                    if source.url.is_some() {
                        sink.source(&source);
                    }
                }
            }
        }
        if let Some((at, raw)) = held.citations.take() {
            let mut j = Json::new(raw);
            let mut a = j.array().map_err(|b| b.shifted(at))?;
            while j.next_item(&mut a).map_err(|b| b.shifted(at))? {
                if let Some(url) = j.str_value(&mut self.scratch).map_err(|b| b.shifted(at))?.filter(|u| !u.is_empty()) {
                    sink.source(&Source { id: None, url: Some(url.to_owned()), title: None, snippet: None });
                }
            }
        }
        Ok(())
    }

    /// Calls that never got a name are dropped, each with an error.
    fn drop_unnamed(&mut self, sink: &mut dyn DeltaSink) {
        while let Some((index, u)) = self.unnamed.pop_first() {
            sink.release(u.args.len() + u.id.len());
            sink.error("provider_error", &format!("tool call {index} never got a name and was dropped"));
        }
    }

    /// The `choices` value: choice 0 is routed until its finish reason, the others skipped.
    fn choices(&mut self, j: &mut Json<'_>, finish: &mut Option<String>, sink: &mut dyn DeltaSink) -> R<()> {
        if self.ended || j.kind()? != Kind::Array {
            return j.skip();
        }
        let mut a = j.array()?;
        let mut first = true;
        while j.next_item(&mut a)? {
            if self.choice(j, first, finish, sink)? {
                // Choice 0 is read: the others are only skipped.
                while j.next_item(&mut a)? {
                    j.skip()?;
                }
                break;
            }
            first = false;
        }
        Ok(())
    }

    /// One choice; `first`: it is the array's first (choice 0 when it has no `index`). Its
    /// delta is read in place once its `index` is known to be 0, else kept as raw text until
    /// the choice's end shows whether it is choice 0. `true`: its `index` is 0.
    fn choice(&mut self, j: &mut Json<'_>, first: bool, finish: &mut Option<String>, sink: &mut dyn DeltaSink) -> R<bool> {
        if j.kind()? != Kind::Object {
            return j.skip().map(|()| false);
        }
        let start = j.pos();
        // `Some(true)`: index 0; `Some(false)`: another index (or not a number).
        let mut zero: Option<bool> = None;
        // The delta of a choice whose index is not known yet: where it is, and its text.
        let mut held: Option<(usize, &str)> = None;
        let mut reason: Option<String> = None;
        let mut message: Option<(usize, &str)> = None;
        // The legacy Completions API's text (`/v1/completions`): read when there is no delta.
        let mut completion: Option<(usize, &str)> = None;
        let mut has_delta = false;
        let (mut m, mut prefix_only) = if self.choice_prefix.jump(j) {
            zero = Some(true);
            has_delta = true;
            if j.kind()? == Kind::Object {
                self.delta(j, sink)?;
            } else {
                j.skip()?;
            }
            (Members::after_key(), false)
        } else {
            (j.object()?, true)
        };
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "index" if zero.is_none() => zero = Some(j.u64_value()? == Some(0)),
                // A choice with both (Perplexity) has the whole message so far in `message`:
                // it is read only when there is no `delta`.
                "message" if j.kind()? == Kind::Object => {
                    prefix_only = false;
                    message = Some((j.pos(), j.value_raw()?));
                }
                "text" if j.kind()? == Kind::String => {
                    prefix_only = false;
                    completion = Some((j.pos(), j.value_raw()?));
                }
                "delta" if j.kind()? == Kind::Object => match zero {
                    Some(true) => {
                        if prefix_only {
                            self.choice_prefix.remember(j, start);
                        }
                        prefix_only = false;
                        has_delta = true;
                        self.delta(j, sink)?
                    }
                    Some(false) => j.skip()?,
                    None => {
                        prefix_only = false;
                        held = Some((j.pos(), j.value_raw()?));
                    }
                },
                "finish_reason" => {
                    prefix_only = false;
                    if let Some(r) = j.str_value(&mut self.scratch)? {
                        reason = Some(r.to_owned());
                    }
                }
                _ => {
                    prefix_only = false;
                    j.skip()?
                }
            }
        }
        if !zero.unwrap_or(first) {
            return Ok(false);
        }
        if let Some((at, raw)) = held.or(if has_delta { None } else { message }) {
            self.delta(&mut Json::new(raw), sink).map_err(|bad| bad.shifted(at))?;
        } else if let Some((at, raw)) = completion.filter(|_| !has_delta) {
            emit_string(&mut Json::new(raw), &mut self.scratch, false, sink).map_err(|bad| bad.shifted(at))?;
        }
        if reason.is_some() {
            *finish = reason;
        }
        Ok(zero == Some(true))
    }

    fn delta(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        // Each member is read once the whole delta is seen, in a fixed order: where each
        // starts in `j`, and its text.
        let mut reasoning_content: Option<(usize, &str)> = None;
        let mut details: Option<(usize, &str)> = None;
        let mut reasoning: Option<(usize, &str)> = None;
        let mut content: Option<(usize, &str)> = None;
        let mut annotations: Option<(usize, &str)> = None;
        let mut tool_calls: Option<(usize, &str)> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            let slot = match (key, j.kind()?) {
                ("reasoning_content", Kind::String) => &mut reasoning_content,
                // OpenRouter: `[{type: "reasoning.text", text} | {type: "reasoning.summary",
                // summary} | {type: "reasoning.encrypted", ...}]`.
                ("reasoning_details", Kind::Array) => &mut details,
                ("reasoning", Kind::String) => &mut reasoning,
                ("content", Kind::String | Kind::Array) => &mut content,
                ("annotations", Kind::Array) => &mut annotations,
                ("tool_calls", Kind::Array) => &mut tool_calls,
                ("refusal", _) => {
                    if let Some(t) = j.str_value(&mut self.scratch)?.filter(|t| !t.is_empty()) {
                        sink.refusal(t);
                    }
                    continue;
                }
                _ => {
                    j.skip()?;
                    continue;
                }
            };
            *slot = Some((j.pos(), j.value_raw()?));
        }
        // One reasoning field: servers that send two send the same text twice.
        let details = details.filter(|(_, raw)| crate::text::sub(raw, 1..).trim_start() != "]");
        match (reasoning_content.or(if details.is_some() { None } else { reasoning }), details) {
            (Some((at, raw)), _) => {
                emit_string(&mut Json::new(raw), &mut self.scratch, true, sink).map_err(|b| b.shifted(at))?;
            }
            (None, Some((at, raw))) => {
                let mut d = Json::new(raw);
                let r = (|| {
                    let mut a = d.array()?;
                    while d.next_item(&mut a)? {
                        self.text_members(&mut d, &["text", "summary"], true, sink)?;
                    }
                    Ok(())
                })();
                r.map_err(|b: super::jscan::Bad| b.shifted(at))?;
            }
            (None, None) => {}
        }
        if let Some((at, raw)) = content {
            let mut c = Json::new(raw);
            let r = if raw.starts_with('"') {
                emit_string(&mut c, &mut self.scratch, false, sink)
            } else {
                self.content_parts(raw, sink)
            };
            r.map_err(|b| b.shifted(at))?;
        }
        if let Some((at, raw)) = annotations {
            let mut a = Json::new(raw);
            let r = (|| {
                let mut items = a.array()?;
                while a.next_item(&mut items)? {
                    let item = a.value_raw()?;
                    read_url_citation(item, sink)?;
                }
                Ok(())
            })();
            r.map_err(|b: super::jscan::Bad| b.shifted(at))?;
        }
        if let Some((at, raw)) = tool_calls {
            let mut t = Json::new(raw);
            let r = (|| {
                let mut a = t.array()?;
                let mut position = 0u32;
                while t.next_item(&mut a)? {
                    self.tool_call(&mut t, position, sink)?;
                    position = position.saturating_add(1);
                }
                Ok(())
            })();
            r.map_err(|b: super::jscan::Bad| b.shifted(at))?;
        }
        Ok(())
    }

    /// Mistral's content arrays: the reasoning of every `{type: "thinking", thinking: [{type:
    /// "text", text}]}` chunk first, then the text of every `{type: "text", text}` chunk.
    /// Other chunks (`reference`, `image_url`) are skipped.
    fn content_parts(&mut self, raw: &str, sink: &mut dyn DeltaSink) -> R<()> {
        for thinking in [true, false] {
            let mut j = Json::new(raw);
            let mut a = j.array()?;
            while j.next_item(&mut a)? {
                if j.kind()? != Kind::Object {
                    j.skip()?;
                    continue;
                }
                let part = j.value_raw()?;
                let [kind, text, inner] = members(part, ["type", "text", "thinking"])?;
                match (string_of(kind)?.as_str(), thinking) {
                    ("text", false) => {
                        if let Some(t) = text {
                            emit_string(&mut Json::new(t), &mut self.scratch, false, sink)?;
                        }
                    }
                    ("thinking", true) => match inner {
                        Some(t) if t.starts_with('[') => {
                            let mut p = Json::new(t);
                            let mut items = p.array()?;
                            while p.next_item(&mut items)? {
                                let item = p.value_raw()?;
                                if item.starts_with('{') {
                                    let [k, t] = members(item, ["type", "text"])?;
                                    if string_of(k)? == "text" {
                                        if let Some(t) = t {
                                            emit_string(&mut Json::new(t), &mut self.scratch, true, sink)?;
                                        }
                                    }
                                }
                            }
                        }
                        Some(t) => emit_string(&mut Json::new(t), &mut self.scratch, true, sink)?,
                        None => {}
                    },
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The string members `names` of the object at the cursor, as reasoning (or text).
    fn text_members(&mut self, j: &mut Json<'_>, names: &[&str], reasoning: bool, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        let mut m = j.object()?;
        while let Some(k) = j.next_key(&mut m)? {
            if !names.contains(&k) {
                j.skip()?;
                continue;
            }
            emit_string(j, &mut self.scratch, reasoning, sink)?;
        }
        Ok(())
    }

    fn tool_call(&mut self, j: &mut Json<'_>, position: u32, sink: &mut dyn DeltaSink) -> R<()> {
        if j.kind()? != Kind::Object {
            return j.skip();
        }
        let mut index: Option<&str> = None;
        let mut id = String::new();
        let mut name = String::new();
        let mut signature: Option<&str> = None;
        self.args.clear();
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "index" => index = Some(j.value_raw()?).filter(|raw| *raw != "null"),
                "id" => {
                    j.string_into(&mut id)?;
                }
                "function" if j.kind()? == Kind::Object => {
                    let mut f = j.object()?;
                    while let Some(k) = j.next_key(&mut f)? {
                        match k {
                            "name" => {
                                j.string_into(&mut name)?;
                            }
                            "arguments" => {
                                if j.kind()? == Kind::String {
                                    j.string_into(&mut self.args)?;
                                } else if j.kind()? == Kind::Null {
                                    j.skip()?;
                                } else {
                                    // Some servers send the arguments as an object.
                                    let raw = j.value_raw()?;
                                    self.args.push_str(raw);
                                }
                            }
                            _ => j.skip()?,
                        }
                    }
                }
                // Gemini's compatible endpoint: `{google: {thought_signature}}`.
                "extra_content" if j.kind()? == Kind::Object => {
                    let raw = j.value_raw()?;
                    let [google] = members(raw, ["google"])?;
                    if let Some(g) = google.filter(|g| g.starts_with('{')) {
                        let [sig] = members(g, ["thought_signature"])?;
                        signature = sig.filter(|s| s.starts_with('"'));
                    }
                }
                _ => j.skip()?,
            }
        }
        let index = match index.map(|raw| (raw, call_index(raw))) {
            None => None,
            Some((_, Some(i))) => Some(i),
            Some((raw, None)) => {
                bad_index(raw, sink);
                return Ok(());
            }
        };
        let routed = self.resolve(index, position, &id, sink);
        if let Some(u) = self.unnamed.get_mut(routed) {
            // Held until the name comes.
            if u.id.is_empty() && !id.is_empty() && sink.retain(id.len(), "the unnamed tool calls") {
                u.id = id;
            }
            if !self.args.is_empty() && sink.retain(self.args.len(), "the unnamed tool calls") {
                u.args.push_str(&self.args);
            }
            if name.is_empty() {
                return Ok(());
            }
            let Some(u) = self.unnamed.remove(routed) else { return Ok(()) };
            sink.release(u.args.len() + u.id.len());
            self.calls.end_all(sink);
            self.calls.start_if_new(routed, &u.id, &name, sink);
            if !u.args.is_empty() {
                sink.tool_call_delta(routed, &u.args);
            }
        } else if !self.calls.was_started(routed) {
            if name.is_empty() {
                let bytes = self.args.len() + id.len();
                if sink.retain(bytes, "the unnamed tool calls") {
                    self.unnamed.push(routed, Unnamed { id, args: std::mem::take(&mut self.args) });
                }
                return Ok(());
            }
            // Calls stream one after another: a new call means the earlier ones are complete.
            self.calls.end_all(sink);
            self.calls.start_if_new(routed, &id, &name, sink);
            if !self.args.is_empty() {
                sink.tool_call_delta(routed, &self.args);
            }
        } else if !self.args.is_empty() {
            sink.tool_call_delta(routed, &self.args);
        }
        if let Some(sig) = signature {
            sink.continuation("thought_signature", &format!("{{\"thoughtSignature\":{sig},\"index\":{routed}}}"));
        }
        Ok(())
    }

    /// The routed index of a tool call delta: the call its `index` names (unless the delta
    /// names another id), else, without an index, the latest call (unless it names another
    /// id), else a new call, at its index (or position) when that is free.
    fn resolve(&mut self, index: Option<u32>, position: u32, id: &str, sink: &mut dyn DeltaSink) -> u32 {
        let same = |slot: &CallSlot| id.is_empty() || slot.id.is_empty() || slot.id == id;
        let known = match index {
            Some(i) => self.by_index.get(&i).filter(|s| same(s)).map(|s| s.routed),
            None => self.latest.as_ref().filter(|s| same(s)).map(|s| s.routed),
        };
        let routed = known.unwrap_or_else(|| {
            let wanted = index.unwrap_or(position);
            if self.calls.was_started(wanted) || self.unnamed.contains(wanted) {
                self.next_free
            } else {
                wanted
            }
        });
        self.next_free = self.next_free.max(routed.saturating_add(1));
        if known.is_none() {
            if let Some(i) = index {
                if sink.retain(SLOT_BYTES + id.len(), "the tool call ids") {
                    self.by_index.insert(i, CallSlot { routed, id: id.to_owned() });
                }
            }
        }
        match &mut self.latest {
            Some(l) if l.routed == routed => {
                if l.id.is_empty() {
                    id.clone_into(&mut l.id);
                }
            }
            l => *l = Some(CallSlot { routed, id: id.to_owned() }),
        }
        routed
    }
}

/// Perplexity's source arrays of one chunk (where each starts in the event, and its text).
#[derive(Default)]
struct HeldSources<'a> {
    citations: Option<(usize, &'a str)>,
    search_results: Option<(usize, &'a str)>,
}

#[cfg(test)]
mod tests {
    use super::is_done;

    #[test]
    fn done_marker_is_what_trimming_finds() {
        for data in [
            "[DONE]",
            " [DONE] ",
            "\t[DONE]\r\n",
            "[DONE]\u{b}",
            "[DONE]\u{3000}",
            "\u{a0}[DONE]\u{2029}",
            "",
            " ",
            "]",
            "[DONE",
            "DONE]",
            "[DONE]x",
            "x[DONE]",
            "{\"a\":\"[DONE]\"}",
            "[done]",
            "[DONE]\u{e9}",
            "[DONE]\u{1c}",
        ] {
            assert_eq!(is_done(data), data.trim() == "[DONE]", "{data:?}");
        }
    }
}
