//! Work grows linearly with the input, for every one-shot function and every machine, on
//! adversarial inputs (many keys, repeated keys, many items, many tool calls, nesting within
//! the caps, many `{`).
//!
//! How it measures: `cargo test --test scaling` runs this same binary again under
//! `valgrind --tool=callgrind` with `STREAMROUTE_SCALING_RUN=1`. That run builds each
//! workload's input at 0, 1, 2, 4 and 8 units and calls `measure_workload` on it; callgrind
//! counts only the instructions inside that function (`--toggle-collect`) and writes one
//! count per call (`--dump-after`). Wall time never enters: the instruction count of the same
//! binary on the same input does not depend on the machine's load. With `I(k)` the count at
//! `k` units, linear work gives `(I(k) - I(0)) / (I(1) - I(0))` close to `k`, quadratic work
//! close to `k²`; the check allows `1.5 k` (so at 8 units 12 where quadratic gives ~64).
//!
//! Adding a case: one row in `WORKLOADS` (a name, how many items one unit is, a generator of
//! the input for `n` items and the call to measure). Keep one unit large enough that the work
//! it adds dwarfs the fixed cost of a call, and the 8-unit input a few hundred KB at most.
//!
//! `STREAMROUTE_SCALING=a,b` measures only the workloads whose name contains `a` or `b`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::process::Command;

use streamroute::plan::{
    apply_removals, check_coverage, classify_repair, narrow_ranked, parse_catalog, validate_requirements, CapabilityMap,
    NarrowOptions, Plan, RequirementLabels, Requirements, Tool, ToolIndex,
};
use streamroute::{
    build_final_payload, check_tagged, collect_sources, normalize_action_text, normalize_action_value, parse_json,
    parse_strict_document, parse_tagged, redact_artifacts, redact_artifacts_json, repair_json, validate_final_payload,
    AnswerExtractor, AnswerExtractorOptions, ArtifactCollector, ArtifactCollectorOptions, ArtifactStream, ContentMode,
    JsonItemStream, JsonItemStreamOptions, JsonValue, PartialJson, PartialJsonOptions, PayloadContext, Provider, SseDecoder,
    SseDecoderOptions, SseEncoder, SseEncoderOptions, SseMessage, StreamRouter, StreamRouterOptions, TagFilter, TagFilterOptions,
    ToolStep,
};

/// What a workload reads: text, or values built directly (so that repeated keys reach the
/// value functions as they are, whatever the parser keeps).
enum Input {
    Text(String),
    /// Binary input for a machine (event-stream frames).
    Bytes(Vec<u8>),
    Value(JsonValue),
    Values(Vec<JsonValue>),
}

struct Workload {
    name: &'static str,
    /// Items per unit of size.
    unit: usize,
    input: fn(usize) -> Input,
    run: fn(&Input),
}

const SIZES: [usize; 5] = [0, 1, 2, 4, 8];
/// Chunk size for the machines: odd, so chunk edges fall everywhere in the repeated items.
const CHUNK: usize = 61;
const NONCE: &str = "0123456789abcdef0123456789abcdef";

// ---------------------------------------------------------------------------------------------
// Inputs

fn s(t: &str) -> JsonValue {
    JsonValue::String(t.to_string())
}

fn obj(members: Vec<(String, JsonValue)>) -> JsonValue {
    JsonValue::Object(members)
}

/// `"k0":0,"k1":1,…` (distinct keys), or every key twice (`repeat`).
fn members_text(n: usize, repeat: bool) -> String {
    let mut t = String::new();
    for i in 0..n {
        let k = if repeat { i / 2 } else { i };
        let _ = write!(t, "{}\"k{k}\":{i}", if i > 0 { "," } else { "" });
    }
    t
}

/// Members `k0…` with string values; every key twice when `repeat`.
fn members(n: usize, repeat: bool) -> Vec<(String, JsonValue)> {
    (0..n).map(|i| (format!("k{}", if repeat { i / 2 } else { i }), s("v"))).collect()
}

fn keys_text(n: usize) -> Input {
    Input::Text(format!("{{{}}}", members_text(n, false)))
}

fn repeated_keys_text(n: usize) -> Input {
    Input::Text(format!("{{{}}}", members_text(n, true)))
}

fn items_text(n: usize) -> Input {
    let items: Vec<String> = (0..n).map(|i| format!("{{\"id\":{i},\"name\":\"item {i}\"}}")).collect();
    Input::Text(format!("{{\"items\":[{}]}}", items.join(",")))
}

/// `n` values nested 500 deep (within the repairer's cap of 512) by `open` ... `close`, in an
/// array.
fn nested_units(open: &str, close: &str, n: usize) -> Input {
    let one = format!("{}1{}", open.repeat(500), close.repeat(500));
    Input::Text(format!("[{}]", vec![one; n].join(",")))
}

/// Arrays nested 100 deep (well within the depth caps), one after another.
fn nested_text(n: usize) -> Input {
    let one = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    Input::Text(format!("[{}]", vec![one; n].join(",")))
}

/// Broken JSON the repairer has work on: unquoted keys, single quotes, missing commas.
fn broken_text(n: usize) -> Input {
    let mut t = String::from("{");
    for i in 0..n {
        let _ = write!(t, "k{i}: 'v{i}' ");
    }
    Input::Text(t)
}

/// JSON full of `{`: empty objects with stray commas (each a repair).
fn broken_braces_text(n: usize) -> Input {
    Input::Text(format!("[{}]", "{ {, ".repeat(n)))
}

/// Prose full of `{` (each a possible JSON start), then an action.
fn braces_text(n: usize) -> Input {
    Input::Text(format!("{} {{\"next_node\":\"final_response\",\"args\":{{\"answer\":\"ok\"}}}}", "a { b {c} ".repeat(n)))
}

