//! The stream router on the bundled recorded-format sample streams (examples/streams/): every
//! stream routed whole, byte by byte and at random splits gives the same events (adjacent
//! text deltas coalesced), and the events are what each stream says.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::coalesce;
use streamroute::{
    ContentMode, JsonValue, ModelDelta, Provider, ProviderDecoder, ProviderDecoderOptions, RoutedEvent, StreamRouter,
    StreamRouterOptions, ThinkingSource, Usage,
};

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/streams/");

struct Sample {
    file: String,
    provider: Provider,
    content: ContentMode,
    bytes: Vec<u8>,
}

fn manifest() -> (String, Vec<Sample>) {
    let text = std::fs::read_to_string(format!("{STREAMS}manifest.json")).expect("manifest");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manifest json");
    let nonce = v["nonce"].as_str().expect("nonce").to_string();
    let samples = v["streams"]
        .as_array()
        .expect("streams")
        .iter()
        .map(|s| {
            let file = s["file"].as_str().expect("file").to_string();
            Sample {
                bytes: std::fs::read(format!("{STREAMS}{file}")).expect("read stream"),
                file,
                provider: Provider::parse(s["provider"].as_str().expect("provider")).expect("provider name"),
                content: ContentMode::parse(s["content"].as_str().expect("content")).expect("content name"),
            }
        })
        .collect();
    (nonce, samples)
}

fn route(provider: Provider, content: ContentMode, nonce: &str, chunks: &[&[u8]]) -> Vec<RoutedEvent> {
    let mut r = StreamRouter::new(StreamRouterOptions {
        provider,
        content,
        nonce: Some(nonce.to_string()),
        ..StreamRouterOptions::default()
    })
    .expect("router");
    let mut out = Vec::new();
    for c in chunks {
        r.feed(c, &mut out).expect("feed");
    }
    r.finish(&mut out).expect("finish");
    coalesce(out)
}

fn tagged_available(nonce: &str) -> bool {
    StreamRouter::new(StreamRouterOptions {
        content: ContentMode::Tagged,
        nonce: Some(nonce.into()),
        ..StreamRouterOptions::default()
    })
    .is_ok()
}

/// Every sample, with `auto` and with its own provider, under every chunking.
fn routed_samples() -> Vec<(String, Vec<RoutedEvent>)> {
    let (nonce, samples) = manifest();
    let mut all = Vec::new();
    for s in samples {
        if s.content == ContentMode::Tagged && !tagged_available(&nonce) {
            continue;
        }
        let auto = assert_chunk_invariant(&format!("{} auto", s.file), &s.bytes, |chunks| {
            route(Provider::Auto, s.content, &nonce, chunks)
        });
        let fixed = assert_chunk_invariant(&s.file, &s.bytes, |chunks| route(s.provider, s.content, &nonce, chunks));
        assert_eq!(auto, fixed, "{}: auto and {:?} differ", s.file, s.provider);
        // auto detects the sample's format.
        let mut d = ProviderDecoder::new(ProviderDecoderOptions::default());
        let mut deltas: Vec<ModelDelta> = Vec::new();
        d.feed(&s.bytes, &mut deltas).unwrap();
        d.finish(&mut deltas).unwrap();
        assert_eq!(d.provider(), s.provider, "{}", s.file);
        all.push((s.file, auto));
    }
    all
}

fn events_of(file: &str) -> Vec<RoutedEvent> {
    let (nonce, samples) = manifest();
    let s = samples.into_iter().find(|s| s.file == file).expect("sample");
    route(Provider::Auto, s.content, &nonce, &[&s.bytes])
}

fn answer(events: &[RoutedEvent]) -> String {
    events.iter().filter_map(|e| if let RoutedEvent::AnswerDelta { text, .. } = e { Some(text.as_str()) } else { None }).collect()
}

fn thinking(events: &[RoutedEvent], source: ThinkingSource) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ThinkingDelta { text, source: s } if *s == source => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn done(events: &[RoutedEvent]) -> (bool, bool, Option<String>) {
    match events.last() {
        Some(RoutedEvent::Done { ok, parse_ok, finish_reason, .. }) => (*ok, *parse_ok, finish_reason.clone()),
        other => panic!("last event is not done: {other:?}"),
    }
}

fn tool_calls(events: &[RoutedEvent]) -> Vec<(u32, String, String, String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { index, id, name, arguments, repaired, .. } => {
                Some((*index, id.clone(), name.clone(), arguments.to_json(), *repaired))
            }
            _ => None,
        })
        .collect()
}

fn errors(events: &[RoutedEvent]) -> Vec<String> {
    events.iter().filter_map(|e| if let RoutedEvent::Error { code, .. } = e { Some(code.clone()) } else { None }).collect()
}

fn last_usage(events: &[RoutedEvent]) -> Usage {
    events.iter().rev().find_map(|e| if let RoutedEvent::Usage(u) = e { Some(*u) } else { None }).expect("usage")
}

#[test]
fn every_sample_is_chunk_invariant_and_auto_detected() {
    let all = routed_samples();
    assert!(all.len() >= 15, "{} samples", all.len());
    for (file, events) in &all {
        assert!(matches!(events.last(), Some(RoutedEvent::Done { .. })), "{file}: ends with done");
        // Every tool_call_start is matched by one tool_call, and the raw argument text is the
        // text that was parsed.
        let starts = events.iter().filter(|e| matches!(e, RoutedEvent::ToolCallStart { .. })).count();
        assert_eq!(starts, tool_calls(events).len(), "{file}");
    }
}

#[test]
fn openai_chat_text() {
    let e = events_of("openai-chat-text.sse");
    assert_eq!(answer(&e), "Hello, café 世界 😀");
    assert_eq!(done(&e), (true, true, Some("stop".into())));
    assert_eq!(
        last_usage(&e),
        Usage { input_tokens: Some(12), output_tokens: Some(7), total_tokens: Some(19), ..Usage::default() }
    );
}

#[test]
fn openai_chat_action_json() {
    let e = events_of("openai-chat-action.sse");
    let want = "Bonjour ! Voilà \"la\" réponse :\n— café ☕, naïve 😀 \\o/ {ok}";
    assert_eq!(answer(&e), want);
    assert_eq!(thinking(&e, ThinkingSource::Thought), "The user greeted me in French; answer in kind.");
    let action = e.iter().find_map(|e| if let RoutedEvent::Action { action } = e { Some(action.clone()) } else { None });
    let action = action.expect("action event");
    assert_eq!(action.next_node, "final_response");
    assert_eq!(action.answer(), Some(want));
    assert_eq!(done(&e), (true, true, Some("stop".into())));
    // The action comes before done and after the last answer text.
    let pos = |f: fn(&RoutedEvent) -> bool| e.iter().position(f).unwrap();
    assert!(pos(|e| matches!(e, RoutedEvent::Action { .. })) > pos(|e| matches!(e, RoutedEvent::AnswerDelta { .. })));
    assert_eq!(last_usage(&e).cached_input_tokens, Some(0));
}

