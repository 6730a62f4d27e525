//! The arguments of a function call that stream as values at JSON paths (Gemini's
//! `partialArgs`: `{"jsonPath": "$.a.b[0]['c d']", "stringValue": ...}`), assembled into one
//! tree and written out as JSON text when the call ends.
//!
//! Advice for hackers: the tree is `Node`s; a value that arrived whole (`args`, or a scalar)
//! stays one `JsonValue` leaf until a path goes into it, and only then is that one container
//! opened into a `Node`. Invariants:
//! - Linear: an object's keys are found through a hash map, an array's items by index, so an
//!   entry costs its path's length, however many members the tree has.
//! - Counted: the tree is charged to the sink's budget (`DeltaSink::retain`) as it grows,
//!   as `PartialJson` counts its tree: 32 bytes per value, 64 per member, text bytes (keys
//!   twice). Everything is given back when the call ends ([`PathArgs::finish`]).
//! - Bounded by the input: a path is at most [`MAX_PATH_DEPTH`] segments, and an index may
//!   open at most [`MAX_PATH_GAP`] slots past an array's end (nulls fill them) and no more
//!   than the budget has room for. Past either the entry is dropped with a `provider_error`
//!   (the bytes say something the call cannot hold), and the call is not emitted.
//! - A path that cannot be read, or that goes through a value of another kind, is ignored,
//!   as before any of this.

use super::delta::DeltaSink;
use crate::budget::{try_push_str, try_to_string};
use crate::hash::Map;
use crate::json::JsonValue;

/// Most array slots one index may open past an array's end.
pub(crate) const MAX_PATH_GAP: usize = 1024;
/// Most segments of one path (the tree is written out recursively).
pub(crate) const MAX_PATH_DEPTH: usize = 64;

/// What one value is charged.
const VALUE_BYTES: usize = 32;
/// What one object member is charged besides its key (kept twice: in order and in the map).
const MEMBER_BYTES: usize = 64;

/// One place of the tree.
#[derive(Debug)]
enum Node {
    /// A value that arrived whole (a scalar, or a container no path went into yet).
    Leaf(JsonValue),
    Array(Vec<Node>),
    /// Members in written order, and where each key is.
    Object(Vec<(String, Node)>, Map<Box<str>, usize>),
}

/// A call's arguments being assembled.
#[derive(Debug)]
pub(crate) struct PathArgs {
    root: Node,
    /// What the tree is charged.
    kept: usize,
}

/// Why an entry was refused: the message of its `provider_error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The path has more than `MAX_PATH_DEPTH` segments.
    TooDeep,
    /// The index is more than `MAX_PATH_GAP` past the array's end.
    Gap,
    /// The slots the index opens do not fit in the budget.
    Budget,
    /// The sink's budget is spent: the sink has failed itself, with its own error.
    Spent,
    /// Memory ran out.
    OutOfMemory,
}

impl Refused {
    pub(crate) fn message(self) -> String {
        match self {
            Refused::TooDeep => format!("a function call argument path deeper than {MAX_PATH_DEPTH} segments"),
            Refused::Gap => format!("a function call argument index more than {MAX_PATH_GAP} past the end of its array"),
            Refused::Budget => "a function call argument index past what maxBufferBytes has room for".to_string(),
            Refused::Spent => "maxBufferBytes is spent".to_string(),
            Refused::OutOfMemory => "out of memory assembling function call arguments".to_string(),
        }
    }
}

enum Seg<'p> {
    Key(&'p str),
    Index(usize),
}

impl PathArgs {
    /// Empty arguments (`{}`), charged to `sink`; `None` when the budget has no room.
    pub(crate) fn new(sink: &mut dyn DeltaSink) -> Option<PathArgs> {
        sink.retain(VALUE_BYTES, "streamed function call arguments")
            .then(|| PathArgs { root: Node::Object(Vec::new(), Map::default()), kept: VALUE_BYTES })
    }

