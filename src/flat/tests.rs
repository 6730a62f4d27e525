//! The packers against the machines' own outputs: every packed form read back as a host reads
//! it (pkg/entry/classes) gives what the machine gives its Rust callers.

use super::*;
use crate::test_common as common;
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
    for (k, stream) in streams.into_iter().enumerate() {
        let mut want: Vec<SseEvent> = Vec::new();
        SseDecoder::new(SseDecoderOptions::default()).feed(stream, &mut want).unwrap();
        // An all-ASCII chunk may also go in as text, whose one-line data comes back as a range.
        for ascii in [false, stream.is_ascii()] {
            let got = common::assert_chunk_invariant(&format!("sse #{k} ascii {ascii}"), stream, |chunks| {
                let mut d = SseDecoder::new(SseDecoderOptions::default());
                let (mut got, mut p) = (Vec::new(), SsePack::default());
                for part in chunks {
                    p.clear();
                    let input = if ascii { Bytes::ascii(part) } else { Bytes::new(part) };
                    d.feed_with(input, &mut p).unwrap();
                    p.take_oom().unwrap();
                    let text = if p.wide.is_empty() { units(&p.bytes) } else { p.wide.clone() };
                    let mut at = Cursor(&text);
                    // `event` and `id` repeat the previous event's only within one call.
                    let (mut event, mut id) = (String::new(), String::new());
                    let mut words = p.lens.iter().copied();
                    for _ in 0..p.count {
                        let mut field = |n: u32, last: &mut String| {
                            if n != SSE_SAME {
                                *last = at.take(n);
                                at.take(1);
                            }
                            last.clone()
                        };
                        let event = field(words.next().unwrap(), &mut event);
                        let data = match words.next().unwrap() {
                            SSE_RANGE => {
                                let (from, to) = (words.next().unwrap() as usize, words.next().unwrap() as usize);
                                String::from_utf8(part[from..to].to_vec()).unwrap()
                            }
                            n => field(n, &mut String::new()),
                        };
                        let id = field(words.next().unwrap(), &mut id);
                        got.push(SseEvent { event, data, id });
                    }
                    assert!(at.0.is_empty() && words.next().is_none());
                }
                got
            });
            assert_eq!(got, want);
        }
    }
}

#[cfg(feature = "partial")]
#[test]
fn json_pack_reads_back_as_the_parsers_events() {
    use crate::json::partial::PathSegment;
    use crate::{JsonEvent, PartialJson, PartialJsonOptions, ValueKind};
    let doc = r#"{"a":[1,"x\u00e9",{"b":true}],"c":{"d":null,"e":"\ud83d\ude00 tail"},"f":false}"#.as_bytes();
    // A call's appends come as one event, so the events depend on the chunking: each is
    // compared with the parser's own under the same one.
    for (label, chunks) in common::chunkings(doc, common::case_seed("json pack")) {
        let mut want = Vec::new();
        let mut parser = PartialJson::new(PartialJsonOptions::default());
        for part in &chunks {
            parser.feed(part, &mut want).unwrap();
        }
        let mut p = PartialJson::new(PartialJsonOptions::default());
        let mut pack = JsonPack::default();
        // The path as the host holds it: only its changed tail crosses.
        let mut path: Vec<PathSegment> = Vec::new();
        let mut got = Vec::new();
        for part in &chunks {
            pack.clear();
            p.step_with(part, false, &mut pack).unwrap();
            let text = units(pack.text.as_bytes());
            let mut at = Cursor(&text);
            let mut ops = pack.ops.iter().copied();
            while let Some(op) = ops.next() {
                let mut word = || ops.next().unwrap();
                let path = match op {
                    JSON_TRUNCATE => {
                        path.truncate(word() as usize);
                        continue;
                    }
                    JSON_KEY => {
                        path.push(PathSegment::Key(at.take(word())));
                        continue;
                    }
                    JSON_INDEX => {
                        path.push(PathSegment::Index(word() as usize));
                        continue;
                    }
                    _ => path.clone(),
                };
                got.push(match op {
                    JSON_APPEND => JsonEvent::Append { path, text: at.take(word()) },
                    JSON_SET_STRING => JsonEvent::Set { path, value: JsonValue::String(at.take(word())) },
                    JSON_SET_NUMBER => JsonEvent::Set { path, value: JsonValue::Number(at.take(word())) },
                    JSON_SET_TRUE | JSON_SET_FALSE => JsonEvent::Set { path, value: JsonValue::Bool(op == JSON_SET_TRUE) },
                    JSON_SET_NULL => JsonEvent::Set { path, value: JsonValue::Null },
                    JSON_END => JsonEvent::End { path },
                    JSON_BEGIN_OBJECT => JsonEvent::Begin { path, kind: ValueKind::Object },
                    JSON_BEGIN_ARRAY => JsonEvent::Begin { path, kind: ValueKind::Array },
                    JSON_BEGIN_STRING => JsonEvent::Begin { path, kind: ValueKind::String },
                    op => panic!("unknown op {op}"),
                });
            }
            assert!(at.0.is_empty());
        }
        assert_eq!(got, want, "chunking {label}");
    }
}

