//! OpenAI-compatible dialects and Cohere: each bundled sample of theirs routed with `auto`
//! under every chunking gives exactly the events listed (one line per event, adjacent text
//! coalesced), and the quirks the samples do not show are checked on small streams.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::{coalesce, route_chunks};
use streamroute::{
    structured_modes, structured_request, Provider, RoutedEvent, StreamRouterOptions, StructuredMode, StructuredRequest,
};

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/streams/");

/// One line per event.
fn line(e: &RoutedEvent) -> String {
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "-".into());
    let opt_n = |o: &Option<u64>| o.map_or_else(|| "-".into(), |n| n.to_string());
    match e {
        RoutedEvent::AnswerDelta { text, .. } => format!("answer {text}"),
        RoutedEvent::ThinkingDelta { text, source } => format!("thinking {source:?} {text}"),
        RoutedEvent::RefusalDelta { text } => format!("refusal {text}"),
        RoutedEvent::ToolCallStart { index, id, name, provider_executed, .. } => {
            format!("start {index} {id} {name}{}", if *provider_executed { " provider" } else { "" })
        }
        RoutedEvent::ToolCallDelta { index, arguments } => format!("args {index} {arguments}"),
        RoutedEvent::ToolCall { index, id, name, arguments, repaired, .. } => {
            format!("call {index} {id} {name} {}{}", arguments.to_json(), if *repaired { " repaired" } else { "" })
        }
        RoutedEvent::Source(s) => {
            format!("source id={} url={} title={} snippet={}", opt(&s.id), opt(&s.url), opt(&s.title), opt(&s.snippet))
        }
        RoutedEvent::Usage(u) => format!(
            "usage in={} out={} total={} reasoning={} cached={}",
            opt_n(&u.input_tokens),
            opt_n(&u.output_tokens),
            opt_n(&u.total_tokens),
            opt_n(&u.reasoning_tokens),
            opt_n(&u.cached_input_tokens)
        ),
        RoutedEvent::Continuation { kind, fields } => format!("continuation {kind} {}", fields.to_json()),
        RoutedEvent::Error { code, message, .. } => format!("error {code}: {message}"),
        RoutedEvent::Done { ok, finish_reason, finish, .. } => format!("done ok={ok} {} {}", opt(finish_reason), finish.as_str()),
        other => format!("{other:?}"),
    }
}

/// A stream's events as lines, the same under every chunking (`auto`, or `provider`).
fn lines_of(name: &str, bytes: &[u8], provider: Provider) -> Vec<String> {
    assert_chunk_invariant(name, bytes, |chunks| {
        let out = route_chunks(StreamRouterOptions { provider, ..StreamRouterOptions::default() }, chunks).expect("route");
        coalesce(out).iter().map(line).collect::<Vec<_>>()
    })
}

/// A bundled sample's lines; routed as `named` gives the same as `auto`.
fn sample(file: &str, named: Provider) -> Vec<String> {
    let bytes = std::fs::read(format!("{STREAMS}{file}")).expect("sample");
    let auto = lines_of(&format!("{file} auto"), &bytes, Provider::Auto);
    assert_eq!(lines_of(&format!("{file} {}", named.as_str()), &bytes, named), auto, "{file}");
    auto
}

/// `data:` events from JSON texts.
fn sse(events: &[&str]) -> Vec<u8> {
    events.iter().map(|e| format!("data: {e}\n\n")).collect::<String>().into_bytes()
}

#[test]
fn deepseek_reasoning_first_whole_calls_and_cache_hits() {
    assert_eq!(
        sample("openai-chat-deepseek.sse", Provider::OpenAiChat),
        [
            "thinking Reasoning The tide table needs the harbour name. Brest it is.",
            "answer Checking Brest.",
            "start 0 call_00_Qm7tXw2LbR9s tide_table",
            r#"args 0 {"harbour": "Brest", "days": 2}"#,
            r#"call 0 call_00_Qm7tXw2LbR9s tide_table {"harbour":"Brest","days":2}"#,
            "start 1 call_01_Vp3kHd8NcT4e moon_phase",
            r#"args 1 {"date": "2026-01-05"}"#,
            "usage in=412 out=96 total=508 reasoning=41 cached=384",
            r#"call 1 call_01_Vp3kHd8NcT4e moon_phase {"date":"2026-01-05"}"#,
            "done ok=true tool_calls tool-calls",
        ]
    );
}

