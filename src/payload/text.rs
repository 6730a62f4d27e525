//! The artifact walk straight over JSON text: one pass of the whole-document tokenizer
//! (`json/document.rs`, in every build: the payload entry links no streaming tokenizer), the
//! non-artifact parts written out as compact JSON as they are read, artifact values only
//! measured for their placeholder (and built as `JsonValue`s when they are collected). The
//! observation is never built as a tree (collected artifacts are kept as their compact JSON
//! text), which makes big observations much cheaper than `parse_strict` + `redact_artifacts`
//! + `to_json`, with the same result (the property tests and the fuzz target compare the two).
//!
//! State: a stack of the open containers outside any artifact (`Frame`: object or array, the
//! expanded schema of its members, how many members were written, the current key), the
//! schema of the member whose key was just read, and at most one artifact being read
//! (`Artifact`: its depth, type and the counts its placeholder needs). The tokenizer caps the
//! depth (512, `json_too_deep`); nothing here recurses.
//!
//! A string observation that holds a JSON object or array (a tool's raw JSON output) is a
//! document of its own: [`string_document`] walks its text and the string comes back holding
//! the redacted compact JSON (as it was when nothing in it is an artifact or it is not JSON
//! after all). The tree entry points (`redact_artifacts`, `ArtifactCollector::collect`, ...)
//! hand a string observation here through [`string_root`], so a value gives the same result
//! whether it comes as a tree, as JSON text, or as a string of JSON text in JSON text.

use super::redact::placeholder_text;
use super::schema::{Marks, SchemaDoc};
use super::types::type_name;
use crate::json::document::read_document;
use crate::json::keys::FirstKeys;
use crate::json::tokenizer::{Sink, Token};
use crate::json::{write_json_escaped, write_json_string, JsonValue};
use crate::{ErrorKind, Result};

/// Writes tokens as compact JSON (what `JsonValue::to_json` writes), placing the commas.
#[derive(Default)]
struct CompactWriter {
    /// Per open container: is it an object, and how many members/elements were written.
    open: Vec<(bool, usize)>,
}

impl CompactWriter {
    /// A comma before the next member (`key`) or element, where one is due. `#[inline]`: on
    /// the walk's hot path, and the payload entry builds at a lower inline threshold (40).
    #[inline]
    fn comma(&mut self, key: bool, out: &mut String) {
        if let Some((object, n)) = self.open.last_mut() {
            if *object == key {
                if *n > 0 {
                    out.push(',');
                }
                *n += 1;
            }
        }
    }

    fn token(&mut self, tok: Token<'_>, out: &mut String) {
        match tok {
            Token::Key(k) => {
                self.comma(true, out);
                // `write_json_string` without its `reserve` call: this is the walk's hot path.
                out.push('"');
                write_json_escaped(k, out);
                out.push_str("\":");
                return;
            }
            Token::StringPart(s) => return write_json_escaped(s, out),
            Token::StringEnd => return out.push('"'),
            Token::ObjectEnd | Token::ArrayEnd => {
                self.open.pop();
                return out.push(if tok == Token::ObjectEnd { '}' } else { ']' });
            }
            _ => self.comma(false, out),
        }
        match tok {
            Token::ObjectStart | Token::ArrayStart => {
                let object = tok == Token::ObjectStart;
                self.open.push((object, 0));
                out.push(if object { '{' } else { '[' });
            }
            Token::StringStart => out.push('"'),
            Token::Number(n) => out.push_str(n),
            Token::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            _ => out.push_str("null"),
        }
    }

    /// A string value in place of an artifact.
    fn placeholder(&mut self, text: &str, out: &mut String) {
        self.comma(false, out);
        write_json_string(text, out);
    }
}

struct Frame<'a> {
    object: bool,
    schema: Vec<&'a JsonValue>,
    count: usize,
    key: String,
}

/// An artifact value being read: its compact JSON and what its placeholder needs.
struct Artifact {
    /// Tokenizer depth of its first token.
    depth: usize,
    stream: Option<String>,
    ty: &'static str,
    /// Elements of a list artifact.
    items: usize,
    /// Characters of a str artifact.
    chars: usize,
    json: String,
    writer: CompactWriter,
    /// Dotted path (for collection).
    path: String,
}

/// Whether `tok` is the first token of a value.
fn starts_value(tok: Token<'_>) -> bool {
    matches!(tok, Token::ObjectStart | Token::ArrayStart | Token::StringStart) || scalar(tok)
}

/// Whether `tok` is the last token of a value.
fn ends_value(tok: Token<'_>) -> bool {
    matches!(tok, Token::ObjectEnd | Token::ArrayEnd | Token::StringEnd) || scalar(tok)
}

fn scalar(tok: Token<'_>) -> bool {
    matches!(tok, Token::Number(_) | Token::Bool(_) | Token::Null)
}

impl Artifact {
    /// Takes one token of the artifact; returns whether the artifact is complete.
    fn token(&mut self, tok: Token<'_>, depth: usize) -> bool {
        if self.ty == "list" && depth == self.depth + 1 {
            self.items += usize::from(starts_value(tok));
        }
        if let (Token::StringPart(s), true) = (tok, depth == self.depth) {
            self.chars += s.chars().count();
        }
        self.writer.token(tok, &mut self.json);
        depth == self.depth && ends_value(tok)
    }
}