fn action_text(n: usize) -> Input {
    Input::Text(format!("{{\"next_node\":\"search\",\"args\":{{{}}}}}", members_text(n, false)))
}

fn action_repeated_text(n: usize) -> Input {
    Input::Text(format!("{{\"next_node\":\"search\",\"next_node\":\"other\",\"args\":{{{}}}}}", members_text(n, true)))
}

fn action_value(n: usize) -> Input {
    Input::Value(obj(vec![
        ("next_node".into(), s("final_response")),
        ("args".into(), obj(members(n, true))),
        ("action".into(), obj(vec![("args".into(), obj(members(n, false)))])),
    ]))
}

fn bare_answer_value(n: usize) -> Input {
    let mut m = vec![("answer".to_string(), s("A"))];
    m.extend(members(n, true));
    Input::Value(obj(m))
}

/// A payload with many extra keys (each twice) and many artifact nodes.
fn payload_value(n: usize) -> Input {
    let nodes: Vec<(String, JsonValue)> = (0..n / 4).map(|i| (format!("node{}", i / 2), obj(members(4, true)))).collect();
    Input::Value(obj(vec![
        ("raw_answer".into(), s("a")),
        ("extra".into(), obj(members(n, true))),
        ("artifacts".into(), obj(nodes)),
    ]))
}

/// Final-response args with many unknown keys, an `extra` that has half of them, and
/// artifacts; the context brings as many artifact nodes again.
fn build_values(n: usize) -> Input {
    let mut m = vec![("answer".to_string(), s("A"))];
    m.extend(members(n, false));
    m.push(("extra".into(), obj(members(n / 2, false))));
    let nodes: Vec<(String, JsonValue)> = (0..n / 4).map(|i| (format!("node{i}"), obj(members(4, false)))).collect();
    m.push(("artifacts".into(), obj(nodes.clone())));
    Input::Values(vec![obj(m), obj(nodes)])
}

/// An observation with many fields and a schema declaring them all, half as artifacts.
fn observation_values(n: usize) -> Input {
    let props: Vec<(String, JsonValue)> = (0..n)
        .map(|i| (format!("k{i}"), obj(vec![("type".into(), s("string")), ("artifact".into(), JsonValue::Bool(i % 2 == 0))])))
        .collect();
    let schema = obj(vec![("type".into(), s("object")), ("properties".into(), obj(props))]);
    Input::Values(vec![obj(members(n, false)), schema])
}

/// Many source objects under a schema that produces sources.
fn sources_values(n: usize) -> Input {
    let schema = obj(vec![
        ("type".into(), s("array")),
        ("produces_sources".into(), JsonValue::Bool(true)),
        ("items".into(), obj(vec![("type".into(), s("object"))])),
    ]);
    let items = (0..n)
        .map(|i| {
            obj(vec![
                ("title".into(), s(&format!("t{i}"))),
                ("url".into(), s(&format!("https://x/{i}"))),
                ("snippet".into(), s("s")),
            ])
        })
        .collect();
    Input::Values(vec![JsonValue::Array(items), schema])
}

fn tagged_text(n: usize) -> Input {
    let mut t = format!("[ARTIFACT:{NONCE}]");
    for i in 0..n {
        let _ = write!(t, "row {i} [x] [ARTIFACT:{} ", &NONCE[..8]);
    }
    let _ = write!(t, "[/ARTIFACT:{NONCE}][USER:{NONCE}]done[/USER:{NONCE}]");
    Input::Text(t)
}

fn sse_text(n: usize) -> Input {
    let mut t = String::new();
    for i in 0..n {
        let _ = write!(t, "id: {i}\nevent: e\ndata: line {i}\ndata: more\n\n");
    }
    Input::Text(t)
}

/// Chat completion chunks, one SSE event per `pieces` item.
fn chat_sse(pieces: impl Iterator<Item = String>) -> String {
    let mut t = String::new();
    for p in pieces {
        let _ = write!(t, "data: {{\"choices\":[{{\"index\":0,\"delta\":{p}}}]}}\n\n");
    }
    t.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    t
}

fn json_str(t: &str) -> String {
    JsonValue::String(t.to_string()).to_json()
}

fn chat_text_deltas(n: usize) -> Input {
    Input::Text(chat_sse((0..n).map(|i| format!("{{\"content\":\"word {i} \"}}"))))
}

/// Reasoning deltas that cut a possible nonce (the tagged mode's NONCE) at every delta, with
/// invisible characters inside, and quote it whole: what the router's nonce masks hold and
/// rescan.
fn chat_reasoning_nonce_deltas(n: usize) -> Input {
    Input::Text(chat_sse((0..n).map(|i| {
        let piece = if i % 2 == 0 { "0123\\u200b4567".to_string() } else { format!("89ab {NONCE} ") };
        format!("{{\"reasoning_content\":\"{piece}\"}}")
    })))
}

fn chat_action_deltas(n: usize) -> Input {
    let Input::Text(action) = action_repeated_text(n) else { unreachable!() };
    let pieces: Vec<String> = action.as_bytes().chunks(16).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    Input::Text(chat_sse(pieces.into_iter().map(|p| format!("{{\"content\":{}}}", json_str(&p)))))
}

fn chat_tool_calls(n: usize) -> Input {
    Input::Text(chat_sse((0..n).flat_map(|i| {
        [
            format!("{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"\"}}}}]}}"),
            format!("{{\"tool_calls\":[{{\"index\":{i},\"function\":{{\"arguments\":\"{{\\\"a\\\":{i}}}\"}}}}]}}"),
        ]
    })))
}