#[test]
fn groq_reasoning_parallel_calls_in_one_delta_and_x_groq_usage() {
    assert_eq!(
        sample("openai-chat-groq.sse", Provider::OpenAiChat),
        [
            "thinking Reasoning Two rooms to book; one call each.",
            "start 0 fc_4kd9 book_room",
            r#"args 0 {"room":"Ada","hour":9}"#,
            r#"call 0 fc_4kd9 book_room {"room":"Ada","hour":9}"#,
            "start 1 fc_7xq2 book_room",
            r#"args 1 {"room":"Lovelace","hour":14}"#,
            "usage in=233 out=58 total=291 reasoning=12 cached=128",
            r#"call 1 fc_7xq2 book_room {"room":"Lovelace","hour":14}"#,
            "done ok=true tool_calls tool-calls",
        ]
    );
}

#[test]
fn perplexity_sources_once_each_with_their_titles_and_deltas_not_messages() {
    assert_eq!(
        sample("openai-chat-perplexity.sse", Provider::OpenAiChat),
        [
            "usage in=9 out=1 total=10 reasoning=- cached=-",
            "source id=- url=https://www.iso.org/iso-8601-date-and-time-format.html title=ISO 8601 — Date and time format snippet=ISO 8601 is an international standard",
            "source id=- url=https://en.wikipedia.org/wiki/ISO_8601 title=ISO 8601 snippet=-",
            "answer ISO",
            "usage in=9 out=7 total=16 reasoning=- cached=-",
            "answer  8601 writes dates year first[1][2].",
            "usage in=9 out=9 total=18 reasoning=- cached=-",
            "done ok=true stop stop",
        ]
    );
}

#[test]
fn compatible_server_one_reasoning_field_late_names_and_a_reused_index() {
    assert_eq!(
        sample("openai-chat-compat-tools.sse", Provider::OpenAiChat),
        [
            "thinking Reasoning Convert, then round.",
            "start 0 chatcmpl-tool-a1 convert",
            r#"args 0 {"amount": 12.5, "from": "EUR", "to": "JPY"}"#,
            r#"call 0 chatcmpl-tool-a1 convert {"amount":12.5,"from":"EUR","to":"JPY"}"#,
            "start 1 chatcmpl-tool-b2 round",
            r#"args 1 {"digits": 0}"#,
            r#"call 1 chatcmpl-tool-b2 round {"digits":0}"#,
            "usage in=188 out=63 total=251 reasoning=- cached=-",
            "done ok=true tool_calls tool-calls",
        ]
    );
}

#[test]
fn gemini_compatible_calls_without_index_and_their_thought_signature() {
    assert_eq!(
        sample("openai-chat-gemini-compat.sse", Provider::OpenAiChat),
        [
            "answer Looking both up.",
            "start 0 function-call-1101 local_time",
            r#"args 0 {"city":"Oslo"}"#,
            r#"continuation thought_signature {"thoughtSignature":"CqQBAdHtim8sig0001","index":0}"#,
            r#"call 0 function-call-1101 local_time {"city":"Oslo"}"#,
            "start 1 function-call-1102 local_time",
            r#"args 1 {"city":"Lima"}"#,
            "usage in=57 out=31 total=122 reasoning=34 cached=-",
            r#"call 1 function-call-1102 local_time {"city":"Lima"}"#,
            "done ok=true tool_calls tool-calls",
        ]
    );
}

