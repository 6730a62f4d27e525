//! One duplicate-key rule everywhere: a key that repeats in an object counts once, its first
//! occurrence. The streaming machines report the first value and never a later one (nothing
//! reported is taken back), and the whole-value functions agree with them. Every streaming
//! case runs whole, byte by byte and at random splits (`tests/common`).

mod common;

use common::assert_chunk_invariant;
use streamroute::{
    build_final_payload, normalize_action_text, normalize_action_value, parse_json, AnswerExtractor, AnswerExtractorOptions,
    ContentMode, JsonEvent, JsonItemStream, JsonItemStreamOptions, JsonValue, PartialJson, PartialJsonOptions, PathSegment,
    PayloadContext, Provider, RoutedEvent, StreamRouter, StreamRouterOptions,
};

fn j(text: &str) -> JsonValue {
    parse_json(text, false).unwrap()
}

fn s(t: &str) -> JsonValue {
    JsonValue::String(t.into())
}

/// The events (adjacent appends joined: how they group depends on the chunking), the final
/// value, and every snapshot taken between chunks being a prefix-consistent view.
fn partial(chunks: &[&[u8]]) -> (Vec<JsonEvent>, JsonValue, Vec<JsonValue>) {
    let mut p = PartialJson::new(PartialJsonOptions::default());
    let mut events = Vec::new();
    let mut snapshots = Vec::new();
    for c in chunks {
        p.feed(c, &mut events).unwrap();
        snapshots.extend(p.value());
    }
    let v = p.finish(&mut events).unwrap();
    let mut joined: Vec<JsonEvent> = Vec::new();
    for e in events {
        match (joined.last_mut(), e) {
            (Some(JsonEvent::Append { path: p0, text: t0 }), JsonEvent::Append { path, text }) if *p0 == path => {
                t0.push_str(&text)
            }
            (_, e) => joined.push(e),
        }
    }
    snapshots.dedup();
    (joined, v, snapshots)
}