#[cfg(feature = "tags")]
#[test]
fn tag_pieces_read_back_as_the_filters_deltas() {
    use super::tags::{INPUT, PACKED};
    use crate::{TagFilter, TagFilterOptions};
    let nonce = "n0nce";
    let text = "[ARTIFACT:n0nce]{\"x\":\"\u{e9}\u{1f600}\"}[/ARTIFACT:n0nce]\n[USER:n0nce]h\u{e9}llo [b] world[/USER:n0nce]";
    let bytes = text.as_bytes();
    let mut want = vec![String::new(); 2];
    let mut deltas = Vec::new();
    TagFilter::new(nonce, TagFilterOptions::default()).unwrap().feed(bytes, &mut deltas).unwrap();
    for d in &deltas {
        want[d.block].push_str(&d.text);
    }
    let got = common::assert_chunk_invariant("tag pieces", bytes, |chunks| {
        let (mut got, mut pieces) = (vec![String::new(); 2], TagPieces::default());
        let mut f = TagFilter::new(nonce, TagFilterOptions::default()).unwrap();
        for part in chunks {
            pieces.clear();
            f.feed_with(part, &mut RangeSink::new(part, -1, None, &mut pieces)).unwrap();
            let before = pieces.meta.clone();
            for p in before.chunks_exact(4) {
                let (a, b) = (p[2] as usize, p[3] as usize);
                got[p[0] as usize].push_str(&match p[1] {
                    INPUT => String::from_utf8_lossy(&part[a..b]).into_owned(),
                    PACKED => String::from_utf8_lossy(&pieces.packed[a..b]).into_owned(),
                    TAG_UNITS => String::from_utf16(&pieces.wide[a / 2..b / 2]).unwrap(),
                    kind => panic!("kind {kind} of a byte chunk"),
                });
            }
            // Then each piece gets the wasm address of where it is.
            let bases =
                (part.as_ptr() as usize as u32, pieces.packed.as_ptr() as usize as u32, pieces.wide.as_ptr() as usize as u32);
            assert_eq!(pieces.describe(part) as usize, before.len() / 4);
            for (p, q) in before.chunks_exact(4).zip(pieces.meta.chunks_exact(4)) {
                let (kind, base) = match p[1] {
                    INPUT => (TAG_BYTES, bases.0),
                    PACKED => (TAG_BYTES, bases.1),
                    _ => (TAG_UNITS, bases.2),
                };
                assert_eq!(q, [p[0], kind, p[2].wrapping_add(base), p[3].wrapping_add(base)]);
            }
        }
        got
    });
    assert_eq!(got, want);
    // `TaggedTurn`'s deltas are copies.
    let mut pieces = TagPieces::default();
    pieces.copy(&deltas).unwrap();
    let mut copied = vec![String::new(); 2];
    for p in pieces.meta.chunks_exact(4) {
        assert_eq!(p[1], PACKED);
        copied[p[0] as usize].push_str(std::str::from_utf8(&pieces.packed[p[2] as usize..p[3] as usize]).unwrap());
    }
    assert_eq!(copied, want);
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
