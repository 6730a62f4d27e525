//! Anthropic content blocks beyond text, thinking and tool use (compaction, fallback, redacted
//! thinking, container uploads, the server tools and their results), the continuations a next
//! request sends back (thinking signatures, redacted thinking, compaction fields), `caller`,
//! `stop_details`, the container, and a spliced second `message_start`; and Bedrock's
//! reasoning signatures and redacted content. Every stream runs whole, byte by byte and at
//! random splits.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::{coalesce, route_chunks};
use streamroute::{ContentMode, Finish, JsonValue, Provider, RoutedEvent, StreamRouterOptions};

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/streams/");

fn options(max_buffer_bytes: usize) -> StreamRouterOptions {
    StreamRouterOptions {
        provider: Provider::Auto,
        content: ContentMode::Text,
        max_buffer_bytes,
        ..StreamRouterOptions::default()
    }
}

/// Every event of `bytes` (adjacent text merged), the same under every chunking.
fn routed(name: &str, bytes: &[u8]) -> Vec<RoutedEvent> {
    assert_chunk_invariant(name, bytes, |chunks| {
        coalesce(route_chunks(options(StreamRouterOptions::default().max_buffer_bytes), chunks).expect("routes"))
    })
}

fn sample(file: &str) -> Vec<RoutedEvent> {
    let bytes = std::fs::read(format!("{STREAMS}{file}")).expect("sample");
    routed(file, &bytes)
}

fn sse(events: &[&str]) -> String {
    events
        .iter()
        .map(|data| {
            let kind = data.split("\"type\":\"").nth(1).and_then(|t| t.split('"').next()).unwrap_or("message");
            format!("event: {kind}\ndata: {data}\n\n")
        })
        .collect()
}

fn json(text: &str) -> JsonValue {
    streamroute::parse_json(text, true).expect("json")
}

/// The continuations, as `(kind, fields as JSON text)`.
fn continuations(events: &[RoutedEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::Continuation { kind, fields } => Some((kind.clone(), fields.to_json())),
            _ => None,
        })
        .collect()
}

fn answer(events: &[RoutedEvent]) -> String {
    events.iter().filter_map(|e| if let RoutedEvent::AnswerDelta { text, .. } = e { Some(text.as_str()) } else { None }).collect()
}

fn position(events: &[RoutedEvent], f: impl Fn(&RoutedEvent) -> bool) -> usize {
    events.iter().position(f).expect("event")
}

fn done(events: &[RoutedEvent]) -> (bool, Option<String>, Finish, Option<JsonValue>) {
    match events.last() {
        Some(RoutedEvent::Done { ok, finish_reason, finish, stop_details, .. }) => {
            (*ok, finish_reason.clone(), *finish, stop_details.clone())
        }
        other => panic!("last event is not done: {other:?}"),
    }
}

/// `(index, id, name, provider_executed, caller)` of each completed call.
fn calls(events: &[RoutedEvent]) -> Vec<(u32, String, String, bool, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { index, id, name, provider_executed, caller, .. } => {
                Some((*index, id.clone(), name.clone(), *provider_executed, caller.as_ref().map(JsonValue::to_json)))
            }
            _ => None,
        })
        .collect()
}

