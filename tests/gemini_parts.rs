//! Gemini's part kinds beyond text and function calls (built-in tool parts, finish messages,
//! thought signatures) and the Interactions API stream (`gemini-interactions`), on the bundled
//! samples: each routed with `auto` at every chunking (the shared helpers), then what it
//! routes.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::coalesce;
use streamroute::{
    ContentMode, JsonValue, ModelDelta, Provider, ProviderDecoder, ProviderDecoderOptions, RoutedEvent, StreamRouter,
    StreamRouterOptions, ThinkingSource,
};

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/streams/");

fn route(provider: Provider, chunks: &[&[u8]]) -> Vec<RoutedEvent> {
    let mut r = StreamRouter::new(StreamRouterOptions { provider, content: ContentMode::Text, ..StreamRouterOptions::default() })
        .expect("router");
    let mut out = Vec::new();
    for c in chunks {
        r.feed(c, &mut out).expect("feed");
    }
    r.finish(&mut out).expect("finish");
    coalesce(out)
}

/// The sample's events with `auto`, the same at every chunking and with its provider named.
fn events_of(file: &str, provider: Provider) -> Vec<RoutedEvent> {
    let bytes = std::fs::read(format!("{STREAMS}{file}")).expect("sample");
    let auto = assert_chunk_invariant(&format!("{file} auto"), &bytes, |chunks| route(Provider::Auto, chunks));
    let named = assert_chunk_invariant(file, &bytes, |chunks| route(provider, chunks));
    assert_eq!(auto, named, "{file}: auto and {provider:?} differ");
    let mut d = ProviderDecoder::new(ProviderDecoderOptions::default());
    let mut deltas: Vec<ModelDelta> = Vec::new();
    d.feed(&bytes, &mut deltas).expect("feed");
    d.finish(&mut deltas).expect("finish");
    assert_eq!(d.provider(), provider, "{file}: detected");
    auto
}

fn answer(events: &[RoutedEvent]) -> String {
    events.iter().filter_map(|e| if let RoutedEvent::AnswerDelta { text, .. } = e { Some(text.as_str()) } else { None }).collect()
}

fn reasoning(events: &[RoutedEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ThinkingDelta { text, source: ThinkingSource::Reasoning } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// `(index, id, name, arguments as JSON text, provider_executed)` of every routed call.
fn calls(events: &[RoutedEvent]) -> Vec<(u32, String, String, String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { index, id, name, arguments, provider_executed, .. } => {
                Some((*index, id.clone(), name.clone(), arguments.to_json(), *provider_executed))
            }
            _ => None,
        })
        .collect()
}

/// `(index, id, name, result as JSON text)` of every tool result.
fn results(events: &[RoutedEvent]) -> Vec<(u32, String, String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolResult { index, id, name, result } => Some((*index, id.clone(), name.clone(), result.to_json())),
            _ => None,
        })
        .collect()
}

/// The continuations, `(kind, fields as JSON text)`, with the event before each (`None` for
/// the first event).
fn continuations(events: &[RoutedEvent]) -> Vec<(String, String, Option<&RoutedEvent>)> {
    let before = std::iter::once(None).chain(events.iter().map(Some));
    events
        .iter()
        .zip(before)
        .filter_map(|(e, before)| match e {
            RoutedEvent::Continuation { kind, fields } => Some((kind.clone(), fields.to_json(), before)),
            _ => None,
        })
        .collect()
}

fn sources(events: &[RoutedEvent]) -> Vec<(Option<String>, Option<String>)> {
    events
        .iter()
        .filter_map(|e| if let RoutedEvent::Source(s) = e { Some((s.url.clone(), s.title.clone())) } else { None })
        .collect()
}

/// `(ok, finish_reason, finish, finish_message)` of the final `done`.
fn done(events: &[RoutedEvent]) -> (bool, Option<String>, &'static str, Option<String>) {
    match events.last() {
        Some(RoutedEvent::Done { ok, finish_reason, finish, finish_message, .. }) => {
            (*ok, finish_reason.clone(), finish.as_str(), finish_message.clone())
        }
        other => panic!("last event is not done: {other:?}"),
    }
}

fn usage(events: &[RoutedEvent]) -> streamroute::Usage {
    events.iter().rev().find_map(|e| if let RoutedEvent::Usage(u) = e { Some(*u) } else { None }).expect("usage")
}

