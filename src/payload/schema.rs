//! Reading tool output schemas (JSON Schema as pydantic's `model_json_schema()` and
//! zod-to-json-schema write them) and walking an observation along them.
//!
//! Invariants. A schema node is looked at through [`SchemaDoc::expand`]: the node, the
//! targets of its `$ref` chain (local JSON pointers: `#/$defs/X`, `#/definitions/X`, any
//! `#/...`) and, recursively, the members of its `anyOf`/`oneOf`/`allOf`, so `X | None`,
//! `Optional[Model]`, unions and old-style `allOf: [{$ref}]` wrappers all reach the object or
//! array schema inside. A ref that does not resolve is ignored; a node already expanded is not
//! expanded again (cycles cannot loop). Marks (`artifact`, `stream`, `stream_id`,
//! `source_field`, `produces_sources`) count when any expanded node carries them, so a mark is
//! never missed because of a wrapper.
//!
//! Limits fail closed. One expansion holds at most `MAX_EXPAND` distinct nodes (a union of
//! ~500 models, `anyOf` or a `$ref` chain ~1000 deep); a schema that needs more is
//! `schema_too_complex`, never a partial expansion whose missing part could hold a mark. The
//! observation is walked to at most `MAX_DEPTH` levels (`json_too_deep` beyond), and only
//! where the schema describes it: unknown keys and values without a schema pass untouched.
//! One expansion costs O(`MAX_EXPAND`) (duplicates are found through a set once it is
//! large), so a walk is linear in the observation for any schema.

use crate::hash::Map;
use crate::hash::Set;
use crate::json::JsonValue;
use crate::{Error, ErrorKind, Result};
use std::rc::Rc;

/// Most distinct schema nodes one expansion may hold (`schema_too_complex` beyond).
pub(crate) const MAX_EXPAND: usize = 1024;
/// Up to this many expanded nodes, duplicates are found by a scan; past it, through a set.
const SCAN_DEDUP: usize = 32;
/// Deepest observation level walked (the strict parser's own cap).
pub(crate) const MAX_DEPTH: usize = 512;

/// The marks a property schema carries.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Marks<'a> {
    /// `"artifact"` is truthy.
    pub artifact: bool,
    /// `"stream"` is truthy or a `"stream_id"` string is given.
    pub stream: bool,
    /// The `"stream_id"` string.
    pub stream_id: Option<&'a str>,
    /// The `"source_field"` string.
    pub source_field: Option<&'a str>,
}

/// A tool output schema, with `$ref` resolution against its root.
#[derive(Debug, Clone)]
pub(crate) struct SchemaDoc<'a> {
    root: &'a JsonValue,
    /// A table of the members of every large `properties` object, by its address: an
    /// observation with many members looks each one up, and scanning would be quadratic.
    tables: Rc<Map<*const JsonValue, Map<&'a str, &'a JsonValue>>>,
}

/// Objects with more members than this get a table; smaller ones are scanned.
const TABLE_MIN: usize = 8;

/// The tables of [`SchemaDoc`]: one walk over the schema (explicit stack, no recursion).
fn property_tables(root: &JsonValue) -> Map<*const JsonValue, Map<&str, &JsonValue>> {
    let mut tables = Map::default();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n {
            JsonValue::Object(m) => {
                for (k, v) in m {
                    if let (true, JsonValue::Object(props)) = (k == "properties", v) {
                        if props.len() > TABLE_MIN && !tables.contains_key(&(v as *const JsonValue)) {
                            let mut t = crate::hash::map_with_capacity(props.len());
                            for (name, schema) in props {
                                t.entry(name.as_str()).or_insert(schema);
                            }
                            tables.insert(v as *const JsonValue, t);
                        }
                    }
                    stack.push(v);
                }
            }
            JsonValue::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    tables
}

/// One step of a path into the observation: an object member (its index among the members
/// and its key) or an array element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Seg<'v> {
    Key(usize, &'v str),
    Index(usize),
}

impl Seg<'_> {
    /// The index of the member or element in its container.
    pub(crate) fn index(self) -> usize {
        match self {
            Seg::Key(i, _) | Seg::Index(i) => i,
        }
    }
}

/// JSON truthiness in Python's sense: `true`, a non-zero number, a non-empty string, array or
/// object.
pub(crate) fn truthy(v: Option<&JsonValue>) -> bool {
    match v {
        None | Some(JsonValue::Null) => false,
        Some(JsonValue::Bool(b)) => *b,
        Some(JsonValue::Number(n)) => !is_zero(n),
        Some(JsonValue::String(s)) => !s.is_empty(),
        Some(JsonValue::Array(a)) => !a.is_empty(),
        Some(JsonValue::Object(o)) => !o.is_empty(),
    }
}

