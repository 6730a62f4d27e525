//! The action normaliser: one canonical `{next_node, args}` out of anything a model writes.
//!
//! Advice for hackers. `normalize_action_text` works in three linear passes:
//! 1. **Find candidates.** If the whole text (trimmed, a byte order mark too) is one JSON
//!    value, that value is the only source (`direct`; a JSON string holding JSON is read
//!    again, up to three levels, `embedded_string`; the objects of an array are
//!    `list_item`s). Otherwise one scan splits the text into `<think>`/`<thinking>` blocks
//!    (their objects are `think` candidates; a closing tag with no opening tag makes
//!    everything before it a think block), markdown fences of three or more backticks with
//!    any or no language tag (`fence`) and prose (`text`; a `"` right before a `{` may open
//!    a JSON string holding an action, `embedded_string`). At each `{` one JSON value is read
//!    with the shared (tolerant) tokenizer and the scan goes on after it, so objects nested
//!    in a value are never candidates of their own. A value that breaks off is repaired
//!    (`repairs` say how; a second value or prose after it is left out). A value the input
//!    ended inside (repair kind `truncated`) counts only if the `next_node` that decides it
//!    was complete before the cut (read by the tokenizer as far as the text is JSON);
//!    otherwise it is dropped *with everything nested in it*, so the `args` of a truncated
//!    tool call never stand alone as an answer. At most `MAX_REPAIR_ATTEMPTS` repairs per
//!    input, and none for a `{` with no `:` before its `}` (prose braces), keep it linear.
//! 2. **Choose.** If the streaming `AnswerExtractor`, run over the same text, streams any
//!    answer text, the candidate it streamed from is the action, whatever else the text holds
//!    (`candidate.rs`: a final response whose answer begins with the streamed text). Otherwise
//!    candidates are ranked by, in order: outside any think block before inside
//!    one; action-shaped (`next_node`, `thought`, `plan`, `join` or an `action` object)
//!    before answer-shaped (`answer`/`raw_answer`, or `args` holding an answer); valid JSON
//!    before repaired, repaired before truncated; fenced before prose; earlier in the text
//!    first. The best-ranked candidate that normalises wins; if none does, the best-ranked
//!    one's error is returned. So with no think blocks and no fences the first complete
//!    action-shaped object wins, which is the object the streaming `AnswerExtractor` latches
//!    on (a template such as `{"next_node": "<tool>", "args": {...}}` before the real action
//!    needs a repair, so it loses).
//! 3. **Normalise** the chosen mapping (`normalize.rs`). `reasoning` is the text before
//!    the chosen object: think-block contents and prose, fence marker lines dropped, each
//!    piece trimmed, joined with `\n`.
//!
//! Diagnostics: the source (`direct` whenever the chosen object, repaired or not, is the
//! whole input apart from whitespace), the repairs, the bytes before and after the chosen
//! object, and every other candidate that normalises, in text order (final answers over
//! `SUMMARY_ANSWER_CHARS` (200) characters replaced by `answer_len`).

pub(crate) mod candidate;
mod normalize;

pub use normalize::PlannerAction;

use crate::json::tokenizer::{AfterValue, Sink, Token, Tokenizer, TokenizerOptions};
use crate::json::{JsonValue, ValueBuilder};
use crate::repair::{repair_json_with_log, Repair};
use crate::{Error, ErrorKind, Result};
use normalize::{is_action_shaped, is_answer_shaped, normalize_mapping};

/// Where the chosen action came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), serde(rename_all = "snake_case"))]
pub enum ActionSource {
    /// The input was an object (or the whole text was one JSON object).
    Direct,
    /// A markdown code fence.
    Fence,
    /// An object found in prose.
    Text,
    /// An object inside a `<think>` block.
    Think,
    /// A JSON string whose content is an object (double-encoded JSON).
    EmbeddedString,
    /// An object inside a top-level JSON array.
    ListItem,
}

impl ActionSource {
    /// The stable name used in diagnostics.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionSource::Direct => "direct",
            ActionSource::Fence => "fence",
            ActionSource::Text => "text",
            ActionSource::Think => "think",
            ActionSource::EmbeddedString => "embedded_string",
            ActionSource::ListItem => "list_item",
        }
    }
}