#[test]
fn gemini_built_in_tool_parts_are_provider_executed_calls_with_their_results() {
    let e = events_of("gemini-server-tools.sse", Provider::Gemini);
    assert_eq!(
        calls(&e),
        vec![
            (0, "srv_7q2".into(), "GOOGLE_SEARCH_WEB".into(), r#"{"queries":["Lisbon tram 28 timetable"]}"#.into(), true),
            (1, "call_1".into(), "set_reminder".into(), r#"{"at":"08:45","note":"Tram 28 à Graça"}"#.into(), false),
        ]
    );
    assert_eq!(
        results(&e),
        vec![(0, "srv_7q2".into(), "GOOGLE_SEARCH_WEB".into(), r#"{"search_suggestions":"tram 28 horário"}"#.into())]
    );
    assert_eq!(reasoning(&e), "**Finding the schedule** I should search first.");
    assert_eq!(answer(&e), "Tram 28 runs every 10–15 minutes. I'll book a reminder.");
    // A STOP after a client call is a tool-calls finish; the provider-executed one is not.
    assert_eq!(done(&e), (true, Some("STOP".into()), "tool-calls", None));
}

#[test]
fn gemini_thought_signatures_follow_the_part_they_sign() {
    let e = events_of("gemini-server-tools.sse", Provider::Gemini);
    let c = continuations(&e);
    let fields: Vec<(&str, &str)> = c.iter().map(|(k, f, _)| (k.as_str(), f.as_str())).collect();
    assert_eq!(
        fields,
        vec![
            ("thought_signature", r#"{"thoughtSignature":"dGhvdWdodC1zaWctMQ==","part":"thought"}"#),
            ("thought_signature", r#"{"thoughtSignature":"Y2FsbC1zaWc=","index":0}"#),
            ("thought_signature", r#"{"thoughtSignature":"dGV4dC1zaWc=","part":"text"}"#),
            ("thought_signature", r#"{"thoughtSignature":"ZnVuYy1zaWc=","index":1}"#),
            // A part with empty text that carries only a signature.
            ("thought_signature", r#"{"thoughtSignature":"ZW1wdHktc2ln","part":"text"}"#),
        ]
    );
    assert!(matches!(c[0].2, Some(RoutedEvent::ThinkingDelta { .. })));
    assert!(matches!(c[1].2, Some(RoutedEvent::ToolCall { index: 0, .. })));
    assert!(matches!(c[2].2, Some(RoutedEvent::AnswerDelta { .. })));
    assert!(matches!(c[3].2, Some(RoutedEvent::ToolCall { index: 1, .. })));

    // The existing sample's signed text part.
    let e = events_of("gemini-code-grounding.sse", Provider::Gemini);
    let c = continuations(&e);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].1, r#"{"thoughtSignature":"c2lnbmF0dXJl","part":"text"}"#);
}

#[test]
fn gemini_finish_message_goes_on_done() {
    let text = concat!(
        "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Let me call the tool.\"}]}}]}\r\n\r\n",
        "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[]},\"finishReason\":\"MALFORMED_FUNCTION_CALL\",",
        "\"finishMessage\":\"Malformed function call: set_reminder(at=08:45\"}],\"usageMetadata\":{\"promptTokenCount\":20}}\r\n\r\n",
    );
    let e = route_str(Provider::Auto, text);
    assert_eq!(e, route_str(Provider::Gemini, text));
    assert_eq!(answer(&e), "Let me call the tool.");
    assert_eq!(
        done(&e),
        (true, Some("MALFORMED_FUNCTION_CALL".into()), "error", Some("Malformed function call: set_reminder(at=08:45".into()))
    );
}

#[test]
fn interactions_text_thought_summary_signature_citation_and_usage() {
    let e = events_of("gemini-interactions-text.sse", Provider::GeminiInteractions);
    assert_eq!(reasoning(&e), "**Recalling the river** The Douro meets the sea at Porto.");
    assert_eq!(answer(&e), "The Douro flows into the Atlantic at Porto — “Foz do Douro”.");
    let c = continuations(&e);
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].0.as_str(), c[0].1.as_str()), ("thought_signature", r#"{"signature":"c3RlcC10aG91Z2h0LXNpZw=="}"#));
    assert!(matches!(c[0].2, Some(RoutedEvent::ThinkingDelta { .. })), "after the thought it signs");
    assert_eq!(sources(&e), vec![(Some("https://example.org/douro".into()), Some("example.org".into()))]);
    let u = usage(&e);
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.total_tokens, u.reasoning_tokens, u.cached_input_tokens),
        (Some(11), Some(21), Some(96), Some(64), Some(0))
    );
    assert!(calls(&e).is_empty());
    assert_eq!(done(&e), (true, Some("completed".into()), "stop", None));
}

#[test]
fn interactions_function_calls_end_with_requires_action() {
    let e = events_of("gemini-interactions-tools.sse", Provider::GeminiInteractions);
    assert_eq!(
        calls(&e),
        vec![
            (0, "fc_3k9d".into(), "get_weather".into(), r#"{"city":"Reykjavík","days":2}"#.into(), false),
            (1, "fc_7x1a".into(), "get_time".into(), r#"{"zone":"Atlantic/Reykjavik"}"#.into(), false),
        ]
    );
    // Argument text streams as it arrives.
    assert!(e.iter().any(|x| matches!(x, RoutedEvent::ToolCallDelta { index: 0, .. })));
    let c = continuations(&e);
    let fields: Vec<&str> = c.iter().map(|(_, f, _)| f.as_str()).collect();
    assert_eq!(fields, vec![r#"{"signature":"dG9vbHMtdGhvdWdodA=="}"#, r#"{"signature":"ZmMtc2ln","index":0}"#]);
    assert!(matches!(c[1].2, Some(RoutedEvent::ToolCall { index: 0, .. })), "after the call it signs");
    assert_eq!(done(&e), (true, Some("requires_action".into()), "tool-calls", None));
}

#[test]
fn interactions_built_in_tool_steps_are_provider_executed_calls_with_their_results() {
    let e = events_of("gemini-interactions-builtin.sse", Provider::GeminiInteractions);
    assert_eq!(
        calls(&e),
        vec![
            (0, "gs_51".into(), "google_search".into(), r#"{"queries":["Porto population 2025"]}"#.into(), true),
            (1, "ce_08".into(), "code_execution".into(), r#"{"language":"python","code":"print(231800 // 1000)"}"#.into(), true),
        ]
    );
    let r = results(&e);
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].0, r[0].1.as_str(), r[0].2.as_str()), (0, "gs_51", "google_search"));
    assert!(r[0].3.contains("search_suggestions"));
    assert_eq!(r[1], (1, "ce_08".into(), "code_execution".into(), r#""231\n""#.into()));
    assert_eq!(sources(&e), vec![(Some("https://example.org/porto".into()), Some("Porto facts".into()))]);
    assert_eq!(answer(&e), "Porto has about 232 thousand people.");
    assert_eq!(
        continuations(&e).iter().map(|(_, f, _)| f.clone()).collect::<Vec<_>>(),
        vec![r#"{"signature":"Y29kZS1zaWc=","index":1}"#]
    );
    assert_eq!(done(&e), (true, Some("completed".into()), "stop", None));
}

#[test]
fn interactions_error_event_fails_the_stream() {
    let e = events_of("gemini-interactions-error.sse", Provider::GeminiInteractions);
    assert_eq!(answer(&e), "Counting: 1, 2,");
    let errors: Vec<(String, String)> = e
        .iter()
        .filter_map(
            |x| if let RoutedEvent::Error { code, message, .. } = x { Some((code.clone(), message.clone())) } else { None },
        )
        .collect();
    assert_eq!(errors, vec![("RESOURCE_EXHAUSTED".into(), "Quota exceeded for interactions.".into())]);
    assert_eq!(done(&e), (false, None, "error", None));
}

/// Routes a literal stream whole (and at every chunking) with `provider`.
fn route_str(provider: Provider, text: &str) -> Vec<RoutedEvent> {
    assert_chunk_invariant(text, text.as_bytes(), |chunks| route(provider, chunks))
}

#[test]
fn interactions_are_told_apart_from_the_first_event_alone() {
    // A stream whose first event is an error event: still this format, with or without names.
    for text in [
        "data: {\"error\":{\"code\":\"INVALID_ARGUMENT\",\"message\":\"bad model\"},\"event_type\":\"error\"}\n\n",
        "event: error\ndata: {\"error\":{\"message\":\"bad model\"},\"event_type\":\"error\"}\n\n",
        "event: step.start\ndata: {\"index\":0,\"step\":{\"type\":\"model_output\"}}\n\n",
    ] {
        let mut d = ProviderDecoder::new(ProviderDecoderOptions::default());
        let mut deltas: Vec<ModelDelta> = Vec::new();
        d.feed(text.as_bytes(), &mut deltas).expect("feed");
        d.finish(&mut deltas).expect("finish");
        assert_eq!(d.provider(), Provider::GeminiInteractions, "{text}");
    }
    // A bare `{"error": {...}}` still shows no format.
    let mut d = ProviderDecoder::new(ProviderDecoderOptions::default());
    let mut deltas: Vec<ModelDelta> = Vec::new();
    d.feed(b"data: {\"error\":{\"code\":400,\"message\":\"x\"}}\n\n", &mut deltas).expect("feed");
    assert_eq!(d.provider(), Provider::Auto);
}

#[test]
fn interactions_steps_may_interleave_and_nothing_after_completed_is_read() {
    let text = concat!(
        "data: {\"index\":0,\"step\":{\"type\":\"thought\",\"summary\":[{\"type\":\"text\",\"text\":\"Plan. \"}]},\"event_type\":\"step.start\"}\n\n",
        "data: {\"index\":1,\"step\":{\"type\":\"model_output\",\"content\":[{\"type\":\"text\",\"text\":\"A\"}]},\"event_type\":\"step.start\"}\n\n",
        "data: {\"index\":0,\"delta\":{\"type\":\"thought_summary\",\"content\":{\"type\":\"text\",\"text\":\"More.\"}},\"event_type\":\"step.delta\"}\n\n",
        "data: {\"index\":1,\"delta\":{\"type\":\"text\",\"text\":\"B\"},\"event_type\":\"step.delta\"}\n\n",
        "data: {\"index\":0,\"event_type\":\"step.stop\"}\n\n",
        "data: {\"index\":1,\"event_type\":\"step.stop\"}\n\n",
        "data: {\"interaction\":{\"id\":\"\",\"status\":\"incomplete\"},\"event_type\":\"interaction.completed\"}\n\n",
        "data: {\"index\":2,\"step\":{\"type\":\"model_output\",\"content\":[{\"type\":\"text\",\"text\":\"late\"}]},\"event_type\":\"step.start\"}\n\n",
    );
    let e = route_str(Provider::Auto, text);
    assert_eq!(reasoning(&e), "Plan. More.");
    assert_eq!(answer(&e), "AB");
    assert_eq!(done(&e).1.as_deref(), Some("incomplete"));

    // A function call whose stream ends without its stop is still ended with the arguments it
    // came with (and the stream is cut: no finish).
    let text = "data: {\"index\":0,\"step\":{\"type\":\"function_call\",\"id\":\"f1\",\"name\":\"f\",\"arguments\":{\"a\":1}},\"event_type\":\"step.start\"}\n\n";
    let e = route_str(Provider::Auto, text);
    assert_eq!(calls(&e), vec![(0, "f1".into(), "f".into(), r#"{"a":1}"#.into(), false)]);
    assert!(e.iter().any(|x| matches!(x, RoutedEvent::Error { code, .. } if code == "stream_truncated")));
}

#[test]
fn interactions_structured_request_bodies() {
    use streamroute::{structured_modes, structured_request, StructuredMode, StructuredRequest};
    let json = |t: &str| streamroute::parse_json(t, true).expect("json");
    let req = StructuredRequest {
        messages: vec![json(r#"{"role":"system","content":"Be brief."}"#), json(r#"{"role":"user","content":"Quiz me"}"#)],
        schema: json(r#"{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}"#),
        name: "quiz".into(),
        stream: true,
        mode: None,
        model: Some("gemini-3-flash-preview".into()),
    };
    assert_eq!(structured_modes(Provider::GeminiInteractions)[0], StructuredMode::Tool);
    let (body, mode) = structured_request(Provider::GeminiInteractions, &req).expect("body");
    assert_eq!(mode, StructuredMode::Tool);
    assert_eq!(
        body.to_json(),
        concat!(
            r#"{"model":"gemini-3-flash-preview","input":[{"type":"user_input","content":[{"type":"text","text":"Quiz me"}]}],"#,
            r#""system_instruction":"Be brief.","tools":[{"type":"function","name":"quiz","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}],"#,
            r#""generation_config":{"tool_choice":{"allowed_tools":{"mode":"any","tools":["quiz"]}}},"stream":true}"#
        )
    );
    let req = StructuredRequest { mode: Some(StructuredMode::JsonSchema), model: None, ..req };
    let (body, _) = structured_request(Provider::GeminiInteractions, &req).expect("body");
    assert_eq!(
        body.get("response_format").map(JsonValue::to_json).as_deref(),
        Some(
            r#"[{"type":"text","mime_type":"application/json","schema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}]"#
        )
    );
}