#[test]
fn openai_chat_reasoning_and_parallel_tool_calls_crlf() {
    let e = events_of("openai-chat-tools.sse");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "Two cities, so two weather calls in parallel.");
    assert_eq!(answer(&e), "Let me check both.");
    assert_eq!(
        tool_calls(&e),
        vec![
            (0, "call_Wx1".into(), "get_weather".into(), r#"{"city":"Paris","unit":"celsius"}"#.into(), false),
            (1, "call_Wx2".into(), "get_weather".into(), r#"{"city":"Tōkyō","unit":"celsius"}"#.into(), false),
        ]
    );
    let raw: String = e
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCallDelta { index: 1, arguments } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(raw, r#"{"city": "Tōkyō", "unit": "celsius"}"#);
    assert_eq!(done(&e), (true, true, Some("tool_calls".into())));
    assert_eq!(last_usage(&e).reasoning_tokens, Some(40));
}

#[test]
fn openai_chat_error_mid_stream() {
    let e = events_of("openai-chat-error.sse");
    assert_eq!(answer(&e), "Here is the first part of");
    assert_eq!(errors(&e), vec!["server_error".to_string()]);
    assert_eq!(done(&e), (false, true, None));
}

#[test]
fn openai_responses() {
    let e = events_of("openai-responses-text.sse");
    assert_eq!(answer(&e), "Hi from Responses.");
    assert_eq!(done(&e), (true, true, Some("completed".into())));

    let e = events_of("openai-responses-tools.sse");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "**Planning** I need the weather for two cities.");
    assert_eq!(answer(&e), "Checking Paris and Zürich…");
    assert_eq!(
        tool_calls(&e),
        vec![
            (2, "call_R0".into(), "get_weather".into(), r#"{"location":"Paris","units":"metric"}"#.into(), false),
            (3, "call_R1".into(), "get_weather".into(), r#"{"location":"Zürich","units":"metric"}"#.into(), false),
        ]
    );
    assert_eq!(
        last_usage(&e),
        Usage {
            input_tokens: Some(52),
            output_tokens: Some(88),
            total_tokens: Some(140),
            reasoning_tokens: Some(32),
            cached_input_tokens: Some(0)
        }
    );
    assert_eq!(done(&e), (true, true, Some("completed".into())));

    let e = events_of("openai-responses-error.sse");
    assert_eq!(answer(&e), "Partial answer");
    assert_eq!(errors(&e), vec!["server_error".to_string()]);
    assert_eq!(done(&e), (false, true, Some("failed".into())));
}

#[test]
fn anthropic() {
    let e = events_of("anthropic-thinking.sse");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "The user wants a greeting.");
    assert_eq!(answer(&e), "Hello there!");
    assert_eq!(done(&e), (true, true, Some("end_turn".into())));

    let e = events_of("anthropic-tools.sse");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "Two lookups; I can run them in parallel.");
    assert_eq!(answer(&e), "I'll look up both cities.");
    assert_eq!(
        tool_calls(&e),
        vec![
            (
                2,
                "toolu_01T1x1fJ34qAm0".into(),
                "get_weather".into(),
                r#"{"location":"San Francisco, CA","unit":"fahrenheit"}"#.into(),
                false
            ),
            (3, "toolu_01T1x1fJ34qAm1".into(), "get_weather".into(), r#"{"location":"Kraków","unit":"celsius"}"#.into(), false),
        ]
    );
    assert_eq!(
        last_usage(&e),
        Usage {
            // 472 not read from the cache and 128 read from it.
            input_tokens: Some(600),
            output_tokens: Some(89),
            total_tokens: Some(689),
            reasoning_tokens: None,
            cached_input_tokens: Some(128)
        }
    );
    assert_eq!(done(&e), (true, true, Some("tool_use".into())));

    // A tool-call action in a fence after prose: nothing of it reaches the answer.
    let e = events_of("anthropic-action.sse");
    assert_eq!(answer(&e), "");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "Search before answering.");
    assert_eq!(thinking(&e, ThinkingSource::Thought), "Need the docs first.");
    let action = e.iter().find_map(|e| if let RoutedEvent::Action { action } = e { Some(action.clone()) } else { None });
    let action = action.expect("action");
    assert_eq!(action.next_node, "search_docs");
    assert_eq!(action.arg("query"), Some(&JsonValue::String("SSE reconnect \"Last-Event-ID\"".into())));
    assert_eq!(done(&e), (true, true, Some("end_turn".into())));

    // An error mid-action: the answer streamed so far stands; the action the normaliser
    // recovers from the truncated text comes at the end, with parse_ok false.
    let e = events_of("anthropic-error.sse");
    assert_eq!(answer(&e), "Partial ans");
    assert_eq!(errors(&e), vec!["overloaded_error".to_string()]);
    let action = e.iter().find_map(|e| if let RoutedEvent::Action { action } = e { Some(action.clone()) } else { None });
    assert_eq!(action.expect("recovered action").answer(), Some("Partial ans"));
    assert_eq!(done(&e), (false, false, None));
}

#[test]
fn gemini() {
    let e = events_of("gemini-text.sse");
    assert_eq!(answer(&e), "Bonjour le monde 🌍");
    assert_eq!(done(&e), (true, true, Some("STOP".into())));

    let e = events_of("gemini-tools.sse");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "**Weighing the request** Two places, two calls.");
    assert_eq!(answer(&e), "Looking up São Paulo and Reykjavík.");
    assert_eq!(
        tool_calls(&e),
        vec![
            (0, "call_0".into(), "get_weather".into(), r#"{"city":"São Paulo"}"#.into(), false),
            (1, "call_1".into(), "get_weather".into(), r#"{"city":"Reykjavík","days":3}"#.into(), false),
        ]
    );
    assert_eq!(last_usage(&e).reasoning_tokens, Some(24));
    assert_eq!(done(&e), (true, true, Some("STOP".into())));

    let e = events_of("gemini-error.sse");
    assert_eq!(answer(&e), "Starting");
    assert_eq!(errors(&e), vec!["UNAVAILABLE".to_string()]);
    assert_eq!(done(&e), (false, true, None));
}

#[test]
fn plain_text_action() {
    let e = events_of("plain-action.txt");
    assert_eq!(answer(&e), "Bytes stream like rain —\nrouted in one quiet pass,\nno tags left behind.");
    let action = e.iter().find_map(|e| if let RoutedEvent::Action { action } = e { Some(action.clone()) } else { None });
    assert_eq!(action.expect("action").reasoning.as_deref(), Some("The user wants a haiku."));
    assert_eq!(done(&e), (true, true, None));
}

fn route_str(provider: Provider, content: ContentMode, input: &str) -> Vec<RoutedEvent> {
    assert_chunk_invariant(input, input.as_bytes(), |chunks| route(provider, content, "", chunks))
}

#[test]
fn malformed_and_unknown_events_are_error_events() {
    let e = route_str(
        Provider::OpenAiChat,
        ContentMode::Text,
        "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"stop\"}]}\n\n",
    );
    assert_eq!(answer(&e), "ac");
    assert_eq!(errors(&e), vec!["provider_event_invalid".to_string()]);
    assert_eq!(done(&e), (false, true, Some("stop".into())));

    let e = route_str(
        Provider::Auto,
        ContentMode::Text,
        "data: hello\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\n",
    );
    assert_eq!(errors(&e), vec!["provider_event_unknown".to_string()]);
    assert_eq!(answer(&e), "x");
    assert_eq!(done(&e).2.as_deref(), Some("length"));
}

#[test]
fn truncated_streams_and_plain_text() {
    // No end marker: stream_truncated.
    let e = route_str(Provider::Auto, ContentMode::Text, "data: {\"choices\":[{\"delta\":{\"content\":\"cut\"}}]}\n\n");
    assert_eq!(answer(&e), "cut");
    assert_eq!(errors(&e), vec!["stream_truncated".to_string()]);
    assert_eq!(done(&e), (false, true, None));
    // An unterminated last event still counts.
    let e = route_str(
        Provider::Auto,
        ContentMode::Text,
        "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}",
    );
    assert_eq!(done(&e), (true, true, Some("stop".into())));
    // Plain text: anything that does not start with an SSE field, and short prefixes of one.
    for text in ["Hello", "da", "  data: no", "\n\nhello {\"a\":1}", "é", ""] {
        let e = route_str(Provider::Auto, ContentMode::Text, text);
        assert_eq!(answer(&e), text);
        assert_eq!(done(&e), (true, true, None), "{text:?}");
    }
}

#[test]
fn tool_arguments_are_repaired_when_broken() {
    let s = "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{'a': 1,}\"}}]}}]}\n\n\
             data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c2\",\"function\":{\"name\":\"g\",\"arguments\":\"\"}}]}}]}\n\n\
             data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":2,\"id\":\"c3\",\"function\":{\"name\":\"h\",\"arguments\":\"no json here\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n\
             data: [DONE]\n\n";
    let e = route_str(Provider::Auto, ContentMode::Text, s);
    let calls = tool_calls(&e);
    assert_eq!(calls[0], (0, "c1".into(), "f".into(), r#"{"a":1}"#.into(), true));
    assert_eq!(calls[1], (1, "c2".into(), "g".into(), "{}".into(), false));
    assert!(calls[2].4);
    assert_eq!(done(&e), (true, true, Some("tool_calls".into())));
}

#[test]
fn caps_and_state_are_typed_errors() {
    let mut r = StreamRouter::new(StreamRouterOptions { max_event_bytes: 16, ..StreamRouterOptions::default() }).unwrap();
    let mut out = Vec::new();
    let err = r.feed(b"data: {\"choices\":[{\"delta\":{\"content\":\"too long for the cap\"}}]}\n\n", &mut out).unwrap_err();
    assert_eq!(err.code(), "sse_event_too_large");
    assert_eq!(r.finish(&mut out).unwrap_err().code(), "sse_event_too_large");

    let mut r = StreamRouter::new(StreamRouterOptions::default()).unwrap();
    r.finish(&mut out).unwrap();
    assert_eq!(r.feed(b"x", &mut out).unwrap_err().code(), "invalid_state");

    assert_eq!(Provider::parse("openai").unwrap_err().code(), "invalid_option");
    assert_eq!(ContentMode::parse("json").unwrap_err().code(), "invalid_option");
}

#[test]
fn garbage_never_panics_and_is_chunk_invariant() {
    let mut rng = common::Rng::new(common::seed());
    let pieces: &[&[u8]] = &[
        b"[ARTIFACT:5f0c9a2be4d1487fa3c6b8e2d9f17a40]",
        b"[/USER:5f0c9a2be4d1487fa3c6b8e2d9f17a40]",
        b"{\"next_node\":\"final_response\",\"args\":{\"answer\":\"",
        b"data: ",
        b"{\"choices\":[",
        b"{\"delta\":{\"content\":\"",
        b"\\u00",
        b"\"}}]}",
        b"\n\n",
        b"event: content_block_delta\n",
        b"{\"type\":\"content_block_start\",\"index\":",
        b"\xff\xfe",
        b"[DONE]",
        b"{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"",
        b"\r\n",
    ];
    for _ in 0..150 {
        let mut input = Vec::new();
        for _ in 0..rng.below(40) {
            input.extend_from_slice(pieces[rng.below(pieces.len())]);
        }
        for content in [ContentMode::Text, ContentMode::ActionJson, ContentMode::Tagged] {
            // Whole, bytewise and random splits agree (or fail with the same code).
            let run = |chunks: &[&[u8]]| {
                let mut r = StreamRouter::new(StreamRouterOptions {
                    content,
                    nonce: Some("5f0c9a2be4d1487fa3c6b8e2d9f17a40".into()),
                    ..StreamRouterOptions::default()
                })
                .unwrap();
                let mut out = Vec::new();
                for c in chunks {
                    if let Err(e) = r.feed(c, &mut out) {
                        return Err(e.code());
                    }
                }
                r.finish(&mut out).map_err(|e| e.code())?;
                Ok(coalesce(out))
            };
            let whole = run(&[&input]);
            let bytewise: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(run(&bytewise), whole, "{:?}", String::from_utf8_lossy(&input));
            let split = common::random_split(&input, &mut rng, 7);
            assert_eq!(run(&split), whole, "{:?}", String::from_utf8_lossy(&input));
        }
    }
}

#[test]
fn extractor_reports_where_the_action_closed() {
    let input = b"Sure: {\"next_node\": \"x\", \"args\": {\"a\": \"}\"}} and more {\"next_node\": \"y\"}";
    let end = assert_chunk_invariant("action_end", input, |chunks| {
        let mut x = streamroute::AnswerExtractor::default();
        let mut ends = Vec::new();
        for c in chunks {
            x.feed(c).unwrap();
            ends.push(x.action_end());
        }
        // Once known it never changes.
        let first = ends.iter().flatten().next().copied();
        assert!(ends.iter().flatten().all(|e| Some(*e) == first));
        first
    });
    let close = input.windows(5).position(|w| w == b"} and").unwrap();
    assert_eq!(end, Some(close as u64 + 1));
    let mut x = streamroute::AnswerExtractor::default();
    x.feed(b"{\"next_node\": \"x\", \"args\": {").unwrap();
    assert_eq!(x.action_end(), None);
}

#[test]
fn tagged_content_through_the_tag_filter() {
    let e = events_of("openai-chat-tagged.sse");
    let text = |f: fn(&RoutedEvent) -> Option<&str>| e.iter().filter_map(f).collect::<String>();
    let artifact = text(|e| if let RoutedEvent::ArtifactDelta { text } = e { Some(text) } else { None });
    let user = text(|e| if let RoutedEvent::UserDelta { text } = e { Some(text) } else { None });
    assert_eq!(artifact, "\n# Release notes\n\n- Faster SSE decoding\n- New router: données → événements\n");
    assert_eq!(user, "\nShall I save this draft? 🙂\n");
    assert_eq!(answer(&e), "");
    assert_eq!(done(&e), (true, true, Some("stop".into())));
    // No marker text ever reaches an event.
    assert!(!format!("{e:?}").contains("5f0c9a2be4d1487fa3c6b8e2d9f17a40"));

    // Outside the contract: parse_ok false, the stream itself ok.
    let (nonce, _) = manifest();
    let input = format!("Sure!\n[USER:{nonce}]hi[/USER:{nonce}]");
    let e = assert_chunk_invariant("tagged violation", input.as_bytes(), |chunks| {
        route(Provider::Text, ContentMode::Tagged, &nonce, chunks)
    });
    assert_eq!(e[0], RoutedEvent::UserDelta { text: "hi".into() });
    assert_eq!(done(&e), (true, false, None));

    // No nonce, or a bad one: invalid_option.
    for nonce in [None, Some("")] {
        let r = StreamRouter::new(StreamRouterOptions {
            content: ContentMode::Tagged,
            nonce: nonce.map(String::from),
            ..StreamRouterOptions::default()
        });
        assert_eq!(r.unwrap_err().code(), "invalid_option");
    }
}

/// `content: "tagged"`: the nonce leaves through no other channel either. A reasoning model
/// repeats its instructions (a marker in `reasoning_content`, the nonce cut across deltas and
/// written with invisible characters inside), a refusal and a tool call's arguments quote it,
/// an error message and a provider-executed tool's result and source carry it: each
/// occurrence is U+FFFD, and `done` has `parse_ok: false`; the blocks still route.
#[test]
fn tagged_masks_the_nonce_in_every_channel() {
    let nonce = "0123456789abcdef0123456789abcdef";
    let (head, tail) = nonce.split_at(13);
    let soft = "0123\u{200B}456789abcdef\u{AD}0123456789ab\u{FEFF}cdef";
    let chunk = |delta: String| format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{delta}}}]}}\n\n");
    let mut chat = String::new();
    chat += &chunk(format!("{{\"reasoning_content\":\"I must write [ARTIFACT:{head}\"}}"));
    chat += &chunk(format!("{{\"reasoning_content\":\"{tail}] first, then {soft}.\"}}"));
    chat += &chunk(format!("{{\"refusal\":\"I will not repeat {nonce}\"}}"));
    chat += &chunk(format!(
        "{{\"tool_calls\":[{{\"index\":0,\"id\":\"c1\",\"function\":{{\"name\":\"save\",\"arguments\":\"{{\\\"tag\\\":\\\"{head}\"}}}}]}}"
    ));
    chat += &chunk(format!("{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{tail}\\\"}}\"}}}}]}}"));
    chat += &chunk(format!("{{\"content\":\"[USER:{nonce}]Hello {soft}[/USER:{nonce}]\"}}"));
    chat += &chunk("{\"content\":\"\"},\"finish_reason\":\"stop\"".into());
    chat += &format!("data: {{\"error\":{{\"message\":\"bad nonce {nonce}\",\"type\":\"server_error\"}}}}\n\n");
    chat += "data: [DONE]\n\n";
    let e = assert_chunk_invariant("tagged nonce channels", chat.as_bytes(), |chunks| {
        route(Provider::OpenAiChat, ContentMode::Tagged, nonce, chunks)
    });
    let all = format!("{e:?}");
    for piece in [nonce, "0123\u{200B}4567", "[ARTIFACT:0"] {
        assert!(!all.contains(piece), "{piece:?} in {all}");
    }
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "I must write [ARTIFACT:\u{FFFD}] first, then \u{FFFD}.");
    assert!(e.contains(&RoutedEvent::RefusalDelta { text: "I will not repeat \u{FFFD}".into() }), "{e:?}");
    let args: String = e
        .iter()
        .filter_map(|e| if let RoutedEvent::ToolCallDelta { arguments, .. } = e { Some(arguments.as_str()) } else { None })
        .collect();
    assert_eq!(args, "{\"tag\":\"\u{FFFD}\"}");
    assert_eq!(tool_calls(&e)[0].3, "{\"tag\":\"\u{FFFD}\"}");
    assert!(errors(&e).iter().all(|m| !m.contains(nonce)));
    assert!(e.contains(&RoutedEvent::UserDelta { text: "Hello \u{FFFD}".into() }), "{e:?}");
    let (_, parse_ok, _) = done(&e);
    assert!(!parse_ok, "a nonce outside the blocks breaks the contract");
    // The blocks' violations (no artifact block), then one nonce_in_text per occurrence, in
    // the order the events came: two in the reasoning, the refusal, the streamed arguments, the
    // user block's (invisible characters inside), the parsed arguments' string, the error
    // message.
    let Some(RoutedEvent::Done { violations, .. }) = e.last() else { panic!("done last: {e:?}") };
    let codes: Vec<(&str, u64)> = violations.iter().map(|v| (v.code, v.offset)).collect();
    let nonce_at = |offset| ("nonce_in_text", offset);
    assert_eq!(
        codes,
        [("missing_block", 125), nonce_at(23), nonce_at(69), nonce_at(18), nonce_at(8), nonce_at(6), nonce_at(0), nonce_at(0)]
    );
    // A tagged response without the nonce outside its blocks has none, and text mode never.
    let clean = format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"reasoning_content\":\"plan 0123\",\"content\":\"[ARTIFACT:{nonce}]A[/ARTIFACT:{nonce}][USER:{nonce}]Hi[/USER:{nonce}]\"}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n");
    let e = route(Provider::OpenAiChat, ContentMode::Tagged, nonce, &[clean.as_bytes()]);
    assert!(matches!(e.last(), Some(RoutedEvent::Done { parse_ok: true, violations, .. }) if violations.is_empty()), "{e:?}");
    // A possible nonce prefix at the end of the reasoning is held back, then given out whole.
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "plan 0123");

    // Anthropic: a provider-executed tool's result and its source carry the nonce.
    let ev = |name: &str, data: String| format!("event: {name}\ndata: {data}\n\n");
    let mut msg =
        ev("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}".into());
    msg += &ev(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"s1\",\"name\":\"web_search\",\"input\":{}}}".into(),
    );
    msg += &ev("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}".into());
    msg += &ev("content_block_start", format!(
        "{{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"s1\",\"content\":[{{\"type\":\"web_search_result\",\"url\":\"https://x.example/{nonce}\",\"title\":\"{nonce}\"}}]}}}}"
    ));
    msg += &ev("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}".into());
    msg += &ev("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}".into());
    msg += &ev("message_stop", "{\"type\":\"message_stop\"}".into());
    let e = assert_chunk_invariant("tagged nonce tool result", msg.as_bytes(), |chunks| {
        route(Provider::Anthropic, ContentMode::Tagged, nonce, chunks)
    });
    let all = format!("{e:?}");
    assert!(!all.contains(nonce), "{all}");
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::ToolResult { .. })), "{all}");
    assert!(all.contains("https://x.example/\u{FFFD}"), "{all}");
}