/// What `normalize_action_with_diagnostics` reports besides the action.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ActionDiagnostics {
    /// Where the action came from.
    pub source: ActionSource,
    /// The JSON repairs applied to the chosen candidate (offsets in the input text: bytes,
    /// UTF-16 code units in JS).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "{ kind: string; offset: number }[]"))]
    pub repairs: Vec<Repair>,
    /// Input before the chosen candidate: bytes (UTF-16 code units in JS).
    pub ignored_prefix_len: usize,
    /// Input after it: bytes (UTF-16 code units in JS).
    pub ignored_suffix_len: usize,
    /// The other action candidates, normalised, with long answers replaced by their length.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "{ source: string; action: PlannerAction }[]"))]
    pub other_actions: Vec<(ActionSource, PlannerAction)>,
}

impl ActionDiagnostics {
    /// The diagnostics as the JSON object JS gets, with offsets and lengths in UTF-16 code
    /// units of `text`, the input they describe.
    pub fn to_json_value(&self, text: &str) -> JsonValue {
        let d = self;
        let num = |n: u64| JsonValue::Number(n.to_string());
        // Repairs come in input order: one forward walk turns their offsets into UTF-16 units.
        let mut units = crate::text::Utf16Offsets::new(text);
        let repairs = d
            .repairs
            .iter()
            .map(|r| {
                JsonValue::Object(vec![
                    ("kind".into(), JsonValue::String(r.kind.to_string())),
                    ("offset".into(), num(units.at(r.offset))),
                ])
            })
            .collect();
        let others = d
            .other_actions
            .iter()
            .map(|(src, a)| {
                JsonValue::Object(vec![
                    ("source".into(), JsonValue::String(src.as_str().into())),
                    ("action".into(), a.to_json_value()),
                ])
            })
            .collect();
        let mut units = crate::text::Utf16Offsets::new(text);
        let prefix = units.at(d.ignored_prefix_len);
        let suffix_start = units.at(text.len() - d.ignored_suffix_len);
        let suffix = units.at(text.len()).saturating_sub(suffix_start);
        JsonValue::Object(vec![
            ("source".into(), JsonValue::String(d.source.as_str().into())),
            ("repairs".into(), JsonValue::Array(repairs)),
            ("ignored_prefix_len".into(), num(prefix)),
            ("ignored_suffix_len".into(), num(suffix)),
            ("other_actions".into(), JsonValue::Array(others)),
        ])
    }
}

#[derive(Debug, Clone)]
struct Candidate {
    mapping: Vec<(String, JsonValue)>,
    source: ActionSource,
    start: usize,
    end: usize,
    repairs: Vec<Repair>,
    /// The input ended inside it (it was closed by the repairer).
    truncated: bool,
}

/// A `<think>` block: `open` tag start, body, and the end of the closing tag.
#[derive(Debug, Clone, Copy)]
struct Think {
    open: usize,
    body_start: usize,
    body_end: usize,
    close_end: usize,
}

/// Most repair attempts on broken objects in one input (keeps the scan linear).
const MAX_REPAIR_ATTEMPTS: usize = 4;
/// Final answers longer than this (in chars) are summarised as `answer_len` in diagnostics.
const SUMMARY_ANSWER_CHARS: usize = 200;
/// How far after a broken `{` a `:` is looked for before it is repaired.
const LOOKAHEAD: usize = 512;
/// How many times a JSON string holding JSON is decoded again.
const MAX_EMBEDDED_DEPTH: usize = 3;

/// Normalises an already-parsed JSON value (an object, an array of objects, or a string
/// holding model output), by the same rules as text.
///
/// # Errors
/// `action_payload_unparseable` when the value holds no action; `action_missing_next_node`
/// as for text.
pub fn normalize_action_value(value: &JsonValue) -> Result<PlannerAction> {
    if let JsonValue::String(s) = value {
        return normalize_action_text(s);
    }
    let mut scan = Scan::new("", 0);
    scan.push_value(value.clone(), ActionSource::Direct, (0, 0), Vec::new(), false);
    let (chosen, _) = choose(&scan.out)?;
    Ok(chosen)
}

