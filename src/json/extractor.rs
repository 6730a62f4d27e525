//! The answer extractor: streams the user-facing answer out of a planner action while the
//! model is still writing it.
//!
//! Advice for hackers. Three layers, each linear in the input:
//! 1. `Prose`: before the action. Skips text and `<think>…</think>` / `<thinking>…</thinking>`
//!    blocks (JSON inside them included) and looks for a `{`. A `{` right after `"key":` in
//!    the prose may be a member value of JSON quoted there (`Thinking "args": {"answer": …}`):
//!    such a "fragment" is the action only if it has a top-level `next_node`; until that key
//!    comes its `thought` is ignored and its answer held, and without it the object is
//!    skipped like one without action keys.
//! 2. `Candidate`: a `{` was found; the shared tokenizer reads on. Until the first key's
//!    value starts, the bytes since the `{` are kept (at most `MAX_UNCONFIRMED`, and the
//!    tokenizer is fed no further, so the cut falls on the same byte for every chunking): if
//!    they turn out not to be JSON (`{1,2}`, `{a}` in prose) the candidate is abandoned and
//!    those bytes are scanned again as prose, once. An object that breaks later without
//!    having shown an action key is dropped too, and prose scanning resumes at the byte
//!    that broke it.
//! 3. `Action`: a confirmed object. Only its top-level keys count: `next_node` decides
//!    terminal or not (`final_response` or the legacy `null`, any ASCII case); the answer is
//!    `args.answer`/`args.raw_answer` (the first non-blank string one at the first level of
//!    `args`), or string `args` (trimmed; held whole when it opens with `{`, as it may be
//!    JSON holding the answer), or the non-blank string items of array `args` joined with
//!    `\n` and trimmed; a top-level `answer`/`raw_answer` counts when the object closes
//!    without `next_node`. These are the candidate rules of `action::candidate`, which the
//!    normaliser shares, so whatever is streamed begins the action's answer. Whitespace that
//!    may turn out to be trimmed is held (capped) until non-blank text follows. Text decoded
//!    before `next_node` decides is held (capped) and emitted or dropped on the decision:
//!    nothing of a non-terminal action reaches the caller.
//!    An object with none of the action keys is skipped and scanning goes on after it.
//!    Only the first `args` key counts.
//!
//! Errors are sticky: after one, every `feed`/`finish` repeats it until `reset()`.
//!
//! Every decision is made on tokens, never on chunk boundaries, so the emitted text is the
//! same for every chunking.

use super::keys::FirstKeys;
use super::tokenizer::{AfterValue, Sink, Token, Tokenizer, TokenizerOptions};
use crate::action::candidate::{blank, encoded_answer, is_space, is_terminal, trim};
use crate::{Error, ErrorKind, Result};

/// Most bytes kept while a `{` is not yet known to start a JSON object.
const MAX_UNCONFIRMED: usize = 1024;
/// Longest `next_node` value read (longer names are tool names all the same).
const MAX_NEXT_NODE: usize = 4096;

/// Options of [`AnswerExtractor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerExtractorOptions {
    /// Most bytes of answer (or thought) text held back while undecided. Default 8 MiB.
    pub max_buffer_bytes: usize,
}

impl Default for AnswerExtractorOptions {
    fn default() -> Self {
        AnswerExtractorOptions { max_buffer_bytes: 8 << 20 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Prose,
    Candidate,
    Action,
    /// The action closed (or broke): the rest of the stream is ignored.
    After,
}

/// Where the prose scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProseState {
    Text,
    /// Inside `<…` collecting a tag name into `tag`.
    TagOpen,
    /// Inside a think block; `close_matched` bytes of its closing tag seen.
    Think {
        thinking: bool,
        close_matched: u8,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Unknown,
    Terminal,
    NonTerminal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TopKey {
    NextNode,
    Args,
    Thought,
    Answer,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgsKind {
    None,
    /// An `args` object; `member` is what its current first-level key is.
    Object {
        member: Member,
    },
    String,
    Array,
    Other,
}

/// A first-level key of an `args` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    /// `answer` or `raw_answer`.
    Answer,
    Other,
}

/// Where the object is in the document: how much of it is known to be JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// Only its `{` and keys so far: it may still turn out not to be JSON.
    Opened,
    /// A value or a closing bracket was read: it is JSON.
    Confirmed,
    /// Its closing `}` was read.
    Closed,
}

/// What the object has shown itself to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// No action key yet.
    Plain,
    /// Right after `"key":` in prose, and no `next_node` key yet: an action only once one
    /// shows it is one.
    Fragment,
    /// An action key was read (`next_node`, `args`, `thought`, ... ).
    Action,
}

/// The string value being read, when it is one the extractor reads (depth 1, or depth 2
/// inside `args`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InString {
    None,
    /// `next_node`, while its name is kept.
    NextNode,
    /// `next_node` past `MAX_NEXT_NODE` bytes: the rest of the name is not kept.
    NextNodeCut,
    Thought,
    /// A top-level `answer`/`raw_answer`.
    TopAnswer,
    /// An answer string of `args`, being streamed.
    Answer {
        piece: Piece,
        cut: Cut,
    },
}

/// Where an answer string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// Only whitespace so far (held in `lead`).
    Lead,
    /// A non-blank byte was read.
    Text,
}