/// Found artifacts: dotted path and compact JSON text.
pub(crate) type Found = Vec<(String, String)>;

/// What one pass over a text gives: the redacted compact JSON, the artifacts (when
/// collecting) and how many artifact values were replaced.
pub(crate) struct TextWalk {
    pub text: String,
    pub found: Found,
    pub replaced: usize,
}

struct Walker<'a> {
    doc: SchemaDoc<'a>,
    out: String,
    writer: CompactWriter,
    frames: Vec<Frame<'a>>,
    next: Vec<&'a JsonValue>,
    artifact: Option<Artifact>,
    /// The text of a string observation, while it is read.
    root_string: Option<String>,
    collect: bool,
    found: Found,
    replaced: usize,
    /// A repeated key is left out with its value (first wins), as parsing does.
    keys: FirstKeys,
}

/// Redacts the JSON text `observation` along `schema`; with `collect`, also returns the
/// artifacts found (dotted path, compact JSON), in order.
///
/// # Errors
/// `json_invalid` (with offset), `json_too_deep`, `invalid_input` for a bad schema,
/// `schema_too_complex`.
pub(crate) fn redact_text(observation: &[u8], schema: &JsonValue, collect: bool) -> Result<TextWalk> {
    walk_text(observation, SchemaDoc::new(schema)?, collect)
}

/// [`string_document`] of a string observation; `None` for any other value.
///
/// # Errors
/// `invalid_input` for a bad schema; as [`string_document`].
pub(crate) fn string_root(observation: &JsonValue, schema: &JsonValue, collect: bool) -> Result<Option<TextWalk>> {
    let doc = SchemaDoc::new(schema)?;
    match observation {
        JsonValue::String(s) => string_document(s, doc, collect).map(Some),
        _ => Ok(None),
    }
}

/// The walk of a string observation `s` (its `text` is the string's new content, not a JSON
/// literal): the walk of its text when it holds a JSON object or array with artifacts in it,
/// else `s` as it is, nothing found.
///
/// # Errors
/// `json_too_deep` and `schema_too_complex` from the walk of its text.
fn string_document(s: &str, doc: SchemaDoc<'_>, collect: bool) -> Result<TextWalk> {
    if holds_container(s) {
        match walk_text(s.as_bytes(), doc, collect) {
            Ok(w) if w.replaced > 0 => return Ok(w),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::JsonInvalid => {}
            Err(e) => return Err(e),
        }
    }
    Ok(TextWalk { text: s.to_string(), found: Vec::new(), replaced: 0 })
}

/// Whether the first character of `s` past JSON whitespace opens an object or array.
pub(crate) fn holds_container(s: &str) -> bool {
    let first = s.bytes().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    matches!(first, Some(b'{' | b'['))
}

fn walk_text(observation: &[u8], doc: SchemaDoc<'_>, collect: bool) -> Result<TextWalk> {
    walk_with(observation, doc, collect, read_document)
}

/// How a walk reads its text: [`read_document`], or in tests the streaming tokenizer it is
/// compared with.
type Reader = fn(&[u8], &mut dyn Sink) -> Result<()>;

fn walk_with(observation: &[u8], doc: SchemaDoc<'_>, collect: bool, read: Reader) -> Result<TextWalk> {
    let mut w = Walker {
        next: doc.root()?,
        doc,
        out: String::with_capacity(observation.len() / 4),
        writer: CompactWriter::default(),
        frames: Vec::new(),
        artifact: None,
        root_string: None,
        collect,
        found: Vec::new(),
        replaced: 0,
        keys: FirstKeys::default(),
    };
    read(observation, &mut w)?;
    Ok(TextWalk { text: w.out, found: w.found, replaced: w.replaced })
}

impl<'a> Walker<'a> {
    fn path(&self) -> String {
        let mut p = String::new();
        for (i, f) in self.frames.iter().enumerate() {
            if i > 0 {
                p.push('.');
            }
            if f.object {
                p.push_str(&f.key);
            } else {
                p.push_str(&f.count.saturating_sub(1).to_string());
            }
        }
        p
    }

    fn field_name(&self) -> &str {
        self.frames.iter().rev().find(|f| f.object).map_or("", |f| f.key.as_str())
    }

    /// A value starts outside any artifact: its schema is found, and it is an artifact or not.
    fn value_start(&mut self, tok: Token<'_>, depth: usize) -> Result<Option<Artifact>> {
        let schema = match self.frames.last_mut() {
            None => return Ok(None), // the root is never an artifact
            Some(f) if f.object => std::mem::take(&mut self.next),
            Some(f) => {
                f.count += 1;
                self.doc.item(&f.schema, f.count - 1)?
            }
        };
        let marks: Marks<'_> = SchemaDoc::marks(&schema);
        if !marks.artifact {
            self.next = schema;
            return Ok(None);
        }
        let stream = marks.stream.then(|| marks.stream_id.unwrap_or_else(|| self.field_name()).to_string());
        let ty = match tok {
            Token::ObjectStart => "dict",
            Token::ArrayStart => "list",
            Token::StringStart => "str",
            Token::Number(n) => type_name(&JsonValue::Number(n.to_string())),
            Token::Bool(_) => "bool",
            _ => "NoneType",
        };
        let path = if self.collect { self.path() } else { String::new() };
        Ok(Some(Artifact { depth, stream, ty, items: 0, chars: 0, json: String::new(), writer: CompactWriter::default(), path }))
    }