/// Finds and normalises the action in model output.
///
/// # Errors
/// `action_payload_unparseable` when no action can be found; `action_missing_next_node`
/// when the chosen object names no usable `next_node` (an empty or non-string one, or none
/// and no answer); `input_too_large` past [`MAX_INPUT_BYTES`](crate::MAX_INPUT_BYTES) (64 MiB).
pub fn normalize_action_text(text: &str) -> Result<PlannerAction> {
    normalize_action_with_diagnostics(text).map(|(a, _)| a)
}

/// Like [`normalize_action_text`], with where the action came from and what else was found.
///
/// # Errors
/// As [`normalize_action_text`].
pub fn normalize_action_with_diagnostics(text: &str) -> Result<(PlannerAction, ActionDiagnostics)> {
    crate::budget::check_input(text.len(), "the action text")?;
    if blank(text) {
        return Err(unparseable("empty input"));
    }
    let streamed = candidate::streamed(text);
    let (action, scan, idx) = choose_in(text, streamed.as_ref())?;
    let c = &scan.out[idx];
    let whole = blank(crate::text::sub(text, ..c.start)) && blank(crate::text::sub(text, c.end..));
    let source = if whole && c.source == ActionSource::Text { ActionSource::Direct } else { c.source };
    let mut other_actions = Vec::new();
    for (i, o) in scan.out.iter().enumerate() {
        if i == idx || !(is_action_shaped(&o.mapping) || is_answer_shaped(&o.mapping)) {
            continue;
        }
        if let Ok(a) = normalize_mapping(&o.mapping, None) {
            other_actions.push((o.source, summarize(a)));
        }
    }
    let diagnostics = ActionDiagnostics {
        source,
        repairs: c.repairs.clone(),
        ignored_prefix_len: c.start,
        ignored_suffix_len: text.len().saturating_sub(c.end),
        other_actions,
    };
    Ok((action, diagnostics))
}

/// The action of `text` as the caller's own extractor read it (`streamed`: the candidate it
/// streamed answer text from, if any), without reading the text with a second extractor.
///
/// # Errors
/// As [`normalize_action_text`] (never once text was streamed).
pub(crate) fn normalize_streamed(text: &str, streamed: Option<&candidate::Streamed>) -> Result<PlannerAction> {
    if streamed.is_none() && blank(text) {
        return Err(unparseable("empty input"));
    }
    choose_in(text, streamed).map(|(action, ..)| action)
}

/// Scans `text` and chooses its action: the streamed candidate when there is one, else the
/// best-ranked one. Returns the action (its `reasoning` filled in), the scan and the index
/// of the chosen candidate.
fn choose_in<'a>(text: &'a str, streamed: Option<&candidate::Streamed>) -> Result<(PlannerAction, Scan<'a>, usize)> {
    let mut scan = Scan::new(text, 0);
    scan.run();
    let (mut action, idx) = match streamed {
        Some(s) => {
            let idx = scan.pinned(s.start, s.end, s.complete);
            (candidate::settle(normalize_mapping(&scan.out[idx].mapping, None), s), idx)
        }
        None => choose(&scan.out)?,
    };
    action.reasoning = reasoning_before(text, scan.out[idx].start, &scan.thinks);
    Ok((action, scan, idx))
}

fn unparseable(msg: &str) -> Error {
    Error::new(ErrorKind::ActionPayloadUnparseable, msg.to_string())
}

/// Long answers in diagnostics become their length (`{"answer_len": N}`).
fn summarize(mut a: PlannerAction) -> PlannerAction {
    if a.next_node == "final_response" {
        let len = a.answer().map(|s| s.chars().count()).unwrap_or(0);
        if len > SUMMARY_ANSWER_CHARS {
            a.args.retain(|(k, _)| k != "answer" && k != "raw_answer");
            a.args.push(("answer_len".into(), JsonValue::Number(len.to_string())));
        }
    }
    a
}

/// A candidate's rank, smallest first: (inside a think block, answer-shaped rather than
/// action-shaped, integrity (0 valid JSON, 1 repaired, 2 truncated), not fenced, start).
type Rank = (u8, u8, u8, u8, usize);

