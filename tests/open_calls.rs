//! No tool call is lost or emitted with arguments it did not receive, however many are open
//! at once: open calls have no count cap, they count against the router's one budget
//! (`max_buffer_bytes`), and passing it is `buffer_limit_exceeded` naming it.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::route_chunks;
use serde_json::json;
use streamroute::{encode_eventstream_message, JsonValue, Provider, RoutedEvent, StreamRouter, StreamRouterOptions};

/// More calls open at once than any fixed cap the readers had (256).
const N: u32 = 300;

fn sse(event: Option<&str>, data: serde_json::Value) -> String {
    match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

fn args(k: u32) -> String {
    format!("{{\"n\":{k}}}")
}

fn anthropic(n: u32) -> Vec<u8> {
    let ant = |t: &str, mut v: serde_json::Value| {
        v["type"] = json!(t);
        sse(Some(t), v)
    };
    let mut s =
        ant("message_start", json!({"message": {"id": "m", "role": "assistant", "content": [], "usage": {"input_tokens": 1}}}));
    for k in 0..n {
        s += &ant(
            "content_block_start",
            json!({"index": k, "content_block": {"type": "tool_use", "id": format!("t{k}"), "name": "f", "input": {}}}),
        );
    }
    for k in 0..n {
        s += &ant("content_block_delta", json!({"index": k, "delta": {"type": "input_json_delta", "partial_json": args(k)}}));
    }
    for k in 0..n {
        s += &ant("content_block_stop", json!({"index": k}));
    }
    s += &ant("message_delta", json!({"delta": {"stop_reason": "tool_use"}}));
    s += &ant("message_stop", json!({}));
    s.into_bytes()
}

fn responses(n: u32) -> Vec<u8> {
    let mut seq = 0;
    let mut ev = |t: &str, mut v: serde_json::Value| {
        v["type"] = json!(t);
        v["sequence_number"] = json!(seq);
        seq += 1;
        sse(Some(t), v)
    };
    let mut s = ev("response.created", json!({"response": {"id": "r", "status": "in_progress", "output": []}}));
    for k in 0..n {
        s += &ev(
            "response.output_item.added",
            json!({"output_index": k, "item": {"type": "function_call", "id": format!("fc{k}"), "call_id": format!("c{k}"), "name": "f", "arguments": ""}}),
        );
    }
    for k in 0..n {
        s += &ev(
            "response.function_call_arguments.delta",
            json!({"output_index": k, "item_id": format!("fc{k}"), "delta": args(k)}),
        );
    }
    for k in 0..n {
        s += &ev(
            "response.output_item.done",
            json!({"output_index": k, "item": {"type": "function_call", "id": format!("fc{k}"), "call_id": format!("c{k}"), "name": "f", "arguments": args(k)}}),
        );
    }
    s += &ev("response.completed", json!({"response": {"id": "r", "status": "completed", "output": []}}));
    s.into_bytes()
}

fn bedrock(n: u32) -> Vec<u8> {
    let msg = |t: &str, v: serde_json::Value| {
        encode_eventstream_message(
            &[(":message-type", "event"), (":event-type", t), (":content-type", "application/json")],
            v.to_string().as_bytes(),
        )
    };
    let mut s = msg("messageStart", json!({"role": "assistant"}));
    for k in 0..n {
        s.extend(msg(
            "contentBlockStart",
            json!({"contentBlockIndex": k, "start": {"toolUse": {"toolUseId": format!("t{k}"), "name": "f"}}}),
        ));
    }
    for k in 0..n {
        s.extend(msg("contentBlockDelta", json!({"contentBlockIndex": k, "delta": {"toolUse": {"input": args(k)}}})));
    }
    for k in 0..n {
        s.extend(msg("contentBlockStop", json!({"contentBlockIndex": k})));
    }
    s.extend(msg("messageStop", json!({"stopReason": "tool_use"})));
    s
}

/// OpenAI chat calls end when the next starts: many calls, one after another.
fn openai_chat(n: u32) -> Vec<u8> {
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        sse(
            None,
            json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    let mut s = String::new();
    for k in 0..n {
        s += &chunk(
            json!({"tool_calls": [{"index": k, "id": format!("t{k}"), "type": "function", "function": {"name": "f", "arguments": ""}}]}),
            None,
        );
        s += &chunk(json!({"tool_calls": [{"index": k, "function": {"arguments": args(k)}}]}), None);
    }
    s += &chunk(json!({}), Some("tool_calls"));
    s += "data: [DONE]\n\n";
    s.into_bytes()
}

/// Gemini calls arrive whole, many in one event.
fn gemini(n: u32) -> Vec<u8> {
    let parts: Vec<serde_json::Value> = (0..n).map(|k| json!({"functionCall": {"name": "f", "args": {"n": k}}})).collect();
    let mut s = sse(None, json!({"candidates": [{"content": {"role": "model", "parts": parts}}]}));
    s += &sse(None, json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]}));
    s.into_bytes()
}

