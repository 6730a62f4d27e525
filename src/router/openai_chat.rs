//! OpenAI Chat Completions streams (`chat.completion.chunk` events; also what most
//! "OpenAI-compatible" servers send).
//!
//! Read per event: `choices[0].delta.content` (text), `delta.reasoning_content` or
//! `delta.reasoning` (reasoning), `delta.refusal` (text), `delta.tool_calls[]` (keyed by
//! `index`; the first delta of a call carries `id` and `function.name`),
//! `choices[0].finish_reason`, a top-level `usage` object (the usage-only chunk has
//! `choices: []`), a top-level `error` object, and `data: [DONE]`. Only choice 0 is routed
//! (the choice whose `index` is 0, or the first one without an `index`): with `n > 1` the
//! other choices are dropped, not interleaved. After choice 0's finish reason no more of
//! its content is routed; `usage` (sent after it with `stream_options.include_usage`) and
//! errors still are. Tool calls have no end marker of their own: the calls stream one after
//! another, so a call ends when the next one starts, and every open call ends at the finish
//! reason, at `[DONE]`, or at the end of the stream. A tool call index that is not a whole
//! number from 0 to 2^32 - 1 is a `provider_error` and that delta is dropped.

use super::delta::{DeltaSink, Source, Usage};
use super::jscan::{members, string_of, Json, Kind, Members, SkipCache, R};
use super::tools::{bad_index, call_index, OpenCalls};

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
    /// `[DONE]` or a finish reason was seen.
    pub(crate) ended: bool,
}

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
            self.calls.end_all(sink);
            self.ended = true;
            return Ok(());
        }
        let mut j = Json::new(data);
        let mut finish: Option<String> = None;
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
                    self.choices(&mut j, &mut finish, sink)?;
                }
                "usage" if j.kind()? == Kind::Object => {
                    skipped_only = false;
                    emit_usage(&mut j, sink)?
                }
                "error" if j.kind()? == Kind::Object => {
                    skipped_only = false;
                    emit_error(&mut j, &mut self.scratch, sink)?
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
        self.ended |= self.calls.finish(finish, sink);
        Ok(())
    }

    /// End of stream: open tool calls end.
    pub(crate) fn finish(&mut self, sink: &mut dyn DeltaSink) {
        self.calls.end_all(sink);
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
        let (mut m, mut prefix_only) = if self.choice_prefix.jump(j) {
            zero = Some(true);
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
                "delta" | "message" if j.kind()? == Kind::Object => match zero {
                    Some(true) => {
                        if prefix_only {
                            self.choice_prefix.remember(j, start);
                        }
                        prefix_only = false;
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
        if let Some((at, raw)) = held {
            self.delta(&mut Json::new(raw), sink).map_err(|bad| bad.shifted(at))?;
        }
        if reason.is_some() {
            *finish = reason;
        }
        Ok(zero == Some(true))
    }

    fn delta(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        // OpenRouter sends reasoning twice, as `reasoning` and as `reasoning_details`: the
        // details count only when the plain field is absent.
        let mut plain_reasoning = false;
        let mut details: Option<&str> = None;
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "content" => match j.kind()? {
                    Kind::String => {
                        let t = j.string_value(&mut self.scratch)?;
                        if !t.is_empty() {
                            sink.text(t);
                        }
                    }
                    Kind::Array => self.content_parts(j, sink)?,
                    _ => j.skip()?,
                },
                "refusal" | "reasoning_content" | "reasoning" => {
                    if let Some(t) = j.str_value(&mut self.scratch)? {
                        plain_reasoning |= key != "refusal";
                        if !t.is_empty() {
                            if key == "refusal" {
                                sink.refusal(t);
                            } else {
                                sink.reasoning(t);
                            }
                        }
                    }
                }
                // OpenRouter: `[{type: "reasoning.text", text} | {type: "reasoning.summary",
                // summary} | {type: "reasoning.encrypted", ...}]`.
                "reasoning_details" if j.kind()? == Kind::Array => details = Some(j.value_raw()?),
                "annotations" if j.kind()? == Kind::Array => {
                    let mut a = j.array()?;
                    while j.next_item(&mut a)? {
                        let raw = j.value_raw()?;
                        read_url_citation(raw, sink)?;
                    }
                }
                "tool_calls" if j.kind()? == Kind::Array => {
                    let mut a = j.array()?;
                    let mut position = 0u32;
                    while j.next_item(&mut a)? {
                        self.tool_call(j, position, sink)?;
                        position += 1;
                    }
                }
                _ => j.skip()?,
            }
        }
        if let (Some(raw), false) = (details, plain_reasoning) {
            let mut d = Json::new(raw);
            let mut a = d.array()?;
            while d.next_item(&mut a)? {
                self.text_members(&mut d, &["text", "summary"], true, sink)?;
            }
        }
        Ok(())
    }

    /// Mistral's content arrays: `{type: "text", text}` chunks are text, `{type: "thinking",
    /// thinking: [{type: "text", text}]}` chunks reasoning.
    fn content_parts(&mut self, j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
        let mut a = j.array()?;
        while j.next_item(&mut a)? {
            if j.kind()? != Kind::Object {
                j.skip()?;
                continue;
            }
            let mut m = j.object()?;
            while let Some(k) = j.next_key(&mut m)? {
                match k {
                    "text" => {
                        if let Some(t) = j.str_value(&mut self.scratch)?.filter(|t| !t.is_empty()) {
                            sink.text(t);
                        }
                    }
                    "thinking" if j.kind()? == Kind::Array => {
                        let mut t = j.array()?;
                        while j.next_item(&mut t)? {
                            self.text_members(j, &["text"], true, sink)?;
                        }
                    }
                    "thinking" => {
                        if let Some(t) = j.str_value(&mut self.scratch)?.filter(|t| !t.is_empty()) {
                            sink.reasoning(t);
                        }
                    }
                    _ => j.skip()?,
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
        self.args.clear();
        let mut m = j.object()?;
        while let Some(key) = j.next_key(&mut m)? {
            match key {
                "index" => index = Some(j.value_raw()?),
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
                _ => j.skip()?,
            }
        }
        let index = match index.map(|raw| (raw, call_index(raw))) {
            None => position,
            Some((_, Some(i))) => i,
            Some((raw, None)) => {
                bad_index(raw, sink);
                return Ok(());
            }
        };
        if !self.calls.is_open(index) && !self.calls.was_started(index) {
            // Calls stream one after another: a new index means the earlier ones are complete.
            self.calls.end_all(sink);
        }
        self.calls.start_if_new(index, &id, &name, sink);
        if !self.args.is_empty() {
            sink.tool_call_delta(index, &self.args);
        }
        Ok(())
    }
}

/// The string at the cursor as text or reasoning (an empty one is dropped; another kind of
/// value is skipped).
pub(crate) fn emit_string(j: &mut Json<'_>, scratch: &mut String, reasoning: bool, sink: &mut dyn DeltaSink) -> R<()> {
    if let Some(t) = j.str_value(scratch)?.filter(|t| !t.is_empty()) {
        if reasoning {
            sink.reasoning(t);
        } else {
            sink.text(t);
        }
    }
    Ok(())
}

/// Reads an OpenAI `usage` object and hands it on unless it is empty.
pub(crate) fn emit_usage(j: &mut Json<'_>, sink: &mut dyn DeltaSink) -> R<()> {
    emit_counts(j, &OPENAI_COUNTS, sink)
}

/// Reads a usage object by `table` (see [`read_counts`]) and hands it on unless it is empty.
pub(crate) fn emit_counts(j: &mut Json<'_>, table: &[(&str, Count)], sink: &mut dyn DeltaSink) -> R<()> {
    let u = read_counts(j, table)?;
    if !u.is_empty() {
        sink.usage(&u);
    }
    Ok(())
}

/// Reads an error object (see [`read_error`]) and hands it on.
pub(crate) fn emit_error(j: &mut Json<'_>, scratch: &mut String, sink: &mut dyn DeltaSink) -> R<()> {
    let (code, message) = read_error(j, scratch)?;
    sink.error(&code, &message);
    Ok(())
}

/// Which count a usage member holds.
#[derive(Clone, Copy)]
pub(crate) enum Count {
    Input,
    Output,
    Total,
    Reasoning,
    Cached,
}

/// OpenAI's names (Chat Completions and Responses), details objects included.
const OPENAI_COUNTS: [(&str, Count); 8] = [
    ("prompt_tokens", Count::Input),
    ("input_tokens", Count::Input),
    ("completion_tokens", Count::Output),
    ("output_tokens", Count::Output),
    ("total_tokens", Count::Total),
    ("reasoning_tokens", Count::Reasoning),
    ("cached_tokens", Count::Cached),
    ("cache_read_input_tokens", Count::Cached),
];

/// Reads a usage object by a table of member names; the documented details objects one
/// level down (OpenAI's `*_tokens_details`) are read by the same table, any other nested
/// object is skipped (its counts are not the usage's: `context_details.input_tokens`).
pub(crate) fn read_counts(j: &mut Json<'_>, table: &[(&str, Count)]) -> R<Usage> {
    let mut u = Usage::default();
    let mut m = j.object()?;
    while let Some(key) = j.next_key(&mut m)? {
        let details = key.ends_with("_tokens_details");
        if j.kind()? == Kind::Object && !details {
            j.skip()?;
        } else if j.kind()? == Kind::Object {
            let mut d = j.object()?;
            while let Some(k) = j.next_key(&mut d)? {
                count(j, &mut u, table, k)?;
            }
        } else {
            count(j, &mut u, table, key)?;
        }
    }
    Ok(u)
}

fn count(j: &mut Json<'_>, u: &mut Usage, table: &[(&str, Count)], key: &str) -> R<()> {
    let Some((_, c)) = table.iter().find(|(name, _)| *name == key) else { return j.skip() };
    let v = j.u64_value()?;
    *match c {
        Count::Input => &mut u.input_tokens,
        Count::Output => &mut u.output_tokens,
        Count::Total => &mut u.total_tokens,
        Count::Reasoning => &mut u.reasoning_tokens,
        Count::Cached => &mut u.cached_input_tokens,
    } = v;
    Ok(())
}

/// Reads an error object `{code?, type?, status?, message?}`: the code is the first string
/// `code`, else `type`, else `status`, else `"provider_error"`; a numeric code is kept as text
/// only when nothing better is there.
pub(crate) fn read_error(j: &mut Json<'_>, scratch: &mut String) -> R<(String, String)> {
    let (mut code, mut kind, mut status, mut number) = (None, None, None, None);
    let mut message = String::new();
    let mut m = j.object()?;
    while let Some(key) = j.next_key(&mut m)? {
        match key {
            "code" if j.kind()? == Kind::Number => number = Some(j.value_raw()?.to_string()),
            "code" => code = j.str_value(scratch)?.map(|s| s.to_owned()),
            "type" => kind = j.str_value(scratch)?.map(|s| s.to_owned()),
            "status" => status = j.str_value(scratch)?.map(|s| s.to_owned()),
            "message" => {
                if j.kind()? == Kind::String {
                    j.string_into(&mut message)?;
                } else {
                    j.skip()?;
                }
            }
            _ => j.skip()?,
        }
    }
    let code = [code, kind, status, number]
        .into_iter()
        .flatten()
        .find(|c| !c.is_empty())
        .unwrap_or_else(|| "provider_error".to_string());
    Ok((code, message))
}

/// A `url_citation` annotation (`{type: "url_citation", url_citation: {url, title}}` in Chat
/// Completions, `{type: "url_citation", url, title}` in Responses) as a source; a
/// `file_citation` (`{file_id, filename}`) as one without a URL. Others are ignored.
pub(crate) fn read_url_citation(raw: &str, sink: &mut dyn DeltaSink) -> R<()> {
    let [kind, nested, url, title, file_id, filename] =
        members(raw, ["type", "url_citation", "url", "title", "file_id", "filename"])?;
    let source = match string_of(kind)?.as_str() {
        "url_citation" => {
            let (url, title) = match nested {
                Some(n) => {
                    let [u, t] = members(n, ["url", "title"])?;
                    (string_of(u)?, string_of(t)?)
                }
                None => (string_of(url)?, string_of(title)?),
            };
            Source { id: None, url: Some(url).filter(|u| !u.is_empty()), title: Some(title).filter(|t| !t.is_empty()), snippet: None }
        }
        "file_citation" => Source {
            id: Some(string_of(file_id)?).filter(|f| !f.is_empty()),
            url: None,
            title: Some(string_of(filename)?).filter(|f| !f.is_empty()),
            snippet: None,
        },
        _ => return Ok(()),
    };
    if source.url.is_some() || source.id.is_some() {
        sink.source(&source);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_done;

    #[test]
    fn done_marker_is_what_trimming_finds() {
        for data in [
            "[DONE]", " [DONE] ", "\t[DONE]\r\n", "[DONE]\u{b}", "[DONE]\u{3000}", "\u{a0}[DONE]\u{2029}",
            "", " ", "]", "[DONE", "DONE]", "[DONE]x", "x[DONE]", "{\"a\":\"[DONE]\"}", "[done]", "[DONE]\u{e9}",
            "[DONE]\u{1c}",
        ] {
            assert_eq!(is_done(data), data.trim() == "[DONE]", "{data:?}");
        }
    }
}