    /// Takes one token of a string observation; at its end, writes the string back as
    /// [`string_document`] has it.
    fn root_string_token(&mut self, tok: Token<'_>) -> Result<()> {
        let Some(text) = self.root_string.as_mut() else {
            return Ok(());
        };
        if let Token::StringPart(part) = tok {
            text.push_str(part);
            return Ok(());
        }
        let text = std::mem::take(text);
        self.root_string = None;
        let w = string_document(&text, self.doc.clone(), self.collect)?;
        write_json_string(&w.text, &mut self.out);
        self.found = w.found;
        self.replaced = w.replaced;
        Ok(())
    }

    fn finish_artifact(&mut self, a: Artifact) {
        let size = match a.ty {
            "dict" => a.json.len(),
            "list" => a.items,
            _ => a.chars,
        };
        self.writer.placeholder(&placeholder_text(a.ty, a.stream.as_deref(), size), &mut self.out);
        self.replaced += 1;
        if self.collect {
            self.found.push((a.path, a.json));
        }
    }

    /// Feeds `tok` to `a`; keeps it open or finishes it.
    fn continue_artifact(&mut self, mut a: Artifact, tok: Token<'_>, depth: usize) {
        if a.token(tok, depth) {
            self.finish_artifact(a);
        } else {
            self.artifact = Some(a);
        }
    }
}

impl Sink for Walker<'_> {
    fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()> {
        if !self.keys.admit(&tok)? {
            return Ok(());
        }
        if let Some(a) = self.artifact.take() {
            self.continue_artifact(a, tok, depth);
            return Ok(());
        }
        if self.root_string.is_some() {
            return self.root_string_token(tok);
        }
        match tok {
            Token::Key(k) => {
                if let Some(f) = self.frames.last_mut() {
                    f.count += 1;
                    f.key.clear();
                    f.key.push_str(k);
                    self.next = self.doc.property(&f.schema, k)?;
                }
            }
            Token::ObjectEnd | Token::ArrayEnd => {
                self.frames.pop();
            }
            Token::ObjectStart | Token::ArrayStart | Token::StringStart | Token::Number(_) | Token::Bool(_) | Token::Null => {
                if self.frames.is_empty() && tok == Token::StringStart {
                    self.root_string = Some(String::new());
                    return Ok(());
                }
                if let Some(a) = self.value_start(tok, depth)? {
                    self.continue_artifact(a, tok, depth);
                    return Ok(());
                }
                let schema = std::mem::take(&mut self.next);
                if let Token::ObjectStart | Token::ArrayStart = tok {
                    let object = tok == Token::ObjectStart;
                    self.frames.push(Frame { object, schema, count: 0, key: String::new() });
                }
            }
            Token::StringPart(_) | Token::StringEnd => {}
        }
        self.writer.token(tok, &mut self.out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{walk_with, Reader, SchemaDoc};
    use crate::json::document::read_document;
    use crate::json::{parse_strict, read_streaming};

    /// A schema that marks members `a`, `k` (a stream), `d` and `""` as artifacts at every
    /// level, in objects and arrays.
    const SCHEMA: &[u8] = br##"{"$defs":{"n":{"properties":{"a":{"artifact":true},"k":{"artifact":true,"stream_id":"s"},"d":{"artifact":true},"":{"artifact":true}},"additionalProperties":{"$ref":"#/$defs/n"},"items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}"##;

    type Outcome = Result<(String, Vec<(String, String)>, usize), crate::Error>;

    fn walk(doc: &[u8], schema: &crate::JsonValue, read: Reader) -> Outcome {
        let w = walk_with(doc, SchemaDoc::new(schema).unwrap(), true, read)?;
        Ok((w.text, w.found, w.replaced))
    }

    #[test]
    fn the_walk_over_a_document_is_the_walk_over_the_streaming_tokenizer() {
        let schema = parse_strict(SCHEMA).unwrap();
        let (mut redacted, mut failed) = (0, 0);
        for doc in crate::json::document_cases::documents() {
            let ours = walk(&doc, &schema, read_document);
            assert_eq!(
                ours,
                walk(&doc, &schema, read_streaming),
                "(STREAMROUTE_SEED={}) on {:?}",
                crate::json::document_cases::seed(),
                String::from_utf8_lossy(&doc)
            );
            match ours {
                Ok((_, _, n)) => redacted += usize::from(n > 0),
                Err(_) => failed += 1,
            }
        }
        assert!(redacted > 1_000 && failed > 20_000, "{redacted} redacted, {failed} failed");
    }
}
