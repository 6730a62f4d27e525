//! `JsonItemStream`: the elements of one array in a JSON document (or every top-level value
//! of NDJSON / concatenated JSON), each as a complete value the moment it closes.
//!
//! Advice for hackers: one router over the shared tokenizer. Invariants:
//! - Only tokens inside an element of the target array reach a `ValueBuilder`; everything
//!   else is only tracked, never built: memory is one item (capped by `max_item_bytes`,
//!   charged like `PartialJson`'s tree, through the same `feed_metered`) plus the tokenizer's
//!   pending token and container stack.
//! - The router keeps one frame per open container that lies on the target path (`on` of
//!   them); a container is on the path when its parent is and the parent's current key or
//!   index is the next step. So a depth check and one comparison per key decide everything.
//! - The whole input must still be valid JSON (strict by default): after the target array
//!   the rest is read and checked.

use super::partial::{cap_error, cost, feed_metered, finish_metered, tokenizer_options, Metered, Phase};
use super::tokenizer::{AfterValue, Sink, Token, Tokenizer};
use super::value::{JsonValue, ValueBuilder};
use crate::budget::try_push;
use crate::json::Quoted;
use crate::{Error, ErrorKind, Result};

/// Options of [`JsonItemStream`].
#[derive(Debug, Clone, Copy)]
pub struct JsonItemStreamOptions {
    /// Accept exactly RFC 8259 JSON (default); when false, raw control characters in
    /// strings, unknown escapes and invalid UTF-8 are tolerated.
    pub strict: bool,
    /// The deepest nesting of objects and arrays (default 512, at most 1024).
    pub max_depth: usize,
    /// The most bytes one item may hold (default 8 MiB), charged like
    /// `PartialJsonOptions::max_buffer_bytes`.
    pub max_item_bytes: usize,
}

impl Default for JsonItemStreamOptions {
    fn default() -> Self {
        JsonItemStreamOptions { strict: true, max_depth: 512, max_item_bytes: 8 << 20 }
    }
}

/// One step of the target path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Parses `$`, `$.a.b`, `$['k']`, `$["k"]`, `$.a[2].b` (optionally ending in `[*]` or
/// `.*`), or `$*`. `None` stands for `$*`.
fn parse_path(path: &str) -> Result<Option<Vec<Step>>> {
    // One error site: the reason is joined to the message once, not at each of the nine
    // places that find one.
    steps(path).map_err(|why| Error::new(ErrorKind::InvalidOption, format!("invalid item path {}: {why}", Quoted(path))))
}

/// [`parse_path`], with what is wrong as the error.
fn steps(path: &str) -> std::result::Result<Option<Vec<Step>>, &'static str> {
    let Some(mut rest) = path.strip_prefix('$') else {
        return Err("it must start with '$'");
    };
    if rest == "*" {
        return Ok(None);
    }
    for wildcard in ["[*]", ".*"] {
        if let Some(r) = rest.strip_suffix(wildcard) {
            rest = r;
            break;
        }
    }
    let mut steps = Vec::new();
    while let Some(c) = rest.chars().next() {
        if c == '.' {
            let name_len = crate::text::sub(rest, 1..)
                .find(|c: char| matches!(c, '.' | '[' | ']' | '\'' | '"' | '*') || c.is_whitespace())
                .unwrap_or(rest.len() - 1);
            if name_len == 0 {
                return Err("expected a name after '.'");
            }
            steps.push(Step::Key(crate::text::sub(rest, 1..1 + name_len).to_string()));
            rest = crate::text::sub(rest, 1 + name_len..);
        } else if c == '[' {
            let inner = crate::text::sub(rest, 1..);
            match inner.chars().next() {
                Some(q @ ('\'' | '"')) => {
                    let mut key = String::new();
                    let mut chars = crate::text::sub(inner, 1..).char_indices();
                    let end = loop {
                        match chars.next() {
                            None => return Err("unterminated quoted name"),
                            Some((_, '\\')) => match chars.next() {
                                Some((_, e)) => key.push(e),
                                None => return Err("unterminated quoted name"),
                            },
                            Some((i, ch)) if ch == q => break i,
                            Some((_, ch)) => key.push(ch),
                        }
                    };
                    let after = crate::text::sub(inner, 1 + end + 1..);
                    let Some(r) = after.strip_prefix(']') else {
                        return Err("expected ']' after a quoted name");
                    };
                    steps.push(Step::Key(key));
                    rest = r;
                }
                _ => {
                    let Some(close) = inner.find(']') else {
                        return Err("expected ']'");
                    };
                    let digits = crate::text::sub(inner, ..close);
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return Err("expected an array index, a quoted name or '*' in []");
                    }
                    let i = digits.parse().map_err(|_| "array index too large")?;
                    steps.push(Step::Index(i));
                    rest = crate::text::sub(inner, close + 1..);
                }
            }
        } else {
            return Err("expected '.' or '['");
        }
    }
    Ok(Some(steps))
}