    /// Replaces everything with `value` (the call's `args`, sent whole).
    pub(crate) fn replace(&mut self, value: JsonValue, sink: &mut dyn DeltaSink) -> Result<(), Refused> {
        let cost = value_cost(&value);
        if !sink.retain(cost, "streamed function call arguments") {
            return Err(Refused::Spent);
        }
        sink.release(self.kept);
        self.kept = cost;
        self.root = Node::Leaf(value);
        Ok(())
    }

    /// Sets `value` at `path`, or (`append`, both strings) appends it to the string there.
    pub(crate) fn set(&mut self, path: &str, value: JsonValue, append: bool, sink: &mut dyn DeltaSink) -> Result<(), Refused> {
        let mut segs: Vec<Seg<'_>> = Vec::new();
        if !parse_path(path, &mut segs)? {
            return Ok(());
        }
        let mut at = &mut self.root;
        for seg in &segs {
            open(at, seg);
            at = match (at, seg) {
                (Node::Object(members, index), Seg::Key(k)) => match index.get(*k) {
                    Some(&p) => &mut members[p].1,
                    None => {
                        let cost = VALUE_BYTES + MEMBER_BYTES + 2 * k.len();
                        let key = try_to_string(k).map_err(|_| Refused::OutOfMemory)?;
                        if !sink.retain(cost, "streamed function call arguments") {
                            return Err(Refused::Spent);
                        }
                        self.kept += cost;
                        index.insert(key.as_str().into(), members.len());
                        members.push((key, Node::Leaf(JsonValue::Null)));
                        let last = members.len() - 1;
                        &mut members[last].1
                    }
                },
                (Node::Array(items), Seg::Index(n)) => {
                    if *n >= items.len() {
                        let gap = *n - items.len();
                        if gap > MAX_PATH_GAP {
                            return Err(Refused::Gap);
                        }
                        let cost = (gap + 1) * VALUE_BYTES;
                        if cost > sink.room() {
                            return Err(Refused::Budget);
                        }
                        if !sink.retain(cost, "streamed function call arguments") {
                            return Err(Refused::Spent);
                        }
                        self.kept += cost;
                        items.resize_with(*n + 1, || Node::Leaf(JsonValue::Null));
                    }
                    &mut items[*n]
                }
                _ => return Ok(()), // through a value of another kind: ignored
            };
        }
        match (at, value) {
            (Node::Leaf(JsonValue::String(old)), JsonValue::String(more)) if append => {
                if !sink.retain(more.len(), "streamed function call arguments") {
                    return Err(Refused::Spent);
                }
                self.kept += more.len();
                try_push_str(old, &more).map_err(|_| Refused::OutOfMemory)
            }
            (slot, value) => {
                let cost = value_cost(&value);
                if !sink.retain(cost, "streamed function call arguments") {
                    return Err(Refused::Spent);
                }
                let old = node_cost(slot);
                sink.release(old);
                self.kept = self.kept + cost - old.min(self.kept);
                *slot = Node::Leaf(value);
                Ok(())
            }
        }
    }

    /// The arguments as JSON text; what they were charged is given back.
    pub(crate) fn finish(self, sink: &mut dyn DeltaSink) -> String {
        sink.release(self.kept);
        let mut out = String::new();
        write(&self.root, &mut out);
        out
    }
}