/// The best-ranked candidate that normalises (see the module docs), and its index.
fn choose(cands: &[Candidate]) -> Result<(PlannerAction, usize)> {
    let mut ranked: Vec<(usize, Rank)> = cands
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let class = if is_action_shaped(&c.mapping) {
                0
            } else if is_answer_shaped(&c.mapping) {
                1
            } else {
                return None;
            };
            let think = u8::from(c.source == ActionSource::Think);
            let integrity = if c.truncated { 2 } else { u8::from(!c.repairs.is_empty()) };
            let fence = u8::from(c.source != ActionSource::Fence);
            Some((i, (think, class, integrity, fence, c.start)))
        })
        .collect();
    // Stable: equal ranks (the items of one array) keep their order.
    crate::sort::sort_by_key(&mut ranked, |&(_, r)| r);
    let mut first_err = None;
    for (i, _) in ranked {
        match normalize_mapping(&cands[i].mapping, None) {
            Ok(a) => return Ok((a, i)),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| unparseable("no JSON action found in the text")))
}

/// The `<think>` contents and the prose before `start` (think tags and fence marker lines
/// left out), each piece trimmed, joined with `\n`.
fn reasoning_before(text: &str, start: usize, thinks: &[Think]) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let mut at = 0;
    for t in thinks {
        if t.open >= start {
            break;
        }
        parts.push(crate::text::sub(text, at..t.open));
        parts.push(crate::text::sub(text, t.body_start..t.body_end.min(start)));
        at = t.close_end.min(start);
    }
    if at < start {
        parts.push(crate::text::sub(text, at..start));
    }
    let mut joined = String::new();
    for p in parts {
        let p = strip_fence_markers(p);
        let p = p.trim_matches(is_space);
        if p.is_empty() {
            continue;
        }
        if !joined.is_empty() {
            joined.push('\n');
        }
        joined.push_str(p);
    }
    (!joined.is_empty()).then_some(joined)
}

/// Whitespace, and the byte order mark some tools leave in front of text.
fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

fn blank(s: &str) -> bool {
    s.trim_matches(is_space).is_empty()
}

/// `p` without fence marker lines, and without a fence opener that ends a line of prose
/// (`Sure! ```json`).
fn strip_fence_markers(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut first = true;
    for l in p.lines() {
        if l.trim_start().starts_with("```") {
            continue;
        }
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(opener_at(l).map_or(l, |at| crate::text::sub(l, ..at)));
    }
    out
}

/// Where a fence opener that ends the line `l` starts: three or more backticks, then a
/// language tag of no spaces or backticks, then nothing but whitespace. (`text::find`, not
/// `str::find`, which would link a substring searcher into the `.wasm`.)
fn opener_at(l: &str) -> Option<usize> {
    let at = crate::text::find(l.as_bytes(), b"```")?;
    let tag = crate::text::sub(l, at..).trim_start_matches('`').trim_end();
    (!tag.contains(|c: char| c.is_whitespace() || c == '`')).then_some(at)
}

/// How far a `next_node` value was read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Seen {
    #[default]
    No,
    /// The key was read; its value is not complete yet.
    Open,
    Complete,
}

/// A tokenizer sink that builds the value and watches its `next_node` members: the top-level
/// one and the one inside a top-level `action` object (which overrides it unless the
/// top-level one is a string), each the first of its name, as the normaliser reads them.
#[derive(Default)]
struct Reader {
    builder: ValueBuilder,
    /// Top-level key, and the key inside a top-level `action` object.
    key1: String,
    key2: String,
    outer: Seen,
    inner: Seen,
    /// The top-level `next_node` is a string (it wins over a wrapper's).
    outer_string: bool,
}

impl Reader {
    /// The `next_node` that counts was read to its end.
    fn decided(&self) -> bool {
        if self.outer == Seen::Complete && self.outer_string {
            return true;
        }
        match self.inner {
            Seen::Complete => true,
            Seen::Open => false,
            Seen::No => self.outer == Seen::Complete,
        }
    }
}

