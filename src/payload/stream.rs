//! `ArtifactStream`: `artifact_chunk` events with per-stream sequence numbers.
//!
//! Invariants: each `stream_id` counts its chunks from 0 without gaps; a stream that sent
//! `done: true` is closed (more chunks are `invalid_state`); at most `MAX_STREAMS` distinct
//! ids are tracked (`buffer_limit_exceeded` beyond; `reset` forgets them). Chunks are JSON
//! values; `artifact_type` is the caller's, else the value's type name (`dict`, `list`, ...).

use super::types::{number, type_name, FinalPayload};
use crate::budget::{out_of_memory, try_boxed_str, try_to_string};
use crate::hash::Map;
use crate::json::JsonValue;
use crate::json::Quoted;
use crate::{Error, ErrorKind, Result};

/// Most distinct stream ids one `ArtifactStream` tracks.
pub const MAX_STREAMS: usize = 4096;

/// One `artifact_chunk` event.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    serde(tag = "type", rename = "artifact_chunk"),
    tsify(rename = "ArtifactChunkEvent")
)]
pub struct ArtifactChunk {
    /// The stream it belongs to.
    pub stream_id: String,
    /// Its position in the stream, from 0.
    pub seq: u64,
    /// The chunk of artifact data.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
    pub chunk: JsonValue,
    /// Whether this is the stream's last chunk.
    pub done: bool,
    /// What the artifact is (given, or the chunk's type name).
    pub artifact_type: String,
}

impl ArtifactChunk {
    /// `{type: "artifact_chunk", stream_id, seq, chunk, done, artifact_type}`.
    pub fn to_value(&self) -> JsonValue {
        JsonValue::Object(vec![
            ("type".into(), JsonValue::String("artifact_chunk".into())),
            ("stream_id".into(), JsonValue::String(self.stream_id.clone())),
            ("seq".into(), number(self.seq as f64)),
            ("chunk".into(), self.chunk.clone()),
            ("done".into(), JsonValue::Bool(self.done)),
            ("artifact_type".into(), JsonValue::String(self.artifact_type.clone())),
        ])
    }

    /// The JSON text of [`to_value`](Self::to_value), written without copying the chunk.
    ///
    /// # Errors
    /// `memory_limit_exceeded` when there is no room for it (reserved first: no trap).
    pub fn to_json_text(&self) -> Result<String> {
        use crate::json::{json_string_len, write_json_string};
        let n = 96 + json_string_len(&self.stream_id) + json_string_len(&self.artifact_type) + self.chunk.json_len();
        let mut out = String::new();
        out.try_reserve(n).map_err(|_| out_of_memory(n))?;
        out.push_str(r#"{"type":"artifact_chunk","stream_id":"#);
        write_json_string(&self.stream_id, &mut out);
        // `seq` counts calls: far below 2^53, so its digits are those of the JS number.
        let _ = std::fmt::Write::write_fmt(&mut out, format_args!(r#","seq":{},"chunk":"#, self.seq));
        self.chunk.write_json(&mut out);
        out.push_str(if self.done { r#","done":true,"artifact_type":"# } else { r#","done":false,"artifact_type":"# });
        write_json_string(&self.artifact_type, &mut out);
        out.push('}');
        Ok(out)
    }
}

#[derive(Debug, Clone)]
struct Stream {
    id: String,
    next_seq: u64,
    done: bool,
}

/// Numbers artifact chunks per stream and turns them into events.
#[derive(Debug, Clone, Default)]
pub struct ArtifactStream {
    streams: Vec<Stream>,
    /// Where each stream is in `streams` (a chunk must not scan up to `MAX_STREAMS` ids).
    at: Map<Box<str>, usize>,
}

impl ArtifactStream {
    /// A stream set with no streams yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next chunk of `stream_id`.
    ///
    /// # Errors
    /// `invalid_input` for an empty `stream_id` or `artifact_type`; `invalid_state` after the
    /// stream's `done` chunk; `buffer_limit_exceeded` past `MAX_STREAMS` streams;
    /// `memory_limit_exceeded` when there is no memory to keep a new stream or make the event
    /// (nothing is counted then: the same chunk may be sent again).
    pub fn emit(&mut self, stream_id: &str, chunk: JsonValue, done: bool, artifact_type: Option<&str>) -> Result<ArtifactChunk> {
        if stream_id.is_empty() {
            return Err(Error::new(ErrorKind::InvalidInput, "stream_id must be a non-empty string"));
        }
        if artifact_type == Some("") {
            return Err(Error::new(ErrorKind::InvalidInput, "artifact_type must be a non-empty string"));
        }
        let i = match self.at.get(stream_id).copied() {
            Some(i) => i,
            None if self.streams.len() >= MAX_STREAMS => {
                return Err(Error::new(
                    ErrorKind::BufferLimitExceeded,
                    format!("more than {MAX_STREAMS} artifact streams; call reset()"),
                ))
            }
            None => self.streams.len(),
        };
        if self.streams.get(i).is_some_and(|s| s.done) {
            return Err(Error::new(
                ErrorKind::InvalidState,
                format!("artifact stream {} already sent its done chunk", Quoted(stream_id)),
            ));
        }
        // Everything that can run out of memory first, so a failure changes nothing.
        let event_id = try_to_string(stream_id)?;
        let artifact_type = try_to_string(artifact_type.unwrap_or_else(|| type_name(&chunk)))?;
        if i == self.streams.len() {
            let (key, id) = (try_boxed_str(stream_id)?, try_to_string(stream_id)?);
            self.at.try_reserve(1).map_err(|_| out_of_memory(stream_id.len()))?;
            self.streams.try_reserve(1).map_err(|_| out_of_memory(std::mem::size_of::<Stream>()))?;
            self.at.insert(key, i);
            self.streams.push(Stream { id, next_seq: 0, done: false });
        }
        let s = &mut self.streams[i];
        let seq = s.next_seq;
        s.next_seq += 1;
        s.done = done;
        Ok(ArtifactChunk { stream_id: event_id, seq, chunk, done, artifact_type })
    }

    /// The ids of streams that have not sent their `done` chunk, in order of first chunk.
    pub fn open_streams(&self) -> Vec<&str> {
        self.streams.iter().filter(|s| !s.done).map(|s| s.id.as_str()).collect()
    }

    /// Forgets every stream (sequence numbers start again at 0).
    pub fn reset(&mut self) {
        self.streams.clear();
        self.at.clear();
    }
}

/// The `done` event that ends a run: `{type: "done", payload}`.
pub fn done_event(payload: &FinalPayload) -> JsonValue {
    JsonValue::Object(vec![("type".into(), JsonValue::String("done".into())), ("payload".into(), payload.to_value())])
}
