//! `structured_request`: the request bodies of the capability table, per provider and mode.

use streamroute::{parse_strict, structured_modes, structured_request, JsonValue, Provider, StructuredMode, StructuredRequest};

fn json(s: &str) -> JsonValue {
    parse_strict(s.as_bytes()).unwrap()
}

fn req(mode: Option<StructuredMode>, stream: bool) -> StructuredRequest {
    StructuredRequest {
        messages: vec![json(r#"{"role":"system","content":"Be brief."}"#), json(r#"{"role":"user","content":"Quiz me"}"#)],
        schema: json(r#"{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}"#),
        name: "make_quiz".into(),
        stream,
        mode,
        model: None,
    }
}

const SCHEMA: &str = r#"{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}"#;

fn body(p: Provider, mode: Option<StructuredMode>, stream: bool) -> (String, StructuredMode) {
    let (b, m) = structured_request(p, &req(mode, stream)).unwrap();
    (b.to_json(), m)
}

#[test]
fn the_strongest_layer_by_default() {
    let (b, m) = body(Provider::OpenAiChat, None, true);
    assert_eq!(m, StructuredMode::Tool);
    assert_eq!(
        b,
        format!(
            r#"{{"messages":[{{"role":"system","content":"Be brief."}},{{"role":"user","content":"Quiz me"}}],"tools":[{{"type":"function","function":{{"name":"make_quiz","parameters":{SCHEMA},"strict":true}}}}],"tool_choice":{{"type":"function","function":{{"name":"make_quiz"}}}},"parallel_tool_calls":false,"stream":true,"stream_options":{{"include_usage":true}}}}"#
        )
    );
    let (b, _) = body(Provider::OpenAiResponses, None, false);
    assert_eq!(
        b,
        format!(
            r#"{{"input":[{{"role":"system","content":"Be brief."}},{{"role":"user","content":"Quiz me"}}],"tools":[{{"type":"function","name":"make_quiz","parameters":{SCHEMA},"strict":true}}],"tool_choice":{{"type":"function","name":"make_quiz"}},"parallel_tool_calls":false,"stream":false}}"#
        )
    );
    let (b, _) = body(Provider::Anthropic, None, true);
    assert_eq!(
        b,
        format!(
            r#"{{"max_tokens":4096,"messages":[{{"role":"user","content":"Quiz me"}}],"system":"Be brief.","tools":[{{"name":"make_quiz","input_schema":{SCHEMA}}}],"tool_choice":{{"type":"tool","name":"make_quiz"}},"stream":true}}"#
        )
    );
    let (b, _) = body(Provider::Gemini, None, true);
    assert_eq!(
        b,
        format!(
            r#"{{"contents":[{{"role":"user","parts":[{{"text":"Quiz me"}}]}}],"systemInstruction":{{"parts":[{{"text":"Be brief."}}]}},"tools":[{{"functionDeclarations":[{{"name":"make_quiz","description":"Returns the structured output make_quiz as its arguments.","parametersJsonSchema":{SCHEMA}}}]}}],"toolConfig":{{"functionCallingConfig":{{"mode":"ANY","allowedFunctionNames":["make_quiz"]}}}}}}"#
        )
    );
    let (b, m) = body(Provider::Text, None, true);
    assert_eq!(m, StructuredMode::Prompt);
    let v = json(&b);
    let first = &v.get("messages").and_then(|m| if let JsonValue::Array(a) = m { a.first() } else { None }).cloned().unwrap();
    assert_eq!(first.get("role").and_then(JsonValue::as_str), Some("system"));
    assert!(first.get("content").and_then(JsonValue::as_str).unwrap().contains(SCHEMA));
}

#[test]
fn weaker_layers_on_request() {
    let (b, _) = body(Provider::OpenAiChat, Some(StructuredMode::JsonSchema), false);
    assert!(
        b.contains(&format!(
            r#""response_format":{{"type":"json_schema","json_schema":{{"name":"make_quiz","schema":{SCHEMA},"strict":true}}}}"#
        )),
        "{b}"
    );
    let (b, _) = body(Provider::OpenAiChat, Some(StructuredMode::JsonObject), false);
    assert!(b.contains(r#""response_format":{"type":"json_object"}"#) && b.contains("matching this JSON schema"), "{b}");
    let (b, _) = body(Provider::OpenAiResponses, Some(StructuredMode::JsonSchema), false);
    assert!(b.contains(r#""text":{"format":{"type":"json_schema","name":"make_quiz""#), "{b}");
    let (b, _) = body(Provider::Gemini, Some(StructuredMode::JsonSchema), false);
    assert!(
        b.contains(&format!(r#""generationConfig":{{"responseMimeType":"application/json","responseJsonSchema":{SCHEMA}}}"#)),
        "{b}"
    );
    let (b, _) = body(Provider::Anthropic, Some(StructuredMode::Prompt), false);
    assert!(!b.contains("tools") && b.contains(r#""system":"Respond with a single JSON value"#), "{b}");
}

#[test]
fn the_capability_table_and_errors() {
    use StructuredMode::*;
    assert_eq!(structured_modes(Provider::Anthropic), &[Tool, JsonSchema, Prompt]);
    assert_eq!(structured_modes(Provider::Bedrock), &[Tool, Prompt]);
    assert_eq!(structured_modes(Provider::OpenAiChat), &[Tool, JsonSchema, JsonObject, Prompt]);
    assert_eq!(structured_modes(Provider::Text), &[Prompt]);
    let err = |p, r: StructuredRequest| structured_request(p, &r).unwrap_err().code();
    assert_eq!(err(Provider::Anthropic, req(Some(JsonObject), true)), "invalid_option");
    assert_eq!(err(Provider::Auto, req(None, true)), "invalid_option");
    assert_eq!(err(Provider::OpenAiChat, StructuredRequest { name: "bad name".into(), ..req(None, true) }), "invalid_option");
    assert_eq!(err(Provider::OpenAiChat, StructuredRequest { messages: vec![json("3")], ..req(None, true) }), "invalid_option");
    assert_eq!(StructuredMode::parse("xml").unwrap_err().code(), "invalid_option");
}

fn with(schema: &str, mode: Option<StructuredMode>, model: Option<&str>) -> StructuredRequest {
    StructuredRequest { schema: json(schema), model: model.map(str::to_string), ..req(mode, false) }
}

#[test]
fn openai_strict_form_or_not_strict() {
    // Optional fields become required and nullable; objects are closed, through $defs.
    let schema = r##"{"type":"object","properties":{"title":{"type":"string"},"tags":{"type":"array","items":{"$ref":"#/$defs/Tag"}}},"required":["title"],"$defs":{"Tag":{"type":"object","properties":{"name":{"type":"string"},"weight":{"type":"number"}},"required":["name"]}}}"##;
    let strict = r##"{"type":"object","$defs":{"Tag":{"type":"object","properties":{"name":{"type":"string"},"weight":{"type":["number","null"]}},"required":["name","weight"],"additionalProperties":false}},"properties":{"title":{"type":"string"},"tags":{"type":["array","null"],"items":{"$ref":"#/$defs/Tag"}}},"required":["title","tags"],"additionalProperties":false}"##;
    for provider in [Provider::OpenAiChat, Provider::OpenAiResponses] {
        for mode in [StructuredMode::Tool, StructuredMode::JsonSchema] {
            let (b, _) = structured_request(provider, &with(schema, Some(mode), None)).unwrap();
            let b = b.to_json();
            assert!(b.contains(strict) && b.contains(r#""strict":true"#), "{provider:?} {mode:?}: {b}");
        }
    }
    // A map (open object) cannot be made strict exactly: sent as it is, not strict.
    let open = r#"{"type":"object","properties":{"scores":{"type":"object","additionalProperties":{"type":"number"}}}}"#;
    let (b, _) = structured_request(Provider::OpenAiChat, &with(open, None, None)).unwrap();
    let b = b.to_json();
    assert!(b.contains(&format!(r#""parameters":{open},"strict":false"#)), "{b}");
}

#[test]
fn model_goes_where_the_api_takes_it() {
    for p in [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Ollama, Provider::Text] {
        let (b, _) = structured_request(p, &with(SCHEMA, None, Some("m-1"))).unwrap();
        assert_eq!(b.get("model").and_then(JsonValue::as_str), Some("m-1"), "{p:?}");
    }
    for p in [Provider::Gemini, Provider::Bedrock] {
        let (b, _) = structured_request(p, &with(SCHEMA, None, Some("m-1"))).unwrap();
        assert_eq!(b.get("model"), None, "{p:?}: the model is in the URL");
    }
}

#[test]
fn anthropic_json_schema_output_format_and_gemini_json_schema_tools() {
    let (b, m) = structured_request(Provider::Anthropic, &with(SCHEMA, Some(StructuredMode::JsonSchema), None)).unwrap();
    assert_eq!(m, StructuredMode::JsonSchema);
    let b = b.to_json();
    assert!(
        b.contains(&format!(r#""output_config":{{"format":{{"type":"json_schema","schema":{SCHEMA}}}}}"#))
            && !b.contains("tools"),
        "{b}"
    );
    // An open object goes out closed (the API requires it), constraints it rejects as notes.
    let open = r#"{"type":"object","properties":{"city":{"type":"string","maxLength":40}},"required":["city"]}"#;
    let (b, _) = structured_request(Provider::Anthropic, &with(open, Some(StructuredMode::JsonSchema), None)).unwrap();
    let b = b.to_json();
    let closed = r#"{"type":"object","properties":{"city":{"type":"string","description":"(maxLength: 40)"}},"required":["city"],"additionalProperties":false}"#;
    assert!(b.contains(&format!(r#""schema":{closed}"#)), "{b}");
    // The forced tool takes the schema as it is.
    let (b, _) = structured_request(Provider::Anthropic, &with(open, Some(StructuredMode::Tool), None)).unwrap();
    assert!(b.to_json().contains(&format!(r#""input_schema":{open}"#)));
    let described = r##"{"description":"A quiz.","type":"object","properties":{"q":{"$ref":"#/$defs/Q"}},"$defs":{"Q":{"type":"string"}},"additionalProperties":false}"##;
    let (b, _) = structured_request(Provider::Gemini, &with(described, None, None)).unwrap();
    let b = b.to_json();
    assert!(
        b.contains(&format!(r#""description":"A quiz.","parametersJsonSchema":{described}"#)) && !b.contains(r#""parameters""#),
        "{b}"
    );
}

#[test]
fn messages_in_the_providers_own_shape_pass_through() {
    let turn = |p: Provider, messages: &[&str]| {
        let mut r = req(Some(StructuredMode::Prompt), false);
        r.messages = messages.iter().map(|m| json(m)).collect();
        structured_request(p, &r).map(|(b, _)| b.to_json())
    };
    // OpenAI Responses input items have a `type` and no `role`.
    let items = [
        r#"{"role":"user","content":"Quiz me"}"#,
        r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"e1"}"#,
        r#"{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":"ok"}"#,
    ];
    let b = turn(Provider::OpenAiResponses, &items).unwrap();
    assert!(
        b.contains(r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"e1"},{"type":"function_call""#),
        "{b}"
    );
    assert!(b.contains(r#"{"type":"function_call_output","call_id":"c1","output":"ok"}"#), "{b}");
    // Elsewhere an item without a role is still refused.
    assert!(turn(Provider::OpenAiChat, &items).is_err());
    // Gemini messages with `parts` keep them.
    let gemini = [
        r#"{"role":"user","content":"Quiz me"}"#,
        r#"{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"s1"}]}"#,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}"#,
    ];
    let b = turn(Provider::Gemini, &gemini).unwrap();
    assert!(
        b.contains(r#"{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"s1"}]},{"role":"user","parts":[{"functionResponse""#),
        "{b}"
    );
}