impl Sink for Reader {
    fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()> {
        let slot = match depth {
            1 if self.key1 == "next_node" => Some(&mut self.outer),
            2 if self.key1 == "action" && self.key2 == "next_node" => Some(&mut self.inner),
            _ => None,
        };
        match tok {
            Token::Key(k) if depth == 1 => {
                self.key1 = k.to_string();
                self.key2.clear();
                if k == "next_node" && self.outer == Seen::No {
                    self.outer = Seen::Open;
                }
            }
            Token::Key(k) if depth == 2 && self.key1 == "action" => {
                self.key2 = k.to_string();
                if k == "next_node" && self.inner == Seen::No {
                    self.inner = Seen::Open;
                }
            }
            Token::StringEnd | Token::Null | Token::Bool(_) | Token::Number(_) | Token::ObjectEnd | Token::ArrayEnd => {
                let outer_string = depth == 1 && matches!(tok, Token::StringEnd);
                if let Some(s) = slot {
                    if *s == Seen::Open {
                        *s = Seen::Complete;
                        if outer_string && self.key1 == "next_node" {
                            self.outer_string = true;
                        }
                    }
                }
            }
            _ => {}
        }
        self.builder.token(tok, depth)
    }
}

/// How reading one value at a position went.
enum Read {
    /// A complete value and the byte after it.
    Value(JsonValue, usize),
    /// The input (up to the limit) ended inside the value; `decided` as in [`Reader`].
    Eof { decided: bool },
    /// Not JSON at some point before the limit.
    Broken { decided: bool },
    /// Nested past the depth cap.
    TooDeep,
}

/// Reads one JSON value of `bytes[at..limit]` (tolerant mode).
fn read_value(bytes: &[u8], at: usize, limit: usize) -> Read {
    let mut tok = Tokenizer::new(TokenizerOptions {
        strict: false,
        after_value: AfterValue::Stop,
        max_token_bytes: usize::MAX,
        ..TokenizerOptions::default()
    });
    let mut r = Reader::default();
    match tok.feed(&bytes[at..limit], &mut r) {
        Ok(n) if tok.is_done() => match r.builder.done.pop() {
            Some(v) => Read::Value(v, at + n),
            None => Read::Broken { decided: false },
        },
        Ok(_) => Read::Eof { decided: r.decided() },
        Err(e) if e.kind() == ErrorKind::JsonTooDeep => Read::TooDeep,
        Err(_) => Read::Broken { decided: r.decided() },
    }
}

/// Whether `bytes[at..limit]`, read as far as it is JSON, completes a `next_node` (see
/// [`Reader`]) before it breaks off.
fn decided_prefix(bytes: &[u8], at: usize, limit: usize) -> bool {
    match read_value(bytes, at, limit) {
        Read::Value(..) => true,
        Read::Eof { decided } | Read::Broken { decided } => decided,
        Read::TooDeep => false,
    }
}

struct Scan<'a> {
    text: &'a str,
    out: Vec<Candidate>,
    thinks: Vec<Think>,
    repairs_left: usize,
    /// Levels of JSON strings decoded to get here.
    embedded: usize,
    /// The last `next_region` answer: `(asked from, region end)`.
    region: (usize, usize),
}

impl<'a> Scan<'a> {
    fn new(text: &'a str, embedded: usize) -> Self {
        Scan { text, out: Vec::new(), thinks: Vec::new(), repairs_left: MAX_REPAIR_ATTEMPTS, embedded, region: (usize::MAX, 0) }
    }

    fn run(&mut self) {
        let text = self.text;
        let bytes = text.as_bytes();
        let lead = text.len() - text.trim_start_matches(is_space).len();
        let tail = text.trim_end_matches(is_space).len();
        if lead >= tail {
            return;
        }
        // The whole text is one value.
        if let Read::Value(v, stop) = read_value(bytes, lead, bytes.len()) {
            if stop >= tail {
                self.push_value(v, ActionSource::Direct, (lead, stop), Vec::new(), false);
                return;
            }
        }
        let mut i = 0;
        // A closing think tag with no opening tag before it: everything before is thinking.
        if let Some((close_at, close_len)) = stray_think_close(bytes) {
            self.thinks.push(Think { open: 0, body_start: 0, body_end: close_at, close_end: close_at + close_len });
            self.scan_region(0, close_at, ActionSource::Think);
            i = close_at + close_len;
        }
        while i < bytes.len() {
            let Some(p) = memchr::memchr3(b'{', b'<', b'`', &bytes[i..]) else { break };
            i += p;
            match bytes[i] {
                b'<' => match think_tag(bytes, i) {
                    Some((body_start, close)) => {
                        let (body_end, close_end) =
                            find_ci(bytes, body_start, close).map(|e| (e, e + close.len())).unwrap_or((bytes.len(), bytes.len()));
                        self.thinks.push(Think { open: i, body_start, body_end, close_end });
                        self.scan_region(body_start, body_end, ActionSource::Think);
                        i = close_end;
                    }
                    None => i += 1,
                },
                b'`' => {
                    let n = run_len(bytes, i, b'`');
                    i = if n >= 3 { self.fence(i, n) } else { i + n };
                }
                _ => i = self.scan_one(i, bytes.len(), ActionSource::Text),
            }
        }
    }