/// A number text is zero when no mantissa digit is non-zero (`0e5`, `-0.0`).
fn is_zero(n: &str) -> bool {
    let mantissa = n.split(['e', 'E']).next().unwrap_or(n);
    !mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b))
}

impl<'a> SchemaDoc<'a> {
    /// Wraps a schema document.
    ///
    /// # Errors
    /// `invalid_input` when the schema is neither an object nor a boolean.
    pub(crate) fn new(root: &'a JsonValue) -> Result<Self> {
        match root {
            JsonValue::Object(_) | JsonValue::Bool(_) => Ok(SchemaDoc { root, tables: Rc::new(property_tables(root)) }),
            _ => Err(Error::new(ErrorKind::InvalidInput, "a tool schema must be a JSON Schema object (or a boolean)")),
        }
    }

    /// The root schema, expanded.
    ///
    /// # Errors
    /// `schema_too_complex` past `MAX_EXPAND` nodes.
    pub(crate) fn root(&self) -> Result<Vec<&'a JsonValue>> {
        let mut out = Expansion::default();
        self.expand(self.root, &mut out)?;
        Ok(out.nodes)
    }

    /// Resolves a local JSON pointer (`#`, `#/a/b~1c`).
    fn pointer(&self, reference: &str) -> Option<&'a JsonValue> {
        let path = reference.strip_prefix('#')?;
        let mut node = self.root;
        if path.is_empty() {
            return Some(node);
        }
        for raw in path.strip_prefix('/')?.split('/') {
            let token = pointer_token(raw);
            node = match node {
                JsonValue::Object(_) => node.get(&token)?,
                JsonValue::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// Adds `node`, its `$ref` targets and its union/intersection members to `out`.
    ///
    /// # Errors
    /// `schema_too_complex` when `out` would hold more than `MAX_EXPAND` nodes.
    fn expand(&self, node: &'a JsonValue, out: &mut Expansion<'a>) -> Result<()> {
        let mut queue = vec![node];
        while let Some(n) = queue.pop() {
            if !out.insert(n)? {
                continue;
            }
            if let Some(target) = n.get("$ref").and_then(JsonValue::as_str) {
                queue.extend(self.pointer(target));
            }
            for key in ["allOf", "anyOf", "oneOf"] {
                if let Some(JsonValue::Array(members)) = n.get(key) {
                    // Members are distinct nodes: more than the cap cannot fit.
                    if members.len() > MAX_EXPAND {
                        return Err(too_complex());
                    }
                    queue.extend(members.iter().rev());
                }
            }
        }
        Ok(())
    }

    /// The marks carried by any of the expanded nodes.
    pub(crate) fn marks(nodes: &[&'a JsonValue]) -> Marks<'a> {
        let mut m = Marks::default();
        for n in nodes {
            m.artifact |= truthy(n.get("artifact"));
            m.stream |= truthy(n.get("stream"));
            if m.stream_id.is_none() {
                m.stream_id = n.get("stream_id").and_then(JsonValue::as_str);
            }
            if m.source_field.is_none() {
                m.source_field = n.get("source_field").and_then(JsonValue::as_str);
            }
        }
        m.stream |= m.stream_id.is_some();
        m
    }

    /// Whether any expanded node declares `produces_sources`.
    pub(crate) fn produces_sources(nodes: &[&'a JsonValue]) -> bool {
        nodes.iter().any(|n| truthy(n.get("produces_sources")))
    }

    /// The expanded schema of member `key` of an object described by `nodes` (its
    /// `properties`, else every `patternProperties` schema and a schema-valued
    /// `additionalProperties`). Empty when unknown.
    ///
    /// Patterns are regular expressions, which this crate does not evaluate: a key that is not
    /// declared takes every pattern's schema, as if each matched, and `additionalProperties`
    /// too. So a value that any of them marks as an artifact is treated as one (pydantic
    /// writes `patternProperties` for a dict whose keys have a pattern): erring towards
    /// redaction, never towards a leak.
    ///
    /// # Errors
    /// `schema_too_complex` past `MAX_EXPAND` nodes.
    pub(crate) fn property(&self, nodes: &[&'a JsonValue], key: &str) -> Result<Vec<&'a JsonValue>> {
        self.member(nodes, Some(key))
    }

    /// [`SchemaDoc::property`] of a key that no node of `nodes` declares in `properties`.
    ///
    /// # Errors
    /// `schema_too_complex` past `MAX_EXPAND` nodes.
    #[allow(dead_code)] // the plan (`plan.rs`) is for the wasm binding
    pub(crate) fn undeclared(&self, nodes: &[&'a JsonValue]) -> Result<Vec<&'a JsonValue>> {
        self.member(nodes, None)
    }

    fn member(&self, nodes: &[&'a JsonValue], key: Option<&str>) -> Result<Vec<&'a JsonValue>> {
        let mut out = Expansion::default();
        for n in nodes {
            let declared = match (key, n.get("properties")) {
                (Some(key), Some(p)) => match self.tables.get(&(p as *const JsonValue)) {
                    Some(t) => t.get(key).copied(),
                    None => p.get(key),
                },
                _ => None,
            };
            if let Some(p) = declared {
                self.expand(p, &mut out)?;
                continue;
            }
            if let Some(JsonValue::Object(patterns)) = n.get("patternProperties") {
                for (_, schema) in patterns {
                    if let JsonValue::Object(_) = schema {
                        self.expand(schema, &mut out)?;
                    }
                }
            }
            if let Some(extra @ JsonValue::Object(_)) = n.get("additionalProperties") {
                self.expand(extra, &mut out)?;
            }
        }
        Ok(out.nodes)
    }

    /// The expanded schema of element `index` of an array described by `nodes`
    /// (`prefixItems`, array-form `items`, `items`, `additionalItems`). Empty when unknown.
    ///
    /// # Errors
    /// `schema_too_complex` past `MAX_EXPAND` nodes.
    pub(crate) fn item(&self, nodes: &[&'a JsonValue], index: usize) -> Result<Vec<&'a JsonValue>> {
        let mut out = Expansion::default();
        for n in nodes {
            let prefix = match (n.get("prefixItems"), n.get("items")) {
                (Some(JsonValue::Array(p)), _) | (None, Some(JsonValue::Array(p))) => Some(p),
                _ => None,
            };
            let rest = match (n.get("prefixItems"), n.get("items"), n.get("additionalItems")) {
                (Some(_), Some(i @ JsonValue::Object(_)), _) => Some(i),
                (None, Some(i @ JsonValue::Object(_)), _) => Some(i),
                (_, Some(JsonValue::Array(_)), Some(i @ JsonValue::Object(_))) => Some(i),
                _ => None,
            };
            match prefix.and_then(|p| p.get(index)) {
                Some(p) => self.expand(p, &mut out)?,
                None => {
                    if let Some(r) = rest {
                        self.expand(r, &mut out)?
                    }
                }
            }
        }
        Ok(out.nodes)
    }
}

/// The nodes of one expansion, each once.
#[derive(Default)]
struct Expansion<'a> {
    nodes: Vec<&'a JsonValue>,
    /// The nodes' addresses, once there are more than `SCAN_DEDUP` of them.
    seen: Option<Set<*const JsonValue>>,
}

impl<'a> Expansion<'a> {
    /// Adds `node` unless it is already there; returns whether it was added.
    fn insert(&mut self, node: &'a JsonValue) -> Result<bool> {
        let new = match &mut self.seen {
            Some(set) => set.insert(node as *const JsonValue),
            None => !self.nodes.iter().any(|seen| std::ptr::eq(*seen, node)),
        };
        if !new {
            return Ok(false);
        }
        if self.nodes.len() >= MAX_EXPAND {
            return Err(too_complex());
        }
        self.nodes.push(node);
        if self.seen.is_none() && self.nodes.len() > SCAN_DEDUP {
            self.seen = Some(self.nodes.iter().map(|n| *n as *const JsonValue).collect());
        }
        Ok(true)
    }
}

fn too_complex() -> Error {
    Error::new(
        ErrorKind::SchemaTooComplex,
        format!(
            "the tool schema expands to more than {MAX_EXPAND} nodes at one place (unions, \
             allOf/anyOf/oneOf and $ref chains together); simplify it"
        ),
    )
}

/// An artifact found by [`walk_artifacts`].
pub(crate) struct Found<'v, 'a> {
    /// Where it is.
    pub path: &'v [Seg<'v>],
    /// Its marks.
    pub marks: Marks<'a>,
    /// The artifact value.
    pub value: &'v JsonValue,
}

/// Calls `visit` for every artifact-marked value of `observation` (an object, or an array
/// whose schema describes its items), outermost first; artifacts are not descended into.
/// Duplicate keys are visited each time.
///
/// # Errors
/// `json_too_deep` past `MAX_DEPTH` levels; whatever `visit` returns.
pub(crate) fn walk_artifacts<'v, 'a>(
    doc: &SchemaDoc<'a>,
    observation: &'v JsonValue,
    visit: &mut dyn FnMut(Found<'_, 'a>) -> Result<()>,
) -> Result<()> {
    let root = doc.root()?;
    let mut path: Vec<Seg<'v>> = Vec::new();
    walk(doc, observation, &root, &mut path, visit)
}

fn walk<'v, 'a>(
    doc: &SchemaDoc<'a>,
    value: &'v JsonValue,
    nodes: &[&'a JsonValue],
    path: &mut Vec<Seg<'v>>,
    visit: &mut dyn FnMut(Found<'_, 'a>) -> Result<()>,
) -> Result<()> {
    if path.len() >= MAX_DEPTH {
        return Err(Error::new(ErrorKind::JsonTooDeep, format!("the observation is nested deeper than {MAX_DEPTH} levels")));
    }
    #[allow(clippy::type_complexity)]
    let children: Box<dyn Iterator<Item = (Seg<'v>, &'v JsonValue, Result<Vec<&'a JsonValue>>)> + '_> = match value {
        JsonValue::Object(members) => {
            Box::new(members.iter().enumerate().map(|(i, (k, v))| (Seg::Key(i, k.as_str()), v, doc.property(nodes, k))))
        }
        JsonValue::Array(items) => Box::new(items.iter().enumerate().map(|(i, v)| (Seg::Index(i), v, doc.item(nodes, i)))),
        _ => return Ok(()),
    };
    for (seg, child, schema) in children {
        let schema = schema?;
        if schema.is_empty() {
            continue;
        }
        path.push(seg);
        let marks = SchemaDoc::marks(&schema);
        let r = if marks.artifact {
            visit(Found { path, marks, value: child })
        } else if matches!(child, JsonValue::Object(_) | JsonValue::Array(_)) {
            walk(doc, child, &schema, path, visit)
        } else {
            Ok(())
        };
        path.pop();
        r?;
    }
    Ok(())
}

/// The name an artifact is known by: the keys and indices of its path joined with `.`
/// (`chart_options`, `sections.0.figure`).
pub(crate) fn dotted(path: &[Seg<'_>]) -> String {
    let mut out = String::new();
    for (i, seg) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        match seg {
            Seg::Key(_, k) => out.push_str(k),
            Seg::Index(n) => out.push_str(&n.to_string()),
        }
    }
    out
}

/// The key of the innermost object member on the path (the field name).
pub(crate) fn field_name<'v>(path: &[Seg<'v>]) -> &'v str {
    path.iter()
        .rev()
        .find_map(|s| match s {
            Seg::Key(_, k) => Some(*k),
            Seg::Index(_) => None,
        })
        .unwrap_or("")
}

/// The value at `path` (by member/element index), mutably.
pub(crate) fn at_mut<'v>(value: &'v mut JsonValue, path: &[usize]) -> Option<&'v mut JsonValue> {
    let mut v = value;
    for &i in path {
        v = match v {
            JsonValue::Object(members) => &mut members.get_mut(i)?.1,
            JsonValue::Array(items) => items.get_mut(i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// A JSON pointer reference token with its escapes decoded (RFC 6901: `~1` is `/`, `~0` is
/// `~`, so `~01` is `~1`). One pass by hand: `str::replace` with a string pattern links a
/// substring searcher for this alone (bench/README.md, "Measurements behind design choices").
fn pointer_token(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('~') {
        out.push_str(crate::text::sub(rest, ..i));
        let after = crate::text::sub(rest, i + 1..);
        match after.as_bytes().first() {
            Some(b'0') => out.push('~'),
            Some(b'1') => out.push('/'),
            _ => {
                out.push('~');
                rest = after;
                continue;
            }
        }
        rest = crate::text::sub(after, 1..);
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn pointer_token_decodes_as_rfc_6901_says() {
        for raw in ["", "a", "~", "~~", "~0", "~1", "~01", "~10", "~~1", "~~01", "a~1b~0c", "~2", "é~1~", "~0~1~0~1"] {
            let expected = raw.replace("~1", "/").replace("~0", "~");
            assert_eq!(super::pointer_token(raw), expected, "{raw:?}");
        }
    }
}