/// A tagged response cut by the length limit inside its closing marker, with the nonce in
/// near-miss markers before: no event shows the nonce or the cut marker, and `done` says
/// `parse_ok: false`, at every chunking.
#[test]
fn tagged_content_cut_by_the_length_limit_shows_no_nonce() {
    let (nonce, _) = manifest();
    let cut = &nonce[..12];
    let pieces = [
        format!("[ARTIFACT:{nonce}]plan [/artifact:{nonce}] [/ARTIFACT: {nonce}]"),
        format!("[/ARTIFACT:{nonce}]\n[USER:{nonce}]OK? [/USER:{nonce}0]"),
        format!("[/USER:{cut}"),
    ];
    let input = chat_stream(&pieces.iter().map(String::as_str).collect::<Vec<_>>())
        .replace("\"finish_reason\":\"stop\"", "\"finish_reason\":\"length\"");
    let e = assert_chunk_invariant("tagged cut", input.as_bytes(), |chunks| {
        coalesce(route(Provider::Auto, ContentMode::Tagged, &nonce, chunks))
    });
    assert!(!format!("{e:?}").contains(cut), "{e:?}");
    assert_eq!(e[0], RoutedEvent::ArtifactDelta { text: "plan [/artifact:\u{FFFD}] [/ARTIFACT: \u{FFFD}]".into() });
    assert_eq!(e[1], RoutedEvent::UserDelta { text: "OK? [/USER:\u{FFFD}0]".into() });
    assert_eq!(done(&e), (true, false, Some("length".into())));
}