/// How an answer is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// Kept as written (`args.answer`).
    AsWritten,
    /// Trimmed (string or list `args`).
    Trimmed,
}

/// How far the `args` answer has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgsAnswer {
    /// No answer string began (or only blank ones of an `args` object).
    None,
    /// An answer string began: it is the answer, and later ones of an object are not read.
    Chosen,
    /// Trimmed answer text (a list item) showed: the next item needs a `\n` first.
    Shown,
}

/// Whether the thought not yet taken began after answer text of the same call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ThoughtOrder {
    First,
    AfterAnswer,
}

/// How containers nobody reads are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unread {
    /// Quietly (see `Sink::skip_inside`).
    Quiet,
    /// Token by token, as the others (only in tests, to compare).
    #[cfg_attr(not(test), allow(dead_code))]
    Loud,
}

/// The action-level state: a tokenizer sink.
#[derive(Debug, Clone)]
struct Action {
    max: usize,
    progress: Progress,
    shape: Shape,
    top: TopKey,
    args_kind: ArgsKind,
    /// The string value being read.
    string: InString,
    answer: ArgsAnswer,
    /// Whitespace that opens the current answer string, held until it turns out non-blank.
    lead: Vec<u8>,
    /// Whitespace after the last non-blank answer byte (trimmed answers), held until more
    /// answer follows.
    tail: Vec<u8>,
    /// String `args` that open with `{`, held whole: JSON holding the answer, or the text.
    encoded: Option<Vec<u8>>,
    /// The length of `encoded` decoded (what the cap counts, as for `held`).
    encoded_len: usize,
    decision: Decision,
    next_node: Option<String>,
    nn_buf: String,
    /// Args answer text held while undecided (raw tokenizer bytes, see `Sink::raw_part`).
    held: Vec<u8>,
    /// The length of `held` decoded (what the cap counts: a malformed sequence is U+FFFD
    /// whether it reached `held` raw or decoded, which depends on where chunks were cut).
    held_len: usize,
    /// A top-level `answer`/`raw_answer` string, held until the object closes.
    top_answer: Option<String>,
    thought: String,
    thought_order: ThoughtOrder,
    /// Text to return from this call (raw tokenizer bytes, see `Sink::raw_part`).
    out: Vec<u8>,
    unread: Unread,
    /// The most answer bytes held at once (`held_len` plus the top-level answer) since the
    /// extractor began: what a caller's memory budget charges for it.
    peak_held: usize,
    /// A repeated key that the extractor reads is dropped with its value (first wins).
    keys: FirstKeys,
}

/// The keys whose first occurrence wins, at the top level and in `args` (a repeated `thought`
/// is more reasoning text: it is streamed after the first, as the corpus has it).
const READ_KEYS: &[&str] = &["next_node", "args", "answer", "raw_answer", "plan", "join", "action"];

impl Action {
    fn new(max: usize) -> Self {
        Action {
            max,
            progress: Progress::Opened,
            shape: Shape::Plain,
            top: TopKey::Other,
            args_kind: ArgsKind::None,
            string: InString::None,
            answer: ArgsAnswer::None,
            lead: Vec::new(),
            tail: Vec::new(),
            encoded: None,
            encoded_len: 0,
            decision: Decision::Unknown,
            next_node: None,
            nn_buf: String::new(),
            held: Vec::new(),
            held_len: 0,
            top_answer: None,
            thought: String::new(),
            thought_order: ThoughtOrder::First,
            out: Vec::new(),
            unread: Unread::Quiet,
            peak_held: 0,
            keys: FirstKeys::watching(READ_KEYS, 2),
        }
    }

    /// Forgets the object (abandoned candidate or skipped non-action), keeping `out` and
    /// the thought already taken.
    fn clear_object(&mut self) {
        let out = std::mem::take(&mut self.out);
        let thought = std::mem::take(&mut self.thought);
        let thought_order = self.thought_order;
        let unread = self.unread;
        let peak_held = self.peak_held;
        *self = Action { out, thought, thought_order, unread, peak_held, ..Action::new(self.max) };
    }

    /// The object is known to be JSON.
    fn confirmed(&self) -> bool {
        self.progress != Progress::Opened
    }

    /// An answer string of `args` is being streamed.
    fn answering(&self) -> bool {
        matches!(self.string, InString::Answer { .. })
    }

    /// Notes how much answer text is held now (for [`AnswerExtractor::peak_held_bytes`]).
    fn note_held(&mut self) {
        let held = self.held_len + self.top_answer.as_ref().map_or(0, String::len);
        self.peak_held = self.peak_held.max(held);
    }

    fn cap(&self, len: usize) -> Result<()> {
        if len > self.max {
            return Err(Error::new(ErrorKind::BufferLimitExceeded, format!("more than {} bytes of answer held back", self.max)));
        }
        Ok(())
    }

    fn answer_text(&mut self, t: &[u8]) -> Result<()> {
        match self.decision {
            Decision::Terminal => self.out.extend_from_slice(t),
            Decision::NonTerminal => {}
            Decision::Unknown => {
                crate::budget::try_extend(&mut self.held, t)?;
                self.held_len += decoded_len(t);
                self.note_held();
                self.cap(self.held_len)?;
            }
        }
        Ok(())
    }