#[test]
fn openrouter_reasoning_details_and_an_error_inside_a_chunk() {
    assert_eq!(
        sample("openai-chat-openrouter-error.sse", Provider::OpenAiChat),
        [
            "thinking Reasoning Short answer.",
            "answer The bridge opened in ",
            "error 502: Provider returned error",
            "done ok=false error error",
        ]
    );
}

#[test]
fn mistral_thinking_before_text_and_calls_without_index() {
    assert_eq!(
        sample("openai-chat-mistral-tools.sse", Provider::OpenAiChat),
        [
            "thinking Reasoning The user wants two stations. Both in one go.",
            "answer Fetching both now.",
            "start 0 Rb7kQ2xWm station",
            r#"args 0 {"code": "GVA"}"#,
            r#"call 0 Rb7kQ2xWm station {"code":"GVA"}"#,
            "start 1 Lp4nV8cTz station",
            r#"args 1 {"code": "ZRH"}"#,
            "usage in=140 out=41 total=181 reasoning=- cached=-",
            r#"call 1 Lp4nV8cTz station {"code":"ZRH"}"#,
            "done ok=true tool_calls tool-calls",
        ]
    );
}

#[test]
fn cohere_thinking_text_citations_and_token_usage() {
    assert_eq!(
        sample("cohere-chat.sse", Provider::Cohere),
        [
            "thinking Reasoning Both documents mention the lighthouse.",
            "answer The lighthouse at Fanad Head was first lit in 1817 — über 200 Jahre.",
            "source id=doc:0 url=- title=Fanad Head snippet=Fanad Head Lighthouse was first lit on 17 March 1817.",
            "source id=doc:1 url=https://www.irishlights.ie/ title=Irish Lights snippet=Fanad Head stands on the Fanad peninsula.",
            "usage in=902 out=44 total=946 reasoning=- cached=640",
            "done ok=true COMPLETE stop",
        ]
    );
}

#[test]
fn cohere_tool_plan_and_client_calls() {
    assert_eq!(
        sample("cohere-tools.sse", Provider::Cohere),
        [
            "thinking Reasoning I will look up the flight, then the gate.",
            "start 0 flight_status_3vq8m2kd1x7p flight_status",
            r#"args 0 {"flight": "SK1463"}"#,
            r#"call 0 flight_status_3vq8m2kd1x7p flight_status {"flight":"SK1463"}"#,
            "start 1 gate_info_9wz4t6hb0r2c gate_info",
            "call 1 gate_info_9wz4t6hb0r2c gate_info {}",
            "usage in=1320 out=70 total=1390 reasoning=- cached=-",
            "done ok=true TOOL_CALL tool-calls",
        ]
    );
}

#[test]
fn cohere_error_at_message_end() {
    assert_eq!(
        sample("cohere-error.sse", Provider::Cohere),
        [
            "answer Partial ans",
            "error provider_error: internal server error, please try again",
            "usage in=480 out=3 total=483 reasoning=- cached=-",
            "done ok=false ERROR error",
        ]
    );
}

#[test]
fn cohere_finish_reasons_event_names_and_bad_indices() {
    let end = |reason: &str| format!(r#"{{"type":"message-end","delta":{{"finish_reason":"{reason}"}}}}"#);
    for (reason, finish) in [("STOP_SEQUENCE", "stop"), ("MAX_TOKENS", "length"), ("TIMEOUT", "other")] {
        let bytes = sse(&[r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"x"}}}}"#, &end(reason)]);
        assert_eq!(lines_of(reason, &bytes, Provider::Auto), ["answer x".to_string(), format!("done ok=true {reason} {finish}")]);
    }
    // Without `type` in the data, the `event:` line names the event.
    let named = b"event: content-delta\ndata: {\"index\":0,\"delta\":{\"message\":{\"content\":{\"text\":\"y\"}}}}\n\n";
    assert_eq!(
        lines_of("event name", named, Provider::Cohere),
        [
            "answer y",
            "error stream_truncated: the stream ended without its end marker or a finish reason",
            "done ok=false - error"
        ]
    );
    // A tool call index that is not one is reported and its events dropped; nothing after
    // `message-end` is routed.
    let bytes = sse(&[
        r#"{"type":"tool-call-start","index":-1,"delta":{"message":{"tool_calls":{"id":"a","function":{"name":"f","arguments":""}}}}}"#,
        r#"{"type":"tool-call-delta","index":-1,"delta":{"message":{"tool_calls":{"function":{"arguments":"{}"}}}}}"#,
        r#"{"type":"tool-call-delta","index":3,"delta":{"message":{"tool_calls":{"function":{"arguments":"{}"}}}}}"#,
        &end("COMPLETE"),
        r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"late"}}}}"#,
    ]);
    let bad = "error provider_error: a tool call event with index -1, not a whole number from 0 to 4294967295, was dropped";
    assert_eq!(lines_of("bad index", &bytes, Provider::Auto), [bad, bad, "done ok=false COMPLETE error"]);
}