fn chat_tool_arguments(n: usize) -> Input {
    let Input::Text(args) = keys_text(n) else { unreachable!() };
    let mut pieces = vec!["{\"tool_calls\":[{\"index\":0,\"id\":\"call_0\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}".to_string()];
    for c in args.as_bytes().chunks(20) {
        let c = String::from_utf8_lossy(c);
        pieces.push(format!("{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":{}}}}}]}}", json_str(&c)));
    }
    Input::Text(chat_sse(pieces.into_iter()))
}

fn anthropic_tool_calls(n: usize) -> Input {
    let mut t = String::from("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n");
    for i in 0..n {
        let _ = write!(t, "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"f\",\"input\":{{}}}}}}\n\n");
        let _ = write!(t, "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{\\\"a\\\":{i}}}\"}}}}\n\n");
        let _ = write!(t, "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n");
    }
    t.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    Input::Text(t)
}

fn responses_tool_calls(n: usize) -> Input {
    let mut t = String::new();
    for i in 0..n {
        let _ = write!(t, "event: response.output_item.added\ndata: {{\"type\":\"response.output_item.added\",\"output_index\":{i},\"item\":{{\"id\":\"fc_{i}\",\"type\":\"function_call\",\"arguments\":\"\",\"call_id\":\"c{i}\",\"name\":\"f\"}}}}\n\n");
        let _ = write!(t, "event: response.function_call_arguments.delta\ndata: {{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_{i}\",\"output_index\":{i},\"delta\":\"{{\\\"a\\\":{i}}}\"}}\n\n");
        let _ = write!(t, "event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\",\"output_index\":{i},\"item\":{{\"id\":\"fc_{i}\",\"type\":\"function_call\",\"arguments\":\"{{\\\"a\\\":{i}}}\",\"call_id\":\"c{i}\",\"name\":\"f\"}}}}\n\n");
    }
    t.push_str("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n");
    Input::Text(t)
}

fn gemini_function_args(n: usize) -> Input {
    Input::Text(format!(
        "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"functionCall\":{{\"name\":\"f\",\"args\":{{{}}}}}}}],\"role\":\"model\"}},\"finishReason\":\"STOP\",\"index\":0}}]}}\n\n",
        members_text(n, true)
    ))
}

/// One Gemini event whose streamed call sets `n` distinct keys (`partialArgs`), then a finish.
fn gemini_partial_args(n: usize) -> Input {
    let mut entries = String::new();
    for i in 0..n {
        let _ = write!(entries, "{}{{\"jsonPath\":\"$.k{i}\",\"numberValue\":{i}}}", if i > 0 { "," } else { "" });
    }
    Input::Text(format!(
        "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"functionCall\":{{\"name\":\"f\",\"partialArgs\":[{entries}]}}}}],\"role\":\"model\"}},\"finishReason\":\"STOP\",\"index\":0}}]}}\n\n"
    ))
}

/// Blank lines, then one Ollama line whose `model` is `10 n` bytes: `auto` holds it all
/// before it can decide.
fn auto_long_first_line(n: usize) -> Input {
    Input::Text(format!(
        "{}{{\"model\":\"{}\",\"created_at\":\"t\",\"response\":\"hi\",\"done\":true}}\n",
        "\n".repeat(n),
        "m".repeat(9 * n)
    ))
}

fn catalog_value(n: usize) -> Input {
    let tools =
        (0..n).map(|i| obj(vec![("name".into(), s(&format!("tool{i}"))), ("description".into(), s("does a thing"))])).collect();
    Input::Value(JsonValue::Array(tools))
}

fn repair_pair(n: usize) -> Input {
    let params = |d: &str| obj((0..n).map(|i| (format!("k{i}"), s(d))).collect());
    Input::Values(vec![
        obj(vec![("tool".into(), s("t")), ("params".into(), params("a"))]),
        obj(vec![("tool".into(), s("t")), ("params".into(), params("a"))]),
    ])
}

fn plan_steps(n: usize) -> Input {
    let steps = (0..n).map(|i| obj(vec![("tool".into(), s(&format!("t{}", i % 7))), ("params".into(), obj(vec![]))])).collect();
    Input::Value(obj(vec![("steps".into(), JsonValue::Array(steps))]))
}

fn requirements_value(n: usize) -> Input {
    let list = |p: &str| JsonValue::Array((0..n).map(|i| s(&format!("{p}{}", i / 2))).collect());
    Input::Value(obj(vec![("metrics".into(), list("m")), ("group_by".into(), list("g")), ("analysis".into(), list("trend"))]))
}

/// A catalog of `n` tools, a plan of `n` steps (every other one calling a tool the catalog
/// lacks, each a different one) and the requirements they cite.
fn coverage_values(n: usize) -> Input {
    let list = |items: &[&str]| JsonValue::Array(items.iter().map(|i| s(i)).collect());
    let tools = (0..n)
        .map(|i| obj(vec![("name".into(), s(&format!("tool{i}"))), ("capabilities".into(), list(&["aggregate", "plot_line"]))]))
        .collect();
    let steps = (0..n)
        .map(|i| {
            let tool = if i % 2 == 0 { format!("tool{i}") } else { format!("missing{i}") };
            let params = obj(vec![("group_by".into(), list(&["region"]))]);
            obj(vec![("tool".into(), s(&tool)), ("params".into(), params), ("satisfies".into(), list(&["metrics", "group_by"]))])
        })
        .collect();
    let req = obj(vec![
        ("metrics".into(), list(&["sales"])),
        ("group_by".into(), list(&["region"])),
        ("analysis".into(), list(&["trend"])),
    ]);
    Input::Values(vec![JsonValue::Array(tools), obj(vec![("steps".into(), JsonValue::Array(steps))]), req])
}