#[test]
fn partial_json_reports_the_first_value_of_a_repeated_key_only() {
    let doc = br#"{"a":"first","b":[1],"a":"second","b":{"x":[2,"y"]},"c":3,"a":null}"#;
    let (events, value) = assert_chunk_invariant("partial repeated keys", doc, |c| {
        let (e, v, _) = partial(c);
        (e, v)
    });
    assert_eq!(value, j(r#"{"a":"first","b":[1],"c":3}"#));
    let a = vec![PathSegment::Key("a".into())];
    let sets_at_a: Vec<&JsonEvent> =
        events.iter().filter(|e| matches!(e, JsonEvent::Set { .. }) && e.path() == a.as_slice()).collect();
    assert_eq!(sets_at_a, [&JsonEvent::Set { path: a.clone(), value: s("first") }]);
    // `b` is begun and ended once; nothing under a second `b` is reported.
    let b = [PathSegment::Key("b".into())];
    assert_eq!(events.iter().filter(|e| matches!(e, JsonEvent::Begin { .. }) && e.path() == b).count(), 1);
    assert!(events.iter().all(|e| !matches!(e.path().get(1), Some(PathSegment::Key(k)) if k == "x")));
    // Every snapshot along the way agrees with the final value on what it holds.
    let (_, _, snapshots) = partial(&doc.chunks(1).collect::<Vec<_>>());
    for snap in snapshots {
        if let (JsonValue::Object(m), JsonValue::Object(fin)) = (&snap, &value) {
            for (k, v) in m {
                let whole = fin.iter().find(|(f, _)| f == k).map(|(_, v)| v.clone()).unwrap();
                if matches!(v, JsonValue::Number(_) | JsonValue::Null | JsonValue::Bool(_)) {
                    assert_eq!(v, &whole, "snapshot {}", snap.to_json());
                }
                if let (JsonValue::String(part), JsonValue::String(w)) = (v, &whole) {
                    assert!(w.starts_with(part.as_str()), "snapshot {}", snap.to_json());
                }
            }
            let keys: Vec<&String> = m.iter().map(|(k, _)| k).collect();
            let mut unique = keys.clone();
            unique.dedup();
            assert_eq!(keys, unique, "snapshot {}", snap.to_json());
        }
    }
}

#[test]
fn item_stream_follows_the_first_occurrence_of_the_path_and_items_keep_first_keys() {
    let doc = br#"{"items":[{"id":1,"id":9,"t":"a"},2],"items":[3],"meta":{"items":[4]}}"#;
    let items = assert_chunk_invariant("items repeated keys", doc, |chunks| {
        let mut st = JsonItemStream::new("$.items", JsonItemStreamOptions::default()).unwrap();
        let mut out = Vec::new();
        for c in chunks {
            st.feed(c, &mut out).unwrap();
        }
        st.finish(&mut out).unwrap();
        out.iter().map(JsonValue::to_json).collect::<Vec<_>>()
    });
    assert_eq!(items, [r#"{"id":1,"t":"a"}"#, "2"]);
}

/// What the extractor streamed and decided, fed in `chunks`.
fn extract(chunks: &[&[u8]]) -> (String, Option<String>, Option<bool>) {
    let mut e = AnswerExtractor::new(AnswerExtractorOptions::default());
    let mut answer = String::new();
    for c in chunks {
        answer.push_str(&e.feed(c).unwrap());
    }
    answer.push_str(&e.finish().unwrap());
    (answer, e.next_node().map(str::to_string), e.is_finish_action())
}

#[test]
fn extractor_and_normaliser_keep_the_first_answer_and_next_node() {
    let cases: [(&str, &str, &str); 8] = [
        // An empty first answer stays the answer: a later one would contradict the normaliser.
        (r#"{"next_node":"final_response","args":{"answer":"","answer":"B"}}"#, "final_response", ""),
        (r#"{"next_node":"search","next_node":"final_response","args":{"answer":"A"}}"#, "search", ""),
        (r#"{"next_node":"final_response","args":{"answer":"A"},"next_node":"search"}"#, "final_response", "A"),
        (r#"{"next_node":"final_response","args":{"answer":"A","answer":"B"}}"#, "final_response", "A"),
        (r#"{"next_node":"final_response","args":{"answer":"A","raw_answer":"R","answer":"B"}}"#, "final_response", "A"),
        (r#"{"next_node":"final_response","args":{"answer":"A"},"args":{"answer":"B"}}"#, "final_response", "A"),
        (r#"{"next_node":"search","next_node":"final_response","args":{"query":"q"}}"#, "search", ""),
        (
            r#"{"next_node":"final_response","next_node":"search","args":{"answer":"A","answer":{"x":"B"}}}"#,
            "final_response",
            "A",
        ),
    ];
    for (doc, node, answer) in cases {
        let (streamed, next_node, finish) = assert_chunk_invariant(doc, doc.as_bytes(), extract);
        assert_eq!(next_node.as_deref(), Some(node), "{doc}");
        assert_eq!(finish, Some(node == "final_response"), "{doc}");
        assert_eq!(streamed, answer, "{doc}");
        let action = normalize_action_text(doc).unwrap();
        assert_eq!(action.next_node, node, "{doc}");
        if node == "final_response" {
            assert_eq!(action.answer(), Some(answer), "{doc}");
        }
    }
}

#[test]
fn router_action_event_agrees_with_what_it_streamed() {
    for (doc, want) in [
        (r#"{"next_node":"final_response","args":{"answer":"first","answer":"second"},"next_node":"search"}"#, "first"),
        (r#"{"next_node":"final_response","args":{"answer":"","answer":"second"}}"#, ""),
    ] {
        router_case(doc, want);
    }
}

fn router_case(doc: &str, want: &str) {
    let mut sse = String::new();
    for piece in doc.as_bytes().chunks(7) {
        let text = JsonValue::String(String::from_utf8_lossy(piece).into_owned()).to_json();
        sse.push_str(&format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{text}}}}}]}}\n\n"));
    }
    sse.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let (answer, action) = assert_chunk_invariant(doc, sse.as_bytes(), |chunks| {
        let mut r = StreamRouter::new(StreamRouterOptions {
            provider: Provider::OpenAiChat,
            content: ContentMode::ActionJson,
            ..StreamRouterOptions::default()
        })
        .unwrap();
        let mut out = Vec::new();
        for c in chunks {
            r.feed(c, &mut out).unwrap();
        }
        r.finish(&mut out).unwrap();
        let answer: String = out
            .iter()
            .filter_map(|e| if let RoutedEvent::AnswerDelta { text, .. } = e { Some(text.as_str()) } else { None })
            .collect();
        let action = out.iter().find_map(|e| if let RoutedEvent::Action { action } = e { Some(action.clone()) } else { None });
        (answer, action)
    });
    let action = action.expect("an action event");
    assert_eq!(answer, want, "{doc}");
    assert_eq!(action.next_node, "final_response", "{doc}");
    assert_eq!(action.answer(), Some(want), "{doc}");
}

#[test]
fn value_functions_keep_the_first_of_keys_repeated_in_a_built_value() {
    // Values built by hand keep their repeats; the functions read the first.
    let v = JsonValue::Object(vec![
        ("next_node".into(), s("final_response")),
        ("next_node".into(), s("search")),
        ("args".into(), JsonValue::Object(vec![("answer".into(), s("A")), ("answer".into(), s("B"))])),
    ]);
    assert_eq!(v.get("next_node"), Some(&s("final_response")));
    let action = normalize_action_value(&v).unwrap();
    assert_eq!((action.next_node.as_str(), action.answer()), ("final_response", Some("A")));
    assert_eq!(action.args.iter().filter(|(k, _)| k == "answer").count(), 1);

    let args = JsonValue::Object(vec![
        ("answer".into(), s("A")),
        ("answer".into(), s("B")),
        ("note".into(), s("n1")),
        ("note".into(), s("n2")),
    ]);
    let built = build_final_payload(&args, &PayloadContext::default()).unwrap();
    assert_eq!(built.payload.raw_answer, "A");
    assert_eq!(built.payload.extra, vec![("note".to_string(), s("n1"))]);
}

#[test]
fn parsing_keeps_the_first_member() {
    assert_eq!(j(r#"{"a":1,"b":2,"a":3}"#).to_json(), r#"{"a":1,"b":2}"#);
    assert_eq!(parse_json(r#"{a: 1, a: 2, 'b': {c: 1, c: 2}}"#, true).unwrap().to_json(), r#"{"a":1,"b":{"c":1}}"#);
}