/// An OpenAI Chat stream whose content deltas are `pieces`.
fn chat_stream(pieces: &[&str]) -> String {
    let mut s = String::new();
    for p in pieces {
        let content = serde_json::to_string(p).unwrap();
        s.push_str(&format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{content}}}}}]}}\n\n"));
    }
    s.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    s
}

#[test]
fn thought_and_answer_keep_the_action_order() {
    for (pieces, thought_first) in [
        (vec!["{\"thought\": \"T", "1\", \"next_node\": \"final_response\", \"args\": {\"answer\": \"A", "1\"}}"], true),
        (vec!["{\"next_node\": \"final_response\", \"args\": {\"answer\": \"A", "1\"}, \"thought\": \"T", "1\"}"], false),
        (vec!["{\"next_node\": \"final_response\", \"args\": {\"answer\": \"A1\"}, \"thought\": \"T1\"}"], false),
    ] {
        let input = chat_stream(&pieces);
        let e = route_str(Provider::Auto, ContentMode::ActionJson, &input);
        let kinds: Vec<&str> = e
            .iter()
            .map(|e| match e {
                RoutedEvent::AnswerDelta { text, .. } if text == "A1" => "A",
                RoutedEvent::ThinkingDelta { text, .. } if text == "T1" => "T",
                RoutedEvent::Action { .. } => "action",
                RoutedEvent::Done { .. } => "done",
                other => panic!("{other:?}"),
            })
            .collect();
        let want = if thought_first { ["T", "A", "action", "done"] } else { ["A", "T", "action", "done"] };
        assert_eq!(kinds, want, "{pieces:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// After the end, choice 0 only, tool call indices

/// `stream` (SSE text) routed as plain text content with `provider`, under every chunking.
fn routed(name: &str, provider: Provider, stream: &str) -> Vec<RoutedEvent> {
    let (nonce, _) = manifest();
    assert_chunk_invariant(name, stream.as_bytes(), |chunks| route(provider, ContentMode::Text, &nonce, chunks))
}

fn usages(events: &[RoutedEvent]) -> Vec<Usage> {
    events.iter().filter_map(|e| if let RoutedEvent::Usage(u) = e { Some(*u) } else { None }).collect()
}

fn sse(events: &[&str]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

#[test]
fn nothing_after_the_end_marker_is_routed() {
    // OpenAI chat: content after the finish reason is dropped, the usage chunk after it
    // (stream_options.include_usage) still counts, and nothing after [DONE] is read.
    let chat = sse(&[
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"A"}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"B"},"finish_reason":"stop"}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"AFTER FINISH","tool_calls":[{"index":0,"id":"x","function":{"name":"late","arguments":"{}"}}]}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#,
        "[DONE]",
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"AFTER DONE"}}],"usage":{"prompt_tokens":9}}"#,
        r#"{"error":{"message":"late","type":"late_error"}}"#,
    ]);
    for provider in [Provider::Auto, Provider::OpenAiChat] {
        let ev = routed("chat after the end", provider, &chat);
        assert_eq!(answer(&ev), "AB");
        assert_eq!(done(&ev), (true, true, Some("stop".into())));
        assert!(errors(&ev).is_empty(), "{ev:?}");
        assert!(!ev.iter().any(|e| matches!(e, RoutedEvent::ToolCallStart { .. })));
        assert_eq!(usages(&ev).len(), 1);
        assert_eq!(usages(&ev)[0].total_tokens, Some(5));
    }
    // Anthropic: nothing after message_stop.
    let anthropic = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":4}}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n\
        event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"LATE\"}}\n\n\
        event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"late\"}}\n\n";
    for provider in [Provider::Auto, Provider::Anthropic] {
        let ev = routed("anthropic after message_stop", provider, anthropic);
        assert_eq!(answer(&ev), "hi");
        assert_eq!(done(&ev), (true, true, Some("end_turn".into())));
    }
    // Anthropic: no content block after the stop reason either (text or a tool call).
    let anthropic = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":4}}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n\
        event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"LATE\"}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n\
        event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    for provider in [Provider::Auto, Provider::Anthropic] {
        let ev = routed("anthropic after the stop reason", provider, anthropic);
        assert_eq!(answer(&ev), "hi");
        assert!(!ev.iter().any(|e| matches!(e, RoutedEvent::ToolCallStart { .. })), "{ev:?}");
        assert_eq!(done(&ev), (true, true, Some("end_turn".into())));
    }
    // Responses: nothing after response.completed.
    let responses = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"ok\"}\n\n\
        event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n\
        event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"LATE\"}\n\n\
        event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\"}}\n\n";
    for provider in [Provider::Auto, Provider::OpenAiResponses] {
        let ev = routed("responses after completed", provider, responses);
        assert_eq!(answer(&ev), "ok");
        assert_eq!(done(&ev), (true, true, Some("completed".into())));
    }
    // Ollama: nothing after the `done: true` line.
    let ollama = concat!(
        r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"A"},"done":false}"#,
        "\n",
        r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}"#,
        "\n",
        r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":"LATE"},"done":false}"#,
        "\n",
    );
    for provider in [Provider::Auto, Provider::Ollama] {
        let ev = routed("ollama after done", provider, ollama);
        assert_eq!(answer(&ev), "A");
        assert_eq!(done(&ev), (true, true, Some("stop".into())));
    }
    // Gemini has no end marker: after a finish reason no content is routed, usage still is.
    let gemini = sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"G"}]},"finishReason":"STOP"}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"LATE"}]}}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":1}}"#,
    ]);
    for provider in [Provider::Auto, Provider::Gemini] {
        let ev = routed("gemini after finish", provider, &gemini);
        assert_eq!(answer(&ev), "G");
        assert_eq!(done(&ev), (true, true, Some("STOP".into())));
        assert_eq!(usages(&ev).len(), 1);
    }
}

