//! The artifact walk straight over JSON text: one pass of the shared tokenizer, the
//! non-artifact parts written out as compact JSON as they are read, artifact values only
//! measured for their placeholder (and built as `JsonValue`s when they are collected). The
//! observation is never built as a tree, which makes big observations several times cheaper
//! than `parse_strict` + `redact_artifacts` + `to_json`, with the same result (the property
//! tests and the fuzz target compare the two).
//!
//! State: a stack of the open containers outside any artifact (`Frame`: object or array, the
//! expanded schema of its members, how many members were written, the current key), the
//! schema of the member whose key was just read, and at most one artifact being read
//! (`Artifact`: its depth, type and the counts its placeholder needs). The tokenizer caps the
//! depth (512, `json_too_deep`); nothing here recurses.

use super::redact::placeholder_text;
use super::schema::{Marks, SchemaDoc};
use super::types::{escaped_len, type_name};
use crate::json::tokenizer::{AfterValue, Sink, Token, Tokenizer, TokenizerOptions};
use crate::json::{write_json_escaped, JsonValue, ValueBuilder};
use crate::Result;

struct Frame<'a> {
    object: bool,
    schema: Vec<&'a JsonValue>,
    count: usize,
    key: String,
}

/// An artifact value being read.
struct Artifact {
    /// Tokenizer depth of its first token.
    depth: usize,
    marks_stream: Option<String>,
    ty: &'static str,
    /// Elements of a top-level array artifact.
    items: usize,
    /// Characters of a string artifact.
    chars: usize,
    /// Compact JSON bytes so far.
    bytes: usize,
    /// Members/elements written per open container inside the artifact (for commas).
    counts: Vec<(bool, usize)>,
    /// Dotted path (for collection).
    path: String,
    builder: Option<ValueBuilder>,
}

/// Found artifacts: dotted path and value (when collecting).
pub(crate) type Found = Vec<(String, JsonValue)>;

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
    frames: Vec<Frame<'a>>,
    next: Vec<&'a JsonValue>,
    artifact: Option<Artifact>,
    collect: bool,
    found: Found,
    replaced: usize,
}

