//! Which tool calls a decoder has started and not yet ended (shared by the decoders whose
//! format has no per-call start/end pair of its own).

use super::delta::DeltaSink;
use super::jscan::index_of;
use crate::hash::{Map, Set};

/// A provider's tool call index from its raw JSON text: a whole number from 0 to
/// 4294967295. Anything else (`-1`, `"0"`, `1.5`, `4294967296`) is no index: coercing it
/// would merge different calls into one.
pub(crate) fn call_index(raw: &str) -> Option<u32> {
    let raw = raw.trim();
    raw.bytes().next().filter(u8::is_ascii_digit)?;
    raw.parse::<u32>().ok()
}

/// Reports a tool call event whose index is not one (see [`call_index`]); the event is
/// dropped.
pub(crate) fn bad_index(raw: &str, sink: &mut dyn DeltaSink) {
    let mut shown: String = raw.trim().chars().take(40).collect();
    if shown.len() < raw.trim().len() {
        shown.push('…');
    }
    sink.error(
        "provider_error",
        &format!("a tool call event with index {shown}, not a whole number from 0 to 4294967295, was dropped"),
    );
}

/// The index of a provider event from its raw member: for an event about a tool call
/// (`call_event`) it must be one (see [`call_index`]), else the event is reported and `None`
/// says to drop it; other events read it leniently (missing or odd is 0).
pub(crate) fn event_index(raw: Option<&str>, call_event: bool, sink: &mut dyn DeltaSink) -> Option<u32> {
    match raw {
        Some(raw) if call_event => {
            let index = call_index(raw);
            if index.is_none() {
                bad_index(raw, sink);
            }
            index
        }
        _ => Some(index_of(raw)),
    }
}

/// The open calls, in start order.
#[derive(Debug, Default)]
pub(crate) struct OpenCalls {
    open: ByIndex<()>,
    /// Every index ever started (to start each only once). There is no count cap here: the
    /// router charges every call started, and every open one, to its budget.
    seen: Set<u32>,
}

impl OpenCalls {
    /// Starts call `index` unless it was started before. An empty id becomes `call_<index>`.
    pub(crate) fn start_if_new(&mut self, index: u32, id: &str, name: &str, sink: &mut dyn DeltaSink) -> bool {
        self.start(index, id, name, false, sink)
    }

    /// Starts call `index` (as [`start_if_new`](Self::start_if_new)); `provider_executed`: the
    /// provider runs the tool itself.
    pub(crate) fn start(&mut self, index: u32, id: &str, name: &str, provider_executed: bool, sink: &mut dyn DeltaSink) -> bool {
        self.start_by(index, id, name, provider_executed, None, sink)
    }

    /// Starts call `index` (as [`start`](Self::start)) with the provider's `caller` (JSON
    /// text of its object) where it names one.
    pub(crate) fn start_by(
        &mut self,
        index: u32,
        id: &str,
        name: &str,
        provider_executed: bool,
        caller: Option<&str>,
        sink: &mut dyn DeltaSink,
    ) -> bool {
        if !self.seen.insert(index) {
            return false;
        }
        let synthetic;
        let id = if id.is_empty() {
            synthetic = format!("call_{index}");
            synthetic.as_str()
        } else {
            id
        };
        sink.tool_call_start_by(index, id, name, provider_executed, caller);
        self.open.push(index, ());
        true
    }

    /// Was call `index` ever started?
    pub(crate) fn was_started(&self, index: u32) -> bool {
        self.seen.contains(&index)
    }

    /// Is call `index` started and not ended?
    pub(crate) fn is_open(&self, index: u32) -> bool {
        self.open.contains(index)
    }

    /// Ends call `index` if it is open.
    pub(crate) fn end(&mut self, index: u32, sink: &mut dyn DeltaSink) {
        if self.open.remove(index).is_some() {
            sink.tool_call_end(index);
        }
    }

    /// Gives up call `index` (see [`DeltaSink::tool_call_abandon`]) if it is open.
    pub(crate) fn abandon(&mut self, index: u32, sink: &mut dyn DeltaSink) {
        if self.open.remove(index).is_some() {
            sink.tool_call_abandon(index);
        }
    }