/// An open container on the target path.
#[derive(Debug, Clone)]
struct PathFrame {
    array: bool,
    /// Arrays: the index of the next element.
    index: usize,
    /// Objects: the current key is the next step.
    key_matches: bool,
    /// Objects: the next step's key was read (a repeat of it is not followed: first wins).
    key_seen: bool,
}

/// Routes tokens: inside an item to the builder, elsewhere only tracked.
#[derive(Debug, Clone)]
struct Router {
    steps: Vec<Step>,
    /// Tokenizer depth of the items: steps + 1, or 0 for `$*`.
    item_depth: usize,
    /// Open containers on the target path (the target array itself included).
    on: usize,
    frames: Vec<PathFrame>,
    item: ValueBuilder,
    held: usize,
    cap: usize,
    over: bool,
}

impl Router {
    /// Is the value beginning at `depth` (with `on == depth`) on the target path?
    fn child_on_path(&self, depth: usize) -> bool {
        let Some(parent) = depth.checked_sub(1) else { return true };
        match (&self.steps[parent], &self.frames[parent]) {
            (Step::Key(_), f) if !f.array => f.key_matches,
            (Step::Index(i), f) if f.array => f.index == *i,
            _ => false,
        }
    }

    /// A value at `depth` is complete: its parent, if on the path, moves on.
    fn child_done(&mut self, depth: usize) {
        if depth > 0 && self.on == depth {
            let f = &mut self.frames[depth - 1];
            if f.array {
                f.index += 1;
            } else {
                f.key_matches = false;
            }
        }
    }

    fn token(&mut self, tok: Token<'_>, depth: usize, out: &mut Vec<JsonValue>) -> Result<()> {
        if self.on == self.item_depth && depth >= self.item_depth {
            let c = cost(&tok);
            if c > self.cap - self.held {
                self.over = true;
                return Err(cap_error("an item holds", self.cap, "maxItemBytes"));
            }
            self.held += c;
            self.item.token(tok, depth)?;
            if let Some(v) = self.item.done.pop() {
                try_push(out, v)?;
                self.held = 0;
            }
            return Ok(());
        }
        match tok {
            Token::ObjectStart | Token::ArrayStart => {
                let array = tok == Token::ArrayStart;
                let target = depth == self.steps.len();
                if self.on == depth && (!target || array) && self.child_on_path(depth) {
                    try_push(&mut self.frames, PathFrame { array, index: 0, key_matches: false, key_seen: false })?;
                    self.on += 1;
                }
            }
            Token::ObjectEnd | Token::ArrayEnd => {
                if self.on > depth {
                    self.on = depth;
                    self.frames.truncate(depth);
                }
                self.child_done(depth);
            }
            Token::Key(k) => {
                if self.on == depth && depth > 0 {
                    if let Step::Key(want) = &self.steps[depth - 1] {
                        let f = &mut self.frames[depth - 1];
                        f.key_matches = want == k && !f.key_seen;
                        f.key_seen |= want == k;
                    }
                }
            }
            Token::StringEnd | Token::Number(_) | Token::Bool(_) | Token::Null => {
                self.child_done(depth);
            }
            Token::StringStart | Token::StringPart(_) => {}
        }
        Ok(())
    }
}

/// The tokenizer's sink for one call.
struct Run<'a> {
    router: &'a mut Router,
    out: &'a mut Vec<JsonValue>,
}

impl Sink for Run<'_> {
    fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()> {
        self.router.token(tok, depth, self.out)
    }
}

impl Metered for Run<'_> {
    fn room(&self) -> usize {
        self.router.cap - self.router.held
    }
    fn over_cap(&self) -> bool {
        self.router.over
    }
}