#[test]
fn openai_choice_0_only() {
    // n = 2: the choices are interleaved, one per chunk, sometimes together, the index before
    // or after the delta; only choice 0 is routed, with its own finish reason.
    let chat = sse(&[
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Zero "}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":1,"delta":{"role":"assistant","content":"One "}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"is "}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"delta":{"content":"uno "},"index":1}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":1,"delta":{"content":"two"},"finish_reason":"length"},{"index":0,"delta":{"content":"first"}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"delta":{"content":"."},"index":0}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":"0","delta":{"content":" (not an index)"}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let ev = routed("openai n=2", Provider::OpenAiChat, &chat);
    assert_eq!(answer(&ev), "Zero is first.");
    assert_eq!(done(&ev), (true, true, Some("stop".into())));
    // A choice without an index is choice 0 when it is the first.
    let plain = sse(&[r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#, "[DONE]"]);
    assert_eq!(answer(&routed("no index", Provider::OpenAiChat, &plain)), "a");
    // Once the choice with index 0 is read, the rest of the array is only skipped (a second
    // `index: 0` is not choice 0 again), but it must still be well-formed JSON.
    let twice = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"}},{"index":2,"delta":{"content":"c"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"d"}},{"index":1,"delta":{"content":"e"}]}"#,
        "[DONE]",
    ]);
    let ev = routed("index 0 twice", Provider::OpenAiChat, &twice);
    assert_eq!(answer(&ev), "ad");
    assert_eq!(errors(&ev), ["provider_event_invalid"]);
}