fn coverage(input: &Input) {
    let [tools, plan, req] = values(input) else { unreachable!() };
    let JsonValue::Array(tools) = tools else { unreachable!() };
    let tools = tools.iter().map(|t| Tool::from_json(t, "tool").expect("tool")).collect();
    let index = ToolIndex::new(tools, None, None).expect("index");
    let plan = Plan::from_json(plan).expect("plan");
    let req = Requirements::from_json(req).expect("requirements");
    drop(black_box(check_coverage(&req, &plan, &CapabilityMap::default(), &index)));
}

/// `head`, `n` times `unit`, `tail`.
fn repeat_text(head: &str, unit: &str, n: usize, tail: &str) -> Input {
    Input::Text(format!("{head}{}{tail}", unit.repeat(n)))
}

/// Ollama `/api/chat` NDJSON: per unit a text line and a line with a tool call.
fn ollama_lines(n: usize) -> Input {
    let mut t = String::new();
    for i in 0..n {
        let _ =
            writeln!(t, "{{\"model\":\"m\",\"message\":{{\"role\":\"assistant\",\"content\":\"part {i} \"}},\"done\":false}}");
        let _ = writeln!(t, "{{\"model\":\"m\",\"message\":{{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{{\"function\":{{\"name\":\"f\",\"arguments\":{{\"a\":{i}}}}}}}]}},\"done\":false}}");
    }
    t.push_str("{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"eval_count\":5}\n");
    Input::Text(t)
}

/// Bedrock `ConverseStream` event-stream frames: per unit a tool call (start, input, stop).
fn bedrock_frames(n: usize) -> Input {
    let frame = |event: &str, json: String| {
        streamroute::encode_eventstream_message(
            &[(":event-type", event), (":content-type", "application/json"), (":message-type", "event")],
            json.as_bytes(),
        )
    };
    let mut b = frame("messageStart", "{\"role\":\"assistant\"}".into());
    for i in 0..n {
        b.extend(frame(
            "contentBlockStart",
            format!("{{\"contentBlockIndex\":{i},\"start\":{{\"toolUse\":{{\"toolUseId\":\"t{i}\",\"name\":\"f\"}}}}}}"),
        ));
        b.extend(frame(
            "contentBlockDelta",
            format!("{{\"contentBlockIndex\":{i},\"delta\":{{\"toolUse\":{{\"input\":\"{{\\\"a\\\":{i}}}\"}}}}}}"),
        ));
        b.extend(frame("contentBlockStop", format!("{{\"contentBlockIndex\":{i}}}")));
    }
    b.extend(frame("messageStop", "{\"stopReason\":\"tool_use\"}".into()));
    Input::Bytes(b)
}

// ---------------------------------------------------------------------------------------------
// Runs

fn repair(input: &Input) {
    drop(black_box(repair_json(text(input))));
}

fn text(input: &Input) -> &str {
    match input {
        Input::Text(t) => t,
        _ => unreachable!("a text workload"),
    }
}

fn value(input: &Input) -> &JsonValue {
    match input {
        Input::Value(v) => v,
        _ => unreachable!("a value workload"),
    }
}

fn values(input: &Input) -> &[JsonValue] {
    match input {
        Input::Values(v) => v,
        _ => unreachable!("a values workload"),
    }
}

/// Feeds `input` to `feed` in `CHUNK`-byte pieces.
fn chunks(input: &Input, mut feed: impl FnMut(&[u8])) {
    let bytes = match input {
        Input::Bytes(b) => b,
        _ => text(input).as_bytes(),
    };
    for c in bytes.chunks(CHUNK) {
        feed(c);
    }
}

fn router(input: &Input, provider: Provider, content: ContentMode) {
    let mut r =
        StreamRouter::new(StreamRouterOptions { provider, content, nonce: Some(NONCE.into()), ..StreamRouterOptions::default() })
            .expect("router");
    let mut out = Vec::new();
    chunks(input, |c| {
        let _ = r.feed(c, &mut out);
        out.clear();
    });
    let _ = black_box(r.finish(&mut out));
    black_box(out);
}

fn partial(input: &Input) {
    let mut p = PartialJson::new(PartialJsonOptions::default());
    let mut out = Vec::new();
    chunks(input, |c| {
        let _ = p.feed(c, &mut out);
        out.clear();
    });
    let _ = black_box(p.finish(&mut out));
}

fn items(input: &Input) {
    let mut p = JsonItemStream::new("$.items", JsonItemStreamOptions::default()).expect("path");
    let mut out = Vec::new();
    chunks(input, |c| {
        let _ = p.feed(c, &mut out);
        out.clear();
    });
    let _ = black_box(p.finish(&mut out));
}

fn extractor(input: &Input) {
    let mut e = AnswerExtractor::new(AnswerExtractorOptions::default());
    let mut out = String::new();
    chunks(input, |c| {
        let _ = e.feed_into(c, &mut out);
    });
    let _ = black_box(e.finish());
    black_box(out);
}

fn tag_filter(input: &Input) {
    let mut f = TagFilter::new(NONCE, TagFilterOptions::default()).expect("nonce");
    let mut out = Vec::new();
    chunks(input, |c| {
        let _ = f.feed(c, &mut out);
        out.clear();
    });
    let _ = black_box(f.finish(&mut out));
}

fn sse(input: &Input) {
    let mut d = SseDecoder::new(SseDecoderOptions::default());
    let mut out = Vec::new();
    chunks(input, |c| {
        let _ = d.feed(c, &mut out);
        out.clear();
    });
    let _ = black_box(d.finish(&mut out));
}

fn sse_encode(input: &Input) {
    let mut e = SseEncoder::new(SseEncoderOptions::default());
    let mut out = String::new();
    for line in text(input).lines() {
        let _ = e.encode_into(&SseMessage { event: Some("e"), data: line, ..SseMessage::default() }, &mut out);
    }
    black_box(out);
}

