//! The router's one memory budget (`max_buffer_bytes`): open tool calls, the open action
//! text and the answer the extractor holds back are counted together, a closed call gives
//! its bytes back, and whether the budget is hit does not depend on the chunking.

mod common;

use common::assert_chunk_invariant;
use serde_json::json;
use streamroute::{ContentMode, Provider, RoutedEvent, StreamRouter, StreamRouterOptions};

fn ant(event: &str, mut fields: serde_json::Value) -> String {
    fields["type"] = json!(event);
    format!("event: {event}\ndata: {fields}\n\n")
}

fn start() -> String {
    ant(
        "message_start",
        json!({"message": {"id": "m", "type": "message", "role": "assistant", "content": [],
        "model": "x", "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    )
}

fn stop() -> String {
    ant("message_delta", json!({"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}))
        + &ant("message_stop", json!({}))
}

fn tool_start(index: u32) -> String {
    // id "t<index>" and name "f": 3 bytes kept for indices below 10.
    ant(
        "content_block_start",
        json!({"index": index, "content_block": {"type": "tool_use", "id": format!("t{index}"), "name": "f", "input": {}}}),
    )
}

fn tool_args(index: u32, args: &str) -> String {
    ant("content_block_delta", json!({"index": index, "delta": {"type": "input_json_delta", "partial_json": args}}))
}

fn block_stop(index: u32) -> String {
    ant("content_block_stop", json!({"index": index}))
}

fn text_start(index: u32) -> String {
    ant("content_block_start", json!({"index": index, "content_block": {"type": "text", "text": ""}}))
}

fn text(index: u32, t: &str) -> String {
    ant("content_block_delta", json!({"index": index, "delta": {"type": "text_delta", "text": t}}))
}

/// `{"a":"xxx…"}` of exactly `len` bytes (at least 8), sent as deltas of 16 bytes.
fn args_deltas(index: u32, len: usize) -> String {
    let body = format!("{{\"a\":\"{}\"}}", "x".repeat(len - 8));
    assert_eq!(body.len(), len);
    body.as_bytes().chunks(16).map(|c| tool_args(index, std::str::from_utf8(c).unwrap())).collect()
}

/// What the Anthropic reader keeps of the open message: its id, "m".
const MESSAGE_ID: usize = 1;

/// Routes `stream` under every chunking; the outcome (`Ok` with the number of tool calls
/// and actions, or the error code) must be the same for each.
fn outcome(name: &str, stream: &str, content: ContentMode, max_buffer_bytes: usize) -> Result<(usize, usize), &'static str> {
    assert_chunk_invariant(name, stream.as_bytes(), |chunks| {
        // The open message's id ("m", from `start()`) is kept while the message is open.
        let max_buffer_bytes = max_buffer_bytes + MESSAGE_ID;
        let opts =
            StreamRouterOptions { provider: Provider::Anthropic, content, max_buffer_bytes, ..StreamRouterOptions::default() };
        let mut r = StreamRouter::new(opts).unwrap();
        let mut out = Vec::new();
        for c in chunks {
            r.feed(c, &mut out).map_err(|e| e.code())?;
        }
        r.finish(&mut out).map_err(|e| e.code())?;
        let calls = out.iter().filter(|e| matches!(e, RoutedEvent::ToolCall { .. })).count();
        let actions = out.iter().filter(|e| matches!(e, RoutedEvent::Action { .. })).count();
        Ok((calls, actions))
    })
}

#[test]
fn open_tool_calls_count_together_and_closed_ones_are_released() {
    // Four calls of 3 + 100 bytes each, all open at once; an open call is charged 64 bytes
    // more, and every call started 16 bytes until the stream ends.
    let mut open = start();
    for k in 0..4 {
        open += &tool_start(k);
    }
    for k in 0..4 {
        open += &args_deltas(k, 100);
    }
    for k in 0..4 {
        open += &block_stop(k);
    }
    open += &stop();
    assert_eq!(outcome("open calls fit", &open, ContentMode::Text, 4 * (103 + 80)), Ok((4, 0)));
    assert_eq!(outcome("open calls over", &open, ContentMode::Text, 4 * (103 + 80) - 1), Err("buffer_limit_exceeded"));

    // The same four calls one after another: each gives its bytes back when it closes (but
    // for the 16 bytes of a call started).
    let mut serial = start();
    for k in 0..4 {
        serial += &tool_start(k);
        serial += &args_deltas(k, 100);
        serial += &block_stop(k);
    }
    serial += &stop();
    assert_eq!(outcome("serial calls fit", &serial, ContentMode::Text, 103 + 64 + 4 * 16), Ok((4, 0)));
    assert_eq!(outcome("serial calls over", &serial, ContentMode::Text, 103 + 64 + 4 * 16 - 1), Err("buffer_limit_exceeded"));
}

#[test]
fn action_text_and_an_open_tool_call_count_together() {
    // The action opens, a tool call of 3 + 100 bytes runs while it is open, then it closes.
    let head = r#"{"next_node": "search", "args": {"q": ""#;
    let tail = r#"cats"}}"#;
    let action_len = head.len() + tail.len();
    let mut s = start() + &text_start(0) + &text(0, head);
    s += &tool_start(1);
    s += &args_deltas(1, 100);
    s += &block_stop(1);
    s += &text(0, tail);
    s += &block_stop(0);
    s += &stop();
    // While the call is open the action holds `head` only; at its close the call is gone.
    let together = head.len() + 103 + 80;
    assert!(together > action_len);
    assert_eq!(outcome("action + call fit", &s, ContentMode::ActionJson, together), Ok((1, 1)));
    assert_eq!(outcome("action + call over", &s, ContentMode::ActionJson, together - 1), Err("buffer_limit_exceeded"));
    // Without the call the same action fits in its own length.
    let alone = start() + &text_start(0) + &text(0, head) + &text(0, tail) + &block_stop(0) + &stop();
    assert_eq!(outcome("action alone", &alone, ContentMode::ActionJson, action_len), Ok((0, 1)));
    assert_eq!(outcome("action alone over", &alone, ContentMode::ActionJson, action_len - 1), Err("buffer_limit_exceeded"));
}

#[test]
fn text_after_the_action_closes_is_not_charged() {
    // Prose after the action (in the next delta, so one feed may batch both) is not kept: a
    // budget of exactly the action's length is enough under every chunking.
    let action = r#"{"next_node": "search", "args": {"q": "cats"}}"#;
    let s = start() + &text_start(0) + &text(0, action) + &text(0, " and some words after it") + &block_stop(0) + &stop();
    assert_eq!(outcome("prose after the action", &s, ContentMode::ActionJson, action.len()), Ok((0, 1)));
}

#[test]
fn held_answer_counts_with_the_action_text() {
    // The answer comes before `next_node`: it is held back until the action says it is final.
    let answer = "y".repeat(300);
    let action = format!(r#"{{"args": {{"answer": "{answer}"}}, "next_node": "final_response"}}"#);
    let s = start() + &text_start(0) + &text(0, &action) + &block_stop(0) + &stop();
    let need = action.len() + answer.len();
    assert_eq!(outcome("held fits", &s, ContentMode::ActionJson, need), Ok((0, 1)));
    assert_eq!(outcome("held over", &s, ContentMode::ActionJson, need - 1), Err("buffer_limit_exceeded"));

    // Once the action has decided (next_node first), the answer streams out and is not held.
    let streamed = format!(r#"{{"next_node": "final_response", "args": {{"answer": "{answer}"}}}}"#);
    let s = start() + &text_start(0) + &text(0, &streamed) + &block_stop(0) + &stop();
    assert_eq!(outcome("streamed fits", &s, ContentMode::ActionJson, streamed.len()), Ok((0, 1)));
}

#[test]
fn a_failed_router_stays_failed() {
    let s = start() + &tool_start(0) + &args_deltas(0, 200);
    let opts = StreamRouterOptions { provider: Provider::Anthropic, max_buffer_bytes: 64 + 80, ..StreamRouterOptions::default() };
    let mut r = StreamRouter::new(opts).unwrap();
    let mut out = Vec::new();
    assert_eq!(r.feed(s.as_bytes(), &mut out).unwrap_err().code(), "buffer_limit_exceeded");
    // What was emitted before the failure stands: the start and the deltas that fit.
    assert!(out.iter().any(|e| matches!(e, RoutedEvent::ToolCallStart { .. })));
    let kept: usize =
        out.iter().map(|e| if let RoutedEvent::ToolCallDelta { arguments, .. } = e { arguments.len() } else { 0 }).sum();
    assert_eq!(kept, 48, "three 16-byte deltas fit in 64 - 3 bytes");
    assert_eq!(r.feed(b"", &mut out).unwrap_err().code(), "buffer_limit_exceeded");
    assert_eq!(r.finish(&mut out).unwrap_err().code(), "buffer_limit_exceeded");
}

#[test]
fn one_shot_inputs_are_capped() {
    let big = " ".repeat(streamroute::MAX_INPUT_BYTES + 1);
    assert_eq!(streamroute::repair_json(&big).unwrap_err().code(), "input_too_large");
    assert_eq!(streamroute::parse_json(&big, true).unwrap_err().code(), "input_too_large");
    assert_eq!(streamroute::normalize_action_text(&big).unwrap_err().code(), "input_too_large");
    assert_eq!(streamroute::repair_json_with_log(&big).unwrap_err().code(), "input_too_large");
    let schema = streamroute::JsonValue::Bool(true);
    assert_eq!(streamroute::redact_artifacts_json(&big, &schema).unwrap_err().code(), "input_too_large");
    // At the cap the input is read (here: blank, so nothing to repair).
    let at_cap = &big[1..];
    assert_eq!(streamroute::repair_json(at_cap).unwrap_err().code(), "json_unrepairable");
}