/// `(index, id, name)` of each result.
fn results(events: &[RoutedEvent]) -> Vec<(u32, String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolResult { index, id, name, .. } => Some((*index, id.clone(), name.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn compaction_blocks_are_compaction_text_and_their_opaque_fields_a_continuation() {
    let e = sample("anthropic-compaction.sse");
    let text: Vec<&str> =
        e.iter().filter_map(|e| if let RoutedEvent::Compaction { text } = e { Some(text.as_str()) } else { None }).collect();
    assert_eq!(
        text,
        ["## Earlier in this conversation\n\nThe user is planning a three-day trip to Lisbon and asked for café suggestions near Alfama."]
    );
    assert_eq!(answer(&e), "For Alfama, try a café near the Miradouro de Santa Luzia — quiet in the morning.");
    // The later encrypted_content replaces the null ones; it goes out at the block's end,
    // before the answer's block.
    assert_eq!(
        continuations(&e),
        [("compaction".to_string(), r#"{"encrypted_content":"Q29tcGFjdGlvblN0YXRlVjE6c2VjdGlvbnM9Mw=="}"#.to_string())]
    );
    let at = position(&e, |e| matches!(e, RoutedEvent::Continuation { .. }));
    assert!(position(&e, |e| matches!(e, RoutedEvent::Compaction { .. })) < at);
    assert!(at < position(&e, |e| matches!(e, RoutedEvent::AnswerDelta { .. })));
    assert!(done(&e).0);

    // A compaction block already complete in message_start; one without opaque fields has no
    // continuation.
    let s = sse(&[
        r#"{"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"compaction","content":"Earlier: greetings.","encrypted_content":"ZW5j"},{"type":"text","text":"Hi again."}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":4}}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let e = routed("compaction in message_start", s.as_bytes());
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::Compaction { text } if text == "Earlier: greetings.")));
    assert_eq!(continuations(&e), [("compaction".to_string(), r#"{"encrypted_content":"ZW5j"}"#.to_string())]);
    assert_eq!(answer(&e), "Hi again.");
    let s = sse(&[
        r#"{"type":"message_start","message":{"id":"m2","type":"message","role":"assistant","content":[],"usage":{"input_tokens":9}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":null}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"Summary."}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":" More."}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let e = routed("compaction without opaque fields", s.as_bytes());
    assert!(matches!(&e[1], RoutedEvent::Compaction { text } if text == "Summary. More."), "{e:?}");
    assert!(continuations(&e).is_empty());
    assert_eq!(answer(&e), "");
}

#[test]
fn server_tools_and_their_results_container_upload_and_the_container() {
    let e = sample("anthropic-server-blocks.sse");
    let c = calls(&e);
    let names: Vec<(u32, &str, bool)> = c.iter().map(|c| (c.0, c.2.as_str(), c.3)).collect();
    assert_eq!(
        names,
        [
            (1, "advisor", true),
            (3, "tool_search_tool_regex", true),
            (5, "text_editor_code_execution", true),
            (7, "bash_code_execution", true),
            (9, "web_fetch", true),
        ]
    );
    // Each result goes to its call: its index, id and tool name.
    let r = results(&e);
    assert_eq!(r, c.iter().map(|c| (c.0, c.1.clone(), c.2.clone())).collect::<Vec<_>>());
    let args: Vec<String> = e
        .iter()
        .filter_map(|e| if let RoutedEvent::ToolCall { arguments, .. } = e { Some(arguments.to_json()) } else { None })
        .collect();
    assert_eq!(args[1], r#"{"pattern":"csv|sheet","limit":3}"#);
    assert_eq!(args[4], r#"{"url":"https://example.com/regions"}"#);
    let advice = e.iter().find_map(|e| match e {
        RoutedEvent::ToolResult { name, result, .. } if name == "advisor" => Some(result.to_json()),
        _ => None,
    });
    assert_eq!(advice.as_deref(), Some(r#"{"type":"advisor_result","text":"Check the file's encoding before parsing it."}"#));
    assert_eq!(continuations(&e), [("container_upload".to_string(), r#"{"file_id":"file_01Sales2026Q3"}"#.to_string())]);
    // The same container on message_start and message_delta is one event.
    let containers: Vec<String> =
        e.iter().filter_map(|e| if let RoutedEvent::Container { fields } = e { Some(fields.to_json()) } else { None }).collect();
    assert_eq!(containers, [r#"{"id":"container_01Hq7TqZr3","expires_at":"2026-11-28T16:05:00Z"}"#]);
    assert_eq!(answer(&e), "Total sales: 2150 across both regions.");
    assert_eq!(done(&e).2, Finish::Stop, "provider-executed calls are not client tool calls");
}

#[test]
fn fallback_signatures_redacted_thinking_and_caller() {
    let e = sample("anthropic-continuations.sse");
    let fallback = e.iter().find_map(|e| match e {
        RoutedEvent::ModelFallback { from, to } => Some((from.to_json(), to.to_json())),
        _ => None,
    });
    assert_eq!(fallback, Some((r#"{"model":"claude-lyre-5"}"#.into(), r#"{"model":"claude-opus-4-8"}"#.into())));
    // One signature per thinking block, whole, right after its text.
    assert_eq!(
        continuations(&e),
        [
            ("thinking_signature".to_string(), r#"{"signature":"ErUBCkYIBxgCIkBv3q9xZm9yLXRlc3Qtb25seQ=="}"#.to_string()),
            (
                "redacted_thinking".to_string(),
                r#"{"data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"}"#
                    .to_string()
            ),
        ]
    );
    let thinking = position(&e, |e| matches!(e, RoutedEvent::ThinkingDelta { .. }));
    assert!(matches!(&e[thinking + 1], RoutedEvent::Continuation { kind, .. } if kind == "thinking_signature"));
    assert_eq!(
        calls(&e),
        [
            (3, "srvtoolu_ce_1".into(), "code_execution".into(), true, Some(r#"{"type":"direct"}"#.into())),
            (
                4,
                "toolu_rate_1".into(),
                "get_rate".into(),
                false,
                Some(r#"{"type":"code_execution_20250825","tool_id":"srvtoolu_ce_1"}"#.into())
            ),
        ]
    );
    let start_caller = e.iter().find_map(|e| match e {
        RoutedEvent::ToolCallStart { index: 4, caller, .. } => Some(caller.as_ref().map(JsonValue::to_json)),
        _ => None,
    });
    assert_eq!(start_caller, Some(Some(r#"{"type":"code_execution_20250825","tool_id":"srvtoolu_ce_1"}"#.into())));
    let (ok, reason, finish, details) = done(&e);
    assert_eq!((ok, reason.as_deref(), finish, details), (true, Some("tool_use"), Finish::ToolCalls, None));
}

#[test]
fn stop_details_go_on_done() {
    let e = sample("anthropic-refusal-details.sse");
    let (ok, reason, finish, details) = done(&e);
    assert_eq!((ok, reason.as_deref(), finish), (true, Some("refusal"), Finish::ContentFilter));
    assert_eq!(
        details,
        Some(json(
            r#"{"type":"refusal","category":"cyber","explanation":"This request was declined under the usage policy.","fallback_credit_token":"fct_01ExampleToken"}"#
        ))
    );
    assert_eq!(answer(&e), "Here is an outline of");
}

#[test]
fn bedrock_reasoning_signature_and_redacted_content_are_continuations() {
    let e = sample("bedrock-reasoning.bin");
    assert_eq!(
        continuations(&e),
        [
            ("thinking_signature".to_string(), r#"{"signature":"RXhhbXBsZVNpZ25hdHVyZVBhcnRUd28="}"#.to_string()),
            ("redacted_thinking".to_string(), r#"{"redactedContent":"UmVkYWN0ZWRSZWFzb25pbmdCbG9iMDE="}"#.to_string()),
        ]
    );
    let thinking = position(&e, |e| matches!(e, RoutedEvent::ThinkingDelta { .. }));
    assert!(matches!(&e[thinking + 1], RoutedEvent::Continuation { kind, .. } if kind == "thinking_signature"));
    assert_eq!(answer(&e), "They meet after 2 hours.");
    // The earlier sample's single signature too.
    let e = sample("bedrock-text.bin");
    assert_eq!(
        continuations(&e),
        [("thinking_signature".to_string(), r#"{"signature":"RXhhbXBsZVNpZ25hdHVyZQ=="}"#.to_string())]
    );
}

const FIRST: [&str; 5] = [
    r#"{"type":"message_start","message":{"id":"msg_a","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}"#,
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Call it."}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2lnLWE="}}"#,
    r#"{"type":"content_block_stop","index":0}"#,
];

#[test]
fn a_second_message_start_is_a_provider_error_and_nothing_of_it_is_routed() {
    let mut events: Vec<&str> = FIRST.to_vec();
    events.extend([
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"f","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"v\":\"Sp"}}"#,
        r#"{"type":"message_start","message":{"id":"msg_b","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"second"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let e = routed("spliced", sse(&events).as_bytes());
    let errors: Vec<(String, String)> = e
        .iter()
        .filter_map(
            |e| if let RoutedEvent::Error { code, message, .. } = e { Some((code.clone(), message.clone())) } else { None },
        )
        .collect();
    assert_eq!(errors.len(), 1, "{e:?}");
    assert_eq!(errors[0].0, "provider_error");
    assert!(
        errors[0].1.contains("\"msg_b\"") && errors[0].1.contains("\"msg_a\"") && errors[0].1.contains("ignored"),
        "{}",
        errors[0].1
    );
    // The first message's complete blocks stay; its open call is given up, never run; the
    // second message's text, stop reason and usage are not routed.
    assert_eq!(continuations(&e), [("thinking_signature".to_string(), r#"{"signature":"c2lnLWE="}"#.to_string())]);
    assert!(calls(&e).is_empty());
    assert_eq!(answer(&e), "");
    let (ok, reason, finish, _) = done(&e);
    assert_eq!((ok, reason, finish), (false, None, Finish::Error));

    // The same message started again is nothing new.
    let mut events: Vec<&str> = FIRST.to_vec();
    events.insert(1, FIRST[0]);
    events.extend([
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let e = routed("repeated message_start", sse(&events).as_bytes());
    assert!(!e.iter().any(|e| matches!(e, RoutedEvent::Error { .. })), "{e:?}");
    assert!(done(&e).0);
}

/// A stream cut inside a thinking block: the part of the signature is no token to send back.
#[test]
fn a_signature_cut_off_by_the_end_of_the_stream_is_dropped() {
    let e = routed("cut signature", sse(&FIRST[..4]).as_bytes());
    assert!(continuations(&e).is_empty(), "{e:?}");
    assert!(e.iter().any(|e| matches!(e, RoutedEvent::Error { code, .. } if code == "stream_truncated")));
}

#[test]
fn the_container_and_stop_details_on_message_start() {
    let s = sse(&[
        r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":1},"caller":{"type":"code_execution_20260120","tool_id":"srvtoolu_9"}}],"stop_reason":"tool_use","stop_details":null,"container":{"id":"container_9","expires_at":"2026-11-28T17:00:00Z"},"usage":{"input_tokens":3,"output_tokens":2}}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","container":{"id":"container_9","expires_at":"2026-11-28T17:30:00Z"}},"usage":{"output_tokens":2}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let e = routed("container on message_start", s.as_bytes());
    let containers: Vec<String> =
        e.iter().filter_map(|e| if let RoutedEvent::Container { fields } = e { Some(fields.to_json()) } else { None }).collect();
    // A changed container (a later expiry) is routed again.
    assert_eq!(
        containers,
        [
            r#"{"id":"container_9","expires_at":"2026-11-28T17:00:00Z"}"#,
            r#"{"id":"container_9","expires_at":"2026-11-28T17:30:00Z"}"#
        ]
    );
    assert_eq!(
        calls(&e),
        [(0, "toolu_1".into(), "f".into(), false, Some(r#"{"type":"code_execution_20260120","tool_id":"srvtoolu_9"}"#.into()))]
    );
    assert_eq!(done(&e).3, None);
}

#[test]
fn kept_signatures_and_compaction_fields_are_charged_to_the_budget() {
    let piece = "A".repeat(1000);
    let delta =
        format!(r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"signature_delta","signature":"{piece}"}}}}"#);
    let mut events: Vec<&str> = FIRST[..2].to_vec();
    for _ in 0..40 {
        events.push(&delta);
    }
    events.push(FIRST[4]);
    let s = sse(&events);
    let outcome = |limit: usize| {
        assert_chunk_invariant("long signature", s.as_bytes(), |chunks| {
            route_chunks(options(limit), chunks)
                .map(|e| continuations(&e).into_iter().map(|(k, f)| (k, f.len())).collect::<Vec<_>>())
        })
    };
    assert_eq!(outcome(16 << 10), Err("buffer_limit_exceeded"));
    assert_eq!(outcome(64 << 10), Ok(vec![("thinking_signature".to_string(), 40_000 + r#"{"signature":""}"#.len())]));

    let field = format!(
        r#"{{"type":"content_block_start","index":0,"content_block":{{"type":"compaction","content":null,"encrypted_content":"{}"}}}}"#,
        "B".repeat(20_000)
    );
    let s = sse(&[FIRST[0], &field, r#"{"type":"content_block_stop","index":0}"#]);
    let outcome = |limit: usize| {
        assert_chunk_invariant("long compaction field", s.as_bytes(), |chunks| {
            route_chunks(options(limit), chunks).map(|e| continuations(&e).len())
        })
    };
    assert_eq!(outcome(16 << 10), Err("buffer_limit_exceeded"));
    assert_eq!(outcome(64 << 10), Ok(1));
}