/// Redacts the JSON text `observation` along `schema`; with `collect`, also returns the
/// artifacts found (dotted path, value), in order.
///
/// # Errors
/// `json_invalid` (with offset), `json_too_deep`, `invalid_input` for a bad schema.
pub(crate) fn redact_text(observation: &[u8], schema: &JsonValue, collect: bool) -> Result<TextWalk> {
    let doc = SchemaDoc::new(schema)?;
    let mut w = Walker {
        doc,
        out: String::with_capacity(observation.len() / 4),
        frames: Vec::new(),
        next: doc.root(),
        artifact: None,
        collect,
        found: Vec::new(),
        replaced: 0,
    };
    let mut tok = Tokenizer::new(TokenizerOptions {
        strict: true,
        after_value: AfterValue::End,
        max_token_bytes: usize::MAX,
        ..TokenizerOptions::default()
    });
    tok.feed(observation, &mut w)?;
    tok.finish(&mut w)?;
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
                p.push_str(&(f.count - 1).to_string());
            }
        }
        p
    }

    fn field_name(&self) -> &str {
        self.frames
            .iter()
            .rev()
            .find(|f| f.object)
            .map_or("", |f| f.key.as_str())
    }

    /// A value starts outside any artifact: its schema, and whether it is an artifact.
    fn value_start(&mut self, tok: &Token<'_>, depth: usize) -> Option<Artifact> {
        let schema = match self.frames.last_mut() {
            None => return None, // the root is never an artifact
            Some(f) if f.object => std::mem::take(&mut self.next),
            Some(f) => {
                if f.count > 0 {
                    self.out.push(',');
                }
                f.count += 1;
                self.doc.item(&f.schema, f.count - 1)
            }
        };
        let marks: Marks<'_> = SchemaDoc::marks(&schema);
        if !marks.artifact {
            self.next = schema;
            return None;
        }
        let stream = marks.stream.then(|| {
            marks
                .stream_id
                .unwrap_or_else(|| self.field_name())
                .to_string()
        });
        let ty = match tok {
            Token::ObjectStart => "dict",
            Token::ArrayStart => "list",
            Token::StringStart => "str",
            Token::Number(n) => type_name(&JsonValue::Number((*n).to_string())),
            Token::Bool(_) => "bool",
            _ => "NoneType",
        };
        Some(Artifact {
            depth,
            marks_stream: stream,
            ty,
            items: 0,
            chars: 0,
            bytes: 0,
            counts: Vec::new(),
            path: if self.collect {
                self.path()
            } else {
                String::new()
            },
            builder: self.collect.then(ValueBuilder::default),
        })
    }

    /// Feeds a token to the artifact being read; returns whether the artifact is complete.
    fn artifact_token(a: &mut Artifact, tok: Token<'_>, depth: usize) -> Result<bool> {
        if let Some(b) = a.builder.as_mut() {
            b.token(tok, depth)?;
        }
        let value_start = matches!(
            tok,
            Token::ObjectStart
                | Token::ArrayStart
                | Token::StringStart
                | Token::Number(_)
                | Token::Bool(_)
                | Token::Null
        );
        if value_start {
            if let Some((false, n)) = a.counts.last_mut() {
                if *n > 0 {
                    a.bytes += 1;
                }
                *n += 1;
            }
            if depth == a.depth + 1 && a.ty == "list" {
                a.items += 1;
            }
        }
        match tok {
            Token::ObjectStart | Token::ArrayStart => {
                a.bytes += 1;
                a.counts.push((matches!(tok, Token::ObjectStart), 0));
                Ok(false)
            }
            Token::ObjectEnd | Token::ArrayEnd => {
                a.bytes += 1;
                a.counts.pop();
                Ok(depth == a.depth)
            }
            Token::Key(k) => {
                if let Some((true, n)) = a.counts.last_mut() {
                    if *n > 0 {
                        a.bytes += 1;
                    }
                    *n += 1;
                }
                a.bytes += escaped_len(k) + 3;
                Ok(false)
            }
            Token::StringStart => {
                a.bytes += 2;
                Ok(false)
            }
            Token::StringPart(s) => {
                a.bytes += escaped_len(s);
                if depth == a.depth {
                    a.chars += s.chars().count();
                }
                Ok(false)
            }
            Token::StringEnd => Ok(depth == a.depth),
            Token::Number(n) => {
                a.bytes += n.len();
                Ok(depth == a.depth)
            }
            Token::Bool(b) => {
                a.bytes += if b { 4 } else { 5 };
                Ok(depth == a.depth)
            }
            Token::Null => {
                a.bytes += 4;
                Ok(depth == a.depth)
            }
        }
    }

    fn finish_artifact(&mut self, mut a: Artifact) {
        let size = match a.ty {
            "dict" => a.bytes,
            "list" => a.items,
            _ => a.chars,
        };
        let text = placeholder_text(a.ty, a.marks_stream.as_deref(), size);
        crate::json::write_json_string(&text, &mut self.out);
        self.replaced += 1;
        if let Some(v) = a.builder.as_mut().and_then(|b| b.done.pop()) {
            self.found.push((std::mem::take(&mut a.path), v));
        }
    }
}

impl Sink for Walker<'_> {
    fn token(&mut self, tok: Token<'_>, depth: usize) -> Result<()> {
        if let Some(mut a) = self.artifact.take() {
            if Self::artifact_token(&mut a, tok, depth)? {
                self.finish_artifact(a);
            } else {
                self.artifact = Some(a);
            }
            return Ok(());
        }
        match tok {
            Token::Key(k) => {
                if let Some(f) = self.frames.last_mut() {
                    if f.count > 0 {
                        self.out.push(',');
                    }
                    f.count += 1;
                    f.key.clear();
                    f.key.push_str(k);
                    self.next = self.doc.property(&f.schema, k);
                }
                crate::json::write_json_string(k, &mut self.out);
                self.out.push(':');
                return Ok(());
            }
            Token::StringPart(s) => {
                write_json_escaped(s, &mut self.out);
                return Ok(());
            }
            Token::StringEnd => {
                self.out.push('"');
                return Ok(());
            }
            Token::ObjectEnd => {
                self.out.push('}');
                self.frames.pop();
                return Ok(());
            }
            Token::ArrayEnd => {
                self.out.push(']');
                self.frames.pop();
                return Ok(());
            }
            _ => {}
        }
        // A value starts.
        if let Some(mut a) = self.value_start(&tok, depth) {
            if Self::artifact_token(&mut a, tok, depth)? {
                self.finish_artifact(a);
            } else {
                self.artifact = Some(a);
            }
            return Ok(());
        }
        match tok {
            Token::ObjectStart | Token::ArrayStart => {
                let object = matches!(tok, Token::ObjectStart);
                self.out.push(if object { '{' } else { '[' });
                let schema = std::mem::take(&mut self.next);
                self.frames.push(Frame {
                    object,
                    schema,
                    count: 0,
                    key: String::new(),
                });
            }
            Token::StringStart => self.out.push('"'),
            Token::Number(n) => self.out.push_str(n),
            Token::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Token::Null => self.out.push_str("null"),
            _ => {}
        }
        self.next.clear();
        Ok(())
    }
}
