//! `structured_request`: the request body that asks a provider for output matching a JSON
//! schema, in the strongest way it supports (../shared/spec/structured-output-layers.md §2–3).
//!
//! The layers, strongest first: a forced tool call (the model must call the one tool whose
//! parameters are the schema; its arguments are the output), a JSON-schema response format,
//! JSON mode (valid JSON, schema given in a system message), prompt-only (the schema in a
//! system message; the answer is repaired and parsed afterwards). The capability table:
//!
//! | provider | tool | json_schema | json_object | default |
//! |---|---|---|---|---|
//! | `openai-chat` (and compatible servers) | yes | yes | yes | tool |
//! | `openai-responses` | yes | yes | yes | tool |
//! | `anthropic` | yes | yes (`output_config.format`) | no | tool |
//! | `gemini` | yes | yes | yes | tool |
//! | `gemini-interactions` | yes | yes (`response_format`) | yes | tool |
//! | `ollama` (`/api/chat`) | yes (not forced: Ollama has no tool choice) | yes (`format`) | yes (`format: "json"`) | json_schema |
//! | `bedrock` (`Converse`) | yes | no | no | tool |
//! | `text` (any other model) | no | no | no | prompt |
//!
//! OpenAI's `strict: true` asks for a closed, complete schema: the schema goes out in that
//! form (`strict.rs`: every property required, optional ones nullable, objects closed) when
//! the conversion is exact, and unchanged with `strict: false` when it is not. Anthropic's
//! JSON outputs take closed objects and no numeric, length or item-count constraints: the
//! schema goes out with its objects closed and those constraints noted in `description`
//! (`strict.rs` `anthropic_output_schema`).
//!
//! Every layer works with the router: a forced tool call streams as `tool_call_*` events (the
//! arguments are the structured output), the other layers stream as text.

use super::decoder::Provider;
use super::strict::{anthropic_output_schema, openai_strict};
use crate::json::JsonValue;
use crate::json::{parse_strict, Quoted};
use crate::{Error, ErrorKind, Result};

/// How the output is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), serde(rename_all = "snake_case"))]
pub enum StructuredMode {
    /// A forced call of one tool whose parameters are the schema.
    Tool,
    /// A JSON-schema response format.
    JsonSchema,
    /// JSON mode, the schema in a system message.
    JsonObject,
    /// The schema in a system message only.
    Prompt,
}

impl StructuredMode {
    /// `tool`, `json_schema`, `json_object` or `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredMode::Tool => "tool",
            StructuredMode::JsonSchema => "json_schema",
            StructuredMode::JsonObject => "json_object",
            StructuredMode::Prompt => "prompt",
        }
    }

    /// Parses a mode name.
    ///
    /// # Errors
    /// `invalid_option` for any other name.
    pub fn parse(name: &str) -> Result<StructuredMode> {
        Ok(match name {
            "tool" => StructuredMode::Tool,
            "json_schema" => StructuredMode::JsonSchema,
            "json_object" => StructuredMode::JsonObject,
            "prompt" => StructuredMode::Prompt,
            _ => return Err(bad(format!("mode must be tool, json_schema, json_object or prompt; got {}", Quoted(name)))),
        })
    }
}

/// The modes `provider` supports, strongest first (the capability table).
pub fn structured_modes(provider: Provider) -> &'static [StructuredMode] {
    use StructuredMode::*;
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Gemini | Provider::GeminiInteractions => {
            &[Tool, JsonSchema, JsonObject, Prompt]
        }
        Provider::Anthropic => &[Tool, JsonSchema, Prompt],
        Provider::Bedrock => &[Tool, Prompt],
        Provider::Ollama | Provider::Cohere => &[JsonSchema, Tool, JsonObject, Prompt],
        Provider::Text | Provider::Auto => &[Prompt],
    }
}

/// What to ask for (in JS the options of `structuredRequest`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(rename = "StructuredRequestInit"))]
pub struct StructuredRequest {
    /// The conversation: `{role, content}` objects (`system`, `user`, `assistant`), or messages
    /// in the provider's own shape (`assistantTurn`'s; Gemini `{role, parts}`; OpenAI
    /// Responses input items with a `type` and no `role`).
    #[cfg_attr(
        target_arch = "wasm32",
        tsify(
            type = "({ role: string; content?: unknown; [member: string]: unknown } | { type: string; [member: string]: unknown })[]"
        )
    )]
    pub messages: Vec<JsonValue>,
    /// The JSON schema of the output (an object schema for the tool layer).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub schema: JsonValue,
    /// The tool / schema name (`[A-Za-z0-9_-]{1,64}`).
    pub name: String,
    /// Ask for a streamed response (where the body says so; Gemini streams by URL). In JS
    /// the default is `true`.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub stream: bool,
    /// A weaker layer than the provider's strongest (`None`: the strongest).
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub mode: Option<StructuredMode>,
    /// The model, put in the body where the API takes it there (OpenAI, Anthropic, Ollama,
    /// text); Gemini and Bedrock name the model in the URL, so their bodies carry none.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub model: Option<String>,
}