/// Many calls, each one field under its own node (a small schema each): the collector's own
/// tables must not be scanned per call.
fn collector_calls(input: &Input) {
    let schema = JsonValue::Object(vec![(
        "properties".into(),
        JsonValue::Object(vec![("k".into(), JsonValue::Object(vec![("artifact".into(), JsonValue::Bool(true))]))]),
    )]);
    let mut c = ArtifactCollector::new(ArtifactCollectorOptions::default());
    if let JsonValue::Object(m) = &values(input)[0] {
        for (i, (_, v)) in m.iter().enumerate() {
            let one = JsonValue::Object(vec![("k".into(), v.clone())]);
            let _ = c.collect(&format!("node{}", i / 2), &schema, &one);
        }
    }
    black_box(c.all_json());
}

/// One call with many fields under one schema.
fn collector_fields(input: &Input) {
    let [observation, schema] = values(input) else { unreachable!() };
    let mut c = ArtifactCollector::new(ArtifactCollectorOptions::default());
    let _ = c.collect("node", schema, observation);
    black_box(c.all_json());
}

fn artifact_stream(input: &Input) {
    let mut st = ArtifactStream::new();
    for (i, line) in text(input).lines().enumerate() {
        let _ = black_box(st.emit(&format!("s{}", i % 512), s(line), false, None));
    }
}