    /// Every `{` of `from..to` (a think body or fence content).
    fn scan_region(&mut self, from: usize, to: usize, source: ActionSource) {
        let bytes = &self.text.as_bytes()[..to];
        let mut i = from;
        while let Some(p) = memchr::memchr(b'{', &bytes[i..]) {
            i = self.scan_one(i + p, to, source);
        }
    }

    /// Reads the value at `i` (a `{`) within `..limit`; returns where scanning goes on.
    fn scan_one(&mut self, i: usize, limit: usize, source: ActionSource) -> usize {
        let bytes = self.text.as_bytes();
        // `"{\"next_node\": …}"` in prose: a JSON string holding an action. Only at a quote
        // that is not escaped, so the strings read this way never overlap (linear time).
        let quoted = i > 0 && bytes[i - 1] == b'"' && (i < 2 || bytes[i - 2] != b'\\');
        if quoted && self.embedded < MAX_EMBEDDED_DEPTH {
            if let Read::Value(v @ JsonValue::String(_), stop) = read_value(bytes, i - 1, limit) {
                let before = self.out.len();
                self.push_value(v, source, (i - 1, stop), Vec::new(), false);
                if self.out.len() > before {
                    return stop;
                }
            }
        }
        match read_value(bytes, i, limit) {
            Read::Value(v, stop) => {
                self.push_value(v, source, (i, stop), Vec::new(), false);
                stop
            }
            // Everything up to the limit is inside this value: nothing in it stands alone.
            Read::TooDeep => limit,
            Read::Eof { decided } => {
                if self.repairs_left > 0 {
                    self.repairs_left -= 1;
                    if let Some((v, end, repairs)) = self.repair(i, limit) {
                        let truncated = repairs.iter().any(|r| r.kind == "truncated");
                        if shaped(&v) && (!truncated || decided) {
                            self.push_value(v, source, (i, end), repairs, truncated);
                        }
                    }
                }
                limit
            }
            Read::Broken { .. } => {
                if self.repairs_left == 0 || !looks_like_object(&bytes[i..limit]) {
                    return i + 1;
                }
                // Repair up to the next fence or think tag (markdown structure ends a value).
                let region = if source == ActionSource::Text { self.next_region(i).min(limit) } else { limit };
                self.repairs_left -= 1;
                let Some((v, end, repairs)) = self.repair(i, region) else { return i + 1 };
                if !shaped(&v) {
                    return i + 1;
                }
                let truncated = repairs.iter().any(|r| r.kind == "truncated");
                if truncated && !decided_prefix(bytes, i, region) {
                    return region; // a truncated value whose next_node is not known
                }
                self.push_value(v, source, (i, end), repairs, truncated);
                end
            }
        }
    }

    /// The candidate whose `{` is at `start` (the streamed one): the scan's, unless the
    /// object closed at `end` and the scan repaired it (a repair of the scan's stops at a
    /// fence marker even inside a string); otherwise read or repaired within `..end` and
    /// added. Its index.
    fn pinned(&mut self, start: usize, end: usize, complete: bool) -> usize {
        let at = |c: &Candidate| {
            c.start == start
                && matches!(c.source, ActionSource::Direct | ActionSource::Text | ActionSource::Fence | ActionSource::Think)
        };
        let found = self.out.iter().position(at);
        if let Some(i) = found.filter(|&i| !complete || self.out[i].repairs.is_empty()) {
            return i;
        }
        let source = found.map_or(ActionSource::Text, |i| self.out[i].source);
        let read = match read_value(self.text.as_bytes(), start, end) {
            Read::Value(v, stop) => Some((v, stop, Vec::new())),
            _ => self.repair(start, end),
        };
        let (mapping, end, repairs) = match read {
            Some((JsonValue::Object(m), stop, repairs)) => (m, stop, repairs),
            _ => (Vec::new(), end, Vec::new()),
        };
        let truncated = repairs.iter().any(|r| r.kind == "truncated");
        self.out.push(Candidate { mapping, source, start, end, repairs, truncated });
        self.out.len() - 1
    }