fn bad(msg: String) -> Error {
    Error::new(ErrorKind::InvalidOption, msg)
}

fn s(v: &str) -> JsonValue {
    JsonValue::String(v.to_string())
}

fn obj(members: Vec<(&str, JsonValue)>) -> JsonValue {
    JsonValue::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// The instruction that carries the schema for the JSON-mode and prompt-only layers.
fn schema_instruction(name: &str, schema: &JsonValue) -> String {
    format!(
        "Respond with a single JSON value only (no prose, no code fences) named {name}, matching this JSON schema:\n{}",
        schema.to_json()
    )
}

/// Builds the request body (see the module docs for the table).
///
/// # Errors
/// `invalid_option`: a bad name, a message that is not an object with a string `role` (for
/// OpenAI Responses: or a string `type`, an input item), a `mode` the provider does not
/// support, or a provider of `auto`.
pub fn structured_request(provider: Provider, req: &StructuredRequest) -> Result<(JsonValue, StructuredMode)> {
    if provider == Provider::Auto {
        return Err(bad("structuredRequest needs a concrete provider, not auto".into()));
    }
    let name_ok = !req.name.is_empty()
        && req.name.len() <= 64
        && req.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !name_ok {
        return Err(bad(format!("name must be 1-64 letters, digits, '_' or '-'; got {}", Quoted(&req.name))));
    }
    let modes = structured_modes(provider);
    let mode = req.mode.unwrap_or(modes[0]);
    if !modes.contains(&mode) {
        return Err(bad(format!("provider {} does not support mode {}", provider.as_str(), mode.as_str())));
    }
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    for m in &req.messages {
        let item = provider == Provider::OpenAiResponses && m.get("type").and_then(JsonValue::as_str).is_some();
        if m.get("role").and_then(JsonValue::as_str).is_none() && !item {
            return Err(bad("every message must be an object with a string role".into()));
        }
        messages.push(m.clone());
    }
    if matches!(mode, StructuredMode::JsonObject | StructuredMode::Prompt) {
        let text = schema_instruction(&req.name, &req.schema);
        messages.insert(0, obj(vec![("role", s("system")), ("content", s(&text))]));
    }
    // The body is its template (`body_template`) with the holes filled.
    let mut holes: Vec<(&str, JsonValue)> = vec![("name", s(&req.name)), ("stream", JsonValue::Bool(req.stream))];
    if let Some(model) = &req.model {
        holes.push(("model", s(model)));
    }
    let messages = match provider {
        Provider::Anthropic | Provider::Gemini | Provider::GeminiInteractions | Provider::Bedrock => {
            let (system, rest) = split_system(messages);
            if !system.is_empty() {
                holes.push(("system", JsonValue::String(system)));
            }
            match provider {
                Provider::Gemini => rest.into_iter().map(gemini_content).collect(),
                Provider::GeminiInteractions => rest.into_iter().map(interactions_step).collect(),
                Provider::Bedrock => rest.into_iter().map(bedrock_message).collect(),
                _ => rest,
            }
        }
        _ => messages,
    };
    holes.push(("messages", JsonValue::Array(messages)));
    match (provider, mode) {
        (_, StructuredMode::JsonObject | StructuredMode::Prompt) => {}
        // OpenAI's strict form where it is exact; else the schema as it is, not strict.
        (Provider::OpenAiChat | Provider::OpenAiResponses, _) => {
            let (schema, strict) = match openai_strict(&req.schema) {
                Some(strict) => (strict, true),
                None => (req.schema.clone(), false),
            };
            holes.push(("schema", schema));
            holes.push(("strict", JsonValue::Bool(strict)));
        }
        // Closed objects, no unsupported constraints: what the API accepts.
        (Provider::Anthropic, StructuredMode::JsonSchema) => holes.push(("schema", anthropic_output_schema(&req.schema))),
        (Provider::Gemini, StructuredMode::Tool) => {
            let description = match req.schema.get("description").and_then(JsonValue::as_str) {
                Some(d) if !d.trim().is_empty() => d.to_string(),
                _ => format!("Returns the structured output {} as its arguments.", req.name),
            };
            holes.push(("description", JsonValue::String(description)));
            holes.push(("schema", req.schema.clone()));
        }
        _ => holes.push(("schema", req.schema.clone())),
    }
    let mut body = parse_strict(body_template(provider, mode, holes.iter().any(|(k, _)| *k == "system"), req.stream).as_bytes())?;
    fill(&mut body, &mut holes);
    Ok((body, mode))
}

/// The body of `provider`'s request in `mode` as JSON text with holes: a string `"$x"` is
/// filled with hole `x` of [`structured_request`], and a member or item whose hole is not
/// there is left out (`model` where the body names none, `system` without system text).
fn body_template(provider: Provider, mode: StructuredMode, system: bool, stream: bool) -> String {
    use StructuredMode::*;
    let (head, part) = match provider {
        Provider::OpenAiChat => (
            r#""messages":"$messages""#,
            match mode {
                Tool => {
                    r#","tools":[{"type":"function","function":{"name":"$name","parameters":"$schema","strict":"$strict"}}],"tool_choice":{"type":"function","function":{"name":"$name"}},"parallel_tool_calls":false"#
                }
                JsonSchema => {
                    r#","response_format":{"type":"json_schema","json_schema":{"name":"$name","schema":"$schema","strict":"$strict"}}"#
                }
                JsonObject => r#","response_format":{"type":"json_object"}"#,
                Prompt => "",
            },
        ),
        Provider::OpenAiResponses => (
            r#""input":"$messages""#,
            match mode {
                Tool => {
                    r#","tools":[{"type":"function","name":"$name","parameters":"$schema","strict":"$strict"}],"tool_choice":{"type":"function","name":"$name"},"parallel_tool_calls":false"#
                }
                JsonSchema => r#","text":{"format":{"type":"json_schema","name":"$name","schema":"$schema","strict":"$strict"}}"#,
                JsonObject => r#","text":{"format":{"type":"json_object"}}"#,
                Prompt => "",
            },
        ),
        Provider::Anthropic => (
            r#""max_tokens":4096,"messages":"$messages","system":"$system""#,
            match mode {
                Tool => r#","tools":[{"name":"$name","input_schema":"$schema"}],"tool_choice":{"type":"tool","name":"$name"}"#,
                JsonSchema => r#","output_config":{"format":{"type":"json_schema","schema":"$schema"}}"#,
                _ => "",
            },
        ),
        Provider::Gemini => (
            if system {
                r#""contents":"$messages","systemInstruction":{"parts":[{"text":"$system"}]}"#
            } else {
                r#""contents":"$messages""#
            },
            match mode {
                Tool => {
                    r#","tools":[{"functionDeclarations":[{"name":"$name","description":"$description","parametersJsonSchema":"$schema"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["$name"]}}"#
                }
                JsonSchema => r#","generationConfig":{"responseMimeType":"application/json","responseJsonSchema":"$schema"}"#,
                JsonObject => r#","generationConfig":{"responseMimeType":"application/json"}"#,
                Prompt => "",
            },
        ),
        Provider::GeminiInteractions => (
            r#""input":"$messages","system_instruction":"$system""#,
            match mode {
                Tool => {
                    r#","tools":[{"type":"function","name":"$name","parameters":"$schema"}],"generation_config":{"tool_choice":{"allowed_tools":{"mode":"any","tools":["$name"]}}}"#
                }
                JsonSchema => r#","response_format":[{"type":"text","mime_type":"application/json","schema":"$schema"}]"#,
                JsonObject => r#","response_format":[{"type":"text","mime_type":"application/json"}]"#,
                Prompt => "",
            },
        ),
        Provider::Ollama => (
            r#""messages":"$messages""#,
            match mode {
                Tool => r#","tools":[{"type":"function","function":{"name":"$name","parameters":"$schema"}}]"#,
                JsonSchema => r#","format":"$schema""#,
                JsonObject => r#","format":"json""#,
                Prompt => "",
            },
        ),
        Provider::Bedrock => (
            if system { r#""messages":"$messages","system":[{"text":"$system"}]"# } else { r#""messages":"$messages""# },
            match mode {
                Tool => {
                    r#","toolConfig":{"tools":[{"toolSpec":{"name":"$name","inputSchema":{"json":"$schema"}}}],"toolChoice":{"tool":{"name":"$name"}}}"#
                }
                _ => "",
            },
        ),
        Provider::Cohere => (
            r#""messages":"$messages""#,
            match mode {
                // Cohere names no tool in its choice: the one tool, required.
                Tool => {
                    r#","tools":[{"type":"function","function":{"name":"$name","parameters":"$schema"}}],"tool_choice":"REQUIRED""#
                }
                JsonSchema => r#","response_format":{"type":"json_object","json_schema":"$schema"}"#,
                JsonObject => r#","response_format":{"type":"json_object"}"#,
                Prompt => "",
            },
        ),
        Provider::Text | Provider::Auto => (r#""messages":"$messages""#, ""),
    };
    // Gemini and Bedrock name the model in the URL and stream by URL or endpoint.
    let url_named = matches!(provider, Provider::Gemini | Provider::Bedrock);
    let mut t = String::from(if url_named { "{" } else { r#"{"model":"$model","# });
    t.push_str(head);
    t.push_str(part);
    if !url_named {
        t.push_str(r#","stream":"$stream""#);
    }
    if stream && provider == Provider::OpenAiChat {
        t.push_str(r#","stream_options":{"include_usage":true}"#);
    }
    t.push('}');
    t
}

/// Fills the holes of a template's value (see [`body_template`]); `name` may fill more than
/// one, every other hole one.
fn fill(v: &mut JsonValue, holes: &mut [(&str, JsonValue)]) {
    let keep = |v: &mut JsonValue, holes: &mut [(&str, JsonValue)]| -> bool {
        if let JsonValue::String(h) = v {
            if let Some(key) = h.strip_prefix('$') {
                return match holes.iter_mut().find(|(k, _)| *k == key) {
                    Some((k, x)) => {
                        *v = if *k == "name" { x.clone() } else { std::mem::replace(x, JsonValue::Null) };
                        true
                    }
                    None => false,
                };
            }
        }
        fill(v, holes);
        true
    };
    match v {
        JsonValue::Object(m) => m.retain_mut(|(_, v)| keep(v, holes)),
        JsonValue::Array(a) => a.retain_mut(|v| keep(v, holes)),
        _ => {}
    }
}

/// System messages' string contents joined (Anthropic and Gemini take them apart).
fn split_system(messages: Vec<JsonValue>) -> (String, Vec<JsonValue>) {
    let mut system = Vec::new();
    let mut rest = Vec::new();
    for m in messages {
        if m.get("role").and_then(JsonValue::as_str) == Some("system") {
            match m.get("content") {
                Some(JsonValue::String(t)) => system.push(t.clone()),
                Some(other) => system.push(other.to_json()),
                None => {}
            }
        } else {
            rest.push(m);
        }
    }
    (system.join("\n\n"), rest)
}

/// `{role, content: string}` → Bedrock Converse's `{role, content: [{text}]}`.
fn bedrock_message(m: JsonValue) -> JsonValue {
    let role = match m.get("role").and_then(JsonValue::as_str) {
        Some("assistant") => "assistant",
        _ => "user",
    };
    obj(vec![("role", s(role)), ("content", text_parts(&m))])
}

/// A message's `content` as a list of `{text}` parts (a list is kept as it is).
fn text_parts(m: &JsonValue) -> JsonValue {
    match m.get("content") {
        Some(JsonValue::String(t)) => JsonValue::Array(vec![obj(vec![("text", s(t))])]),
        Some(JsonValue::Array(items)) => JsonValue::Array(items.clone()),
        Some(other) => JsonValue::Array(vec![obj(vec![("text", s(&other.to_json()))])]),
        None => JsonValue::Array(Vec::new()),
    }
}

/// `{role, content: string}` → an Interactions input step: `{type: "user_input" |
/// "model_output", content: [{type: "text", text}]}` (a list of content is kept as it is).
fn interactions_step(m: JsonValue) -> JsonValue {
    let kind = match m.get("role").and_then(JsonValue::as_str) {
        Some("assistant" | "model") => "model_output",
        _ => "user_input",
    };
    let content = match m.get("content") {
        Some(JsonValue::String(t)) => JsonValue::Array(vec![obj(vec![("type", s("text")), ("text", s(t))])]),
        Some(JsonValue::Array(items)) => JsonValue::Array(items.clone()),
        Some(other) => JsonValue::Array(vec![obj(vec![("type", s("text")), ("text", s(&other.to_json()))])]),
        None => JsonValue::Array(Vec::new()),
    };
    obj(vec![("type", s(kind)), ("content", content)])
}

/// `{role, content: string}` → Gemini's `{role: "user" | "model", parts: [{text}]}`; a message
/// with `parts` (Gemini's own shape) keeps them.
fn gemini_content(m: JsonValue) -> JsonValue {
    let role = match m.get("role").and_then(JsonValue::as_str) {
        Some("assistant" | "model") => "model",
        _ => "user",
    };
    let parts = match m.get("parts") {
        Some(JsonValue::Array(parts)) => JsonValue::Array(parts.clone()),
        _ => text_parts(&m),
    };
    obj(vec![("role", s(role)), ("parts", parts)])
}