#[test]
fn tool_call_indices_that_are_not_indices_are_provider_errors() {
    let call = |index: &str, extra: &str, args: &str| {
        format!(
            r#"{{"object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{index}{extra},"function":{{"arguments":"{args}"}}}}]}}}}]}}"#
        )
    };
    let first = r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"f","arguments":"{\"a\":"}}]}}]}"#;
    let stream = sse(&[
        first,
        &call("-1", r#","id":"neg","type":"function""#, "9"),
        &call(r#""0""#, "", "8"),
        &call("4294967296", "", "7"),
        &call("0.5", "", "6"),
        &call("0", "", "1}"),
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    let ev = routed("chat tool call indices", Provider::OpenAiChat, &stream);
    assert_eq!(errors(&ev), ["provider_error"; 4]);
    let calls: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { index, id, arguments, .. } => Some((*index, id.clone(), arguments.to_json())),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [(0, "c0".to_string(), r#"{"a":1}"#.to_string())]);
    assert!(!done(&ev).0, "a provider error: done.ok is false");
    // The largest index is still one.
    let top =
        sse(&[&call("4294967295", r#","id":"top""#, "{}").replace(r#""function":{"#, r#""function":{"name":"g","#), "[DONE]"]);
    let ev = routed("chat top index", Provider::OpenAiChat, &top);
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert!(ev.iter().any(|e| matches!(e, RoutedEvent::ToolCall { index: 4294967295, .. })));
    // Anthropic content blocks and Responses items: the same rule.
    let anthropic = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t0\",\"name\":\"f\",\"input\":{}}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"x\\\":9\"}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":\"1\",\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"g\",\"input\":{}}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"x\\\":1}\"}}\n\n\
        event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let ev = routed("anthropic tool call indices", Provider::Anthropic, anthropic);
    assert_eq!(errors(&ev), ["provider_error"; 2]);
    let calls: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { id, arguments, .. } => Some((id.clone(), arguments.to_json())),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [("t0".to_string(), r#"{"x":1}"#.to_string())]);
    let responses = "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":-1,\"item\":{\"type\":\"function_call\",\"call_id\":\"r1\",\"name\":\"f\",\"arguments\":\"\"}}\n\n\
        event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n";
    let ev = routed("responses tool call indices", Provider::OpenAiResponses, responses);
    assert_eq!(errors(&ev), ["provider_error"]);
    assert!(!ev.iter().any(|e| matches!(e, RoutedEvent::ToolCallStart { .. })));
}

// ---- NDJSON (Ollama) and the binary event-stream framing (Bedrock) --------------------------

#[test]
fn ollama_chat_generate_tools_and_errors() {
    let e = events_of("ollama-chat.ndjson");
    assert_eq!(answer(&e), "こんにちは, café 😀!");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "The user wants a greeting in Japanese.");
    assert_eq!(done(&e), (true, true, Some("stop".into())));
    assert_eq!(
        last_usage(&e),
        Usage { input_tokens: Some(18), output_tokens: Some(11), total_tokens: Some(29), ..Usage::default() }
    );

    let e = events_of("ollama-tools.ndjson");
    let calls = tool_calls(&e);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0], (0, "call_0".into(), "get_weather".into(), r#"{"city":"Zürich","unit":"celsius"}"#.into(), false));
    assert_eq!(calls[1], (1, "call_1".into(), "get_time".into(), r#"{"timezone":"Europe/Zurich"}"#.into(), false));

    let e = events_of("ollama-generate.ndjson");
    assert_eq!(answer(&e), "Rust is fast.");
    assert_eq!(done(&e), (true, true, Some("length".into())));

    let e = events_of("ollama-error.ndjson");
    assert_eq!(answer(&e), "Partial");
    assert_eq!(errors(&e)[0], "provider_error");
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::Error { message, .. } if message.contains("unexpected EOF"))));
    assert!(!done(&e).0, "an errored stream is not ok");
}

#[test]
fn bedrock_text_reasoning_tools_usage_and_exceptions() {
    let e = events_of("bedrock-text.bin");
    assert_eq!(answer(&e), "Hello from Bedrock — naïve café 😀");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "A short greeting will do.");
    assert_eq!(done(&e), (true, true, Some("end_turn".into())));
    assert_eq!(
        last_usage(&e),
        Usage {
            // 21 not read from the cache and 4 read from it (the sample's total leaves them out).
            input_tokens: Some(25),
            output_tokens: Some(14),
            total_tokens: Some(35),
            cached_input_tokens: Some(4),
            ..Usage::default()
        }
    );

    let e = events_of("bedrock-tools.bin");
    assert_eq!(answer(&e), "Checking the weather.");
    let calls = tool_calls(&e);
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0],
        (1, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q".into(), "get_weather".into(), r#"{"city":"Lisboa","unit":"celsius"}"#.into(), false)
    );
    assert_eq!(calls[1].2, "get_time");
    assert_eq!(done(&e), (true, true, Some("tool_use".into())));

    let e = events_of("bedrock-error.bin");
    assert_eq!(answer(&e), "Partial answer");
    assert_eq!(errors(&e), vec!["throttlingException".to_string()]);
    assert!(!done(&e).0, "an errored stream is not ok");
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::Error { message, .. } if message.starts_with("Too many requests"))));
}

fn bedrock_bytes(file: &str) -> Vec<u8> {
    std::fs::read(format!("{STREAMS}{file}")).expect("sample")
}

#[test]
fn bedrock_corrupt_and_truncated_frames_are_typed_errors_at_an_offset() {
    let good = bedrock_bytes("bedrock-tools.bin");
    let first_len = u32::from_be_bytes([good[0], good[1], good[2], good[3]]) as usize;
    let feed_all = |bytes: &[u8]| -> (Vec<RoutedEvent>, streamroute::Error) {
        let mut r = StreamRouter::new(StreamRouterOptions { provider: Provider::Bedrock, ..StreamRouterOptions::default() })
            .expect("router");
        let mut out = Vec::new();
        let e = r.feed(bytes, &mut out).and_then(|()| r.finish(&mut out)).expect_err("corrupt");
        (out, e)
    };
    // A flipped payload byte in the second message: its message CRC fails; the first
    // message's events stand.
    let mut bad = good.clone();
    bad[first_len + 20] ^= 0x40;
    let (_, e) = feed_all(&bad);
    assert_eq!(e.code(), "eventstream_invalid");
    assert!(e.offset().unwrap() >= first_len as u64, "{e}");
    // A flipped prelude byte: the prelude CRC fails at the message's offset.
    let mut bad = good.clone();
    bad[first_len + 5] ^= 0x01;
    let (_, e) = feed_all(&bad);
    assert_eq!((e.code(), e.offset()), ("eventstream_invalid", Some(first_len as u64)));
    // Cut in the middle of the third message: everything before it is routed, then the error
    // at the third message's offset.
    let second_len = u32::from_be_bytes(good[first_len..first_len + 4].try_into().unwrap()) as usize;
    let third = first_len + second_len;
    let (out, e) = feed_all(&good[..third + 30]);
    assert_eq!((e.code(), e.offset()), ("eventstream_invalid", Some(third as u64)));
    assert_eq!(answer(&out), "Checking the weather.");
    // Any truncation point, any chunking: never a panic, always a typed error or a clean end.
    for end in 0..good.len() {
        common::assert_chunk_invariant(&format!("bedrock cut at {end}"), &good[..end], |chunks| {
            let mut r = StreamRouter::new(StreamRouterOptions { provider: Provider::Bedrock, ..StreamRouterOptions::default() })
                .expect("router");
            let mut out = Vec::new();
            let mut res = Ok(());
            for c in chunks {
                res = res.and_then(|()| r.feed(c, &mut out));
            }
            let res = res.and_then(|()| r.finish(&mut out));
            (coalesce(out), res.err().map(|e| (e.code(), e.offset())))
        });
    }
}

#[test]
fn auto_tells_ndjson_and_event_streams_from_plain_text() {
    // Plain text that is JSON but not an Ollama line stays text, and streams at once.
    let mut r =
        StreamRouter::new(StreamRouterOptions { content: ContentMode::Text, ..StreamRouterOptions::default() }).expect("router");
    let mut out = Vec::new();
    r.feed(br#"{"next_node": "final_response", "args""#, &mut out).unwrap();
    assert_eq!(r.provider(), Provider::Text);
    assert_eq!(answer(&out), r#"{"next_node": "final_response", "args""#);
    // A stream that ends before a newline: a whole Ollama line still counts.
    let line = br#"{"model":"m","created_at":"t","response":"hi","done":true}"#;
    let e = route(Provider::Auto, ContentMode::Text, "", &[line]);
    assert_eq!(answer(&e), "hi");
    // A cloud model's lines name where it ran between `model` and `created_at`.
    let cloud = concat!(
        r#"{"model":"gpt-oss:120b-cloud","remote_model":"gpt-oss:120b","remote_host":"https://ollama.com:443","created_at":"t","message":{"role":"assistant","content":"","thinking":"Hmm"},"done":false}"#,
        "\n",
        r#"{"model":"gpt-oss:120b-cloud","remote_model":"gpt-oss:120b","remote_host":"https://ollama.com:443","created_at":"t","message":{"role":"assistant","content":"Hi"},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":6}"#,
        "\n",
    );
    let e = route_str(Provider::Auto, ContentMode::Text, cloud);
    assert_eq!(e, route_str(Provider::Ollama, ContentMode::Text, cloud));
    assert_eq!(answer(&e), "Hi");
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::ThinkingDelta { text, .. } if text == "Hmm")));
    // Other members between the two are not Ollama's.
    let e = route(
        Provider::Auto,
        ContentMode::Text,
        "",
        &[br#"{"model":"m","id":"x","created_at":"t","response":"hi","done":true}"#],
    );
    assert_eq!(answer(&e), r#"{"model":"m","id":"x","created_at":"t","response":"hi","done":true}"#);
    // A lone Ollama error line.
    let e = route(Provider::Auto, ContentMode::Text, "", &[b"{\"error\":\"model \\\"x\\\" not found\"}\n"]);
    assert_eq!(errors(&e)[0], "provider_error");
    // Bytes that start with a zero but carry no valid prelude are text.
    let e = route(Provider::Auto, ContentMode::Text, "", &[b"\0\0\0\x10not a prelude at all"]);
    assert_eq!(answer(&e).len(), 24);
}

// ---- the OpenAI-compatible family and Responses shapes -----------------------------------------

fn finish(events: &[RoutedEvent]) -> &'static str {
    match events.last() {
        Some(RoutedEvent::Done { finish, .. }) => finish.as_str(),
        other => panic!("last event is not done: {other:?}"),
    }
}

fn sources(events: &[RoutedEvent]) -> Vec<(Option<String>, Option<String>)> {
    events
        .iter()
        .filter_map(|e| if let RoutedEvent::Source(s) = e { Some((s.url.clone(), s.title.clone())) } else { None })
        .collect()
}

#[test]
fn chat_dialects_mistral_openrouter_azure_refusal_groq() {
    let e = events_of("openai-chat-mistral.sse");
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "Two plus two is four.");
    assert_eq!(answer(&e), "The answer is 4.");
    assert_eq!(finish(&e), "stop");

    let e = events_of("openai-chat-openrouter.sse");
    // `reasoning` and `reasoning_details` carry the same text: it is routed once.
    assert_eq!(thinking(&e, ThinkingSource::Reasoning), "Searching ");
    assert_eq!(answer(&e), "Rust 1.0 shipped in May 2015.");
    let rust = "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html".to_string();
    assert_eq!(sources(&e), vec![(Some(rust.clone()), Some("Announcing Rust 1.0".into()))], "deduplicated");
    let u = last_usage(&e);
    assert_eq!(
        (u.input_tokens, u.cached_input_tokens, u.reasoning_tokens),
        (Some(42), Some(8), Some(5)),
        "nested non-details objects do not count"
    );

    let e = events_of("openai-chat-azure.sse");
    assert_eq!(answer(&e), "Here is how ");
    assert_eq!((done(&e).2.as_deref(), finish(&e)), (Some("content_filter"), "content-filter"));
    assert!(errors(&e).is_empty());

    let e = events_of("openai-chat-refusal.sse");
    assert_eq!(answer(&e), "");
    let refusal: String =
        e.iter().filter_map(|e| if let RoutedEvent::RefusalDelta { text } = e { Some(text.as_str()) } else { None }).collect();
    assert_eq!(refusal, "I'm sorry, I can't help with that.");
    assert_eq!(last_usage(&e).total_tokens, Some(24), "Groq's x_groq.usage");
}

#[test]
fn responses_builtin_tools_custom_tools_annotations_and_nested_errors() {
    let e = events_of("openai-responses-builtin.sse");
    let starts: Vec<(String, bool)> = e
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCallStart { name, provider_executed, .. } => Some((name.clone(), *provider_executed)),
            _ => None,
        })
        .collect();
    assert_eq!(starts, vec![("web_search".into(), true), ("run_sql".into(), false)]);
    let calls = tool_calls(&e);
    assert_eq!(calls[0].3, r#"{"type":"search","query":"rust 1.0 release date"}"#);
    assert_eq!(calls[1].3, r#""SELECT \"name\" FROM crates;""#, "a custom tool's input is a string");
    let result = e.iter().find_map(|e| {
        if let RoutedEvent::ToolResult { id, result, .. } = e {
            Some((id.clone(), result.clone()))
        } else {
            None
        }
    });
    let (id, result) = result.expect("a tool_result for the web search");
    assert_eq!(id, "ws_1");
    assert_eq!(result.get("status").and_then(JsonValue::as_str), Some("completed"));
    assert_eq!(sources(&e).len(), 1);
    assert_eq!(finish(&e), "tool-calls", "completed with a client tool call");

    let e = events_of("openai-responses-quota.sse");
    let err = e.iter().find_map(|e| {
        if let RoutedEvent::Error { code, message, provider_code } = e {
            Some((code.clone(), message.clone(), provider_code.clone()))
        } else {
            None
        }
    });
    let (code, message, provider_code) = err.expect("error");
    assert_eq!(code, "insufficient_quota");
    assert!(message.starts_with("You exceeded your current quota"));
    assert_eq!(provider_code.as_deref(), Some("insufficient_quota"));
    assert_eq!(finish(&e), "error");
}

/// A `*_tool_result` block whose `tool_use_id` names no call seen (its `server_tool_use` was
/// never streamed): the result still goes out, at the block's own index, named after the
/// block type without `_tool_result`. One that names a seen call gets that call's index and
/// name.
#[test]
fn anthropic_tool_result_of_an_unseen_call_is_named_by_its_block_type() {
    let ev = |name: &str, data: &str| format!("event: {name}\ndata: {data}\n\n");
    let stream = [
        ev("message_start", r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}"#),
        ev("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_gone","content":{"type":"code_execution_result","stdout":"4\n","stderr":"","return_code":0}}}"#),
        ev("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
        ev("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"mcp_tool_use","id":"mcptoolu_1","name":"lookup","server_name":"kb","input":{}}}"#),
        ev("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\":\"x\"}"}}"#),
        ev("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
        ev("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"found"}]}}"#),
        ev("content_block_stop", r#"{"type":"content_block_stop","index":2}"#),
        ev("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#),
        ev("message_stop", r#"{"type":"message_stop"}"#),
    ]
    .concat();
    let results = assert_chunk_invariant("anthropic unseen tool result", stream.as_bytes(), |chunks| {
        route(Provider::Anthropic, ContentMode::Text, "", chunks)
            .into_iter()
            .filter_map(|e| match e {
                RoutedEvent::ToolResult { index, id, name, result } => Some((index, id, name, result.to_json())),
                _ => None,
            })
            .collect::<Vec<_>>()
    });
    assert_eq!(
        results,
        vec![
            (
                0,
                "srvtoolu_gone".to_string(),
                "code_execution".to_string(),
                r#"{"type":"code_execution_result","stdout":"4\n","stderr":"","return_code":0}"#.to_string()
            ),
            (1, "mcptoolu_1".to_string(), "lookup".to_string(), r#"[{"type":"text","text":"found"}]"#.to_string()),
        ]
    );
}

#[test]
fn anthropic_server_tools_citations_and_blocks_in_message_start() {
    let e = events_of("anthropic-server-tools.sse");
    let calls = tool_calls(&e);
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].2.as_str(), calls[0].3.as_str()), ("web_search", r#"{"query":"rust 1.0 release"}"#));
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::ToolCall { provider_executed: true, .. })));
    let result = e.iter().find_map(|e| {
        if let RoutedEvent::ToolResult { id, name, result, .. } = e {
            Some((id.clone(), name.clone(), result.clone()))
        } else {
            None
        }
    });
    let (id, name, result) = result.expect("tool_result");
    assert_eq!((id.as_str(), name.as_str()), ("srvtoolu_01", "web_search"));
    assert!(matches!(result, JsonValue::Array(ref a) if a.len() == 2));
    let urls: Vec<String> = sources(&e).into_iter().filter_map(|(u, _)| u).collect();
    assert_eq!(
        urls,
        vec!["https://blog.rust-lang.org/2015/05/15/Rust-1.0.html", "https://en.wikipedia.org/wiki/Rust_(programming_language)"]
    );
    assert_eq!(answer(&e), "Rust 1.0 was released on May 15, 2015.");
    assert_eq!(finish(&e), "stop", "a provider-executed call is not a client tool call");

    let e = events_of("anthropic-programmatic.sse");
    assert_eq!(answer(&e), "Fetching both.");
    let calls = tool_calls(&e);
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[1].1.as_str(), calls[1].3.as_str()), ("toolu_a2", r#"{"ticker":"INIT"}"#));
    assert_eq!((done(&e).2.as_deref(), finish(&e)), (Some("tool_use"), "tool-calls"));
}

#[test]
fn gemini_partial_args_code_execution_grounding_and_blocks() {
    let e = events_of("gemini-partial-args.sse");
    let calls = tool_calls(&e);
    assert_eq!(calls.len(), 2, "one call per function call, however many parts");
    assert_eq!(calls[0].2, "get_weather");
    assert_eq!(calls[0].3, r#"{"location":"São Paulo","days":3,"units":["celsius"],"detail":{"hourly":true}}"#);
    assert_eq!((calls[1].2.as_str(), calls[1].3.as_str()), ("get_time", r#"{"zone":"America/Sao_Paulo"}"#));
    assert_eq!((done(&e).2.as_deref(), finish(&e)), (Some("STOP"), "tool-calls"));
    let u = last_usage(&e);
    assert_eq!((u.reasoning_tokens, u.cached_input_tokens), (Some(20), Some(16)));

    let e = events_of("gemini-code-grounding.sse");
    assert_eq!(answer(&e), "Let me compute that. The sum is 5050, as Gauss found.");
    let calls = tool_calls(&e);
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].2.as_str(), calls[0].3.as_str()),
        ("code_execution", r#"{"language":"PYTHON","code":"print(sum(range(101)))"}"#)
    );
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::ToolCall { provider_executed: true, .. })));
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::ToolResult { result, .. } if result.get("output").and_then(JsonValue::as_str) == Some("5050\n"))));
    assert_eq!(sources(&e).len(), 2);
    assert_eq!(finish(&e), "stop");

    let e = events_of("gemini-blocked.sse");
    assert_eq!(errors(&e), vec!["SAFETY".to_string()]);
    assert_eq!(finish(&e), "content-filter");
}

