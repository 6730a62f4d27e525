//! The packers against the machines' own outputs: every packed form read back as a host reads
//! it (pkg/entry/classes) gives what the machine gives its Rust callers.

use super::*;
use crate::JsonValue;

/// The UTF-16 units of packed UTF-8 text.
fn units(bytes: &[u8]) -> Vec<u16> {
    String::from_utf8_lossy(bytes).encode_utf16().collect()
}

/// Reads strings of UTF-16 lengths off the front of a text.
struct Cursor<'a>(&'a [u16]);

impl Cursor<'_> {
    fn take(&mut self, n: u32) -> String {
        let (head, rest) = self.0.split_at(n as usize);
        self.0 = rest;
        String::from_utf16(head).unwrap()
    }
}

#[cfg(feature = "decoder")]
#[test]
fn sse_pack_reads_back_as_the_decoders_events() {
    use crate::sse::Bytes;
    use crate::{SseDecoder, SseDecoderOptions, SseEvent};
    let streams: [&[u8]; 4] = [
        b"event: a\ndata: x\nid: 1\n\nevent: a\ndata: y\n\ndata: z\nid: 1\n\n",
        "data: h\u{e9}llo\r\n\r\nevent: \u{2603}\ndata: \u{1f600}\ndata: 2\n\n".as_bytes(),
        b"data: \xff\xfe\n\n: comment\ndata\n\n",
        b"retry: 10\nid: 7\ndata: a\n\nid\ndata: b\n\n",
    ];
    for stream in streams {
        for split in 0..=stream.len() {
            let mut want: Vec<SseEvent> = Vec::new();
            let mut d = SseDecoder::new(SseDecoderOptions::default());
            d.feed(stream, &mut want).unwrap();
            let mut got = Vec::new();
            let mut d = SseDecoder::new(SseDecoderOptions::default());
            for part in [&stream[..split], &stream[split..]] {
                let mut p = SsePack::default();
                d.feed_with(Bytes::new(part), &mut p).unwrap();
                let text = if p.wide.is_empty() { units(&p.bytes) } else { p.wide.clone() };
                let mut at = Cursor(&text);
                let (mut event, mut id) = (String::new(), String::new());
                for word in p.lens.chunks_exact(3).take(p.count as usize) {
                    let mut field = |n: u32, last: &mut String| {
                        if n != SSE_SAME {
                            *last = at.take(n);
                            at.take(1);
                        }
                        last.clone()
                    };
                    let event = field(word[0], &mut event);
                    let data = field(word[1], &mut String::new());
                    let id = field(word[2], &mut id);
                    got.push(SseEvent { event, data, id });
                }
                assert!(at.0.is_empty());
            }
            assert_eq!(got, want, "split at {split}");
        }
    }
}

