//! `provider: auto` decides the framing from the bytes, never from where they were split:
//! leading blank lines and whitespace do not count towards the decision, and a first line
//! that needs reading to its end is read to its end (up to the line cap) under every chunking.

mod common;

use common::assert_chunk_invariant;
use streamroute::{Provider, RoutedEvent, StreamRouter, StreamRouterOptions};

/// The provider `auto` settled on, and the events' types and texts.
fn route(chunks: &[&[u8]], max_event_bytes: usize) -> (Provider, Vec<String>) {
    let mut r = StreamRouter::new(StreamRouterOptions { max_event_bytes, ..StreamRouterOptions::default() }).unwrap();
    let mut out = Vec::new();
    for c in chunks {
        r.feed(c, &mut out).unwrap();
    }
    r.finish(&mut out).unwrap();
    let mut answer = String::new();
    let mut kinds = Vec::new();
    for e in out {
        match e {
            RoutedEvent::AnswerDelta { text, .. } => answer.push_str(&text),
            RoutedEvent::Done { ok, .. } => kinds.push(format!("done ok={ok}")),
            RoutedEvent::Error { code, .. } => kinds.push(code),
            _ => {}
        }
    }
    kinds.insert(0, format!("answer {} bytes: {:?}", answer.len(), answer.trim().chars().take(40).collect::<String>()));
    (r.provider(), kinds)
}

/// Also fed in 1,000-byte pieces: the chunking of the report.
fn detect(name: &str, bytes: &[u8], max_event_bytes: usize) -> Provider {
    let pieces: Vec<&[u8]> = bytes.chunks(1000).collect();
    let got = assert_chunk_invariant(name, bytes, |chunks| route(chunks, max_event_bytes));
    assert_eq!(route(&pieces, max_event_bytes), got, "{name}: 1,000-byte pieces");
    got.0
}

const CHAT: &str = "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

#[test]
fn blank_lines_before_an_event_stream_do_not_count() {
    for blank in ["\n", "\r\n", " \n", "\t\r\n"] {
        let bytes = format!("{}{CHAT}", blank.repeat(5000));
        assert_eq!(detect(&format!("{blank:?} x 5000"), bytes.as_bytes(), 8 << 20), Provider::OpenAiChat, "{blank:?}");
    }
    // After a BOM too.
    let bytes = format!("\u{feff}{}{CHAT}", "\n".repeat(5000));
    assert_eq!(detect("bom", bytes.as_bytes(), 8 << 20), Provider::OpenAiChat);
}

#[test]
fn a_long_first_ollama_line_is_read_to_its_end() {
    let model = "m".repeat(5000);
    let line = |content: &str, done: bool| {
        format!("{{\"model\":\"{model}\",\"created_at\":\"t\",\"message\":{{\"role\":\"assistant\",\"content\":\"{content}\"}},\"done\":{done}}}\n")
    };
    let bytes = line("Hel", false) + &line("lo", true);
    assert_eq!(detect("long model", bytes.as_bytes(), 8 << 20), Provider::Ollama);
    let (_, kinds) = route(&[bytes.as_bytes()], 8 << 20);
    assert_eq!(kinds[0], "answer 5 bytes: \"Hello\"");
    // After blank lines as well.
    let padded = format!("{}{bytes}", "\n".repeat(5000));
    assert_eq!(detect("long model after blank lines", padded.as_bytes(), 8 << 20), Provider::Ollama);
}

#[test]
fn a_first_line_past_the_line_cap_is_text_under_every_chunking() {
    // Undecided for `max_event_bytes` bytes: plain text, however the bytes come.
    let model = "m".repeat(3000);
    let bytes = format!("{{\"model\":\"{model}\",\"created_at\":\"t\",\"response\":\"hi\",\"done\":true}}\n");
    assert_eq!(detect("past the cap", bytes.as_bytes(), 2048), Provider::Text);
    assert_eq!(detect("within the cap", bytes.as_bytes(), 4096), Provider::Ollama);
    // Whitespace alone past the cap is text too.
    let blank = "\n".repeat(3000) + CHAT;
    assert_eq!(detect("blank past the cap", blank.as_bytes(), 2048), Provider::Text);
}

#[test]
fn plain_json_text_still_streams_at_once() {
    let mut r = StreamRouter::new(StreamRouterOptions::default()).unwrap();
    let mut out = Vec::new();
    r.feed(b"\n\n  {\"next_node\": \"final", &mut out).unwrap();
    assert_eq!(r.provider(), Provider::Text);
    assert!(matches!(&out[..], [RoutedEvent::AnswerDelta { text, .. }] if text == "\n\n  {\"next_node\": \"final"), "{out:?}");
    // A field that does not begin its line is not one.
    assert_eq!(detect("indented field", format!("  {CHAT}").as_bytes(), 8 << 20), Provider::Text);
}

#[test]
fn cohere_is_told_by_its_event_names_or_its_types() {
    let start = r#"{"id":"m1","type":"message-start","delta":{"message":{"role":"assistant","content":[]}}}"#;
    let delta = r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"hi"}}}}"#;
    let end = r#"{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}"#;
    let with_names = format!(
        "event: message-start\ndata: {start}\n\nevent: content-delta\ndata: {delta}\n\nevent: message-end\ndata: {end}\n\n"
    );
    let without = format!("data: {start}\n\ndata: {delta}\n\ndata: {end}\n\n");
    // A stream that begins mid-message shows the format on its first event too.
    let mid = format!("data: {delta}\n\ndata: {end}\n\n");
    for (name, bytes) in [("event lines", &with_names), ("data only", &without), ("mid-message", &mid)] {
        assert_eq!(detect(name, bytes.as_bytes(), 8 << 20), Provider::Cohere, "{name}");
        let (_, kinds) = route(&[bytes.as_bytes()], 8 << 20);
        assert_eq!(kinds, ["answer 2 bytes: \"hi\"", "done ok=true"], "{name}");
    }
    // Anthropic's names use underscores: they stay Anthropic's.
    let anthropic = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}\n\n";
    assert_eq!(detect("anthropic", anthropic.as_bytes(), 8 << 20), Provider::Anthropic);
}