    /// A string that may be answer text begins (see `answer_bytes`).
    fn answer_start(&mut self, cut: Cut) {
        if self.answer == ArgsAnswer::None {
            self.answer = ArgsAnswer::Chosen;
        }
        self.string = InString::Answer { piece: Piece::Lead, cut };
        self.lead.clear();
        self.encoded = None;
        self.encoded_len = 0;
    }

    /// Answer string content, with the candidate rule on whitespace
    /// (`action::candidate`): leading whitespace of a string waits for its first non-blank
    /// byte (a blank string is no answer); a trimmed answer also holds its trailing
    /// whitespace until more text follows, and puts `\n` between list items.
    #[inline]
    fn answer_bytes(&mut self, t: &[u8]) -> Result<()> {
        match self.string {
            // The hot path: the rest of an `answer` string, as written.
            InString::Answer { piece: Piece::Text, cut: Cut::AsWritten } if self.encoded.is_none() => self.answer_text(t),
            InString::Answer { piece, cut } => self.answer_bytes_held(t, piece, cut),
            // Only called inside an answer string.
            _ => Ok(()),
        }
    }

    /// `answer_bytes` when whitespace or a possible JSON string may have to be held.
    #[inline(never)]
    fn answer_bytes_held(&mut self, mut t: &[u8], piece: Piece, cut: Cut) -> Result<()> {
        if piece == Piece::Lead {
            let Some(p) = t.iter().position(|&b| !is_space(b)) else {
                self.lead.extend_from_slice(t);
                return self.cap(self.lead.len());
            };
            self.lead.extend_from_slice(&t[..p]);
            // Checked here too, not only when a chunk is all whitespace: whether the cap is
            // hit must not depend on where the whitespace was cut.
            self.cap(self.lead.len())?;
            t = &t[p..];
            self.string = InString::Answer { piece: Piece::Text, cut };
            if self.args_kind == ArgsKind::String && t[0] == b'{' {
                self.encoded = Some(Vec::new());
            }
            let lead = std::mem::take(&mut self.lead);
            if cut == Cut::AsWritten {
                self.answer_text(&lead)?;
            } else if self.answer == ArgsAnswer::Shown {
                let tail = std::mem::take(&mut self.tail);
                self.answer_text(&tail)?;
                self.answer_text(b"\n")?;
                self.answer_text(&lead)?;
            }
            if cut == Cut::Trimmed {
                self.answer = ArgsAnswer::Shown;
            }
        }
        if let Some(e) = &mut self.encoded {
            e.extend_from_slice(t);
            self.encoded_len += decoded_len(t);
            return self.cap(self.encoded_len);
        }
        if cut == Cut::AsWritten {
            return self.answer_text(t);
        }
        match t.iter().rposition(|&b| !is_space(b)) {
            Some(q) => {
                // Any run of whitespace is held while it lasts, in whichever chunk it ends, so
                // every run counts against the cap, not only one a chunk ends inside.
                self.cap(longest_space_run(self.tail.len(), &t[..q]))?;
                if !self.tail.is_empty() {
                    let tail = std::mem::take(&mut self.tail);
                    self.answer_text(&tail)?;
                }
                self.answer_text(&t[..=q])?;
                self.tail.extend_from_slice(&t[q + 1..]);
            }
            None => self.tail.extend_from_slice(t),
        }
        self.cap(self.tail.len())
    }

    /// The answer string ends; a blank one was no answer.
    fn answer_end(&mut self) -> Result<()> {
        let piece = match self.string {
            InString::Answer { piece, .. } => piece,
            _ => Piece::Text,
        };
        self.string = InString::None;
        if let Some(e) = self.encoded.take() {
            self.encoded_end(&e)?;
        }
        if piece == Piece::Lead {
            self.lead.clear();
            // A blank answer does not shadow a later non-blank raw_answer/answer.
            if matches!(self.args_kind, ArgsKind::Object { .. }) {
                self.answer = ArgsAnswer::None;
            }
        }
        Ok(())
    }

    /// String args that opened with `{` end: the normaliser's rule for string args that may
    /// hold a JSON object.
    #[cold]
    #[inline(never)]
    fn encoded_end(&mut self, e: &[u8]) -> Result<()> {
        let text = String::from_utf8_lossy(e);
        match encoded_answer(&text) {
            Some(a) if blank(&a) => Ok(()),
            Some(a) => self.answer_text(a.as_bytes()),
            None => self.answer_text(trim(&text).as_bytes()),
        }
    }

    fn decide(&mut self, d: Decision) {
        if self.decision != Decision::Unknown {
            return;
        }
        self.decision = d;
        let held = std::mem::take(&mut self.held);
        self.held_len = 0;
        if d == Decision::Terminal {
            self.out.extend_from_slice(&held);
        }
    }

    fn close(&mut self) {
        self.progress = Progress::Closed;
        if self.shape == Shape::Fragment {
            return; // not the action: skipped
        }
        match self.decision {
            Decision::Terminal => {
                if self.answer == ArgsAnswer::None {
                    if let Some(t) = self.top_answer.take().filter(|t| !blank(t)) {
                        self.out.extend_from_slice(t.as_bytes());
                    }
                }
            }
            Decision::NonTerminal => {}
            Decision::Unknown => {
                // A blank top-level answer does not shadow an args answer, and streams nothing.
                let top = self.top_answer.take().filter(|t| !blank(t) || self.answer == ArgsAnswer::None);
                if let Some(t) = top {
                    self.decision = Decision::Terminal;
                    self.held.clear();
                    self.held_len = 0;
                    if !blank(&t) {
                        self.out.extend_from_slice(t.as_bytes());
                    }
                } else if self.answer != ArgsAnswer::None || !self.held.is_empty() {
                    self.decide(Decision::Terminal);
                } else {
                    self.decision = Decision::NonTerminal;
                }
            }
        }
    }
}