/// A prelude with `total` and `headers` lengths and a valid prelude CRC, then `body` zeros.
fn prelude(total: u32, headers: u32, body: usize) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&total.to_be_bytes());
    m.extend_from_slice(&headers.to_be_bytes());
    let crc = crc32(&m);
    m.extend_from_slice(&crc.to_be_bytes());
    m.resize(12 + body, 0);
    m
}

#[test]
fn bedrock_prelude_lengths_the_framing_does_not_allow_are_eventstream_invalid() {
    // The error's code and offset, and whether it says the lengths are impossible.
    let run = |max_event_bytes: usize, bytes: &[u8]| {
        common::assert_chunk_invariant("bedrock prelude", bytes, |chunks| {
            let opts = StreamRouterOptions { provider: Provider::Bedrock, max_event_bytes, ..StreamRouterOptions::default() };
            let mut r = StreamRouter::new(opts).expect("router");
            let mut out = Vec::new();
            let mut res = Ok(());
            for c in chunks {
                res = res.and_then(|()| r.feed(c, &mut out));
            }
            res.and_then(|()| r.finish(&mut out)).map_err(|e| (e.code(), e.offset(), e.message().contains("impossible")))
        })
    };
    let def = StreamRouterOptions::default().max_event_bytes;
    let impossible = Err(("eventstream_invalid", Some(0), true));
    // More than 16 MiB of payload, or more than 128 KiB of headers: no valid message.
    assert_eq!(run(def, &prelude(0xFFFF_FFF0, 0, 4)), impossible);
    assert_eq!(run(def, &prelude((16 << 20) + 17, 0, 4)), impossible);
    assert_eq!(run(def, &prelude(1 << 20, (128 << 10) + 1, 4)), impossible);
    assert_eq!(run(32 << 20, &prelude((16 << 20) + 17, 0, 4)), impossible);
    // Possible but larger than the router accepts (maxEventBytes + 64 KiB): the cap.
    let largest = def + (64 << 10);
    assert_eq!(run(def, &prelude(largest as u32 + 1, 0, 4)), Err(("buffer_limit_exceeded", Some(0), false)));
    // At the largest size the message is read: here cut short, so the stream ends inside it.
    assert_eq!(run(def, &prelude(largest as u32, 0, 4)), Err(("eventstream_invalid", Some(0), false)));
    // A router that takes more reads the framing's largest message (16 MiB of payload).
    assert_eq!(run(32 << 20, &prelude((16 << 20) + 16, 0, 4)), Err(("eventstream_invalid", Some(0), false)));
}

