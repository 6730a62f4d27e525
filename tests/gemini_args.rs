//! Gemini function calls whose arguments stream as values at JSON paths (`partialArgs`): the
//! tree they build counts against the router's budget as it grows, an index too far past an
//! array's end (or past what the budget has room for) or a path too deep is a
//! `provider_error` and the call is dropped, never run with less than it was sent.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::route_chunks;
use serde_json::json;
use streamroute::{JsonValue, Provider, RoutedEvent, StreamRouterOptions};

fn part(call: serde_json::Value) -> String {
    format!("data: {}\n\n", json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}))
}

/// A streamed call `f` whose parts carry `entries` (one part each), then a finish.
fn stream(entries: &[serde_json::Value]) -> Vec<u8> {
    let mut s = part(json!({"name": "f", "willContinue": true}));
    for e in entries {
        s += &part(json!({"partialArgs": [e], "willContinue": true}));
    }
    s += &part(json!({}));
    s += &format!("data: {}\n\n", json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]}));
    s.into_bytes()
}

#[derive(Debug, PartialEq)]
struct Outcome {
    /// The arguments of every routed tool call.
    calls: Vec<JsonValue>,
    /// The code of every error event.
    errors: Vec<String>,
    ok: bool,
}

fn route(max_buffer_bytes: usize, chunks: &[&[u8]]) -> Result<Outcome, &'static str> {
    let out = route_chunks(
        StreamRouterOptions { provider: Provider::Gemini, max_buffer_bytes, ..StreamRouterOptions::default() },
        chunks,
    )?;
    let mut o = Outcome { calls: Vec::new(), errors: Vec::new(), ok: false };
    for e in out {
        match e {
            RoutedEvent::ToolCall { arguments, .. } => o.calls.push(arguments),
            RoutedEvent::Error { code, .. } => o.errors.push(code),
            RoutedEvent::Done { ok, .. } => o.ok = ok,
            _ => {}
        }
    }
    Ok(o)
}

fn outcome(name: &str, bytes: &[u8], max_buffer_bytes: usize) -> Result<Outcome, &'static str> {
    assert_chunk_invariant(name, bytes, |chunks| route(max_buffer_bytes, chunks))
}

fn v(t: &str) -> JsonValue {
    streamroute::parse_json(t, true).unwrap()
}

fn dropped() -> Result<Outcome, &'static str> {
    Ok(Outcome { calls: vec![], errors: vec!["provider_error".into()], ok: false })
}

#[test]
fn paths_build_the_arguments() {
    let s = stream(&[
        json!({"jsonPath": "$.a", "stringValue": "x"}),
        json!({"jsonPath": "$.a", "stringValue": "y"}),
        json!({"jsonPath": "$.b[2]", "numberValue": 3}),
        json!({"jsonPath": "$['c d'].e", "boolValue": true}),
        json!({"jsonPath": "$.b[0]", "nullValue": null}),
    ]);
    let want = Outcome { calls: vec![v(r#"{"a":"xy","b":[null,null,3],"c d":{"e":true}}"#)], errors: vec![], ok: true };
    assert_eq!(outcome("paths", &s, 16 << 20), Ok(want));
}

#[test]
fn an_index_far_past_the_end_is_a_provider_error() {
    // 1024 slots past the end may be opened; 1025 may not.
    let near = stream(&[json!({"jsonPath": "$.a[1024]", "numberValue": 1})]);
    let got = outcome("near", &near, 16 << 20).unwrap();
    assert_eq!((got.errors.len(), got.ok), (0, true));
    let JsonValue::Object(m) = &got.calls[0] else { panic!("{got:?}") };
    assert!(matches!(&m[0].1, JsonValue::Array(a) if a.len() == 1025));
    let far = stream(&[json!({"jsonPath": "$.a[1025]", "numberValue": 1})]);
    assert_eq!(outcome("far", &far, 16 << 20), dropped());
    let huge = stream(&[json!({"jsonPath": "$.a[99999999999]", "numberValue": 1})]);
    assert_eq!(outcome("huge", &huge, 16 << 20), dropped());
}

#[test]
fn padding_counts_against_the_budget() {
    // Each entry opens 1000 null slots (32 bytes each): 64 KiB has room for one such entry
    // but not for two; the second index is past what the budget allows.
    let entries: Vec<_> = (1..=40).map(|k| json!({"jsonPath": format!("$.a[{}]", k * 1000), "numberValue": k})).collect();
    let s = stream(&entries);
    assert_eq!(outcome("padding", &s, 64 << 10), dropped());
    // With room for all of them the call is whole: 40,001 slots.
    let got = outcome("padding fits", &s, 16 << 20).unwrap();
    assert_eq!((got.errors.len(), got.ok), (0, true));
    let JsonValue::Object(m) = &got.calls[0] else { panic!("{got:?}") };
    assert!(matches!(&m[0].1, JsonValue::Array(a) if a.len() == 40_001 && a[40_000] == JsonValue::Number("40".into())));
}

#[test]
fn growing_values_count_against_the_budget() {
    // String values that continue are appended: 40 pieces of 1000 bytes pass a 16 KiB budget.
    let entries: Vec<_> = (0..40).map(|_| json!({"jsonPath": "$.text", "stringValue": "x".repeat(1000)})).collect();
    let s = stream(&entries);
    assert_eq!(outcome("long string", &s, 16 << 10), Err("buffer_limit_exceeded"));
    assert_eq!(outcome("long string fits", &s, 64 << 10).map(|o| o.ok), Ok(true));
    // Many keys too.
    let entries: Vec<_> = (0..400).map(|k| json!({"jsonPath": format!("$.k{k}"), "numberValue": k})).collect();
    let s = stream(&entries);
    assert_eq!(outcome("many keys", &s, 16 << 10), Err("buffer_limit_exceeded"));
    let got = outcome("many keys fit", &s, 16 << 20).unwrap();
    let JsonValue::Object(m) = &got.calls[0] else { panic!("{got:?}") };
    assert_eq!(m.len(), 400);
}

#[test]
fn a_path_too_deep_is_a_provider_error() {
    let path = |d: usize| format!("${}", ".a".repeat(d));
    let ok = stream(&[json!({"jsonPath": path(64), "numberValue": 1})]);
    assert_eq!(outcome("64 deep", &ok, 16 << 20).map(|o| o.ok), Ok(true));
    let deep = stream(&[json!({"jsonPath": path(65), "numberValue": 1})]);
    assert_eq!(outcome("65 deep", &deep, 16 << 20), dropped());
    // Deep enough to overflow a recursive writer if it were kept.
    let deeper = stream(&[json!({"jsonPath": path(100_000), "numberValue": 1})]);
    assert_eq!(route(16 << 20, &[&deeper]), dropped());
}

#[test]
fn parts_of_a_dropped_call_are_skipped_and_the_next_call_goes_on() {
    let mut s = String::from_utf8(stream(&[json!({"jsonPath": "$.a[5000]", "numberValue": 1})])).unwrap();
    // The finish of `stream` ends the stream; put a second call before it.
    let finish = s.rfind("data: ").unwrap();
    let tail = s.split_off(finish);
    s += &part(json!({"name": "g", "partialArgs": [{"jsonPath": "$.x", "numberValue": 2}]}));
    s += &tail;
    let want = Outcome { calls: vec![v(r#"{"x":2}"#)], errors: vec!["provider_error".into()], ok: false };
    assert_eq!(outcome("dropped then next", s.as_bytes(), 16 << 20), Ok(want));
}