#[test]
fn a_call_that_never_gets_a_name_is_dropped_with_an_error() {
    let bytes = sse(&[
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{\"a\":"}}]}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}"#,
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(
        lines_of("unnamed", &bytes, Provider::Auto),
        ["error provider_error: tool call 0 never got a name and was dropped", "done ok=false tool_calls error"]
    );
    // The held argument text counts against the router's buffer budget.
    let big = format!(
        r#"{{"object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"function":{{"arguments":"\"{}\""}}}}]}}}}]}}"#,
        "x".repeat(4096)
    );
    let bytes = sse(&[&big]);
    let got = route_chunks(
        StreamRouterOptions { provider: Provider::OpenAiChat, max_buffer_bytes: 1024, ..StreamRouterOptions::default() },
        &[&bytes],
    );
    assert!(
        matches!(&got, Err("buffer_limit_exceeded"))
            || matches!(&got, Ok(e) if e.iter().any(|e| matches!(e, RoutedEvent::Error { code, .. } if code == "buffer_limit_exceeded"))),
        "{got:?}"
    );
}

#[test]
fn reasoning_fields_one_of_them_and_string_errors() {
    let chunk = |delta: &str| format!(r#"{{"object":"chat.completion.chunk","choices":[{{"index":0,"delta":{delta}}}]}}"#);
    let bytes = sse(&[
        // reasoning_content wins over reasoning_details and reasoning.
        &chunk(r#"{"reasoning":"B","reasoning_details":[{"type":"reasoning.text","text":"C"}],"reasoning_content":"A"}"#),
        // Without it, non-empty reasoning_details win over reasoning.
        &chunk(
            r#"{"reasoning":"E","reasoning_details":[{"type":"reasoning.summary","summary":"D"},{"type":"reasoning.encrypted","data":"zz"}]}"#,
        ),
        // Empty details: reasoning.
        &chunk(r#"{"reasoning_details":[],"reasoning":"F"}"#),
        // A null reasoning_content does not hide reasoning.
        &chunk(r#"{"reasoning_content":null,"reasoning":"G"}"#),
        r#"{"error":"upstream closed the connection"}"#,
    ]);
    assert_eq!(
        lines_of("reasoning fields", &bytes, Provider::OpenAiChat),
        ["thinking Reasoning ADFG", "error provider_error: upstream closed the connection", "done ok=false - error"]
    );
}

#[test]
fn calls_continue_by_index_or_latest_and_a_new_id_is_a_new_call() {
    let chunk = |calls: &str| {
        format!(r#"{{"object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":{calls}}}}}]}}"#)
    };
    let bytes = sse(&[
        // No index: the first call, then its arguments with the id repeated.
        &chunk(r#"[{"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]"#),
        &chunk(r#"[{"id":"a","function":{"arguments":"1}"}}]"#),
        // No index, no id: the latest call.
        &chunk(r#"[{"function":{"arguments":""}}]"#),
        // Another id without index: a new call, at the next free index.
        &chunk(r#"[{"id":"b","function":{"name":"g","arguments":"{}"}}]"#),
        // Index 0 names call `a`'s slot but another id: a new call again.
        &chunk(r#"[{"index":0,"id":"c","function":{"name":"h","arguments":"{\"y\":2}"}}]"#),
        r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    ]);
    assert_eq!(
        lines_of("call identity", &bytes, Provider::OpenAiChat),
        [
            "start 0 a f",
            r#"args 0 {"x":1}"#,
            r#"call 0 a f {"x":1}"#,
            "start 1 b g",
            "args 1 {}",
            "call 1 b g {}",
            "start 2 c h",
            r#"args 2 {"y":2}"#,
            r#"call 2 c h {"y":2}"#,
            "done ok=true tool_calls tool-calls",
        ]
    );
}

#[test]
fn cohere_is_a_provider_name_with_structured_requests() {
    assert_eq!(Provider::parse("cohere").unwrap(), Provider::Cohere);
    assert_eq!(Provider::Cohere.as_str(), "cohere");
    assert!(Provider::parse("coher").unwrap_err().to_string().contains("bedrock, cohere, text"));
    assert_eq!(
        structured_modes(Provider::Cohere),
        [StructuredMode::JsonSchema, StructuredMode::Tool, StructuredMode::JsonObject, StructuredMode::Prompt]
    );
    let schema = streamroute::parse_strict(br#"{"type":"object","properties":{"city":{"type":"string"}}}"#).unwrap();
    let req = |mode| StructuredRequest {
        messages: vec![streamroute::parse_strict(br#"{"role":"user","content":"Where?"}"#).unwrap()],
        schema: schema.clone(),
        name: "place".into(),
        stream: true,
        mode: Some(mode),
        model: Some("command-a-03-2025".into()),
    };
    let body = |mode| structured_request(Provider::Cohere, &req(mode)).unwrap().0.to_json();
    assert_eq!(
        body(StructuredMode::JsonSchema),
        r#"{"model":"command-a-03-2025","messages":[{"role":"user","content":"Where?"}],"response_format":{"type":"json_object","json_schema":{"type":"object","properties":{"city":{"type":"string"}}}},"stream":true}"#
    );
    assert_eq!(
        body(StructuredMode::Tool),
        r#"{"model":"command-a-03-2025","messages":[{"role":"user","content":"Where?"}],"tools":[{"type":"function","function":{"name":"place","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],"tool_choice":"REQUIRED","stream":true}"#
    );
}

#[test]
fn legacy_completions_text_is_the_answer() {
    // `/v1/completions` (`text_completion` chunks): the text of choice 0, its finish reason and
    // the usage-only last chunk; a choice with both `text` and a `delta` reads the delta.
    let chunk = |text: &str, finish: &str| {
        format!(
            r#"{{"id":"cmpl-7","object":"text_completion","choices":[{{"text":"{text}","index":0,"logprobs":null,"finish_reason":{finish}}}]}}"#
        )
    };
    let events = [
        chunk("Tide", "null"),
        chunk(" tables \\u00e9", "null"),
        r#"{"id":"cmpl-7","object":"text_completion","choices":[{"text":"other","index":1,"finish_reason":null}]}"#.into(),
        r#"{"choices":[{"text":"ignored","index":0,"delta":{"content":" and"}}]}"#.into(),
        chunk(" moons", r#""length""#),
        r#"{"id":"cmpl-7","object":"text_completion","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9}}"#.into(),
    ];
    let refs: Vec<&str> = events.iter().map(String::as_str).collect();
    let mut bytes = sse(&refs);
    bytes.extend_from_slice(b"data: [DONE]\n\n");
    let expected =
        ["answer Tide tables \u{e9} and moons", "usage in=5 out=4 total=9 reasoning=- cached=-", "done ok=true length length"];
    assert_eq!(lines_of("completions auto", &bytes, Provider::Auto), expected);
    assert_eq!(lines_of("completions named", &bytes, Provider::OpenAiChat), expected);
}