impl Sink for Action {
    fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()> {
        if !self.keys.admit(&tok)? {
            return Ok(());
        }
        if self.progress == Progress::Opened && !matches!(tok, Token::ObjectStart | Token::Key(_)) {
            self.progress = Progress::Confirmed;
        }
        match (depth, tok) {
            (0, Token::ObjectEnd) => self.close(),
            (1, Token::Key(k)) => {
                self.top = match k {
                    "next_node" => TopKey::NextNode,
                    "args" if self.args_kind == ArgsKind::None => TopKey::Args,
                    "args" => TopKey::Other,
                    "thought" => TopKey::Thought,
                    "answer" | "raw_answer" => TopKey::Answer,
                    _ => TopKey::Other,
                };
                if self.shape == Shape::Fragment {
                    // Only `next_node` makes a fragment an action; its thought waits for it.
                    if self.top == TopKey::NextNode {
                        self.shape = Shape::Action;
                    }
                    if self.top == TopKey::Thought {
                        self.top = TopKey::Other;
                    }
                } else if self.top != TopKey::Other || matches!(k, "plan" | "join" | "action") {
                    self.shape = Shape::Action;
                }
            }
            (1, tok) => self.top_value(tok)?,
            (2, tok) if self.top == TopKey::Args => self.args_member(tok)?,
            _ => {}
        }
        Ok(())
    }

    /// Answer text stays bytes from the tokenizer to the caller (no validation pass: the
    /// caller's own decoding, to a `String` or to UTF-16, replaces what is malformed); any
    /// other string content is decoded and read as `StringPart`.
    fn raw_part(&mut self, bytes: &[u8], depth: usize) -> Result<()> {
        if self.keys.dropping() {
            return Ok(());
        }
        // What `token` does with a `StringPart` of the answer (`top_value` at depth 1 for a
        // string `args`, `args_member` at depth 2).
        if self.top != TopKey::Args || !self.answering() || !matches!(depth, 1 | 2) {
            return self.token(Token::StringPart(&String::from_utf8_lossy(bytes)), depth);
        }
        if self.progress == Progress::Opened {
            self.progress = Progress::Confirmed;
        }
        self.answer_bytes(bytes)
    }

    /// Only tokens at depth 1, and at depth 2 inside `args`, are read (see `token`): once
    /// the object is confirmed, a container whose insides are deeper is read quietly.
    fn skip_inside(&self, depth: usize) -> bool {
        self.unread == Unread::Quiet && self.confirmed() && (depth >= 2 || (depth == 1 && self.top != TopKey::Args))
    }
}

impl Action {
    /// A token of a top-level key's value (depth 1).
    fn top_value(&mut self, tok: Token<'_>) -> Result<()> {
        match self.top {
            TopKey::NextNode => match tok {
                Token::StringStart => {
                    self.string = InString::NextNode;
                    self.nn_buf.clear();
                }
                Token::StringPart(_) if self.string == InString::NextNodeCut => {}
                Token::StringPart(t) => {
                    // The first `MAX_NEXT_NODE` bytes (whole chars) and nothing after the cut,
                    // so the kept name is the same for every chunking.
                    let room = MAX_NEXT_NODE - self.nn_buf.len();
                    if t.len() <= room {
                        self.nn_buf.push_str(t);
                    } else {
                        let mut end = room;
                        while !t.is_char_boundary(end) {
                            end -= 1;
                        }
                        self.nn_buf.push_str(crate::text::sub(t, ..end));
                        self.string = InString::NextNodeCut;
                    }
                }
                Token::StringEnd => {
                    if matches!(self.string, InString::NextNode | InString::NextNodeCut) {
                        self.string = InString::None;
                    }
                    if self.decision == Decision::Unknown {
                        let name = self.nn_buf.trim();
                        self.next_node = Some(name.to_string());
                        self.decide(if is_terminal(name) { Decision::Terminal } else { Decision::NonTerminal });
                    }
                }
                Token::Null => self.decide(Decision::Terminal),
                _ => self.decide(Decision::NonTerminal),
            },
            TopKey::Args => match tok {
                Token::ObjectStart if self.args_kind == ArgsKind::None => {
                    self.args_kind = ArgsKind::Object { member: Member::Other }
                }
                Token::ArrayStart if self.args_kind == ArgsKind::None => self.args_kind = ArgsKind::Array,
                Token::StringStart if self.args_kind == ArgsKind::None => {
                    self.args_kind = ArgsKind::String;
                    self.answer_start(Cut::Trimmed);
                }
                Token::StringPart(t) if self.answering() => self.answer_bytes(t.as_bytes())?,
                Token::StringEnd if self.answering() => self.answer_end()?,
                Token::ObjectStart | Token::ArrayStart | Token::StringStart => {}
                Token::ObjectEnd | Token::ArrayEnd => {}
                _ => {
                    if self.args_kind == ArgsKind::None {
                        self.args_kind = ArgsKind::Other;
                    }
                }
            },
            TopKey::Thought => match tok {
                Token::StringStart => self.string = InString::Thought,
                Token::StringPart(t) if self.string == InString::Thought => {
                    if self.thought.is_empty() && !self.out.is_empty() {
                        self.thought_order = ThoughtOrder::AfterAnswer;
                    }
                    self.thought.push_str(t);
                    self.cap(self.thought.len())?;
                }
                Token::StringEnd if self.string == InString::Thought => self.string = InString::None,
                _ => {}
            },
            TopKey::Answer => match tok {
                Token::StringStart if self.top_answer.as_deref().is_none_or(blank) => {
                    self.string = InString::TopAnswer;
                    self.top_answer = Some(String::new());
                }
                Token::StringPart(t) if self.string == InString::TopAnswer => {
                    if let Some(s) = &mut self.top_answer {
                        s.push_str(t);
                        let n = s.len();
                        self.note_held();
                        self.cap(n)?;
                    }
                }
                Token::StringEnd if self.string == InString::TopAnswer => self.string = InString::None,
                _ => {}
            },
            TopKey::Other => {}
        }
        Ok(())
    }

