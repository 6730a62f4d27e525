//! Which tool calls a decoder has started and not yet ended (shared by the decoders whose
//! format has no per-call start/end pair of its own).

use super::delta::DeltaSink;
use super::jscan::index_of;

/// Most tool calls tracked at once; more are still routed, but calls past the cap are ended
/// as soon as they start (their arguments then arrive as deltas of an ended call, which the
/// router ignores). Models issue a handful of parallel calls.
pub(crate) const MAX_OPEN_CALLS: usize = 256;

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
    open: Vec<u32>,
    /// Every index ever started (to start each only once).
    seen: Vec<u32>,
}

impl OpenCalls {
    /// Starts call `index` unless it was started before. An empty id becomes `call_<index>`.
    pub(crate) fn start_if_new(&mut self, index: u32, id: &str, name: &str, sink: &mut dyn DeltaSink) -> bool {
        self.start(index, id, name, false, sink)
    }

    /// Starts call `index` (as [`start_if_new`](Self::start_if_new)); `provider_executed`: the
    /// provider runs the tool itself.
    pub(crate) fn start(
        &mut self,
        index: u32,
        id: &str,
        name: &str,
        provider_executed: bool,
        sink: &mut dyn DeltaSink,
    ) -> bool {
        if self.seen.contains(&index) {
            return false;
        }
        if self.seen.len() < MAX_OPEN_CALLS * 4 {
            self.seen.push(index);
        }
        let synthetic;
        let id = if id.is_empty() {
            synthetic = format!("call_{index}");
            synthetic.as_str()
        } else {
            id
        };
        sink.tool_call_start(index, id, name, provider_executed);
        if self.open.len() < MAX_OPEN_CALLS {
            self.open.push(index);
        } else {
            sink.tool_call_end(index);
        }
        true
    }

    /// Was call `index` ever started?
    pub(crate) fn was_started(&self, index: u32) -> bool {
        self.seen.contains(&index)
    }

    /// Is call `index` started and not ended?
    pub(crate) fn is_open(&self, index: u32) -> bool {
        self.open.contains(&index)
    }

    /// Ends call `index` if it is open.
    pub(crate) fn end(&mut self, index: u32, sink: &mut dyn DeltaSink) {
        if let Some(p) = self.open.iter().position(|&i| i == index) {
            self.open.remove(p);
            sink.tool_call_end(index);
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

    /// Ends every open call, in start order.
    pub(crate) fn end_all(&mut self, sink: &mut dyn DeltaSink) {
        for index in self.open.drain(..) {
            sink.tool_call_end(index);
        }
    }
}