    /// Where the prose region holding `i` ends: the next fence or think tag. The last answer
    /// is kept, since no marker lies between the position it was computed from and it.
    fn next_region(&mut self, i: usize) -> usize {
        let (from, end) = self.region;
        if from <= i && i <= end {
            return end;
        }
        let end = next_marker(self.text.as_bytes(), i);
        self.region = (i, end);
        end
    }

    /// Repairs `text[i..region]` into its first value: `(value, end, repairs)`, where `end`
    /// is where the value ends in the input (prose or a second value after it left out).
    fn repair(&mut self, i: usize, region: usize) -> Option<(JsonValue, usize, Vec<Repair>)> {
        let text = self.text;
        let (mut json, mut repairs) = repair_json_with_log(crate::text::sub(text, i..region)).ok()?;
        let mut end = region;
        if let Some(c) = repairs.iter().find(|r| r.kind == "concatenated").map(|r| r.offset) {
            // Only the first of several values: repair the text before the second one.
            end = i + c;
            let (j, r) = repair_json_with_log(crate::text::sub(text, i..end)).ok()?;
            json = j;
            repairs = r;
        }
        if let Some(pos) = repairs.iter().rposition(|r| r.kind == "prose" && r.offset > 0) {
            end = end.min(i + repairs[pos].offset);
            repairs.remove(pos);
        }
        end = i + crate::text::sub(text, i..end).trim_end().len();
        let v = crate::json::parse_strict(json.as_bytes()).ok()?;
        for r in &mut repairs {
            r.offset += i;
        }
        Some((v, end, repairs))
    }

    /// A fence opened by `n` backticks at `i`; returns the index after its closer.
    fn fence(&mut self, i: usize, n: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut body = i + n;
        // The language tag (any, or none).
        while body < bytes.len() && (bytes[body].is_ascii_alphanumeric() || matches!(bytes[body], b'_' | b'-' | b'+' | b'.')) {
            body += 1;
        }
        // A value right after the opener is read whole, even if a string in it holds
        // backticks, when only whitespace separates it from the closer (or the end).
        let j = skip_ws(bytes, body);
        if j < bytes.len() && matches!(bytes[j], b'{' | b'[' | b'"') {
            if let Read::Value(v, stop) = read_value(bytes, j, bytes.len()) {
                let k = skip_ws(bytes, stop);
                if k == bytes.len() || run_len(bytes, k, b'`') >= n {
                    self.push_value(v, ActionSource::Fence, (j, stop), Vec::new(), false);
                    return if k == bytes.len() { k } else { k + run_len(bytes, k, b'`') };
                }
            }
        }
        let close = find_run(bytes, body, n).unwrap_or(bytes.len());
        self.scan_region(body, close, ActionSource::Fence);
        if close == bytes.len() {
            close
        } else {
            close + run_len(bytes, close, b'`')
        }
    }

    /// Adds the objects of `v`: an object, the objects of an array, or the actions in a
    /// JSON string holding model output (double-encoded).
    fn push_value(&mut self, v: JsonValue, source: ActionSource, span: (usize, usize), repairs: Vec<Repair>, truncated: bool) {
        match v {
            JsonValue::Object(m) => {
                self.out.push(Candidate { mapping: m, source, start: span.0, end: span.1, repairs, truncated })
            }
            JsonValue::Array(items) => {
                let source = if source == ActionSource::Direct { ActionSource::ListItem } else { source };
                for item in items {
                    if let JsonValue::Object(m) = item {
                        self.out.push(Candidate {
                            mapping: m,
                            source,
                            start: span.0,
                            end: span.1,
                            repairs: repairs.clone(),
                            truncated,
                        });
                    }
                }
            }
            JsonValue::String(s) if self.embedded < MAX_EMBEDDED_DEPTH && s.contains('{') => {
                let mut inner = Scan::new(&s, self.embedded + 1);
                inner.run();
                for mut c in inner.out {
                    c.source = if c.source == ActionSource::Think { ActionSource::Think } else { ActionSource::EmbeddedString };
                    c.start = span.0;
                    c.end = span.1;
                    for r in &mut c.repairs {
                        r.offset = span.0;
                    }
                    c.repairs.extend(repairs.iter().copied());
                    self.out.push(c);
                }
            }
            _ => {}
        }
    }
}