#[cfg(feature = "partial")]
#[test]
fn json_pack_reads_back_as_the_parsers_events() {
    use crate::json::partial::PathSegment;
    use crate::{JsonEvent, PartialJson, PartialJsonOptions};
    let doc = r#"{"a":[1,"x\u00e9",{"b":true}],"c":{"d":null,"e":"\ud83d\ude00 tail"},"f":false}"#.as_bytes();
    for split in 0..=doc.len() {
        let mut want = Vec::new();
        let mut whole = PartialJson::new(PartialJsonOptions::default());
        whole.feed(&doc[..split], &mut want).unwrap();
        whole.feed(&doc[split..], &mut want).unwrap();
        let mut p = PartialJson::new(PartialJsonOptions::default());
        let mut pack = JsonPack::default();
        let mut got = Vec::new();
        let mut path: Vec<PathSegment> = Vec::new();
        for part in [&doc[..split], &doc[split..]] {
            pack.clear();
            p.step_with(part, false, &mut pack).unwrap();
            let text = units(pack.text.as_bytes());
            let mut at = Cursor(&text);
            let mut ops = pack.ops.iter().copied();
            while let Some(op) = ops.next() {
                let path = path.clone();
                let ev = match op {
                    JSON_TRUNCATE => {
                        let keep = ops.next().unwrap() as usize;
                        path_truncate(&mut got, keep);
                        continue;
                    }
                    JSON_KEY | JSON_INDEX => {
                        let w = ops.next().unwrap();
                        got.push(Err(if op == JSON_KEY { PathSegment::Key(at.take(w)) } else { PathSegment::Index(w as usize) }));
                        continue;
                    }
                    JSON_APPEND => JsonEvent::Append { path, text: at.take(ops.next().unwrap()) },
                    JSON_SET_STRING => JsonEvent::Set { path, value: JsonValue::String(at.take(ops.next().unwrap())) },
                    JSON_SET_NUMBER => JsonEvent::Set { path, value: JsonValue::Number(at.take(ops.next().unwrap())) },
                    JSON_SET_TRUE | JSON_SET_FALSE => JsonEvent::Set { path, value: JsonValue::Bool(op == JSON_SET_TRUE) },
                    JSON_SET_NULL => JsonEvent::Set { path, value: JsonValue::Null },
                    JSON_END => JsonEvent::End { path },
                    kind => JsonEvent::Begin {
                        path,
                        kind: match kind {
                            JSON_BEGIN_OBJECT => crate::ValueKind::Object,
                            JSON_BEGIN_ARRAY => crate::ValueKind::Array,
                            _ => crate::ValueKind::String,
                        },
                    },
                };
                got.push(Ok(ev));
            }
            assert!(at.0.is_empty());
            // The path ops apply to the events after them.
            fn path_truncate(got: &mut Vec<Result<JsonEvent, PathSegment>>, keep: usize) {
                got.push(Err(PathSegment::Index(usize::MAX - keep)));
            }
            path = replay(&got);
        }
        assert_eq!(events(&got), want, "split at {split}");
    }

    /// The path in force after the ops so far (a truncation is marked `Index(MAX - keep)`).
    fn replay(ops: &[Result<JsonEvent, PathSegment>]) -> Vec<PathSegment> {
        let mut path = Vec::new();
        for op in ops {
            match op {
                Err(PathSegment::Index(i)) if *i > usize::MAX / 2 => path.truncate(usize::MAX - i),
                Err(seg) => path.push(seg.clone()),
                Ok(_) => {}
            }
        }
        path
    }

    /// The events with the paths in force when each came.
    fn events(ops: &[Result<JsonEvent, PathSegment>]) -> Vec<JsonEvent> {
        let mut out = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            if let Ok(ev) = op {
                let path = replay(&ops[..i]);
                out.push(match ev.clone() {
                    JsonEvent::Begin { kind, .. } => JsonEvent::Begin { path, kind },
                    JsonEvent::Append { text, .. } => JsonEvent::Append { path, text },
                    JsonEvent::Set { value, .. } => JsonEvent::Set { path, value },
                    JsonEvent::End { .. } => JsonEvent::End { path },
                });
            }
        }
        out
    }
}

#[cfg(feature = "tags")]
#[test]
fn tag_pieces_read_back_as_the_filters_deltas() {
    use crate::{TagFilter, TagFilterOptions};
    let nonce = "n0nce";
    let text = "[ARTIFACT:n0nce]{\"x\":\"\u{e9}\u{1f600}\"}[/ARTIFACT:n0nce]\n[USER:n0nce]h\u{e9}llo [b] world[/USER:n0nce]";
    let bytes = text.as_bytes();
    for split in 0..=bytes.len() {
        let mut want = vec![String::new(); 2];
        let mut f = TagFilter::new(nonce, TagFilterOptions::default()).unwrap();
        let mut deltas = Vec::new();
        f.feed(bytes, &mut deltas).unwrap();
        for d in deltas {
            want[d.block].push_str(&d.text);
        }
        let mut got = vec![String::new(); 2];
        let mut f = TagFilter::new(nonce, TagFilterOptions::default()).unwrap();
        for part in [&bytes[..split], &bytes[split..]] {
            let mut pieces = TagPieces::default();
            f.feed_with(part, &mut RangeSink::new(part, -1, None, &mut pieces)).unwrap();
            let (packed, wide) = (pieces.packed.as_ptr() as usize, pieces.wide.as_ptr() as usize);
            pieces.describe();
            for p in pieces.meta.chunks_exact(4) {
                // Addresses are wasm's 32-bit ones: natively, compare their low 32 bits.
                let at = |base: usize, a: u32| (a as usize).wrapping_sub(base as u32 as usize);
                let s = match p[1] {
                    TAG_BYTES => {
                        let (input, base) = if (at(part.as_ptr() as usize, p[2])) <= part.len() {
                            (part, part.as_ptr() as usize)
                        } else {
                            (&pieces.packed[..], packed)
                        };
                        String::from_utf8_lossy(&input[at(base, p[2])..at(base, p[3])]).into_owned()
                    }
                    TAG_UNITS => String::from_utf16(&pieces.wide[at(wide, p[2]) / 2..at(wide, p[3]) / 2]).unwrap(),
                    kind => panic!("kind {kind} of a byte chunk"),
                };
                got[p[0] as usize].push_str(&s);
            }
        }
        assert_eq!(got, want, "split at {split}");
    }
}