const WORKLOADS: &[Workload] = &[
    // One-shot functions.
    Workload { name: "repair_json/keys", unit: 500, input: keys_text, run: |i| drop(black_box(repair_json(text(i)))) },
    Workload { name: "repair_json/broken", unit: 500, input: broken_text, run: |i| drop(black_box(repair_json(text(i)))) },
    Workload { name: "repair_json/braces", unit: 500, input: broken_braces_text, run: |i| drop(black_box(repair_json(text(i)))) },
    Workload { name: "repair_json/nested", unit: 10, input: nested_text, run: |i| drop(black_box(repair_json(text(i)))) },
    // Repair inputs built against backtracking (tests/repair.rs): one repeated unit each.
    Workload { name: "repair_json/quote_pairs", unit: 500, input: |n| repeat_text("[\"", "x\"\" ", n, ""), run: repair },
    Workload {
        name: "repair_json/brackets_in_strings",
        unit: 250,
        input: |n| repeat_text("\"", "[a\"] b {c\"} d ", n, ""),
        run: repair,
    },
    Workload { name: "repair_json/unquoted_commas", unit: 500, input: |n| repeat_text("[\"", "a, ", n, "]"), run: repair },
    Workload { name: "repair_json/unquoted_plus", unit: 500, input: |n| repeat_text("[\"", "a+", n, "]"), run: repair },
    Workload { name: "repair_json/concat_lines", unit: 500, input: |n| repeat_text("", "\"a +\n ", n, ""), run: repair },
    Workload { name: "repair_json/concat", unit: 500, input: |n| repeat_text("[", "\"x\" + ", n, ""), run: repair },
    Workload { name: "repair_json/bare_text", unit: 250, input: |n| repeat_text("", "hello world, 2.3.4\n", n, ""), run: repair },
    Workload { name: "repair_json/fences", unit: 250, input: |n| repeat_text("", "[```json\n1\n```]", n, ""), run: repair },
    Workload {
        name: "repair_json/comment_in_string",
        unit: 250,
        input: |n| repeat_text("[", "\"a /* c */ + \"b\" ", n, ""),
        run: repair,
    },
    Workload {
        name: "repair_json/comment_unclosed",
        unit: 500,
        input: |n| repeat_text("[\"/* ", "a */ \" ", n, ""),
        run: repair,
    },
    // A `/` that opens no regex on its line, at every level: the scan for the closing `/` read
    // the rest of the line again for each (quadratic at one level per `]`).
    Workload { name: "repair_json/regex_unclosed", unit: 250, input: |n| repeat_text("", "[/a]", n, ""), run: repair },
    Workload { name: "repair_json/regex_nested", unit: 1, input: |n| nested_units("[/a", "]", n), run: repair },
    Workload {
        name: "parse_json/repeated_keys",
        unit: 500,
        input: repeated_keys_text,
        run: |i| drop(black_box(parse_json(text(i), false))),
    },
    Workload { name: "parse_json/items", unit: 250, input: items_text, run: |i| drop(black_box(parse_json(text(i), false))) },
    Workload { name: "parse_json/broken", unit: 500, input: broken_text, run: |i| drop(black_box(parse_json(text(i), true))) },
    Workload {
        name: "parse_strict_document/repeated_keys",
        unit: 500,
        input: repeated_keys_text,
        run: |i| drop(black_box(parse_strict_document(text(i).as_bytes()))),
    },
    Workload {
        name: "parse_strict_document/items",
        unit: 250,
        input: items_text,
        run: |i| drop(black_box(parse_strict_document(text(i).as_bytes()))),
    },
    Workload {
        name: "parse_strict_document/nested",
        unit: 10,
        input: nested_text,
        run: |i| drop(black_box(parse_strict_document(text(i).as_bytes()))),
    },
    Workload {
        name: "parse_strict_document/escapes",
        unit: 500,
        input: |n| repeat_text("[\"", "a\\n\\u00e9\\ud83d\\ude00\\ud800 ", n, "\"]"),
        run: |i| drop(black_box(parse_strict_document(text(i).as_bytes()))),
    },
    Workload {
        name: "normalize_action_text/keys",
        unit: 500,
        input: action_text,
        run: |i| drop(black_box(normalize_action_text(text(i)))),
    },
    Workload {
        name: "normalize_action_text/repeated_keys",
        unit: 500,
        input: action_repeated_text,
        run: |i| drop(black_box(normalize_action_text(text(i)))),
    },
    Workload {
        name: "normalize_action_text/braces",
        unit: 250,
        input: braces_text,
        run: |i| drop(black_box(normalize_action_text(text(i)))),
    },
    Workload {
        name: "normalize_action_value/repeated_keys",
        unit: 500,
        input: action_value,
        run: |i| drop(black_box(normalize_action_value(value(i)))),
    },
    Workload {
        name: "normalize_action_value/bare_answer",
        unit: 500,
        input: bare_answer_value,
        run: |i| drop(black_box(normalize_action_value(value(i)))),
    },
    Workload {
        name: "validate_final_payload/repeated_keys",
        unit: 500,
        input: payload_value,
        run: |i| drop(black_box(validate_final_payload(value(i)))),
    },
    Workload {
        name: "build_final_payload/keys",
        unit: 500,
        input: build_values,
        run: |i| {
            let [args, nodes] = values(i) else { unreachable!() };
            let JsonValue::Object(nodes) = nodes else { unreachable!() };
            let artifacts = nodes
                .iter()
                .map(|(n, f)| {
                    (
                        n.clone(),
                        match f {
                            JsonValue::Object(m) => m.clone(),
                            _ => vec![],
                        },
                    )
                })
                .collect();
            let context = PayloadContext { artifacts, ..PayloadContext::default() };
            drop(black_box(build_final_payload(args, &context)));
        },
    },
    Workload {
        name: "redact_artifacts/keys",
        unit: 250,
        input: observation_values,
        run: |i| drop(black_box(redact_artifacts(&values(i)[0], &values(i)[1]))),
    },
    Workload {
        name: "redact_artifacts_json/keys",
        unit: 250,
        input: observation_values,
        run: |i| drop(black_box(redact_artifacts_json(&values(i)[0].to_json(), &values(i)[1]))),
    },
    Workload { name: "ArtifactCollector/fields", unit: 250, input: observation_values, run: collector_fields },
    Workload { name: "ArtifactCollector/calls", unit: 250, input: observation_values, run: collector_calls },
    Workload {
        name: "collect_sources/items",
        unit: 250,
        input: sources_values,
        run: |i| {
            let steps = [ToolStep { node: "search", schema: &values(i)[1], observation: &values(i)[0] }];
            drop(black_box(collect_sources(&steps)));
        },
    },
    Workload {
        name: "check_tagged/brackets",
        unit: 500,
        input: tagged_text,
        run: |i| drop(black_box(check_tagged(text(i), NONCE, &TagFilterOptions::default()))),
    },
    Workload {
        name: "parse_tagged/brackets",
        unit: 500,
        input: tagged_text,
        run: |i| drop(black_box(parse_tagged(text(i), NONCE, &TagFilterOptions::default()))),
    },
    Workload { name: "parse_catalog/tools", unit: 250, input: catalog_value, run: |i| drop(black_box(parse_catalog(value(i)))) },
    Workload {
        name: "classify_repair/keys",
        unit: 500,
        input: repair_pair,
        run: |i| {
            let semantic: Vec<String> = (0..64).map(|k| format!("s{k}")).collect();
            drop(black_box(classify_repair(&values(i)[0], &values(i)[1], &semantic)));
        },
    },
    Workload { name: "check_coverage/steps", unit: 500, input: coverage_values, run: coverage },
    Workload {
        name: "apply_removals/steps",
        unit: 250,
        input: plan_steps,
        run: |i| drop(black_box(apply_removals(value(i), None, &["t3".into()]))),
    },
    Workload {
        name: "validate_requirements/labels",
        unit: 250,
        input: requirements_value,
        run: |i| drop(black_box(validate_requirements(value(i), &RequirementLabels::default()))),
    },
    Workload {
        name: "narrow_ranked/tools",
        unit: 250,
        input: catalog_value,
        run: |i| {
            let JsonValue::Array(tools) = value(i) else { unreachable!() };
            let ranked: Vec<(String, f64)> = tools
                .iter()
                .enumerate()
                .map(|(k, t)| (t.get("name").and_then(JsonValue::as_str).unwrap_or("").to_string(), k as f64))
                .collect();
            drop(black_box(narrow_ranked(None, &ranked, &NarrowOptions::default())));
        },
    },
    // Machines, fed in CHUNK-byte pieces.
    Workload { name: "SseDecoder/events", unit: 250, input: sse_text, run: sse },
    Workload { name: "SseEncoder/events", unit: 250, input: sse_text, run: sse_encode },
    Workload { name: "AnswerExtractor/keys", unit: 500, input: action_text, run: extractor },
    Workload { name: "AnswerExtractor/repeated_keys", unit: 500, input: action_repeated_text, run: extractor },
    Workload { name: "AnswerExtractor/braces", unit: 250, input: braces_text, run: extractor },
    Workload { name: "PartialJson/keys", unit: 500, input: keys_text, run: partial },
    Workload { name: "PartialJson/repeated_keys", unit: 500, input: repeated_keys_text, run: partial },
    Workload { name: "PartialJson/items", unit: 250, input: items_text, run: partial },
    Workload { name: "PartialJson/nested", unit: 10, input: nested_text, run: partial },
    Workload { name: "JsonItemStream/items", unit: 250, input: items_text, run: items },
    Workload { name: "TagFilter/brackets", unit: 500, input: tagged_text, run: tag_filter },
    Workload { name: "ArtifactStream/emits", unit: 250, input: sse_text, run: artifact_stream },
    Workload {
        name: "StreamRouter/openai_chat/text",
        unit: 250,
        input: chat_text_deltas,
        run: |i| router(i, Provider::OpenAiChat, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/openai_chat/action_repeated_keys",
        unit: 250,
        input: chat_action_deltas,
        run: |i| router(i, Provider::OpenAiChat, ContentMode::ActionJson),
    },
    Workload {
        name: "StreamRouter/openai_chat/tool_calls",
        unit: 100,
        input: chat_tool_calls,
        run: |i| router(i, Provider::OpenAiChat, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/openai_chat/tool_arguments",
        unit: 250,
        input: chat_tool_arguments,
        run: |i| router(i, Provider::OpenAiChat, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/anthropic/tool_calls",
        unit: 100,
        input: anthropic_tool_calls,
        run: |i| router(i, Provider::Anthropic, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/openai_responses/tool_calls",
        unit: 100,
        input: responses_tool_calls,
        run: |i| router(i, Provider::OpenAiResponses, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/ollama/tool_calls",
        unit: 100,
        input: ollama_lines,
        run: |i| router(i, Provider::Ollama, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/bedrock/tool_calls",
        unit: 100,
        input: bedrock_frames,
        run: |i| router(i, Provider::Bedrock, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/gemini/repeated_args",
        unit: 500,
        input: gemini_function_args,
        run: |i| router(i, Provider::Gemini, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/auto/long_first_line",
        unit: 500,
        input: auto_long_first_line,
        run: |i| router(i, Provider::Auto, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/gemini/partial_args_keys",
        unit: 500,
        input: gemini_partial_args,
        run: |i| router(i, Provider::Gemini, ContentMode::Text),
    },
    Workload {
        name: "StreamRouter/openai_chat/tagged",
        unit: 250,
        input: tagged_text,
        run: |i| router(&wrap_chat(i), Provider::OpenAiChat, ContentMode::Tagged),
    },
    Workload {
        name: "StreamRouter/openai_chat/tagged_reasoning_nonce",
        unit: 250,
        input: chat_reasoning_nonce_deltas,
        run: |i| router(i, Provider::OpenAiChat, ContentMode::Tagged),
    },
];

/// Tagged text as chat completion chunks of 16 bytes.
fn wrap_chat(input: &Input) -> Input {
    let pieces: Vec<String> = text(input).as_bytes().chunks(16).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    Input::Text(chat_sse(pieces.into_iter().map(|p| format!("{{\"content\":{}}}", json_str(&p)))))
}

// ---------------------------------------------------------------------------------------------
// Work per byte of repair inputs

/// What `repair_json` reads in bench/repair.mjs ("broken N KB"): a fenced object of records
/// with `//` and `/* */` comments, single quotes, an unquoted key, trailing commas and Python
/// literals, about `bytes` long.
fn repair_bench_document(bytes: usize) -> String {
    let words = ["revenue", "region", "EMEA", "growth", "café", "数据", "ok 👍", "Zürich"];
    let mut t = String::from("Here it is:\n```json\n{ 'source': 'export', // the export\n  'records': [\n");
    let mut i = 0;
    while t.len() < bytes {
        let w = |k: usize| words[(i * 7 + k * 3) % words.len()];
        let _ = writeln!(
            t,
            "    {{ 'id': {i}, 'name': '{} {}', /* tags */ 'tags': ['{}', '{}',], 'score': {}.{}, 'active': True, \
             'parent': None, note: '{} {}', }},{}",
            w(1),
            w(2),
            w(3),
            w(4),
            i % 100,
            i % 7,
            w(5),
            w(6),
            if i % 3 == 0 { " // record" } else { "" }
        );
        i += 1;
    }
    t.push_str("  ],\n  'total': 1,\n}\n```\n");
    t
}

/// `unit` repeated to about `bytes`.
fn fill(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len())
}

/// `open` ... `close` nested 500 deep, repeated in an array to about `bytes`.
fn nested_fill(open: &str, close: &str, bytes: usize) -> String {
    let unit = open.len() * 500 + close.len() * 500 + 2;
    text(&nested_units(open, close, (bytes / unit).max(1))).to_string()
}

/// A per-byte input: its name and a generator of about that many bytes.
type PerByte = (&'static str, fn(usize) -> String);

/// Inputs of `repair_json` whose work per byte must stay within [`PER_BYTE_LIMIT`] times the
/// bench document's: the slowest shapes found (bench/README "Repair: work per byte" has the
/// numbers), each a name and a generator for about that many bytes.
const PER_BYTE: &[PerByte] = &[
    ("repair_json/per_byte/bench_document", repair_bench_document),
    ("repair_json/per_byte/regex_to_the_cap", |b| fill("[/a", b)),
    ("repair_json/per_byte/slash_to_the_cap", |b| fill("[/", b)),
    ("repair_json/per_byte/regex_unclosed", |b| fill("[/a]", b)),
    ("repair_json/per_byte/regex_nested", |b| nested_fill("[/a", "]", b)),
    ("repair_json/per_byte/slash_nested", |b| nested_fill("[/", "]", b)),
    ("repair_json/per_byte/open_braces", |b| fill("{", b)),
    ("repair_json/per_byte/braces_nested", |b| nested_fill("{", "}", b)),
    ("repair_json/per_byte/backslash_nested", |b| nested_fill("[\\", "]", b)),
    ("repair_json/per_byte/control_characters", |b| format!("[\"{}\"]", fill("\u{1}", b))),
    ("repair_json/per_byte/exponents", |b| format!("[{}]", fill("1e,", b))),
    ("repair_json/per_byte/unclosed_strings", |b| format!("[{}", fill("'a\n", b))),
    ("repair_json/per_byte/missing_quotes", |b| fill("[\"a,", b)),
];

/// How many times the bench document's instructions per byte any shape may take.
const PER_BYTE_LIMIT: f64 = 10.0;

/// The size of each per-byte input.
const PER_BYTE_BYTES: usize = 128 << 10;

fn selected_per_byte() -> Vec<&'static PerByte> {
    let filter = std::env::var("STREAMROUTE_SCALING").unwrap_or_default();
    PER_BYTE.iter().filter(|(name, _)| filter.split(',').any(|f| name.contains(f))).collect()
}

/// The one function callgrind counts for the per-byte inputs.
#[inline(never)]
fn measure_per_byte(input: &str) {
    drop(black_box(repair_json(black_box(input))));
}

// ---------------------------------------------------------------------------------------------
// The measurement

/// The one function callgrind counts (by name: keep it un-inlined and its name unique).
#[inline(never)]
fn measure_workload(w: &Workload, input: &Input) {
    (w.run)(black_box(input));
}

fn selected() -> Vec<&'static Workload> {
    let filter = std::env::var("STREAMROUTE_SCALING").unwrap_or_default();
    WORKLOADS.iter().filter(|w| filter.split(',').any(|f| w.name.contains(f))).collect()
}

/// Under callgrind: every selected workload at every size, in order, then the per-byte
/// inputs.
fn measure_all() {
    for w in selected() {
        for k in SIZES {
            let input = (w.input)(k * w.unit);
            measure_workload(w, &input);
        }
    }
    for (_, input) in selected_per_byte() {
        measure_per_byte(&input(PER_BYTE_BYTES));
    }
}

/// The instruction counts callgrind wrote, one per `measure_workload` call, in call order.
fn counts(dir: &std::path::Path) -> Vec<u64> {
    let mut parts: Vec<(usize, u64)> = Vec::new();
    for entry in std::fs::read_dir(dir).expect("callgrind output dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // `out.N` are the dumps after each call; `out` itself is the rest of the run.
        let Some(n) = name.strip_prefix("out.").and_then(|n| n.parse::<usize>().ok()) else { continue };
        let text = std::fs::read_to_string(&path).expect("callgrind dump");
        let total = text
            .lines()
            .find_map(|l| l.strip_prefix("totals: ").or_else(|| l.strip_prefix("summary: ")))
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(|| panic!("no totals in {}", path.display()));
        parts.push((n, total));
    }
    parts.sort();
    parts.into_iter().map(|(_, t)| t).collect()
}

/// The provider generators make what they claim: each unit routes to one tool call.
fn check_generators() {
    for (provider, input) in [(Provider::Ollama, ollama_lines(3)), (Provider::Bedrock, bedrock_frames(3))] {
        let mut r = StreamRouter::new(StreamRouterOptions { provider, ..StreamRouterOptions::default() }).expect("router");
        let mut out = Vec::new();
        chunks(&input, |c| r.feed(c, &mut out).expect("feed"));
        r.finish(&mut out).expect("finish");
        let calls = out.iter().filter(|e| matches!(e, streamroute::RoutedEvent::ToolCall { .. })).count();
        assert_eq!(calls, 3, "{provider:?}: {out:?}");
    }
}

fn check_scaling() {
    check_generators();
    let exe = std::env::current_exe().expect("test binary");
    let dir = std::env::temp_dir().join(format!("streamroute-scaling-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--toggle-collect=*measure_workload*")
        .arg("--toggle-collect=*measure_per_byte*")
        .arg("--dump-after=scaling::measure_workload")
        .arg("--dump-after=scaling::measure_per_byte")
        .arg(format!("--callgrind-out-file={}", dir.join("out").display()))
        .arg("--quiet")
        .arg(&exe)
        .env("STREAMROUTE_SCALING_RUN", "1")
        .status()
        .expect("valgrind (callgrind) must be installed: scripts/test installs it");
    assert!(status.success(), "the measured run failed: {status}");
    let workloads = selected();
    let counts = counts(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let per_byte = selected_per_byte();
    assert_eq!(counts.len(), workloads.len() * SIZES.len() + per_byte.len(), "one count per measured call");
    let (counts, per_byte_counts) = counts.split_at(workloads.len() * SIZES.len());
    let mut failures = check_per_byte(&per_byte, per_byte_counts);
    for (w, c) in workloads.iter().zip(counts.chunks(SIZES.len())) {
        let base = c[0];
        let one = c[1].saturating_sub(base).max(1);
        let ratios: Vec<f64> = c[2..].iter().map(|&x| x.saturating_sub(base) as f64 / one as f64).collect();
        let line =
            format!("{:48} unit {:>10} instr  x2 {:5.2}  x4 {:5.2}  x8 {:6.2}", w.name, one, ratios[0], ratios[1], ratios[2]);
        println!("{line}");
        let linear = SIZES[2..].iter().zip(&ratios).all(|(&k, &r)| r <= 1.5 * k as f64);
        // The work must also grow: a generator whose size does not reach the code measures nothing.
        let grows = ratios[2] >= 4.0;
        if !linear || !grows {
            failures.push(line);
        }
    }
    assert!(
        failures.is_empty(),
        "work does not grow linearly with the input, or costs too much per byte:\n{}",
        failures.join("\n")
    );
}

/// Instructions per byte of each per-byte input against the bench document's (the first
/// row, when selected): the lines of those past [`PER_BYTE_LIMIT`] times.
fn check_per_byte(inputs: &[&PerByte], counts: &[u64]) -> Vec<String> {
    let per_byte: Vec<f64> =
        inputs.iter().zip(counts).map(|((_, input), &c)| c as f64 / input(PER_BYTE_BYTES).len() as f64).collect();
    let Some(base) = inputs.first().filter(|(name, _)| *name == PER_BYTE[0].0).map(|_| per_byte[0]) else {
        return Vec::new();
    };
    let mut failures = Vec::new();
    for ((name, _), &x) in inputs.iter().zip(&per_byte) {
        let line = format!("{name:48} {x:8.1} instr/byte  {:5.2} x the bench document", x / base);
        println!("{line}");
        if x > PER_BYTE_LIMIT * base {
            failures.push(line);
        }
    }
    failures
}

fn main() {
    if std::env::var_os("STREAMROUTE_SCALING_RUN").is_some() {
        measure_all();
    } else {
        check_scaling();
    }
}