    /// A token directly inside `args` (depth 2).
    fn args_member(&mut self, tok: Token<'_>) -> Result<()> {
        match (self.args_kind, tok) {
            (ArgsKind::Object { .. }, Token::Key(k)) => {
                let member = if matches!(k, "answer" | "raw_answer") { Member::Answer } else { Member::Other };
                self.args_kind = ArgsKind::Object { member };
            }
            (ArgsKind::Object { member: Member::Answer }, Token::StringStart) if self.answer == ArgsAnswer::None => {
                self.answer_start(Cut::AsWritten);
            }
            (ArgsKind::Array, Token::StringStart) => self.answer_start(Cut::Trimmed),
            (_, Token::StringPart(t)) if self.answering() => self.answer_bytes(t.as_bytes())?,
            (_, Token::StringEnd) if self.answering() => self.answer_end()?,
            _ => {}
        }
        Ok(())
    }
}

/// Streams the answer of a planner action (see the module docs for the rules).
#[derive(Debug, Clone)]
pub struct AnswerExtractor {
    mode: Mode,
    prose: ProseState,
    tag: Vec<u8>,
    tok: Tokenizer,
    action: Action,
    /// Bytes since the candidate `{` while unconfirmed.
    pending: Vec<u8>,
    /// The last two non-blank prose bytes (to recognise `"key": {`).
    sig: [u8; 2],
    emitted: u64,
    finished: bool,
    /// The first error; repeated by every later call until `reset()`.
    failure: Option<Error>,
    /// Input bytes fed so far.
    consumed: u64,
    /// Offset just past the action object's closing `}`, once it closed.
    action_end: Option<u64>,
    /// Offset of the `{` of the latest candidate.
    cand_start: u64,
}

impl Default for AnswerExtractor {
    fn default() -> Self {
        AnswerExtractor::new(AnswerExtractorOptions::default())
    }
}

impl AnswerExtractor {
    /// A new extractor.
    pub fn new(opts: AnswerExtractorOptions) -> Self {
        AnswerExtractor {
            mode: Mode::Prose,
            prose: ProseState::Text,
            tag: Vec::new(),
            tok: Tokenizer::new(TokenizerOptions {
                strict: false,
                after_value: AfterValue::Stop,
                max_token_bytes: 1 << 20,
                raw_text: true,
                ..TokenizerOptions::default()
            }),
            action: Action::new(opts.max_buffer_bytes),
            pending: Vec::new(),
            sig: [0; 2],
            emitted: 0,
            finished: false,
            failure: None,
            consumed: 0,
            action_end: None,
            cand_start: 0,
        }
    }

    /// Once the action object has closed: the input byte offset just past its closing `}`
    /// (the same for every chunking). `None` while it is open, and for a broken action.
    pub fn action_end(&self) -> Option<u64> {
        self.action_end
    }

    /// The input byte offset of the `{` that opens the object being read, once one is
    /// (for the action, the object every emitted answer byte came from).
    pub(crate) fn action_start(&self) -> Option<u64> {
        (self.mode != Mode::Prose).then_some(self.cand_start)
    }

    /// Back to the initial state (for a retry), keeping the options.
    pub fn reset(&mut self) {
        *self = AnswerExtractor::new(AnswerExtractorOptions { max_buffer_bytes: self.action.max });
    }

    /// `Some(true)` for a finish action, `Some(false)` for any other, `None` until decided.
    pub fn is_finish_action(&self) -> Option<bool> {
        match self.action.decision {
            Decision::Unknown => None,
            Decision::Terminal => Some(true),
            Decision::NonTerminal => Some(false),
        }
    }

    /// The trimmed `next_node` string, once read.
    pub fn next_node(&self) -> Option<&str> {
        self.action.next_node.as_deref()
    }

    /// The most answer bytes this extractor has held back at once while undecided (the
    /// args answer and a top-level answer together); it never decreases until `reset()`.
    /// A caller that counts the extractor against a memory budget charges this.
    pub fn peak_held_bytes(&self) -> usize {
        self.action.peak_held
    }

    /// Unicode scalar values emitted so far.
    pub fn emitted_count(&self) -> u64 {
        self.emitted
    }

