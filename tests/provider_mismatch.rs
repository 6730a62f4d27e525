//! A stream routed as a provider it is not says so: when no event of the named format was
//! recognised and the bytes look like another format's, the stream ends with
//! `error {code: "provider_mismatch"}` naming that format, and `done.ok` is false. Streams of
//! the named format never get it.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::route_chunks;
use streamroute::{ContentMode, Provider, RoutedEvent, StreamRouterOptions};

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/streams/");

const NAMED: [Provider; 8] = [
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
    Provider::GeminiInteractions,
    Provider::Ollama,
    Provider::Bedrock,
    Provider::Cohere,
];

/// Every bundled sample: its file, provider and bytes.
fn samples() -> Vec<(String, Provider, Vec<u8>)> {
    let text = std::fs::read_to_string(format!("{STREAMS}manifest.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let file = s["file"].as_str().unwrap().to_string();
            let provider = Provider::parse(s["provider"].as_str().unwrap()).unwrap();
            let bytes = std::fs::read(format!("{STREAMS}{file}")).unwrap();
            (file, provider, bytes)
        })
        .collect()
}

/// The `provider_mismatch` messages, `done.ok`, or the thrown error's code.
fn route(provider: Provider, chunks: &[&[u8]]) -> Result<(Vec<String>, bool), &'static str> {
    let out =
        route_chunks(StreamRouterOptions { provider, content: ContentMode::Text, ..StreamRouterOptions::default() }, chunks)?;
    let mismatches = out
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::Error { code, message, provider_code } if code == "provider_mismatch" => {
                assert_eq!(*provider_code, None);
                Some(message.clone())
            }
            _ => None,
        })
        .collect();
    let ok = out.iter().any(|e| matches!(e, RoutedEvent::Done { ok: true, .. }));
    Ok((mismatches, ok))
}

fn mismatch(named: Provider, looks: Provider) -> String {
    format!("the stream was routed as {} but no event of that format came: it looks like {}", named.as_str(), looks.as_str())
}

#[test]
fn no_sample_gets_it_as_its_own_provider() {
    for (file, provider, bytes) in samples() {
        for p in [provider, Provider::Auto] {
            let got = route(p, &[&bytes]);
            assert!(matches!(&got, Ok((m, _)) if m.is_empty()) || got.is_err(), "{file} as {}: {got:?}", p.as_str());
        }
    }
}

#[test]
fn every_sample_routed_as_every_other_provider_is_provider_mismatch() {
    for (file, provider, bytes) in samples() {
        for named in NAMED.into_iter().filter(|&p| p != provider) {
            let name = format!("{file} as {}", named.as_str());
            let got = assert_chunk_invariant(&name, &bytes, |chunks| route(named, chunks));
            assert_eq!(got, Ok((vec![mismatch(named, provider)], false)), "{name}");
        }
    }
}

#[test]
fn a_bare_error_event_shows_no_format() {
    // OpenAI and Gemini both send `{"error": {...}}`: a stream of nothing else is not called
    // the wrong format.
    let bytes = b"data: {\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}\n\n";
    for named in [Provider::OpenAiChat, Provider::Gemini, Provider::Anthropic, Provider::OpenAiResponses] {
        let got = assert_chunk_invariant(named.as_str(), bytes, |chunks| route(named, chunks));
        assert!(matches!(&got, Ok((m, false)) if m.is_empty()), "{}: {got:?}", named.as_str());
    }
}

#[test]
fn anthropic_bytes_ending_in_done_as_openai_chat() {
    // The report: all content dropped, and `done {ok: true}` because of the `[DONE]`.
    let anthropic = std::fs::read(format!("{STREAMS}anthropic-tools.sse")).unwrap();
    let mut bytes = anthropic.clone();
    bytes.extend_from_slice(b"data: [DONE]\n\n");
    let got = assert_chunk_invariant("anthropic + [DONE]", &bytes, |chunks| route(Provider::OpenAiChat, chunks));
    assert_eq!(got, Ok((vec![mismatch(Provider::OpenAiChat, Provider::Anthropic)], false)));
}

#[test]
fn a_corrupt_bedrock_stream_is_still_eventstream_invalid() {
    // A prelude that checks is the framing's, however broken the rest: no mismatch.
    let good = std::fs::read(format!("{STREAMS}bedrock-text.bin")).unwrap();
    let mut bad = good.clone();
    bad[20] ^= 0x40;
    assert_eq!(assert_chunk_invariant("bedrock crc", &bad, |c| route(Provider::Bedrock, c)), Err("eventstream_invalid"));
    assert_eq!(assert_chunk_invariant("bedrock cut", &good[..7], |c| route(Provider::Bedrock, c)), Err("eventstream_invalid"));
    // Plain text named Bedrock looks like text.
    let text = b"Hello there, this is not a frame.";
    assert_eq!(
        assert_chunk_invariant("text as bedrock", text, |c| route(Provider::Bedrock, c)),
        Ok((vec![mismatch(Provider::Bedrock, Provider::Text)], false))
    );
}