/// Streams the elements of the array at a path (`$.items`, `$` for a top-level array), or
/// every top-level value (`$*`, for NDJSON and concatenated JSON), each as a complete
/// [`JsonValue`] as soon as it closes. Nothing outside the items is built.
///
/// ```
/// use streamroute::{JsonItemStream, JsonItemStreamOptions};
///
/// let mut s = JsonItemStream::new("$.items", JsonItemStreamOptions::default()).unwrap();
/// let mut items = Vec::new();
/// s.feed(br#"{"total": 2, "items": [{"id": 1}, {"id""#, &mut items).unwrap();
/// assert_eq!(items.len(), 1);
/// s.feed(br#": 2}]}"#, &mut items).unwrap();
/// s.finish(&mut items).unwrap();
/// assert_eq!(items[1].to_json(), r#"{"id":2}"#);
/// ```
#[derive(Debug, Clone)]
pub struct JsonItemStream {
    tokenizer: Tokenizer,
    router: Router,
    phase: Phase,
}

impl JsonItemStream {
    /// A stream of the items at `path`.
    ///
    /// # Errors
    /// `invalid_option` when `path` is not one of the accepted forms: `$`, `$.a.b`,
    /// `$['key']`, `$["key"]`, `$.a[2].b` (each optionally ending in `[*]`), or `$*`.
    pub fn new(path: &str, opts: JsonItemStreamOptions) -> Result<Self> {
        let target = parse_path(path)?;
        let (steps, item_depth, after) = match target {
            None => (Vec::new(), 0, AfterValue::Another),
            Some(steps) => {
                let d = steps.len() + 1;
                (steps, d, AfterValue::End)
            }
        };
        Ok(JsonItemStream {
            tokenizer: Tokenizer::new(tokenizer_options(opts.strict, opts.max_depth, opts.max_item_bytes, after)),
            router: Router {
                steps,
                item_depth,
                on: 0,
                frames: Vec::new(),
                item: ValueBuilder::default(),
                held: 0,
                cap: opts.max_item_bytes,
                over: false,
            },
            phase: Phase::Reading,
        })
    }

    /// Reads `chunk` and appends the items it completed to `out`.
    ///
    /// # Errors
    /// `json_invalid` (strict mode) and `json_too_deep` with the byte offset;
    /// `buffer_limit_exceeded` when an item passes `max_item_bytes` (or a key or number
    /// 1 MiB); `invalid_state` after [`finish`](Self::finish). Items completed before the
    /// error are in `out`; every later call repeats the error.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<JsonValue>) -> Result<()> {
        self.check()?;
        let mut run = Run { router: &mut self.router, out };
        feed_metered(&mut self.tokenizer, chunk, &mut run).map_err(|e| self.fail(e))
    }

    /// Ends the input, appending the last item (a top-level number in `$*` mode).
    ///
    /// # Errors
    /// `json_invalid` when the input ended inside a value (or, except for `$*`, held none).
    pub fn finish(&mut self, out: &mut Vec<JsonValue>) -> Result<()> {
        self.check()?;
        let mut run = Run { router: &mut self.router, out };
        finish_metered(&mut self.tokenizer, &mut run).map_err(|e| self.fail(e))?;
        self.phase = Phase::Finished;
        Ok(())
    }

    /// Bytes read so far.
    pub fn position(&self) -> u64 {
        self.tokenizer.position()
    }

    fn check(&self) -> Result<()> {
        match &self.phase {
            Phase::Reading => Ok(()),
            Phase::Failed(e) => Err(e.clone()),
            Phase::Finished => Err(Error::new(ErrorKind::InvalidState, "JsonItemStream was used after finish()")),
        }
    }

    /// Fails the stream with `e` (the binding's own failures: the stream then stays failed).
    pub(crate) fn fail(&mut self, e: Error) -> Error {
        self.phase = Phase::Failed(e.clone());
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let k = |s: &str| Step::Key(s.into());
        assert_eq!(parse_path("$").unwrap(), Some(vec![]));
        assert_eq!(parse_path("$[*]").unwrap(), Some(vec![]));
        assert_eq!(parse_path("$*").unwrap(), None);
        assert_eq!(parse_path("$.a.b").unwrap(), Some(vec![k("a"), k("b")]));
        assert_eq!(parse_path("$.items.*").unwrap(), Some(vec![k("items")]));
        assert_eq!(parse_path(r#"$['a b'].c[2]["d\"e"]"#).unwrap(), Some(vec![k("a b"), k("c"), Step::Index(2), k("d\"e")]));
        assert_eq!(parse_path("$.\u{e9}t\u{e9}").unwrap(), Some(vec![k("\u{e9}t\u{e9}")]));
        for bad in ["", "items", "$.", "$..a", "$[", "$[x]", "$['a'", "$['a'x]", "$a", "$.a b", "$[-1]", "$**"] {
            let e = parse_path(bad).unwrap_err();
            assert_eq!(e.code(), "invalid_option", "{bad}");
        }
    }
}
