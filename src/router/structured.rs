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
use crate::json::Quoted;
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
    let (name, schema) = (s(&req.name), req.schema.clone());
    // OpenAI's strict form where it is exact; else the schema as it is, not strict.
    let openai = || match openai_strict(&req.schema) {
        Some(strict) => (strict, JsonValue::Bool(true)),
        None => (req.schema.clone(), JsonValue::Bool(false)),
    };
    let mut body = match provider {
        Provider::OpenAiChat => {
            let mut b = vec![("messages", JsonValue::Array(messages))];
            match mode {
                StructuredMode::Tool => {
                    let (schema, strict) = openai();
                    let function = obj(vec![("name", name.clone()), ("parameters", schema), ("strict", strict)]);
                    b.push(("tools", JsonValue::Array(vec![obj(vec![("type", s("function")), ("function", function)])])));
                    b.push(("tool_choice", obj(vec![("type", s("function")), ("function", obj(vec![("name", name)]))])));
                    b.push(("parallel_tool_calls", JsonValue::Bool(false)));
                }
                StructuredMode::JsonSchema => {
                    let (schema, strict) = openai();
                    let js = obj(vec![("name", name), ("schema", schema), ("strict", strict)]);
                    b.push(("response_format", obj(vec![("type", s("json_schema")), ("json_schema", js)])));
                }
                StructuredMode::JsonObject => b.push(("response_format", obj(vec![("type", s("json_object"))]))),
                StructuredMode::Prompt => {}
            }
            b.push(("stream", JsonValue::Bool(req.stream)));
            if req.stream {
                b.push(("stream_options", obj(vec![("include_usage", JsonValue::Bool(true))])));
            }
            obj(b)
        }
        Provider::OpenAiResponses => {
            let mut b = vec![("input", JsonValue::Array(messages))];
            match mode {
                StructuredMode::Tool => {
                    let (schema, strict) = openai();
                    let tool =
                        obj(vec![("type", s("function")), ("name", name.clone()), ("parameters", schema), ("strict", strict)]);
                    b.push(("tools", JsonValue::Array(vec![tool])));
                    b.push(("tool_choice", obj(vec![("type", s("function")), ("name", name)])));
                    b.push(("parallel_tool_calls", JsonValue::Bool(false)));
                }
                StructuredMode::JsonSchema => {
                    let (schema, strict) = openai();
                    let format = obj(vec![("type", s("json_schema")), ("name", name), ("schema", schema), ("strict", strict)]);
                    b.push(("text", obj(vec![("format", format)])));
                }
                StructuredMode::JsonObject => {
                    b.push(("text", obj(vec![("format", obj(vec![("type", s("json_object"))]))])));
                }
                StructuredMode::Prompt => {}
            }
            b.push(("stream", JsonValue::Bool(req.stream)));
            obj(b)
        }
        Provider::Anthropic => {
            let (system, rest) = split_system(messages);
            let mut b = vec![("max_tokens", JsonValue::Number("4096".into())), ("messages", JsonValue::Array(rest))];
            if !system.is_empty() {
                b.push(("system", s(&system)));
            }
            match mode {
                StructuredMode::Tool => {
                    let tool = obj(vec![("name", name.clone()), ("input_schema", schema)]);
                    b.push(("tools", JsonValue::Array(vec![tool])));
                    b.push(("tool_choice", obj(vec![("type", s("tool")), ("name", name)])));
                }
                StructuredMode::JsonSchema => {
                    // Closed objects, no unsupported constraints: what the API accepts.
                    let format = obj(vec![("type", s("json_schema")), ("schema", anthropic_output_schema(&schema))]);
                    b.push(("output_config", obj(vec![("format", format)])));
                }
                _ => {}
            }
            b.push(("stream", JsonValue::Bool(req.stream)));
            obj(b)
        }
        Provider::Gemini => {
            let (system, rest) = split_system(messages);
            let contents = rest.into_iter().map(gemini_content).collect();
            let mut b = vec![("contents", JsonValue::Array(contents))];
            if !system.is_empty() {
                let part = obj(vec![("text", s(&system))]);
                b.push(("systemInstruction", obj(vec![("parts", JsonValue::Array(vec![part]))])));
            }
            match mode {
                StructuredMode::Tool => {
                    // `parameters` takes only Google's restricted schema (no `$ref`, `$defs`,
                    // `additionalProperties`); `parametersJsonSchema` takes JSON Schema.
                    let description = match req.schema.get("description").and_then(JsonValue::as_str) {
                        Some(d) if !d.trim().is_empty() => d.to_string(),
                        _ => format!("Returns the structured output {} as its arguments.", req.name),
                    };
                    let decl =
                        obj(vec![("name", name.clone()), ("description", s(&description)), ("parametersJsonSchema", schema)]);
                    b.push(("tools", JsonValue::Array(vec![obj(vec![("functionDeclarations", JsonValue::Array(vec![decl]))])])));
                    let config = obj(vec![("mode", s("ANY")), ("allowedFunctionNames", JsonValue::Array(vec![name]))]);
                    b.push(("toolConfig", obj(vec![("functionCallingConfig", config)])));
                }
                StructuredMode::JsonSchema => b.push((
                    "generationConfig",
                    obj(vec![("responseMimeType", s("application/json")), ("responseJsonSchema", schema)]),
                )),
                StructuredMode::JsonObject => {
                    b.push(("generationConfig", obj(vec![("responseMimeType", s("application/json"))])))
                }
                StructuredMode::Prompt => {}
            }
            obj(b)
        }
        Provider::GeminiInteractions => {
            let (system, rest) = split_system(messages);
            let steps = rest.into_iter().map(interactions_step).collect();
            let mut b = vec![("input", JsonValue::Array(steps))];
            if !system.is_empty() {
                b.push(("system_instruction", s(&system)));
            }
            let json = || vec![("type", s("text")), ("mime_type", s("application/json"))];
            match mode {
                StructuredMode::Tool => {
                    let tool = obj(vec![("type", s("function")), ("name", name.clone()), ("parameters", schema)]);
                    b.push(("tools", JsonValue::Array(vec![tool])));
                    let allowed = obj(vec![("mode", s("any")), ("tools", JsonValue::Array(vec![name]))]);
                    b.push(("generation_config", obj(vec![("tool_choice", obj(vec![("allowed_tools", allowed)]))])));
                }
                StructuredMode::JsonSchema => {
                    let mut format = json();
                    format.push(("schema", schema));
                    b.push(("response_format", JsonValue::Array(vec![obj(format)])));
                }
                StructuredMode::JsonObject => b.push(("response_format", JsonValue::Array(vec![obj(json())]))),
                StructuredMode::Prompt => {}
            }
            b.push(("stream", JsonValue::Bool(req.stream)));
            obj(b)
        }
        Provider::Ollama => {
            let mut b = vec![("messages", JsonValue::Array(messages))];
            match mode {
                StructuredMode::Tool => {
                    let function = obj(vec![("name", name), ("parameters", schema)]);
                    b.push(("tools", JsonValue::Array(vec![obj(vec![("type", s("function")), ("function", function)])])));
                }
                StructuredMode::JsonSchema => b.push(("format", schema)),
                StructuredMode::JsonObject => b.push(("format", s("json"))),
                StructuredMode::Prompt => {}
            }
            b.push(("stream", JsonValue::Bool(req.stream)));
            obj(b)
        }
        Provider::Bedrock => {
            let (system, rest) = split_system(messages);
            let messages = rest.into_iter().map(bedrock_message).collect();
            let mut b = vec![("messages", JsonValue::Array(messages))];
            if !system.is_empty() {
                b.push(("system", JsonValue::Array(vec![obj(vec![("text", s(&system))])])));
            }
            if mode == StructuredMode::Tool {
                let spec = obj(vec![("name", name.clone()), ("inputSchema", obj(vec![("json", schema)]))]);
                let choice = obj(vec![("tool", obj(vec![("name", name)]))]);
                b.push((
                    "toolConfig",
                    obj(vec![("tools", JsonValue::Array(vec![obj(vec![("toolSpec", spec)])])), ("toolChoice", choice)]),
                ));
            }
            obj(b)
        }
        Provider::Cohere => {
            let mut b = vec![("messages", JsonValue::Array(messages))];
            match mode {
                // Cohere names no tool in its choice: the one tool, required.
                StructuredMode::Tool => {
                    let function = obj(vec![("name", name), ("parameters", schema)]);
                    b.push(("tools", JsonValue::Array(vec![obj(vec![("type", s("function")), ("function", function)])])));
                    b.push(("tool_choice", s("REQUIRED")));
                }
                StructuredMode::JsonSchema => {
                    b.push(("response_format", obj(vec![("type", s("json_object")), ("json_schema", schema)])))
                }
                StructuredMode::JsonObject => b.push(("response_format", obj(vec![("type", s("json_object"))]))),
                StructuredMode::Prompt => {}
            }
            b.push(("stream", JsonValue::Bool(req.stream)));
            obj(b)
        }
        Provider::Text | Provider::Auto => {
            obj(vec![("messages", JsonValue::Array(messages)), ("stream", JsonValue::Bool(req.stream))])
        }
    };
    if let (Some(model), JsonValue::Object(members)) = (&req.model, &mut body) {
        if !matches!(provider, Provider::Gemini | Provider::Bedrock) {
            members.insert(0, ("model".to_string(), s(model)));
        }
    }
    Ok((body, mode))
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