#[test]
fn a_refusal_finishes_as_content_filter_for_every_provider() {
    let chat = "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can't help with that.\"},\"finish_reason\":null}]}\n\n\
        data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
        data: [DONE]\n\n";
    let responses = "event: response.refusal.delta\ndata: {\"type\":\"response.refusal.delta\",\"sequence_number\":1,\"output_index\":0,\"content_index\":0,\"delta\":\"I can't help with that.\"}\n\n\
        event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2,\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n";
    let anthropic = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1}}}\n\n\
        event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"},\"usage\":{\"output_tokens\":1}}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    for (provider, stream, reason) in [
        (Provider::OpenAiChat, chat, "stop"),
        (Provider::OpenAiResponses, responses, "completed"),
        (Provider::Anthropic, anthropic, "refusal"),
    ] {
        for p in [provider, Provider::Auto] {
            let got = common::assert_chunk_invariant(provider.as_str(), stream.as_bytes(), |chunks| {
                let e = route(p, ContentMode::Text, "", chunks);
                (done(&e), finish(&e))
            });
            assert_eq!(got, ((true, true, Some(reason.to_string())), "content-filter"), "{}", provider.as_str());
        }
    }
    // The bundled OpenAI refusal too.
    assert_eq!(finish(&events_of("openai-chat-refusal.sse")), "content-filter");
}

#[test]
fn anthropic_and_bedrock_input_counts_add_the_cached_and_written_tokens() {
    // Both count the input read from and written to the prompt cache apart from the rest;
    // `input_tokens` is every input token, as OpenAI and Gemini count it. Anthropic's
    // `thinking_tokens` are the reasoning tokens.
    let sse = concat!(
        "event: message_start\n",
        r#"data: {"type":"message_start","message":{"id":"msg_c","role":"assistant","content":[],"usage":{"input_tokens":6,"cache_creation_input_tokens":3337,"cache_read_input_tokens":6289,"output_tokens":1}}}"#,
        "\n\nevent: message_delta\n",
        r#"data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":198,"output_tokens_details":{"thinking_tokens":120}}}"#,
        "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
    );
    let e = route(Provider::Auto, ContentMode::Text, "", &[sse.as_bytes()]);
    assert_eq!(
        last_usage(&e),
        Usage {
            input_tokens: Some(9632),
            output_tokens: Some(198),
            total_tokens: Some(9830),
            reasoning_tokens: Some(120),
            cached_input_tokens: Some(6289)
        }
    );

    let mut bin = bedrock_event("messageStart", r#"{"role":"assistant"}"#);
    bin.extend(bedrock_event("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#));
    bin.extend(bedrock_event("messageStop", r#"{"stopReason":"end_turn"}"#));
    bin.extend(bedrock_event(
        "metadata",
        r#"{"usage":{"inputTokens":4,"outputTokens":150,"totalTokens":3154,"cacheReadInputTokens":0,"cacheWriteInputTokens":3000}}"#,
    ));
    let e =
        common::assert_chunk_invariant("bedrock cache", &bin, |chunks| route(Provider::Bedrock, ContentMode::Text, "", chunks));
    assert_eq!(
        last_usage(&e),
        Usage {
            input_tokens: Some(3004),
            output_tokens: Some(150),
            total_tokens: Some(3154),
            reasoning_tokens: None,
            cached_input_tokens: Some(0)
        }
    );
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

/// One Bedrock event-stream message: an `event` of `event_type` with a JSON payload.
fn bedrock_event(event_type: &str, payload: &str) -> Vec<u8> {
    let mut headers = Vec::new();
    for (name, value) in [(":event-type", event_type), (":content-type", "application/json"), (":message-type", "event")] {
        headers.push(u8::try_from(name.len()).expect("name"));
        headers.extend_from_slice(name.as_bytes());
        headers.push(7);
        headers.extend_from_slice(&u16::try_from(value.len()).expect("value").to_be_bytes());
        headers.extend_from_slice(value.as_bytes());
    }
    let total = u32::try_from(12 + headers.len() + payload.len() + 4).expect("total");
    let mut m = Vec::new();
    m.extend_from_slice(&total.to_be_bytes());
    m.extend_from_slice(&u32::try_from(headers.len()).expect("headers").to_be_bytes());
    let prelude_crc = crc32(&m);
    m.extend_from_slice(&prelude_crc.to_be_bytes());
    m.extend_from_slice(&headers);
    m.extend_from_slice(payload.as_bytes());
    let message_crc = crc32(&m);
    m.extend_from_slice(&message_crc.to_be_bytes());
    m
}