    /// Whether the thought that [`take_thought`](Self::take_thought) would return began
    /// after answer text returned by the same `feed` (the action's `args` came first), so a
    /// caller showing both keeps their order.
    pub fn thought_follows_answer(&self) -> bool {
        self.action.thought_order == ThoughtOrder::AfterAnswer
    }

    /// The top-level `thought` text decoded since the last call.
    pub fn take_thought(&mut self) -> String {
        self.action.thought_order = ThoughtOrder::First;
        std::mem::take(&mut self.action.thought)
    }

    /// Reads `chunk`; returns the newly decoded answer text (`""` when none).
    ///
    /// # Errors
    /// `buffer_limit_exceeded` when more answer text than the cap would have to be held back
    /// while undecided; `invalid_state` after `finish()`. After an error every call repeats
    /// it until `reset()`.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<String> {
        let mut out = String::new();
        self.feed_into(chunk, &mut out)?;
        Ok(out)
    }

    /// Like [`feed`](Self::feed), appending to `out`.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_into(&mut self, chunk: &[u8], out: &mut String) -> Result<()> {
        let r = self.step(chunk);
        self.drain(out);
        r
    }

    /// Reads `chunk` into `action.out` (nothing after an error or `finish`, which have
    /// already drained it).
    fn step(&mut self, chunk: &[u8]) -> Result<()> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if self.finished {
            return Err(Error::new(ErrorKind::InvalidState, "feed after finish (call reset)"));
        }
        let r = self.scan(chunk);
        self.consumed += chunk.len() as u64;
        if let Err(e) = &r {
            self.failure = Some(e.clone());
        }
        r
    }

    /// Ends the stream and returns the last text: the answer of an object that closed
    /// without `next_node` is emitted at its close, so this is usually `""`. A truncated
    /// action emits nothing more.
    ///
    /// # Errors
    /// `invalid_state` when called twice without `reset()`; the earlier error after one.
    pub fn finish(&mut self) -> Result<String> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if self.finished {
            return Err(Error::new(ErrorKind::InvalidState, "finish called twice (call reset)"));
        }
        self.finished = true;
        let mut out = String::new();
        self.drain(&mut out);
        Ok(out)
    }

    fn drain(&mut self, out: &mut String) {
        if !self.action.out.is_empty() {
            let text = String::from_utf8_lossy(&self.action.out);
            self.emitted += text.chars().count() as u64;
            out.push_str(&text);
            self.action.out.clear();
        }
    }

    /// [`feed_into`](Self::feed_into) for a caller that decodes the text itself: appends it
    /// to `out` as UTF-8 in which a malformed sequence may remain (each decodes to U+FFFD
    /// alone, as `from_utf8_lossy` and `TextDecoder` decode it, wherever the text is cut).
    /// The caller counts the Unicode scalar values of its decoding and reports them with
    /// [`count_emitted`](Self::count_emitted).
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn feed_raw(&mut self, chunk: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let r = self.step(chunk);
        if out.is_empty() {
            // The text changes hands: no copy (both buffers keep their capacity).
            std::mem::swap(out, &mut self.action.out);
        } else {
            out.extend_from_slice(&self.action.out);
        }
        self.action.out.clear();
        r
    }

    /// [`finish`](Self::finish) for a caller that decodes the text itself, as
    /// [`feed_raw`](Self::feed_raw) is for `feed`.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn finish_raw(&mut self, out: &mut Vec<u8>) -> Result<()> {
        if let Some(e) = &self.failure {
            return Err(e.clone());
        }
        if self.finished {
            return Err(Error::new(ErrorKind::InvalidState, "finish called twice (call reset)"));
        }
        self.finished = true;
        out.extend_from_slice(&self.action.out);
        self.action.out.clear();
        Ok(())
    }

    /// Adds scalar values emitted through [`feed_raw`](Self::feed_raw) to
    /// [`emitted_count`](Self::emitted_count).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn count_emitted(&mut self, scalars: u64) {
        self.emitted += scalars;
    }

    fn scan(&mut self, mut input: &[u8]) -> Result<()> {
        // Bytes to scan again after an abandoned candidate come before the rest of `input`.
        // Each abandonment replays at most `MAX_UNCONFIRMED` bytes, once: linear time.
        let mut replay: Vec<u8> = Vec::new();
        // The input offset of `replay[0]`: the byte after an abandoned candidate's `{`.
        let mut replay_at = 0;
        let total = input.len();
        loop {
            let from_replay = !replay.is_empty();
            let bytes: &[u8] = if from_replay { &replay } else { input };
            let at = if from_replay { replay_at } else { self.consumed + (total - input.len()) as u64 };
            if self.mode == Mode::After && self.action.progress == Progress::Closed && self.action_end.is_none() {
                self.action_end = Some(self.consumed + (total - input.len()) as u64);
            }
            if bytes.is_empty() || self.mode == Mode::After {
                return Ok(());
            }
            let step = match self.mode {
                Mode::Prose => {
                    let n = self.prose(bytes);
                    if self.mode == Mode::Candidate {
                        self.cand_start = at + n as u64;
                    }
                    Step::Used(n)
                }
                _ => self.json(bytes)?,
            };
            match (step, from_replay) {
                (Step::Used(n), false) => input = &input[n..],
                (Step::Used(n), true) => {
                    replay.drain(..n);
                    replay_at += n as u64;
                }
                (Step::Abandon { replay: r, used }, false) => {
                    input = &input[used..];
                    replay = r;
                    replay_at = self.cand_start + 1;
                }
                (Step::Abandon { replay: mut r, used }, true) => {
                    r.extend_from_slice(&replay[used..]);
                    replay = r;
                    replay_at = self.cand_start + 1;
                }
            }
        }
    }

    /// Prose before the action; returns bytes used (stops right after a `{` it starts on).
    fn prose(&mut self, bytes: &[u8]) -> usize {
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match self.prose {
                ProseState::Text => {
                    let Some(p) = memchr::memchr2(b'{', b'<', &bytes[i..]) else {
                        self.note(&bytes[i..]);
                        return bytes.len();
                    };
                    self.note(&bytes[i..i + p]);
                    i += p;
                    if bytes[i] == b'{' {
                        self.start_candidate();
                        return i; // the tokenizer reads the `{`
                    }
                    self.note(b"<");
                    self.tag.clear();
                    self.prose = ProseState::TagOpen;
                }
                ProseState::TagOpen => {
                    if b == b'>' {
                        self.note(b">");
                        let name = self.tag.to_ascii_lowercase();
                        self.prose = match &name[..] {
                            b"think" => ProseState::Think { thinking: false, close_matched: 0 },
                            b"thinking" => ProseState::Think { thinking: true, close_matched: 0 },
                            _ => ProseState::Text,
                        };
                    } else if b == b'{' || b == b'<' || self.tag.len() >= 16 {
                        self.prose = ProseState::Text;
                        continue; // re-read this byte as text
                    } else {
                        self.note(&[b]);
                        self.tag.push(b);
                    }
                }
                ProseState::Think { thinking, close_matched } => {
                    let close: &[u8] = if thinking { b"</thinking>" } else { b"</think>" };
                    let m = close_matched as usize;
                    if m == 0 {
                        match memchr::memchr(b'<', &bytes[i..]) {
                            Some(p) => {
                                i += p + 1;
                                self.prose = ProseState::Think { thinking, close_matched: 1 };
                                continue;
                            }
                            None => return bytes.len(),
                        }
                    }
                    if b.to_ascii_lowercase() == close[m] {
                        self.prose = if m + 1 == close.len() {
                            self.note(b">");
                            ProseState::Text
                        } else {
                            ProseState::Think { thinking, close_matched: m as u8 + 1 }
                        };
                    } else {
                        self.prose = ProseState::Think { thinking, close_matched: 0 };
                        continue;
                    }
                }
            }
            i += 1;
        }
        bytes.len()
    }

    /// Records skipped prose: keeps its last two non-blank bytes in `sig`.
    fn note(&mut self, skipped: &[u8]) {
        let mut it = skipped.iter().rev().filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
        match (it.next(), it.next()) {
            (Some(&last), Some(&before)) => self.sig = [before, last],
            (Some(&last), None) => self.sig = [self.sig[1], last],
            _ => {}
        }
    }

    fn start_candidate(&mut self) {
        self.mode = Mode::Candidate;
        self.tok.reset();
        self.action.clear_object();
        if self.sig == *b"\":" {
            self.action.shape = Shape::Fragment;
        }
        self.note(b"{");
        self.pending.clear();
    }

    /// Back to prose after an object that is not the action (the tokenizer read it).
    fn resume_prose(&mut self) {
        self.mode = Mode::Prose;
        self.prose = ProseState::Text;
        self.action.clear_object();
        self.note(b"}");
    }

    fn json(&mut self, bytes: &[u8]) -> Result<Step> {
        // While unconfirmed the tokenizer reads no further than the cap, so the candidate is
        // given up on the same byte whatever the chunking.
        let bytes =
            if self.mode == Mode::Candidate { &bytes[..bytes.len().min(MAX_UNCONFIRMED - self.pending.len())] } else { bytes };
        let before = self.tok.position();
        let r = self.tok.feed(bytes, &mut self.action);
        let used = match r {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::BufferLimitExceeded && self.action.confirmed() => {
                self.mode = Mode::After;
                return Err(e);
            }
            Err(e) => {
                let at = e.offset().unwrap_or(before).saturating_sub(before) as usize;
                let at = at.min(bytes.len());
                if self.mode == Mode::Candidate && !self.action.confirmed() {
                    return Ok(self.abandon(bytes, at));
                }
                if self.action.shape != Shape::Action {
                    // Not JSON after all, and no action key seen: prose again from the byte
                    // that broke it.
                    self.resume_prose();
                    return Ok(Step::Used(at));
                }
                // A broken action: what was emitted stands; nothing more comes.
                self.mode = Mode::After;
                return Ok(Step::Used(bytes.len()));
            }
        };
        if self.mode == Mode::Candidate {
            if self.action.confirmed() {
                self.mode = Mode::Action;
                self.pending.clear();
            } else if self.pending.len() + used >= MAX_UNCONFIRMED {
                return Ok(self.abandon(bytes, used));
            } else {
                self.pending.extend_from_slice(&bytes[..used]);
            }
        }
        if self.tok.is_done() {
            if self.action.shape == Shape::Action {
                self.mode = Mode::After;
                return Ok(Step::Used(used));
            }
            // Not an action: keep looking after it.
            self.resume_prose();
        }
        Ok(Step::Used(used))
    }

    /// Gives up the candidate: the bytes after its `{` (pending plus `bytes[..used]`) are
    /// scanned again as prose, then scanning goes on at `bytes[used..]`.
    fn abandon(&mut self, bytes: &[u8], used: usize) -> Step {
        let mut replay = std::mem::take(&mut self.pending);
        replay.extend_from_slice(&bytes[..used]);
        if !replay.is_empty() {
            replay.remove(0); // the `{` itself
        }
        self.mode = Mode::Prose;
        self.prose = ProseState::Text;
        self.action.clear_object();
        Step::Abandon { replay, used }
    }
}

