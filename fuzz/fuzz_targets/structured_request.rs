//! `structured_request` (`structuredRequest` in JS): whatever the schema, messages, name,
//! mode and provider, never a panic; a body it builds is valid JSON, built the same twice.
//!
//! Byte 0 picks the provider, byte 1 the mode (or none) and whether to stream; the rest is
//! split at 0xFF into the name, the schema and the messages (JSON text, repaired when it is
//! not JSON, so any shape of value comes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{parse_json, structured_modes, structured_request, JsonValue, Provider, StructuredMode, StructuredRequest};

const PROVIDERS: [Provider; 10] = [
    Provider::OpenAiChat,
    Provider::OpenAiResponses,
    Provider::Anthropic,
    Provider::Gemini,
    Provider::GeminiInteractions,
    Provider::Ollama,
    Provider::Bedrock,
    Provider::Cohere,
    Provider::Text,
    Provider::Auto,
];
const MODES: [StructuredMode; 4] =
    [StructuredMode::Tool, StructuredMode::JsonSchema, StructuredMode::JsonObject, StructuredMode::Prompt];

fn value(text: &[u8]) -> JsonValue {
    parse_json(&String::from_utf8_lossy(text), true).unwrap_or(JsonValue::Null)
}

fuzz_target!(|input: &[u8]| {
    let [p, m, rest @ ..] = input else { return };
    let provider = PROVIDERS[usize::from(*p) % PROVIDERS.len()];
    let mut parts = rest.splitn(3, |&b| b == 0xFF);
    let name = String::from_utf8_lossy(parts.next().unwrap_or(b"out")).into_owned();
    let schema = value(parts.next().unwrap_or(b"{}"));
    let messages = match value(parts.next().unwrap_or(b"[]")) {
        JsonValue::Array(items) => items,
        other => vec![other],
    };
    let req = StructuredRequest {
        messages,
        schema,
        name,
        stream: m & 0x80 != 0,
        mode: (m & 0x40 != 0).then(|| MODES[usize::from(*m) % MODES.len()]),
        model: (m & 0x20 != 0).then(|| "model".to_string()),
    };
    let first = structured_request(provider, &req);
    let again = structured_request(provider, &req);
    match (&first, &again) {
        (Ok((body, mode)), Ok((body2, mode2))) => {
            assert_eq!((body, mode), (body2, mode2), "the same request builds the same body");
            assert!(structured_modes(provider).contains(mode), "a mode the provider supports");
            let text = body.to_json();
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "the body is JSON: {text}");
        }
        (Err(e), Err(e2)) => assert_eq!(e, e2),
        _ => panic!("the same request gave {first:?} and {again:?}"),
    }
});
