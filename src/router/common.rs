//! What every provider reader shares: usage objects read by a table of member names, error
//! objects, text or reasoning strings, and citation annotations.

use super::delta::{DeltaSink, Source, Usage};
use super::jscan::{members, string_of, Json, Kind, R};

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
    /// Input tokens neither read from nor written to a cache (Anthropic's and Bedrock's input
    /// count): the usage's input adds the cached and written ones to it.
    Fresh,
    /// Input tokens written to a cache.
    Written,
}

/// OpenAI's names (Chat Completions and Responses), details objects included, and
/// DeepSeek's `prompt_cache_hit_tokens`.
const OPENAI_COUNTS: [(&str, Count); 9] = [
    ("prompt_tokens", Count::Input),
    ("input_tokens", Count::Input),
    ("completion_tokens", Count::Output),
    ("output_tokens", Count::Output),
    ("total_tokens", Count::Total),
    ("reasoning_tokens", Count::Reasoning),
    ("cached_tokens", Count::Cached),
    ("cache_read_input_tokens", Count::Cached),
    ("prompt_cache_hit_tokens", Count::Cached),
];

/// Reads a usage object by a table of member names; the documented details objects one
/// level down (OpenAI's `*_tokens_details`) are read by the same table, any other nested
/// object is skipped (its counts are not the usage's: `context_details.input_tokens`).
pub(crate) fn read_counts(j: &mut Json<'_>, table: &[(&str, Count)]) -> R<Usage> {
    let mut u = Usage::default();
    let (mut fresh, mut written) = (None, None);
    let mut m = j.object()?;
    while let Some(key) = j.next_key(&mut m)? {
        let details = key.ends_with("_tokens_details");
        if j.kind()? == Kind::Object && !details {
            j.skip()?;
        } else if j.kind()? == Kind::Object {
            let mut d = j.object()?;
            while let Some(k) = j.next_key(&mut d)? {
                count(j, (&mut u, &mut fresh, &mut written), table, k)?;
            }
        } else {
            count(j, (&mut u, &mut fresh, &mut written), table, key)?;
        }
    }
    if fresh.is_some() {
        u.input_tokens = input_total(fresh, u.cached_input_tokens, written);
    }
    Ok(u)
}

/// All input tokens from a count that leaves out those read from (`cached`) and written to
/// (`written`) a cache: their sum, `None` without that count.
pub(crate) fn input_total(fresh: Option<u64>, cached: Option<u64>, written: Option<u64>) -> Option<u64> {
    fresh.map(|n| n.saturating_add(cached.unwrap_or(0)).saturating_add(written.unwrap_or(0)))
}

fn count(
    j: &mut Json<'_>,
    (u, fresh, written): (&mut Usage, &mut Option<u64>, &mut Option<u64>),
    table: &[(&str, Count)],
    key: &str,
) -> R<()> {
    let Some((_, c)) = table.iter().find(|(name, _)| *name == key) else { return j.skip() };
    let v = j.u64_value()?;
    *match c {
        Count::Input => &mut u.input_tokens,
        Count::Output => &mut u.output_tokens,
        Count::Total => &mut u.total_tokens,
        Count::Reasoning => &mut u.reasoning_tokens,
        Count::Cached => &mut u.cached_input_tokens,
        Count::Fresh => fresh,
        Count::Written => written,
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
            Source {
                id: None,
                url: Some(url).filter(|u| !u.is_empty()),
                title: Some(title).filter(|t| !t.is_empty()),
                snippet: None,
            }
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