/// The longest run of whitespace in `t` when `carried` whitespace bytes come before it.
fn longest_space_run(carried: usize, t: &[u8]) -> usize {
    let (mut run, mut longest) = (carried, carried);
    for &b in t {
        run = if is_space(b) { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// The length of raw answer bytes decoded (a validation pass, only for text held back).
fn decoded_len(t: &[u8]) -> usize {
    match std::str::from_utf8(t) {
        Ok(_) => t.len(),
        Err(_) => String::from_utf8_lossy(t).len(),
    }
}

enum Step {
    Used(usize),
    Abandon { replay: Vec<u8>, used: usize },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a run shows to the caller, after every call.
    fn observe(input: &[u8], chunk: usize, quiet_ok: bool) -> Vec<String> {
        let mut x = AnswerExtractor::default();
        x.action.unread = if quiet_ok { Unread::Quiet } else { Unread::Loud };
        let mut seen = Vec::new();
        let state = |x: &mut AnswerExtractor, r: Result<String>| {
            let r = r.map_err(|e| format!("{}@{:?}: {}", e.code(), e.offset(), e));
            let thought = x.take_thought();
            format!(
                "{r:?} finish={:?} node={:?} count={} thought={thought:?} end={:?}",
                x.is_finish_action(),
                x.next_node(),
                x.emitted_count(),
                x.action_end()
            )
        };
        for c in input.chunks(chunk.max(1)) {
            let r = x.feed(c);
            let s = state(&mut x, r);
            seen.push(s);
        }
        let r = x.finish();
        let s = state(&mut x, r);
        seen.push(s);
        seen
    }

    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Reading unread containers quietly changes nothing a caller can see: the corpus, the
    /// corpus with nested junk (broken numbers, escapes, literals, brackets) spliced in, and
    /// every truncation of some of them, whole and at several chunkings.
    #[test]
    fn quiet_reading_is_invisible() {
        let corpus: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/corpus/answer_extractor.json")).unwrap_or_default();
        let mut inputs: Vec<Vec<u8>> =
            corpus.as_array().into_iter().flatten().filter_map(|c| c["input"].as_str().map(|s| s.as_bytes().to_vec())).collect();
        assert!(inputs.len() > 100, "the corpus is there");
        const JUNK: &[&str] = &[
            r#""x":[1,2,{"a":"\"}"],3.5e7],"#,
            r#""x":{"y":[true,false,null,-0.5,"\u12\"",{"z":"\ud83d\"q"}]},"#,
            r#""x":[1,2},"#,
            r#""x":[01],"#,
            r#""x":[tru],"#,
            r#""x":{"a" 1},"#,
            r#""x":["\"],"#,
            "\"x\":[\"\u{e9}\u{1F600}\\\\\",\"\t\n\"],",
            r#""x":[1.],"#,
            r#""x":[-],"#,
            r#""x":[{"answer":"no"}],"args":{"answer":"twice"},"#,
            " \"x\" : { \"a\" : [ 1 , true , null , \"s\\\"\" , [ ] , { } ] ,\n\t\"b\" : -0.5e+3 } ,",
            r#""x":[[[{"k":[false,-1]}]],{"":{"\u00e9\"":[0]}}],"#,
            r#""x":[1 2],"#,
            r#""x":{"a":1,},"#,
            r#""x":[nul,1],"#,
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let base = inputs.clone();
        for input in &base {
            let input = input.clone();
            // Junk after a `{` or `,` at a random place (inside or outside the action).
            for _ in 0..4 {
                let marks: Vec<usize> =
                    input.iter().enumerate().filter(|(_, &b)| b == b'{' || b == b',').map(|(k, _)| k + 1).collect();
                if marks.is_empty() {
                    break;
                }
                let at = marks[(next(&mut seed) as usize) % marks.len()];
                let junk = JUNK[(next(&mut seed) as usize) % JUNK.len()].as_bytes();
                let mut v = input[..at].to_vec();
                v.extend_from_slice(junk);
                v.extend_from_slice(&input[at..]);
                inputs.push(v);
            }
        }
        let mut failures = Vec::new();
        for (k, input) in inputs.iter().enumerate() {
            let mut cuts = vec![input.len()];
            if k % 7 == 0 {
                cuts.extend((0..input.len()).step_by(3));
            }
            for cut in cuts {
                let input = &input[..cut];
                for chunk in [input.len().max(1), 1, 3, 7] {
                    if observe(input, chunk, true) != observe(input, chunk, false) {
                        failures.push(format!("{:?} at {chunk} B chunks", String::from_utf8_lossy(input)));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{} differ, e.g. {:?}", failures.len(), &failures[..failures.len().min(3)]);
    }
}
