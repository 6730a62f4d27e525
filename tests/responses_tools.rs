//! OpenAI Responses (and xAI's Responses-style API): the built-in tools the client runs and
//! their inputs, the outputs of tools the provider runs as results of their calls, `caller`,
//! `phase`, continuations, and xAI's server tools with JSON-string arguments. The bundled
//! samples (examples/streams/) and small streams written here, each routed at many chunkings.

mod common;

use common::assert_chunk_invariant;
#[path = "common/router.rs"]
mod router_util;
use router_util::{coalesce, route_chunks};
use serde_json::{json, Value};
use streamroute::{RoutedEvent, StreamRouterOptions};

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/streams/");

fn route(name: &str, bytes: &[u8]) -> Vec<RoutedEvent> {
    assert_chunk_invariant(name, bytes, |chunks| coalesce(route_chunks(StreamRouterOptions::default(), chunks).expect("routed")))
}

fn sample(file: &str) -> Vec<RoutedEvent> {
    let bytes = std::fs::read(format!("{STREAMS}{file}")).expect("sample");
    route(file, &bytes)
}

/// Events as `data:` lines of an SSE stream.
fn stream(name: &str, events: &[Value]) -> Vec<RoutedEvent> {
    let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    route(name, text.as_bytes())
}

fn value(v: &streamroute::JsonValue) -> Value {
    serde_json::from_str(&v.to_json()).expect("json")
}

/// `(name, id, provider_executed, caller)` of every `tool_call_start`.
fn starts(events: &[RoutedEvent]) -> Vec<(String, String, bool, Option<Value>)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCallStart { name, id, provider_executed, caller, .. } => {
                Some((name.clone(), id.clone(), *provider_executed, caller.as_ref().map(value)))
            }
            _ => None,
        })
        .collect()
}

/// `(index, name, arguments, provider_executed, caller)` of every `tool_call`.
fn calls(events: &[RoutedEvent]) -> Vec<(u32, String, Value, bool, Option<Value>)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCall { index, name, arguments, repaired, provider_executed, caller, .. } => {
                assert!(!repaired, "{name}: the argument text is valid JSON");
                Some((*index, name.clone(), value(arguments), *provider_executed, caller.as_ref().map(value)))
            }
            _ => None,
        })
        .collect()
}

/// `(index, id, name, result)` of every `tool_result`.
fn results(events: &[RoutedEvent]) -> Vec<(u32, String, String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolResult { index, id, name, result } => Some((*index, id.clone(), name.clone(), value(result))),
            _ => None,
        })
        .collect()
}

fn continuations(events: &[RoutedEvent]) -> Vec<(String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::Continuation { kind, fields } => Some((kind.clone(), value(fields))),
            _ => None,
        })
        .collect()
}

/// The answer text by phase, in order (adjacent text of one phase together).
fn answers(events: &[RoutedEvent]) -> Vec<(Option<String>, String)> {
    let mut out: Vec<(Option<String>, String)> = Vec::new();
    for e in events {
        if let RoutedEvent::AnswerDelta { text, phase } = e {
            match out.last_mut() {
                Some((p, t)) if p == phase => t.push_str(text),
                _ => out.push((phase.clone(), text.clone())),
            }
        }
    }
    out
}

fn finish(events: &[RoutedEvent]) -> &'static str {
    match events.last() {
        Some(RoutedEvent::Done { finish, .. }) => finish.as_str(),
        other => panic!("last event is not done: {other:?}"),
    }
}

fn errors(events: &[RoutedEvent]) -> Vec<String> {
    events.iter().filter_map(|e| if let RoutedEvent::Error { code, .. } = e { Some(code.clone()) } else { None }).collect()
}