    /// The model finished (when `reason` is known): every open call ends, then the reason
    /// goes on. Returns whether it did.
    pub(crate) fn finish(&mut self, reason: Option<String>, sink: &mut dyn DeltaSink) -> bool {
        let Some(reason) = reason else { return false };
        self.end_all(sink);
        sink.finish(&reason);
        true
    }

    /// Gives up every open call (see [`DeltaSink::tool_call_abandon`]), in start order.
    pub(crate) fn abandon_all(&mut self, sink: &mut dyn DeltaSink) {
        while let Some((index, ())) = self.open.pop_first() {
            sink.tool_call_abandon(index);
        }
    }

    /// Ends every open call, in start order.
    pub(crate) fn end_all(&mut self, sink: &mut dyn DeltaSink) {
        while let Some((index, ())) = self.open.pop_first() {
            sink.tool_call_end(index);
        }
    }
}

/// Values keyed by call index, in insertion order, each found and removed in constant time
/// (a stream of many calls must not scan the calls per delta). Removal leaves a hole that is
/// swept out once holes are the majority.
#[derive(Debug)]
pub(crate) struct ByIndex<T> {
    slots: Vec<Option<(u32, T)>>,
    /// Where each present index is in `slots`.
    at: Map<u32, usize>,
    /// Slots before this one are all holes.
    head: usize,
}

impl<T> Default for ByIndex<T> {
    fn default() -> Self {
        ByIndex { slots: Vec::new(), at: Map::default(), head: 0 }
    }
}

impl<T> ByIndex<T> {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.at.len()
    }

    pub(crate) fn contains(&self, index: u32) -> bool {
        self.at.contains_key(&index)
    }

    /// Appends `value` under `index` (the caller removes an earlier one first).
    pub(crate) fn push(&mut self, index: u32, value: T) {
        self.at.insert(index, self.slots.len());
        self.slots.push(Some((index, value)));
    }

    pub(crate) fn get_mut(&mut self, index: u32) -> Option<&mut T> {
        let &i = self.at.get(&index)?;
        self.slots[i].as_mut().map(|(_, v)| v)
    }

    pub(crate) fn remove(&mut self, index: u32) -> Option<T> {
        let i = self.at.remove(&index)?;
        let value = self.slots[i].take().map(|(_, v)| v);
        if self.slots.len() > 32 && self.slots.len() > 2 * self.at.len() {
            self.sweep();
        }
        value
    }

    /// Removes and returns the earliest value.
    pub(crate) fn pop_first(&mut self) -> Option<(u32, T)> {
        while self.head < self.slots.len() {
            let slot = self.slots[self.head].take();
            self.head += 1;
            if let Some((index, value)) = slot {
                self.at.remove(&index);
                if self.at.is_empty() {
                    self.slots.clear();
                    self.head = 0;
                }
                return Some((index, value));
            }
        }
        None
    }

    fn sweep(&mut self) {
        self.slots.retain(Option::is_some);
        self.head = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            if let Some((index, _)) = slot {
                self.at.insert(*index, i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ByIndex;

    #[test]
    fn by_index_keeps_order_through_removals_and_sweeps() {
        let mut b = ByIndex::default();
        for i in 0..100u32 {
            b.push(i, i * 10);
        }
        for i in (0..100u32).filter(|i| i % 3 != 0) {
            assert_eq!(b.remove(i), Some(i * 10));
        }
        assert_eq!(b.remove(1), None);
        assert_eq!(b.len(), 34);
        *b.get_mut(99).unwrap() += 1;
        let mut order = Vec::new();
        while let Some((i, v)) = b.pop_first() {
            order.push((i, v));
        }
        let want: Vec<(u32, u32)> = (0..100u32).filter(|i| i % 3 == 0).map(|i| (i, i * 10 + u32::from(i == 99))).collect();
        assert_eq!(order, want);
        assert_eq!(b.len(), 0);
    }
}