/// Every routed tool call's arguments in order, and `done.ok`; or the thrown error's code.
type Outcome = Result<(Vec<JsonValue>, bool), &'static str>;

fn route(provider: Provider, max_buffer_bytes: usize, chunks: &[&[u8]]) -> Outcome {
    let out = route_chunks(StreamRouterOptions { provider, max_buffer_bytes, ..StreamRouterOptions::default() }, chunks)?;
    let calls = out
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { arguments, .. } => Some(arguments.clone()),
            _ => None,
        })
        .collect();
    let ok = out.iter().any(|e| matches!(e, RoutedEvent::Done { ok: true, .. }));
    Ok((calls, ok))
}

fn expected(n: u32) -> Vec<JsonValue> {
    (0..n).map(|k| streamroute::parse_json(&args(k), true).unwrap()).collect()
}

#[test]
fn every_open_call_keeps_its_arguments_for_every_provider() {
    for (provider, stream) in [
        (Provider::Anthropic, anthropic(N)),
        (Provider::OpenAiResponses, responses(N)),
        (Provider::Bedrock, bedrock(N)),
        (Provider::OpenAiChat, openai_chat(N)),
        (Provider::Gemini, gemini(N)),
    ] {
        let name = provider.as_str();
        let got = assert_chunk_invariant(name, &stream, |chunks| route(provider, 16 << 20, chunks));
        assert_eq!(got, Ok((expected(N), true)), "{name}");
        // auto finds the same.
        assert_eq!(route(Provider::Auto, 16 << 20, &[&stream]), Ok((expected(N), true)), "{name} auto");
    }
}

#[test]
fn open_calls_past_the_budget_are_buffer_limit_exceeded() {
    // Each open Anthropic call keeps its id ("t0".."t299") and name ("f"), 64 bytes of
    // bookkeeping and its arguments; every call started is charged 16 bytes more; the open
    // message's id ("m") is kept too.
    let stream = anthropic(N);
    let per_call = |k: u32| 16 + 64 + format!("t{k}").len() + 1 + args(k).len();
    let need: usize = (0..N).map(per_call).sum::<usize>() + 1;
    assert_eq!(assert_chunk_invariant("fits", &stream, |c| route(Provider::Anthropic, need, c)), Ok((expected(N), true)));
    assert_eq!(
        assert_chunk_invariant("over", &stream, |c| route(Provider::Anthropic, need - 1, c)),
        Err("buffer_limit_exceeded")
    );
    // The error names the cap.
    let mut r =
        StreamRouter::new(StreamRouterOptions { provider: Provider::Anthropic, max_buffer_bytes: 1000, ..Default::default() })
            .unwrap();
    let e = r.feed(&stream, &mut Vec::new()).unwrap_err();
    assert_eq!(e.code(), "buffer_limit_exceeded");
    assert!(e.message().contains("maxBufferBytes") && e.message().contains("1000"), "{}", e.message());
}