#[cfg(feature = "router")]
#[test]
fn router_pack_reads_back_as_the_routers_events() {
    use crate::{RoutedEvent, StreamRouter, StreamRouterOptions};
    // The words of each op, and which of them are lengths of text (the rest are flags, indices).
    fn layout(op: u32) -> &'static [bool] {
        match op {
            ROUTE_ANSWER | ROUTE_REASONING | ROUTE_THOUGHT | ROUTE_ARTIFACT | ROUTE_USER | ROUTE_REFUSAL => &[true],
            ROUTE_ACTION | ROUTE_USAGE | ROUTE_SOURCE | ROUTE_OBJECT => &[true],
            ROUTE_ANSWER_PHASE => &[true, true],
            ROUTE_TOOL_START => &[false, true, true, false, true],
            ROUTE_TOOL_DELTA => &[false, true],
            ROUTE_TOOL_CALL => &[false, true, true, true, false, false, true],
            ROUTE_TOOL_RESULT => &[false, true, true, true],
            ROUTE_DONE => &[false, false, false, true, true, true],
            ROUTE_ERROR => &[true, true, false, true],
            op => panic!("unknown op {op}"),
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/streams");
    let manifest = crate::parse_strict(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let nonce = manifest.get("nonce").and_then(JsonValue::as_str).map(str::to_string);
    let Some(JsonValue::Array(streams)) = manifest.get("streams") else { panic!("no streams") };
    for s in streams {
        let file = s.get("file").and_then(JsonValue::as_str).unwrap();
        let content = crate::ContentMode::parse(s.get("content").and_then(JsonValue::as_str).unwrap()).unwrap();
        let o = StreamRouterOptions { content, nonce: nonce.clone(), ..StreamRouterOptions::default() };
        let mut r = StreamRouter::new(o).unwrap();
        let mut events = Vec::new();
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let _ = r.feed(&bytes, &mut events).and_then(|()| r.finish(&mut events));
        let mut pack = RouterPack::default();
        pack.pack(&events).unwrap();
        let text = units(pack.text.as_bytes());
        let mut at = Cursor(&text);
        let mut ops = pack.ops.iter().copied();
        for e in &events {
            let op = ops.next().unwrap();
            let words: Vec<u32> = layout(op).iter().map(|_| ops.next().unwrap()).collect();
            let texts: Vec<String> = layout(op).iter().zip(&words).filter(|(len, _)| **len).map(|(_, &n)| at.take(n)).collect();
            let want = match e {
                RoutedEvent::AnswerDelta { phase: None, .. } => ROUTE_ANSWER,
                RoutedEvent::AnswerDelta { .. } => ROUTE_ANSWER_PHASE,
                RoutedEvent::ThinkingDelta { source: crate::ThinkingSource::Reasoning, .. } => ROUTE_REASONING,
                RoutedEvent::ThinkingDelta { .. } => ROUTE_THOUGHT,
                RoutedEvent::ArtifactDelta { .. } => ROUTE_ARTIFACT,
                RoutedEvent::UserDelta { .. } => ROUTE_USER,
                RoutedEvent::RefusalDelta { .. } => ROUTE_REFUSAL,
                RoutedEvent::ToolCallStart { .. } => ROUTE_TOOL_START,
                RoutedEvent::ToolCallDelta { .. } => ROUTE_TOOL_DELTA,
                RoutedEvent::ToolCall { .. } => ROUTE_TOOL_CALL,
                RoutedEvent::ToolResult { .. } => ROUTE_TOOL_RESULT,
                RoutedEvent::Source(_) => ROUTE_SOURCE,
                RoutedEvent::Action { .. } => ROUTE_ACTION,
                RoutedEvent::Usage(_) => ROUTE_USAGE,
                RoutedEvent::Done { .. } => ROUTE_DONE,
                RoutedEvent::Error { .. } => ROUTE_ERROR,
                _ => ROUTE_OBJECT,
            };
            assert_eq!(op, want, "{file}: {e:?}");
            match e {
                RoutedEvent::AnswerDelta { text, phase: None }
                | RoutedEvent::ArtifactDelta { text }
                | RoutedEvent::UserDelta { text }
                | RoutedEvent::RefusalDelta { text }
                | RoutedEvent::ThinkingDelta { text, .. } => assert_eq!(&texts[0], text),
                RoutedEvent::AnswerDelta { text, phase: Some(phase) } => assert_eq!([&texts[0], &texts[1]], [phase, text]),
                RoutedEvent::ToolCallStart { index, id, name, .. } => {
                    assert_eq!((words[0], &texts[0], &texts[1]), (*index, id, name))
                }
                RoutedEvent::ToolCallDelta { index, arguments } => assert_eq!((words[0], &texts[0]), (*index, arguments)),
                RoutedEvent::ToolCall { index, id, name, arguments, .. } => {
                    assert_eq!((words[0], &texts[0], &texts[1]), (*index, id, name));
                    assert_eq!(&crate::parse_strict(texts[2].as_bytes()).unwrap(), arguments);
                }
                RoutedEvent::Error { code, message, .. } => assert_eq!([&texts[0], &texts[1]], [code, message]),
                RoutedEvent::Done { finish, .. } => assert_eq!(texts[texts.len() - 2], finish.as_str()),
                _ => {
                    // Every JSON text is one value.
                    crate::parse_strict(texts[texts.len() - 1].as_bytes()).unwrap();
                }
            }
        }
        assert!(ops.next().is_none() && at.0.is_empty(), "{file}: packed more than its events");
    }
}

#[cfg(feature = "json")]
#[test]
fn texts_chunks_and_items_read_back() {
    let mut wide = Vec::new();
    assert_eq!(wide_text(b"plain", &mut wide), None);
    assert_eq!(wide_text("h\u{e9}\u{1f600}".as_bytes(), &mut wide), Some(3));
    assert_eq!(String::from_utf16(&wide).unwrap(), "h\u{e9}\u{1f600}");
    assert_eq!(wide_text(b"a\xff", &mut wide), Some(2));
    assert_eq!(String::from_utf16(&wide).unwrap(), "a\u{fffd}");

    let mut chunks = ChunkPack::default();
    assert_eq!(chunks.pack("why \u{1f600}", "", false), 1);
    assert_eq!((chunks.text.as_str(), &chunks.ops[..]), ("why \u{1f600}", &[CHUNK_THOUGHT, 6][..]));
    assert_eq!(chunks.pack("t", "answer", true), 3);
    assert_eq!((chunks.text.as_str(), &chunks.ops[..]), ("tanswer", &[CHUNK_THOUGHT, 1, CHUNK_ANSWER, 6, CHUNK_DONE][..]));

    let mut text = String::new();
    let mut items = vec![crate::parse_strict(br#"{"a":[1,"x"]}"#).unwrap(), JsonValue::Null];
    assert_eq!(items_json(&mut items, &mut text), Ok(2));
    assert_eq!((text.as_str(), items.len()), (r#"[{"a":[1,"x"]},null]"#, 0));
    assert_eq!(items_json(&mut items, &mut text), Ok(0));
    assert_eq!(text, "");
}