/// Reads `$.a.b[0]['c d']` into `segs`; `Ok(false)` when it cannot be read.
fn parse_path<'p>(path: &'p str, segs: &mut Vec<Seg<'p>>) -> Result<bool, Refused> {
    let b = path.as_bytes();
    if b.first() != Some(&b'$') {
        return Ok(false);
    }
    let find = |from: usize, pred: &dyn Fn(u8) -> bool| b[from..].iter().position(|&c| pred(c)).map(|p| from + p);
    let mut i = 1;
    while i < b.len() {
        if segs.len() == MAX_PATH_DEPTH {
            return Err(Refused::TooDeep);
        }
        match b[i] {
            b'.' => {
                let end = find(i + 1, &|c| c == b'.' || c == b'[').unwrap_or(b.len());
                segs.push(Seg::Key(crate::text::sub(path, i + 1..end)));
                i = end;
            }
            b'[' if matches!(b.get(i + 1), Some(b'\'' | b'"')) => {
                let q = b[i + 1];
                let Some(close) = find(i + 2, &|c| c == q) else { return Ok(false) };
                if b.get(close + 1) != Some(&b']') {
                    return Ok(false);
                }
                segs.push(Seg::Key(crate::text::sub(path, i + 2..close)));
                i = close + 2;
            }
            b'[' => {
                let Some(close) = find(i + 1, &|c| c == b']') else { return Ok(false) };
                let Ok(n) = crate::text::sub(path, i + 1..close).parse::<usize>() else { return Ok(false) };
                segs.push(Seg::Index(n));
                i = close + 1;
            }
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// Opens a leaf that `seg` goes into: `null` becomes an empty container of the kind `seg`
/// needs, an object or array leaf its `Node` (a leaf of another kind stays as it is).
fn open(at: &mut Node, seg: &Seg<'_>) {
    if !matches!(at, Node::Leaf(JsonValue::Null | JsonValue::Object(_) | JsonValue::Array(_))) {
        return;
    }
    *at = match std::mem::replace(at, Node::Leaf(JsonValue::Null)) {
        Node::Leaf(JsonValue::Null) => match seg {
            Seg::Key(_) => Node::Object(Vec::new(), Map::default()),
            Seg::Index(_) => Node::Array(Vec::new()),
        },
        Node::Leaf(JsonValue::Object(members)) => {
            let mut index = crate::hash::map_with_capacity(members.len());
            let mut kept = Vec::with_capacity(members.len());
            for (k, v) in members {
                // A repeated key counts once, its first occurrence (`json::keys`).
                if !index.contains_key(k.as_str()) {
                    index.insert(k.as_str().into(), kept.len());
                    kept.push((k, Node::Leaf(v)));
                }
            }
            Node::Object(kept, index)
        }
        Node::Leaf(JsonValue::Array(items)) => Node::Array(items.into_iter().map(Node::Leaf).collect()),
        other => other,
    };
}

/// What a value is charged (the same before and after it is opened).
fn value_cost(v: &JsonValue) -> usize {
    let mut cost = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        cost += VALUE_BYTES;
        match v {
            JsonValue::Null | JsonValue::Bool(_) => {}
            JsonValue::Number(t) | JsonValue::String(t) => cost += t.len(),
            JsonValue::Array(items) => stack.extend(items),
            JsonValue::Object(members) => {
                for (k, v) in members {
                    cost += MEMBER_BYTES + 2 * k.len();
                    stack.push(v);
                }
            }
        }
    }
    cost
}

fn node_cost(n: &Node) -> usize {
    let mut cost = 0;
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        match n {
            Node::Leaf(v) => cost += value_cost(v),
            Node::Array(items) => {
                cost += VALUE_BYTES;
                stack.extend(items);
            }
            Node::Object(members, _) => {
                cost += VALUE_BYTES;
                for (k, v) in members {
                    cost += MEMBER_BYTES + 2 * k.len();
                    stack.push(v);
                }
            }
        }
    }
    cost
}

/// Writes the tree as JSON text (its containers are at most `MAX_PATH_DEPTH` deep).
fn write(n: &Node, out: &mut String) {
    match n {
        Node::Leaf(v) => v.write_json(out),
        Node::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(v, out);
            }
            out.push(']');
        }
        Node::Object(members, _) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::json::write_json_string(k, out);
                out.push(':');
                write(v, out);
            }
            out.push('}');
        }
    }
}
