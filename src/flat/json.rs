//! `PartialJson`'s events, packed.

use super::*;
use crate::budget::out_of_memory;
use crate::json::partial::{Event, EventSink, Leaf, PathSegment, ValueKind};
use crate::text::utf16_len;

/// The events of one call, packed in the result format (`JSON_` opcodes).
#[derive(Default)]
pub struct JsonPack {
    pub text: String,
    pub ops: Vec<u32>,
    /// Events packed.
    pub count: u32,
    /// Length of the path the JS side holds.
    js_len: usize,
}

impl JsonPack {
    pub fn clear(&mut self) {
        self.text.clear();
        self.ops.clear();
        self.count = 0;
    }

    fn str(&mut self, op: u32, s: &str) {
        self.text.push_str(s);
        self.ops.extend([op, utf16_len(s)]);
    }
}

impl EventSink for JsonPack {
    fn event(&mut self, path: &[PathSegment], same: usize, ev: Event<'_>) -> crate::Result<()> {
        // Room for all of it first (amortised: the buffers double), so nothing below traps.
        let fresh = path.get(same..).unwrap_or_default();
        let keys: usize = fresh.iter().map(|seg| if let PathSegment::Key(k) = seg { k.len() } else { 0 }).sum();
        let text = match ev {
            Event::Append(t) | Event::Set(Leaf::String(t)) | Event::Set(Leaf::Number(t)) => t.len(),
            _ => 0,
        };
        self.text.try_reserve(keys + text).map_err(|_| out_of_memory(keys + text))?;
        let ops = 4 + 2 * fresh.len();
        self.ops.try_reserve(ops).map_err(|_| out_of_memory(4 * ops))?;
        self.count += 1;
        if same != path.len() || self.js_len != path.len() {
            if same < self.js_len {
                self.ops.extend([JSON_TRUNCATE, same as u32]);
            }
            for seg in &path[same..] {
                match seg {
                    PathSegment::Key(k) => self.str(JSON_KEY, k),
                    PathSegment::Index(i) => self.ops.extend([JSON_INDEX, *i as u32]),
                }
            }
            self.js_len = path.len();
        }
        match ev {
            Event::Begin(kind) => self.ops.push(match kind {
                ValueKind::Object => JSON_BEGIN_OBJECT,
                ValueKind::Array => JSON_BEGIN_ARRAY,
                ValueKind::String => JSON_BEGIN_STRING,
            }),
            Event::Append(t) => self.str(JSON_APPEND, t),
            Event::Set(Leaf::String(s)) => self.str(JSON_SET_STRING, s),
            Event::Set(Leaf::Number(n)) => self.str(JSON_SET_NUMBER, n),
            Event::Set(Leaf::Bool(true)) => self.ops.push(JSON_SET_TRUE),
            Event::Set(Leaf::Bool(false)) => self.ops.push(JSON_SET_FALSE),
            Event::Set(Leaf::Null) => self.ops.push(JSON_SET_NULL),
            Event::End => self.ops.push(JSON_END),
        }
        Ok(())
    }
}