/// Whether the broken text at a `{` is worth a repair: a `:` comes before the first `}`
/// (within [`LOOKAHEAD`] bytes), so prose braces (`{1,2}`, `{a}`, `{x | x > 0}`) spend none.
fn looks_like_object(slice: &[u8]) -> bool {
    let window = &slice[1.min(slice.len())..slice.len().min(LOOKAHEAD)];
    match memchr::memchr2(b':', b'}', window) {
        Some(p) => window[p] == b':',
        None => true,
    }
}

fn shaped(v: &JsonValue) -> bool {
    matches!(v, JsonValue::Object(m) if is_action_shaped(m) || is_answer_shaped(m))
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn run_len(bytes: &[u8], i: usize, b: u8) -> usize {
    bytes[i..].iter().take_while(|&&c| c == b).count()
}

/// The next run of at least `n` backticks at or after `from`.
fn find_run(bytes: &[u8], from: usize, n: usize) -> Option<usize> {
    let mut j = from;
    while let Some(p) = memchr::memchr(b'`', &bytes[j..]) {
        let k = j + p;
        let len = run_len(bytes, k, b'`');
        if len >= n {
            return Some(k);
        }
        j = k + len;
    }
    None
}

/// The first fence or think tag at or after `i` (or the end).
fn next_marker(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while let Some(p) = memchr::memchr2(b'<', b'`', &bytes[j..]) {
        let k = j + p;
        if bytes[k..].starts_with(b"```") || think_tag(bytes, k).is_some() {
            return k;
        }
        j = k + 1;
    }
    bytes.len()
}

/// `<think>` / `<thinking>` (any case) at `i`: `(end of the open tag, closing tag)`.
fn think_tag(bytes: &[u8], i: usize) -> Option<(usize, &'static [u8])> {
    for (open, close) in [(&b"<think>"[..], &b"</think>"[..]), (b"<thinking>", b"</thinking>")] {
        if bytes.len() >= i + open.len() && bytes[i..i + open.len()].eq_ignore_ascii_case(open) {
            return Some((i + open.len(), close));
        }
    }
    None
}

/// The first `</think>` / `</thinking>` when no opening tag comes before it.
fn stray_think_close(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut j = 0;
    while let Some(p) = memchr::memchr(b'<', &bytes[j..]) {
        let k = j + p;
        if think_tag(bytes, k).is_some() {
            return None;
        }
        for close in [&b"</think>"[..], b"</thinking>"] {
            if bytes.len() >= k + close.len() && bytes[k..k + close.len()].eq_ignore_ascii_case(close) {
                return Some((k, close.len()));
            }
        }
        j = k + 1;
    }
    None
}

fn find_ci(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let mut j = from;
    while let Some(p) = memchr::memchr(b'<', &bytes[j..]) {
        let k = j + p;
        if bytes.len() >= k + needle.len() && bytes[k..k + needle.len()].eq_ignore_ascii_case(needle) {
            return Some(k);
        }
        j = k + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::normalize_action_text;
    use crate::json::tokenizer::WINDOW_BYTES;

    /// UTF-8 checking while looking for an action in `text`, in bytes.
    fn checked(text: &str) -> usize {
        WINDOW_BYTES.with(|w| w.set(0));
        let _ = normalize_action_text(text);
        WINDOW_BYTES.with(|w| w.get())
    }

    /// Every `{` of prose starts a candidate that stops after a few bytes; each candidate
    /// once had the whole rest of the text checked as UTF-8 (quadratic: 400 KB took seconds).
    /// Doubling the text may at most double the checking (give or take 5%).
    #[test]
    fn candidates_check_only_what_they_read() {
        for unit in ["{\"", "{", "x{", "{\"a\"", "[{\"k\":\"", "\"{\"next_node\":"] {
            let small = checked(&unit.repeat(20_000));
            let large = checked(&unit.repeat(40_000));
            assert!(large * 10 <= small * 21 + 40_960, "{unit}: {small} B checked for 20k units, {large} B for 40k");
        }
    }
}