#[test]
fn client_tools_route_as_client_calls_with_the_inputs_their_tools_read() {
    let e = sample("openai-responses-client-tools.sse");
    assert!(errors(&e).is_empty(), "{:?}", errors(&e));
    let names: Vec<(String, String, bool)> = starts(&e).into_iter().map(|(n, id, p, _)| (n, id, p)).collect();
    assert_eq!(
        names,
        [
            ("apply_patch", "call_patch1"),
            ("apply_patch", "call_patch2"),
            ("shell", "call_shell1"),
            ("local_shell", "call_local1"),
            ("computer", "call_comp1"),
            ("tool_search", "call_search1"),
        ]
        .map(|(n, id)| (n.to_string(), id.to_string(), false))
    );
    let c = calls(&e);
    assert_eq!(
        c[0].2,
        json!({"callId": "call_patch1", "operation": {"type": "update_file", "path": "docs/notes \"draft\".md",
            "diff": "@@\n-old line\n+new \"quoted\" line\té\n"}}),
        "the diff streamed as a JSON string"
    );
    assert_eq!(c[1].2, json!({"callId": "call_patch2", "operation": {"type": "delete_file", "path": "old.txt"}}));
    assert_eq!(c[2].2, json!({"action": {"commands": ["ls -a \"my dir\"", "pwd"]}}));
    assert_eq!(
        c[3].2,
        json!({"action": {"type": "exec", "command": ["cat", "README.md"], "timeoutMs": 5000, "user": null,
            "workingDirectory": "/srv/app", "env": {"LANG": "C"}}})
    );
    assert_eq!(
        c[4].2,
        json!({"actions": [
            {"type": "click", "button": "left", "x": 10, "y": 20},
            {"type": "scroll", "x": 5, "y": 6, "scrollX": 0, "scrollY": 300, "keys": ["SHIFT"]},
            {"type": "type", "text": "hi"}],
            "pendingSafetyChecks": [{"id": "sc_1", "code": "malicious_instructions"}],
            "status": "completed"})
    );
    assert_eq!(
        c[5].2,
        json!({"arguments": {"goal": "a calendar tool"}, "call_id": "call_search1"}),
        "a client tool search goes by the call id of its done item"
    );
    assert!(results(&e).is_empty());
    assert_eq!(finish(&e), "tool-calls");

    // The apply_patch argument text streams: the diff's pieces arrive as they come.
    let deltas: Vec<&str> = e
        .iter()
        .filter_map(|e| match e {
            RoutedEvent::ToolCallDelta { index: 2, arguments } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert!(deltas.concat().starts_with(r#"{"callId":"call_patch1","operation":{"type":"update_file""#));

    assert_eq!(answers(&e), [(Some("commentary".to_string()), "Editing the notes first.".to_string())]);
    let k = continuations(&e);
    assert_eq!(
        k[0],
        (
            "reasoning".to_string(),
            json!({"id": "rs_ct1", "summary": [{"type": "summary_text", "text": "Patch the notes, then look around."}],
                "encrypted_content": "enc-part-one+two"})
        ),
        "the done item's own fields but type, as sent"
    );
    assert_eq!(k[1], ("item".to_string(), json!({"item_type": "message", "id": "msg_ct1"})));
    assert_eq!(k.len(), 2);
}

#[test]
fn provider_run_tools_get_their_outputs_as_results_and_callers_ride_on_calls() {
    let e = sample("openai-responses-server-tools.sse");
    assert!(errors(&e).is_empty(), "{:?}", errors(&e));
    let program = json!({"type": "program", "caller_id": "call_prog1"});
    assert_eq!(
        starts(&e),
        vec![
            ("tool_search".to_string(), "tsc_sv1".to_string(), true, None),
            ("shell".to_string(), "call_csh1".to_string(), true, None),
            ("programmatic_tool_calling".to_string(), "call_prog1".to_string(), true, None),
            ("lookup_order".to_string(), "call_fn1".to_string(), false, Some(program.clone())),
        ]
    );
    let c = calls(&e);
    assert_eq!(c[0].2, json!({"arguments": {"paths": ["lookup_order"]}, "call_id": null}));
    assert_eq!(c[1].2, json!({"action": {"commands": ["python3 --version"]}}), "commands from the done item");
    assert_eq!(
        c[2].2,
        json!({"code": "const o = await tools.lookup_order({id: \"A7\"});\ntext(o.status);\n", "fingerprint": "fp-1"})
    );
    assert_eq!(c[3], (5, "lookup_order".to_string(), json!({"id": "A7"}), false, Some(program)));

    let r = results(&e);
    assert_eq!(r.len(), 3);
    assert_eq!((r[0].0, r[0].1.as_str(), r[0].2.as_str()), (0, "tsc_sv1", "tool_search"), "paired with the hosted search");
    assert_eq!(r[0].3["tools"][0]["name"], "lookup_order");
    assert_eq!(
        r[1],
        (
            2,
            "call_csh1".to_string(),
            "shell".to_string(),
            json!({"output": [
                {"stdout": "Python 3.12.1\n", "stderr": "", "outcome": {"type": "exit", "exitCode": 0}},
                {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}}]})
        )
    );
    assert_eq!(
        r[2],
        (
            4,
            "call_prog1".to_string(),
            "programmatic_tool_calling".to_string(),
            json!({"result": "shipped", "status": "completed"})
        )
    );

    assert_eq!(
        continuations(&e),
        vec![
            ("item".to_string(), json!({"item_type": "function_call", "id": "fc_sv1", "call_id": "call_fn1", "index": 5})),
            ("compaction".to_string(), json!({"id": "cmp_sv1", "encrypted_content": "cmp-enc-1-final", "created_by": "server"})),
            ("item".to_string(), json!({"item_type": "message", "id": "msg_sv1"})),
            ("item".to_string(), json!({"item_type": "message", "id": "msg_sv2"})),
        ]
    );
    assert_eq!(
        answers(&e),
        [(Some("final_answer".to_string()), "Order A7 has shipped.".to_string()), (None, " Anything else?".to_string())],
        "a message without phase is unmarked"
    );
    assert_eq!(finish(&e), "tool-calls", "the program's function call is the client's");
}

#[test]
fn xai_server_tools_are_provider_executed_with_parsed_arguments() {
    let e = sample("xai-server-tools.sse");
    assert!(errors(&e).is_empty(), "{:?}", errors(&e));
    let c = calls(&e);
    let got: Vec<(String, Value, bool)> = c.into_iter().map(|(_, n, a, p, _)| (n, a, p)).collect();
    assert_eq!(
        got,
        vec![
            ("x_search".to_string(), json!({"query": "from:rustlang release", "limit": 5}), true),
            ("web_search".to_string(), json!({"query": "Rust 1.80 release notes", "num_results": 3}), true),
            ("code_execution".to_string(), json!({"code": "print(sum(range(10)))"}), true),
            ("view_image".to_string(), json!({"image_url": "https://example.com/crab.png"}), true),
        ]
    );
    let r = results(&e);
    assert_eq!(r.len(), 4);
    assert_eq!(r[0].1, "ctc_4e1f_xs_call_101", "the item id, as for every xAI server tool");
    assert_eq!(r[0].3["name"], "x_keyword_search");
    assert_eq!(answers(&e), [(None, "Rust 1.80 is out; the sum is 45.".to_string())]);
    assert_eq!(finish(&e), "stop", "no call for the client");
}

fn created(model: &str) -> Value {
    json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_x", "model": model, "output": []}})
}

fn completed(n: u32) -> Value {
    json!({"type": "response.completed", "sequence_number": n, "response": {"id": "resp_x", "status": "completed", "output": []}})
}

fn added(n: u32, index: u32, item: Value) -> Value {
    json!({"type": "response.output_item.added", "sequence_number": n, "output_index": index, "item": item})
}

fn done(n: u32, index: u32, item: Value) -> Value {
    json!({"type": "response.output_item.done", "sequence_number": n, "output_index": index, "item": item})
}

#[test]
fn argument_text_is_whole_without_streamed_pieces() {
    // No command events: the done item's commands. A diff only in the done events (no deltas).
    let shell = json!({"id": "sh_1", "type": "shell_call", "call_id": "call_s", "action": {"commands": []}});
    let shell_done = json!({"id": "sh_1", "type": "shell_call", "call_id": "call_s", "action": {"commands": ["echo \"a\\b\""]}});
    let patch = json!({"id": "apc_1", "type": "apply_patch_call", "call_id": "call_p", "operation": {"type": "create_file", "path": "a.md", "diff": ""}});
    let patch_done = json!({"id": "apc_1", "type": "apply_patch_call", "call_id": "call_p", "status": "completed",
        "operation": {"type": "create_file", "path": "a.md", "diff": "+line \"one\"\n"}});
    let patch2 = json!({"id": "apc_2", "type": "apply_patch_call", "call_id": "call_q", "operation": {"type": "update_file", "path": "b.md", "diff": ""}});
    let e = stream(
        "whole argument text",
        &[
            created("gpt-5.4"),
            added(1, 0, shell),
            done(2, 0, shell_done),
            added(3, 1, patch),
            done(4, 1, patch_done),
            added(5, 2, patch2.clone()),
            json!({"type": "response.apply_patch_call_operation_diff.done", "sequence_number": 6, "output_index": 2, "diff": "-x\n+y\n"}),
            done(7, 2, patch2),
            completed(8),
        ],
    );
    let c = calls(&e);
    assert_eq!(c[0].2, json!({"action": {"commands": ["echo \"a\\b\""]}}));
    assert_eq!(
        c[1].2,
        json!({"callId": "call_p", "operation": {"type": "create_file", "path": "a.md", "diff": "+line \"one\"\n"}})
    );
    assert_eq!(c[2].2, json!({"callId": "call_q", "operation": {"type": "update_file", "path": "b.md", "diff": "-x\n+y\n"}}));
    assert_eq!(finish(&e), "tool-calls");
}

#[test]
fn a_shell_command_cut_off_still_closes_its_string() {
    let shell = json!({"id": "sh_1", "type": "shell_call", "call_id": "call_s", "action": {"commands": []}});
    let e = stream(
        "cut command",
        &[
            added(1, 0, shell.clone()),
            json!({"type": "response.shell_call_command.added", "output_index": 0, "command_index": 0, "command": ""}),
            json!({"type": "response.shell_call_command.delta", "output_index": 0, "command_index": 0, "delta": "make"}),
            json!({"type": "response.shell_call_command.added", "output_index": 0, "command_index": 1, "command": ""}),
            json!({"type": "response.shell_call_command.delta", "output_index": 0, "command_index": 1, "delta": "make test"}),
            done(5, 0, shell),
            completed(6),
        ],
    );
    assert_eq!(calls(&e)[0].2, json!({"action": {"commands": ["make", "make test"]}}));
}

#[test]
fn computer_use_without_call_id_is_provider_executed() {
    let item = json!({"id": "cu_1", "type": "computer_call", "status": "completed", "actions": []});
    let e = stream("computer use", &[added(1, 0, item.clone()), done(2, 0, item), completed(3)]);
    assert_eq!(starts(&e), vec![("computer_use".to_string(), "cu_1".to_string(), true, None)]);
    assert_eq!(
        results(&e),
        vec![(
            0,
            "cu_1".to_string(),
            "computer_use".to_string(),
            json!({"type": "computer_use_tool_result", "status": "completed"})
        )]
    );
    assert_eq!(finish(&e), "stop");
}

#[test]
fn custom_tools_are_xai_server_tools_only_in_xai_streams() {
    let item =
        |input: &str| json!({"id": "ctc_1", "type": "custom_tool_call", "call_id": "c_1", "name": "web_search", "input": input});
    let events = |model: Option<&str>| {
        let mut v = Vec::new();
        if let Some(m) = model {
            v.push(created(m));
        }
        v.extend([added(1, 0, item("")), done(2, 0, item(r#"{"query":"q"}"#)), completed(3)]);
        v
    };
    // OpenAI: the client's custom tool, its free text as a string.
    let e = stream("openai custom", &events(Some("gpt-5.4")));
    assert_eq!(calls(&e), vec![(0, "web_search".to_string(), json!(r#"{"query":"q"}"#), false, None)]);
    // xAI, and a stream that does not say who sends it, with one of xAI's tool names.
    for (name, model) in [("xai custom", Some("grok-4")), ("unnamed custom", None)] {
        let e = stream(name, &events(model));
        assert_eq!(calls(&e), vec![(0, "web_search".to_string(), json!({"query": "q"}), true, None)], "{name}");
        assert_eq!(results(&e).len(), 1);
    }
}

#[test]
fn an_xai_web_search_without_arguments_has_no_input() {
    let item = json!({"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "", "sources": []}});
    let e = stream("xai web search", &[created("grok-4"), added(1, 0, item.clone()), done(2, 0, item.clone()), completed(3)]);
    assert_eq!(calls(&e), vec![(0, "web_search".to_string(), json!({}), true, None)]);
    let e = stream("openai web search", &[created("gpt-5.4"), added(1, 0, item.clone()), done(2, 0, item), completed(3)]);
    assert_eq!(calls(&e)[0].2, json!({"type": "search", "query": "", "sources": []}), "OpenAI's action says what it did");
}

#[test]
fn outputs_of_unknown_calls_and_odd_items_are_results_at_their_own_index() {
    let e = stream(
        "odd outputs",
        &[
            done(
                1,
                0,
                json!({"id": "sho_1", "type": "shell_call_output", "call_id": "call_gone", "output": [{"stdout": "x", "outcome": null}]}),
            ),
            done(2, 1, json!({"id": "tso_1", "type": "tool_search_output", "call_id": null, "tools": []})),
            done(3, 2, json!({"id": "rs_1", "type": "reasoning"})),
            completed(4),
        ],
    );
    assert_eq!(
        results(&e),
        vec![
            (
                0,
                "call_gone".to_string(),
                "shell".to_string(),
                json!({"output": [{"stdout": "x", "outcome": {"type": "timeout"}}]})
            ),
            (1, "tso_1".to_string(), "tool_search".to_string(), json!({"tools": []})),
        ]
    );
    assert_eq!(continuations(&e), vec![("reasoning".to_string(), json!({"id": "rs_1"}))]);
    assert!(errors(&e).is_empty());
}

#[test]
fn a_tight_budget_fails_typed_not_with_a_panic() {
    let text = std::fs::read(format!("{STREAMS}openai-responses-server-tools.sse")).expect("sample");
    for limit in [64, 256, 1024, 4096] {
        let options = StreamRouterOptions { max_buffer_bytes: limit, ..StreamRouterOptions::default() };
        match route_chunks(options, &[&text]) {
            Ok(events) => assert!(matches!(events.last(), Some(RoutedEvent::Done { .. }))),
            Err(code) => assert_eq!(code, "buffer_limit_exceeded"),
        }
    }
}

#[test]
fn an_mcp_call_waiting_for_approval_is_a_provider_call_and_an_approval_request() {
    // The model asks to run an MCP tool the user must approve first: a provider-executed call
    // with its arguments (no result: nothing ran) and what the next request answers.
    let item = json!({"id": "mcpr_7", "type": "mcp_approval_request", "name": "shorten_url", "server_label": "links",
        "arguments": "{\"url\":\"https://example.com/a\",\"max_clicks\":3}"});
    let e = stream("mcp approval", &[created("gpt-5.4"), added(1, 0, item.clone()), done(2, 0, item), completed(3)]);
    assert_eq!(starts(&e), [("shorten_url".to_string(), "mcpr_7".to_string(), true, None)]);
    assert_eq!(calls(&e), [(0, "shorten_url".to_string(), json!({"url": "https://example.com/a", "max_clicks": 3}), true, None)]);
    assert!(results(&e).is_empty());
    assert_eq!(
        continuations(&e),
        [(
            "tool_approval_request".to_string(),
            json!({"approvalId": "mcpr_7", "toolCallId": "mcpr_7", "index": 0, "server_label": "links"})
        )]
    );
    assert_eq!(finish(&e), "stop");
    assert!(errors(&e).is_empty());
}
