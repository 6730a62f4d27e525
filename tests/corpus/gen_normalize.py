#!/usr/bin/env python3
"""Writes tests/corpus/normalize.json: the action normaliser corpus.

Run from the repository root: `python3 tests/corpus/gen_normalize.py`.

Every expected value below is written from the rules (src/action/mod.rs and
src/action/normalize.rs module docs, the issue's contract, unified-action-format.md), never
from running the code. Groups: unified tools/final/plan/task, legacy, hybrid, the `action`
wrapper, bare answers, fences, prose, think blocks, several objects, double-encoded JSON,
Python literals, trailing commas, truncation, errors, one case per row of the reference
cheat sheet (reference-behaviour.md §2.3, with our fixed result) and cases per reference bug
B1-B11 (§8).

A case is `{name, input | input_object, expected | null, error | null}` plus optional
`source`, `repairs` (kinds, in order), `ignored` ([prefix, suffix] lengths; given only for
ASCII inputs, where bytes and UTF-16 units agree) and `others` (the other candidates found,
`[{source, next_node, args}]`, in text order). `reference` notes what the Python reference
did, where it differs.
"""

import json
import os

CASES = []


def compact(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def act(next_node, args, thought=None, reasoning=None):
    return {"next_node": next_node, "args": args, "thought": thought, "reasoning": reasoning}


def fin(args, thought=None, reasoning=None):
    return act("final_response", args, thought, reasoning)


def case(name, inp, expected=None, error=None, **extra):
    c = {"name": name}
    if isinstance(inp, str):
        c["input"] = inp
    else:
        c["input_object"] = inp
    c["expected"] = expected
    c["error"] = error
    assert (expected is None) != (error is None), name
    for k, v in extra.items():
        c[k] = v
    CASES.append(c)


UNPARSEABLE = "action_payload_unparseable"
MISSING = "action_missing_next_node"

# ------------------------------------------------------------------------------------------
# Unified: tool calls
# ------------------------------------------------------------------------------------------

case("unified/tool: RFC example",
     '{"next_node": "search_web", "args": {"query": "latest AI news"}}',
     act("search_web", {"query": "latest AI news"}), source="direct", repairs=[], ignored=[0, 0], others=[])
case("unified/tool: nested args keep order, types and number text",
     '{"next_node":"db.query","args":{"sql":"select 1","limit":10,"opts":{"z":1,"a":[1,2.5,true,null,-0.0,1.5e-07]}}}',
     act("db.query", {"sql": "select 1", "limit": 10, "opts": {"z": 1, "a": [1, 2.5, True, None, -0.0, 1.5e-07]}}))
case("unified/tool: args before next_node",
     '{"args":{"q":"x"},"next_node":"search"}', act("search", {"q": "x"}))
case("unified/tool: no args", '{"next_node":"get_time"}', act("get_time", {}))
case("unified/tool: null args", '{"next_node":"get_time","args":null}', act("get_time", {}))
case("unified/tool: plain string args are not an object",
     '{"next_node":"search","args":"weather in Paris"}', act("search", {}))
case("unified/tool: double-encoded args object",
     '{"next_node":"search","args":"{\\"query\\":\\"x\\",\\"n\\":2}"}', act("search", {"query": "x", "n": 2}))
case("unified/tool: args as a one-object array",
     '{"next_node":"search","args":[{"query":"x"}]}', act("search", {"query": "x"}))
case("unified/tool: args as a two-object array",
     '{"next_node":"search","args":[{"query":"x"},{"query":"y"}]}', act("search", {}))
case("unified/tool: numeric args", '{"next_node":"search","args":42}', act("search", {}))
case("unified/tool: padded name is trimmed",
     '{"next_node":"  lookup\\t","args":{"id":7}}', act("lookup", {"id": 7}))
case("unified/tool: name keeps its case", '{"next_node":"SearchWeb","args":{}}', act("SearchWeb", {}))
case("unified/tool: an answer key in tool args has no special meaning",
     '{"next_node":"save_note","args":{"answer":"draft","title":"t"}}',
     act("save_note", {"answer": "draft", "title": "t"}))
case("unified/tool: unicode args",
     '{"next_node":"translate","args":{"text":"café 世界 😀","to":"\\u00e9"}}',
     act("translate", {"text": "café 世界 😀", "to": "é"}))
case("unified/tool: extra top-level keys are ignored",
     '{"next_node":"search","args":{"q":1},"confidence":0.5,"reason":"r"}', act("search", {"q": 1}))
case("unified/tool: raw line break in a string is read (tolerant) as the whole input",
     '{"next_node":"write","args":{"text":"line1\nline2\tend"}}',
     act("write", {"text": "line1\nline2\tend"}), source="direct", repairs=[])
case("unified/tool: tasks.spawn is a tool name", '{"next_node":"tasks.spawn","args":{"x":1}}',
     act("tasks.spawn", {"x": 1}))
case("unified/tool: 'final' is a tool name, not an opcode",
     '{"next_node":"final","args":{"answer":"x"}}', act("final", {"answer": "x"}))
case("unified/tool: a repeated key counts once, first occurrence (as the extractor)",
     '{"next_node":"search","args":{"q":"first"},"args":{"q":"second"},"next_node":"other"}',
     act("search", {"q": "first"}))
case("unified/tool: surrounding whitespace",
     '\n\n  {"next_node":"search","args":{}}  \n', act("search", {}), source="direct", ignored=[4, 3])
case("unified/tool: a byte order mark counts as whitespace",
     '\ufeff{"next_node":"search","args":{}}', act("search", {}), source="direct")
case("unified/tool: leading tab and CRLF",
     '\t{"next_node":"search",\r\n"args":{"q":"a"}}\r\n', act("search", {"q": "a"}), source="direct")

# ------------------------------------------------------------------------------------------
# Unified: final responses
# ------------------------------------------------------------------------------------------

case("unified/final: RFC example",
     '{"next_node": "final_response", "args": {"answer": "Based on my research..."}}',
     fin({"answer": "Based on my research..."}), source="direct", repairs=[], others=[])
case("unified/final: other args keys are kept in order",
     '{"next_node":"final_response","args":{"answer":"A","sources":[{"title":"S","url":"u"}],"confidence":0.9,"artifacts":{"chart":{"id":"c1"}},"suggested_actions":[],"language":"en"}}',
     fin({"answer": "A", "sources": [{"title": "S", "url": "u"}], "confidence": 0.9,
          "artifacts": {"chart": {"id": "c1"}}, "suggested_actions": [], "language": "en"}))
case("unified/final: raw_answer only becomes answer, in place",
     '{"next_node":"final_response","args":{"confidence":0.5,"raw_answer":"R","sources":[]}}',
     fin({"confidence": 0.5, "answer": "R", "sources": []}))
case("unified/final: equal answer and raw_answer give one answer",
     '{"next_node":"final_response","args":{"answer":"A","raw_answer":"A"}}', fin({"answer": "A"}))
case("unified/final: blank answer loses to raw_answer",
     '{"next_node":"final_response","args":{"answer":"  ","raw_answer":"text"}}', fin({"answer": "text"}))
case("unified/final: the first non-blank of raw_answer/answer wins (written order, as streamed)",
     '{"next_node":"final_response","args":{"raw_answer":"R","answer":"A"}}', fin({"answer": "R"}))
case("unified/final: answer before raw_answer, both non-blank",
     '{"next_node":"final_response","args":{"answer":"A","raw_answer":"R"}}', fin({"answer": "A"}))
case("unified/final: non-string answer and no other: kept, no answer text",
     '{"next_node":"final_response","args":{"answer":42}}', fin({"answer": 42}))
case("unified/final: non-string answer replaced by a string raw_answer",
     '{"next_node":"final_response","args":{"answer":{"text":"x"},"raw_answer":"x"}}', fin({"answer": "x"}))
case("unified/final: null raw_answer alone is kept",
     '{"next_node":"final_response","args":{"raw_answer":null}}', fin({"raw_answer": None}))
case("unified/final: string args",
     '{"next_node":"final_response","args":"Hello there"}', fin({"answer": "Hello there"}))
case("unified/final: string args are trimmed",
     '{"next_node":"final_response","args":"  s \\n"}', fin({"answer": "s"}))
case("unified/final: empty string args",
     '{"next_node":"final_response","args":""}', fin({"answer": ""}))
case("unified/final: array args joined with a line break",
     '{"next_node":"final_response","args":["a","b"]}', fin({"answer": "a\nb"}))
case("unified/final: array args skip non-strings",
     '{"next_node":"final_response","args":["a",1,null,true,"b"]}', fin({"answer": "a\nb"}))
case("unified/final: array args skip blank strings",
     '{"next_node":"final_response","args":["a",""," ","b"]}', fin({"answer": "a\nb"}))
case("unified/final: array args joined, then trimmed",
     '{"next_node":"final_response","args":["\\t"," a ","b \\n"," "]}', fin({"answer": "a \nb"}))
case("unified/final: a one-object array is the args object",
     '{"next_node":"final_response","args":[{"answer":"x","sources":[]}]}', fin({"answer": "x", "sources": []}))
case("unified/final: object elements of array args are skipped",
     '{"next_node":"final_response","args":[{"answer":"a"},"b",{"raw_answer":"c"},{"other":1}]}',
     fin({"answer": "b"}))
case("unified/final: array of numbers has no answer",
     '{"next_node":"final_response","args":[1,2]}', fin({}))
case("unified/final: null args", '{"next_node":"final_response","args":null}', fin({}))
case("unified/final: empty args object", '{"next_node":"final_response","args":{}}', fin({}))
case("unified/final: no args", '{"next_node":"final_response"}', fin({}))
case("unified/final: args without an answer key are kept",
     '{"next_node":"final_response","args":{"confidence":0.9}}', fin({"confidence": 0.9}))
case("unified/final: double-encoded args with an answer",
     '{"next_node":"final_response","args":"{\\"answer\\":\\"x\\",\\"confidence\\":1}"}',
     fin({"answer": "x", "confidence": 1}))
case("unified/final: string args holding JSON without an answer key are the answer text",
     '{"next_node":"final_response","args":"{\\"name\\":\\"Ada\\"}"}', fin({"answer": '{"name":"Ada"}'}))
case("unified/final: top-level answer next to next_node",
     '{"next_node":"final_response","answer":"x"}', fin({"answer": "x"}))
case("unified/final: top-level answer fills args that lack one; its siblings come along",
     '{"next_node":"final_response","args":{"sources":[]},"answer":"x","confidence":0.9}',
     fin({"sources": [], "answer": "x", "confidence": 0.9}))
case("unified/final: a top-level answer beats a blank args answer",
     '{"next_node":"final_response","args":{"answer":""},"answer":"x"}', fin({"answer": "x"}))
case("unified/final: an args answer beats a top-level one",
     '{"next_node":"final_response","args":{"answer":"in args"},"answer":"top"}', fin({"answer": "in args"}))
case("unified/final: opcode is trimmed",
     '{"next_node":" final_response ","args":{"answer":"a"}}', fin({"answer": "a"}))
case("unified/final: opcode ignores ASCII case",
     '{"next_node":"Final_Response","args":{"answer":"a"}}', fin({"answer": "a"}))
case("unified/final: escapes decoded exactly",
     r'{"next_node":"final_response","args":{"answer":"a\\nb \u00e9 \"q\" \/ \ud83d\ude00\ttab\nnl \b\f"}}',
     fin({"answer": "a\\nb é \"q\" / 😀\ttab\nnl \b\f"}))
case("unified/final: raw unicode",
     '{"next_node":"final_response","args":{"answer":"Καλημέρα 🌍 — ok"}}', fin({"answer": "Καλημέρα 🌍 — ok"}))
case("unified/final: an answer holding braces and JSON text",
     '{"next_node":"final_response","args":{"answer":"Use {\\"next_node\\":\\"search\\"} and {1,2}"}}',
     fin({"answer": 'Use {"next_node":"search"} and {1,2}'}))
case("unified/final: an answer holding fences and think tags",
     '{"next_node":"final_response","args":{"answer":"```json\\n{}\\n``` and <think>x</think>"}}',
     fin({"answer": "```json\n{}\n``` and <think>x</think>"}), source="direct")
LONG = "lorem ipsum dolor " * 60
case("unified/final: a long answer", compact({"next_node": "final_response", "args": {"answer": LONG}}),
     fin({"answer": LONG}))

# ------------------------------------------------------------------------------------------
# Unified: plans
# ------------------------------------------------------------------------------------------

case("unified/plan: RFC example",
     compact({"next_node": "plan", "args": {"steps": [
         {"node": "search_a", "args": {"query": "topic A"}},
         {"node": "search_b", "args": {"query": "topic B"}}],
         "join": {"node": "combine_results", "inject": {"results": "$all"}}}}),
     act("plan", {"steps": [{"node": "search_a", "args": {"query": "topic A"}},
                            {"node": "search_b", "args": {"query": "topic B"}}],
                  "join": {"node": "combine_results", "args": {}, "inject": {"results": "$all"}}}))
case("unified/plan: input alias parallel",
     '{"next_node":"parallel","args":{"steps":[{"node":"a","args":{"x":1}}]}}',
     act("plan", {"steps": [{"node": "a", "args": {"x": 1}}]}))
case("unified/plan: opcode ignores case", '{"next_node":"PLAN","args":{"steps":[{"node":"a"}]}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}))
case("unified/plan: steps without a usable node are dropped",
     '{"next_node":"plan","args":{"steps":[{"node":"a"},{"args":{"x":1}},{"node":""},{"node":"  "},{"node":5},"b",null,{"node":" c ","args":"{\\"k\\":1}"}]}}',
     act("plan", {"steps": [{"node": "a", "args": {}}, {"node": "c", "args": {"k": 1}}]}))
case("unified/plan: step args that are not an object become {}",
     '{"next_node":"plan","args":{"steps":[{"node":"a","args":"text"},{"node":"b","args":[1]}]}}',
     act("plan", {"steps": [{"node": "a", "args": {}}, {"node": "b", "args": {}}]}))
case("unified/plan: a join without node is dropped",
     '{"next_node":"plan","args":{"steps":[{"node":"a"}],"join":{"inject":{"r":"$results"}}}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}))
case("unified/plan: a join with an empty node is dropped",
     '{"next_node":"plan","args":{"steps":[{"node":"a"}],"join":{"node":""}}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}))
case("unified/plan: a null join is dropped",
     '{"next_node":"plan","args":{"steps":[{"node":"a"}],"join":null}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}))
case("unified/plan: join args kept, non-object inject becomes null",
     '{"next_node":"plan","args":{"steps":[{"node":"a"}],"join":{"node":" merge ","args":{"k":1},"inject":"$results"}}}',
     act("plan", {"steps": [{"node": "a", "args": {}}], "join": {"node": "merge", "args": {"k": 1}, "inject": None}}))
case("unified/plan: no steps", '{"next_node":"plan","args":{}}', act("plan", {"steps": []}))
case("unified/plan: no args", '{"next_node":"plan"}', act("plan", {"steps": []}))
case("unified/plan: string args", '{"next_node":"plan","args":"do a then b"}', act("plan", {"steps": []}))
case("unified/plan: array args are the steps",
     '{"next_node":"plan","args":[{"node":"a"},{"node":"b","args":{"q":2}}]}',
     act("plan", {"steps": [{"node": "a", "args": {}}, {"node": "b", "args": {"q": 2}}]}))
case("unified/plan: a top-level join moves in",
     '{"next_node":"plan","args":{"steps":[{"node":"a"}]},"join":{"node":"j"}}',
     act("plan", {"steps": [{"node": "a", "args": {}}], "join": {"node": "j", "args": {}, "inject": None}}))
case("unified/plan: other args keys are dropped",
     '{"next_node":"plan","args":{"steps":[{"node":"a"}],"note":"x"}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}))

# ------------------------------------------------------------------------------------------
# Unified: background tasks
# ------------------------------------------------------------------------------------------

case("unified/task: RFC example",
     '{"next_node":"task","args":{"name":"Generate Monthly Report","mode":"subagent","query":"Generate the monthly report for 2024-12 as a PDF and summarize key findings","merge_strategy":"HUMAN_GATED"}}',
     act("task", {"name": "Generate Monthly Report", "mode": "subagent",
                  "query": "Generate the monthly report for 2024-12 as a PDF and summarize key findings",
                  "merge_strategy": "HUMAN_GATED"}))
case("unified/task: task.subagent sets mode, drops tool keys",
     '{"next_node":"task.subagent","args":{"name":"r","query":"q","tool":"x","tool_args":{"a":1}}}',
     act("task", {"name": "r", "query": "q", "mode": "subagent"}))
case("unified/task: task.tool sets mode job, drops query",
     '{"next_node":"task.tool","args":{"tool":"fetch","tool_args":{"u":1},"query":"x"}}',
     act("task", {"tool": "fetch", "tool_args": {"u": 1}, "mode": "job"}))
case("unified/task: tool_name is renamed tool, in place",
     '{"next_node":"task.tool","args":{"name":"n","tool_name":"fetch","tool_args":{}}}',
     act("task", {"name": "n", "tool": "fetch", "tool_args": {}, "mode": "job"}))
case("unified/task: bare task with a query is a subagent",
     '{"next_node":"task","args":{"name":"n","query":"research X"}}',
     act("task", {"name": "n", "query": "research X", "mode": "subagent"}))
case("unified/task: bare task with a tool is a job",
     '{"next_node":"task","args":{"tool":"export","tool_args":{"f":"csv"}}}',
     act("task", {"tool": "export", "tool_args": {"f": "csv"}, "mode": "job"}))
case("unified/task: bare task with a query and a tool: the query decides",
     '{"next_node":"task","args":{"query":"q","tool":"t"}}', act("task", {"query": "q", "mode": "subagent"}))
case("unified/task: bare task with neither has no mode",
     '{"next_node":"task","args":{"name":"n"}}', act("task", {"name": "n"}))
case("unified/task: a valid args.mode beats inference",
     '{"next_node":"task","args":{"mode":"job","query":"q","tool":"t"}}', act("task", {"mode": "job", "tool": "t"}))
case("unified/task: an invalid args.mode is replaced by the inferred one",
     '{"next_node":"task","args":{"mode":"background","query":"q"}}', act("task", {"mode": "subagent", "query": "q"}))
case("unified/task: the alias beats args.mode",
     '{"next_node":"task.subagent","args":{"mode":"job","query":"q"}}', act("task", {"mode": "subagent", "query": "q"}))
case("unified/task: alias ignores case", '{"next_node":"Task.Tool","args":{"tool":"t"}}',
     act("task", {"tool": "t", "mode": "job"}))
case("unified/task: merge strategies upper-cased",
     '{"next_node":"task","args":{"query":"q","merge_strategy":"human-gated","group_merge_strategy":" append "}}',
     act("task", {"query": "q", "merge_strategy": "HUMAN_GATED", "group_merge_strategy": "APPEND", "mode": "subagent"}))
case("unified/task: merge strategy variants",
     '{"next_node":"task","args":{"query":"q","merge_strategy":"Human approval","group_merge_strategy":"merge"}}',
     act("task", {"query": "q", "merge_strategy": "HUMAN_GATED", "group_merge_strategy": "merge", "mode": "subagent"}))
case("unified/task: RFC group example keeps every group key",
     '{"next_node":"task","args":{"name":"Deep report","mode":"subagent","query":"Run full investigation and return a single synthesis","group":"investigation","group_sealed":true,"retain_turn":true,"merge_strategy":"APPEND","group_report":"all"}}',
     act("task", {"name": "Deep report", "mode": "subagent", "query": "Run full investigation and return a single synthesis",
                  "group": "investigation", "group_sealed": True, "retain_turn": True, "merge_strategy": "APPEND",
                  "group_report": "all"}))
case("unified/task: plain string args are the query",
     '{"next_node":"task","args":" Summarize the Q4 report "}', act("task", {"query": "Summarize the Q4 report", "mode": "subagent"}))
case("unified/task: no args", '{"next_node":"task.subagent"}', act("task", {"mode": "subagent"}))

# ------------------------------------------------------------------------------------------
# Legacy shapes
# ------------------------------------------------------------------------------------------

case("legacy: tool call with thought and null plan/join",
     '{"thought":"I should search","next_node":"search","args":{"q":"x"},"plan":null,"join":null}',
     act("search", {"q": "x"}, thought="I should search"))
case("legacy: final with raw_answer",
     '{"thought":"done","next_node":null,"args":{"raw_answer":"The answer"}}',
     fin({"answer": "The answer"}, thought="done"))
case("legacy: final with answer", '{"thought":"done","next_node":null,"args":{"answer":"A"}}',
     fin({"answer": "A"}, thought="done"))
case("legacy: final with raw_answer and extra keys",
     '{"thought":"t","next_node":null,"args":{"raw_answer":"A","sources":[{"title":"S"}],"confidence":0.7}}',
     fin({"answer": "A", "sources": [{"title": "S"}], "confidence": 0.7}, thought="t"))
case("legacy: final with string args", '{"thought":"t","next_node":null,"args":"Hi"}', fin({"answer": "Hi"}, thought="t"))
case("legacy: final with array args", '{"thought":"t","next_node":null,"args":["a","b"]}',
     fin({"answer": "a\nb"}, thought="t"))
case("legacy: final without next_node key", '{"thought":"t","args":{"raw_answer":"A"}}', fin({"answer": "A"}, thought="t"))
case("legacy: final without args", '{"thought":"t","next_node":null}', fin({}, thought="t"))
case("legacy: final with non-answer args", '{"thought":"t","next_node":null,"args":{"q":1}}', fin({"q": 1}, thought="t"))
case("legacy: plan and join at the top level",
     '{"thought":"fan out","next_node":null,"args":null,"plan":[{"node":"a","args":{"q":1}},{"node":"b"}],"join":{"node":"j","inject":{"r":"$results"}}}',
     act("plan", {"steps": [{"node": "a", "args": {"q": 1}}, {"node": "b", "args": {}}],
                  "join": {"node": "j", "args": {}, "inject": {"r": "$results"}}}, thought="fan out"))
case("legacy: plan without next_node", '{"thought":"t","plan":[{"node":"a"}]}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}, thought="t"))
case("legacy: plan with an empty next_node", '{"thought":"t","next_node":"","plan":[{"node":"a"}]}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}, thought="t"))
case("legacy: an empty plan with null next_node is a final",
     '{"thought":"t","next_node":null,"plan":[],"args":{"raw_answer":"x"}}', fin({"answer": "x"}, thought="t"))
case("legacy: a plan of invalid steps is a final",
     '{"thought":"t","next_node":null,"plan":[{"args":{}}]}', fin({}, thought="t"))
case("legacy: an explicit tool next_node beats a top-level plan",
     '{"thought":"t","next_node":"search","args":{"q":1},"plan":[{"node":"a"}]}', act("search", {"q": 1}, thought="t"))
case("legacy: a join without plan does not make a plan",
     '{"thought":"t","next_node":null,"join":{"node":"j"},"args":{"answer":"x"}}', fin({"answer": "x"}, thought="t"))
case("legacy: thought is trimmed", '{"thought":"  I should search \\n","next_node":"search"}',
     act("search", {}, thought="I should search"))
case("legacy: blank thought is null", '{"thought":"   ","next_node":"search"}', act("search", {}))
case("legacy: non-string thought is null", '{"thought":{"step":1},"next_node":"search"}', act("search", {}))
case("legacy: next_node written as the string \"null\"",
     '{"thought":"t","next_node":"null","args":{"raw_answer":"x"}}', fin({"answer": "x"}, thought="t"))
case("legacy: next_node written as the string \"None\" with a plan",
     '{"thought":"t","next_node":"None","plan":[{"node":"a"}]}', act("plan", {"steps": [{"node": "a", "args": {}}]}, thought="t"))
case("legacy: a thought alone is not an action", '{"thought":"thinking about it"}', error=MISSING)
case("legacy: thought and tool-like args without next_node", '{"thought":"x","args":{"q":1}}', error=MISSING)

# ------------------------------------------------------------------------------------------
# Hybrid shapes: a thought never disables opcode mapping
# ------------------------------------------------------------------------------------------

case("hybrid: thought + final_response + string args",
     '{"thought":"t","next_node":"final_response","args":"Hi"}', fin({"answer": "Hi"}, thought="t"))
case("hybrid: thought + final_response + raw_answer",
     '{"thought":"t","next_node":"final_response","args":{"raw_answer":"R"}}', fin({"answer": "R"}, thought="t"))
case("hybrid: thought + plan opcode",
     '{"thought":"t","next_node":"plan","args":{"steps":[{"node":"a"}]}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}, thought="t"))
case("hybrid: thought + parallel + legacy top-level plan",
     '{"thought":"t","next_node":"parallel","plan":[{"node":"a"}],"join":{"node":"j"}}',
     act("plan", {"steps": [{"node": "a", "args": {}}], "join": {"node": "j", "args": {}, "inject": None}}, thought="t"))
case("hybrid: thought + task.subagent",
     '{"thought":"t","next_node":"task.subagent","args":{"query":"q"}}', act("task", {"query": "q", "mode": "subagent"}, thought="t"))
case("hybrid: thought + task.tool",
     '{"thought":"t","next_node":"task.tool","args":{"tool":"x"}}', act("task", {"tool": "x", "mode": "job"}, thought="t"))
case("hybrid: thought + upper-case opcode",
     '{"thought":"t","next_node":"FINAL_RESPONSE","args":{"answer":"a"}}', fin({"answer": "a"}, thought="t"))
case("hybrid: plan/join null keys with a unified tool call",
     '{"next_node":"search","args":{"q":1},"plan":null,"join":null}', act("search", {"q": 1}))

# ------------------------------------------------------------------------------------------
# The `action` wrapper
# ------------------------------------------------------------------------------------------

case("wrapper: action object", '{"action":{"next_node":"t","args":{"q":1}}}', act("t", {"q": 1}))
case("wrapper: action with a final and string args",
     '{"action":{"next_node":"final_response","args":"Hi"}}', fin({"answer": "Hi"}))
case("wrapper: action as a JSON string",
     '{"action":"{\\"next_node\\":\\"search\\",\\"args\\":{\\"q\\":1}}"}', act("search", {"q": 1}))
case("wrapper: outer thought, inner action", '{"thought":"t","action":{"next_node":"search","args":{}}}',
     act("search", {}, thought="t"))
case("wrapper: a top-level string next_node wins over the wrapper",
     '{"next_node":"outer","thought":"o","action":{"next_node":"inner","thought":"i"}}', act("outer", {}, thought="o"))
case("wrapper: under a top-level string next_node it fills in missing keys",
     '{"next_node":"search","action":{"next_node":"final_response","args":{"q":1}}}', act("search", {"q": 1}))
case("wrapper: inner keys override a top-level null next_node",
     '{"next_node":null,"thought":"o","action":{"next_node":"inner","thought":"i"}}', act("inner", {}, thought="i"))
case("wrapper: outer args kept when the inner object has none",
     '{"action":{"next_node":"search"},"args":{"q":1}}', act("search", {"q": 1}))
case("wrapper: inner legacy final", '{"action":{"thought":"t","next_node":null,"args":{"raw_answer":"x"}}}',
     fin({"answer": "x"}, thought="t"))
case("wrapper: inner plan", '{"action":{"next_node":"plan","args":{"steps":[{"node":"a"}]}}}',
     act("plan", {"steps": [{"node": "a", "args": {}}]}))
case("wrapper: a plain-string action is not an action", '{"action":"search","args":{"q":1}}', error=UNPARSEABLE)

# ------------------------------------------------------------------------------------------
# Bare answers
# ------------------------------------------------------------------------------------------

case("bare: answer with siblings", '{"answer":"a","confidence":0.9,"sources":[{"title":"S"}]}',
     fin({"answer": "a", "confidence": 0.9, "sources": [{"title": "S"}]}))
case("bare: raw_answer", '{"raw_answer":"a"}', fin({"answer": "a"}))
case("bare: raw_answer with siblings, in place", '{"language":"en","raw_answer":"a","artifacts":{}}',
     fin({"language": "en", "answer": "a", "artifacts": {}}))
case("bare: empty answer, non-blank raw_answer", '{"answer":"","raw_answer":"text"}', fin({"answer": "text"}))
case("bare: args with an answer", '{"args":{"answer":"a","sources":[]}}', fin({"answer": "a", "sources": []}))
case("bare: string args", '{"args":"s"}', fin({"answer": "s"}))
case("bare: array args", '{"args":["a","b"]}', fin({"answer": "a\nb"}))
case("bare: args answer with a thought", '{"thought":"t","args":{"answer":"a"}}', fin({"answer": "a"}, thought="t"))
case("bare: a non-string answer is no answer", '{"answer":42}', error=MISSING)
case("bare: empty answer alone", '{"answer":""}', fin({"answer": ""}))

# ------------------------------------------------------------------------------------------
# Fences
# ------------------------------------------------------------------------------------------

ACT = '{"next_node":"search","args":{"q":"x"}}'
SEARCH = act("search", {"q": "x"})

case("fence: json tag", "```json\n" + ACT + "\n```", SEARCH, source="fence", repairs=[], ignored=[8, 4], others=[])
case("fence: no tag", "```\n" + ACT + "\n```", SEARCH, source="fence", ignored=[4, 4])
case("fence: upper-case tag", "```JSON\n" + ACT + "\n```", SEARCH, source="fence")
case("fence: jsonc tag", "```jsonc\n" + ACT + "\n```", SEARCH, source="fence")
case("fence: javascript object literal (repaired)",
     "```javascript\n{next_node: 'search', args: {q: \"x\"}}\n```", SEARCH, source="fence")
case("fence: python dict (repaired)",
     "```python\n{'next_node': 'search', 'args': {'q': 'x', 'exact': True, 'n': None}}\n```",
     act("search", {"q": "x", "exact": True, "n": None}), source="fence")
case("fence: on one line", "```" + ACT + "```", SEARCH, source="fence", ignored=[3, 3])
case("fence: one line with a tag and spaces", "```json " + ACT + " ```", SEARCH, source="fence", ignored=[8, 4])
case("fence: prose before and after",
     "Sure! Here you go:\n```json\n" + ACT + "\n```\nLet me know if you need more.",
     act("search", {"q": "x"}, reasoning="Sure! Here you go:"), source="fence", ignored=[27, 34])
case("fence: four backticks", "````json\n" + ACT + "\n````", SEARCH, source="fence", ignored=[9, 5])
case("fence: unclosed (the stream ended)", "```json\n" + ACT, SEARCH, source="fence", ignored=[8, 0])
case("fence: unclosed and a truncated final inside",
     '```json\n{"next_node":"final_response","args":{"answer":"Hel',
     fin({"answer": "Hel"}), source="fence", repairs=["truncated"])
case("fence: an answer string holding backticks",
     '```json\n{"next_node":"final_response","args":{"answer":"Run ```ls``` now"}}\n```',
     fin({"answer": "Run ```ls``` now"}), source="fence")
case("fence: an array of actions",
     '```json\n[{"next_node":"a","args":{}},{"next_node":"b","args":{}}]\n```', act("a", {}), source="fence",
     others=[{"source": "fence", "next_node": "b", "args": {}}])
case("fence: two objects, one per line",
     '```json\n{"next_node":"a","args":{}}\n{"next_node":"b","args":{}}\n```', act("a", {}), source="fence",
     others=[{"source": "fence", "next_node": "b", "args": {}}])
case("fence: prose inside the fence",
     '```\nAction: {"next_node":"search","args":{"q":"x"}}\n```', act("search", {"q": "x"}, reasoning="Action:"),
     source="fence")
case("fence: a code fence before a prose action",
     '```python\nprint(1)\n```\n{"next_node":"search","args":{"q":"x"}}',
     act("search", {"q": "x"}, reasoning="print(1)"), source="text")
case("fence: a fenced action beats an earlier prose one",
     'Draft: {"next_node":"draft","args":{}}\n```json\n' + ACT + '\n```',
     act("search", {"q": "x"}, reasoning='Draft: {"next_node":"draft","args":{}}'), source="fence",
     others=[{"source": "text", "next_node": "draft", "args": {}}])
case("fence: a fenced action beats a later prose one",
     '```json\n' + ACT + '\n```\nor maybe {"next_node":"other","args":{}}', SEARCH, source="fence",
     others=[{"source": "text", "next_node": "other", "args": {}}])
case("fence: an empty fence then an action", "```\n```\n" + ACT, SEARCH, source="text")
case("fence: a fenced final with thought and prose",
     'I know this.\n```json\n{"thought":"easy","next_node":"final_response","args":{"answer":"42"}}\n```',
     fin({"answer": "42"}, thought="easy", reasoning="I know this."), source="fence")

# ------------------------------------------------------------------------------------------
# Prose around the JSON
# ------------------------------------------------------------------------------------------

case("prose: before", "I will search now.\n" + ACT, act("search", {"q": "x"}, reasoning="I will search now."),
     source="text", ignored=[19, 0])
case("prose: after", ACT + "\nHope this helps!", SEARCH, source="text", ignored=[0, 17])
case("prose: before and after, multi-line reasoning",
     "Step 1: think.\n\nStep 2: act.\n\n" + ACT + "\n\nDone.",
     act("search", {"q": "x"}, reasoning="Step 1: think.\n\nStep 2: act."), source="text", ignored=[30, 7])
case("prose: braces in the prose before the action",
     "The set {1,2} and {a} and {x | x > 0} matter.\n" + ACT,
     act("search", {"q": "x"}, reasoning="The set {1,2} and {a} and {x | x > 0} matter."), source="text")
case("prose: an unbalanced brace before the action",
     "Use { to open a block.\n" + ACT, act("search", {"q": "x"}, reasoning="Use { to open a block."), source="text")
case("prose: a mention of next_node null before a tool call",
     'I will not set "next_node": null here.\n{"next_node":"search","args":{}}',
     act("search", {}, reasoning='I will not set "next_node": null here.'))
case("prose: a quoted args fragment before a tool call",
     'Thinking "args": {"answer": "leak"} first.\n{"next_node":"search","args":{"q":"q"}}',
     act("search", {"q": "q"}, reasoning='Thinking "args": {"answer": "leak"} first.'),
     others=[{"source": "text", "next_node": "final_response", "args": {"answer": "leak"}}])
case("prose: an extra closing brace after the action", ACT + "}", SEARCH, source="text", ignored=[0, 1])
case("prose: raw line break in an answer string (tolerant)",
     'Answer:\n{"next_node":"final_response","args":{"answer":"a\nb"}}',
     fin({"answer": "a\nb"}, reasoning="Answer:"), source="text", repairs=[])
case("prose: a final answer after prose",
     'Here is the answer.\n{"next_node":"final_response","args":{"answer":"Paris"}}',
     fin({"answer": "Paris"}, reasoning="Here is the answer."), source="text")
case("prose: only prose", "I cannot help with that.", error=UNPARSEABLE)
case("prose: an empty object in prose", "Here: {} nothing else", error=UNPARSEABLE)

# ------------------------------------------------------------------------------------------
# Think blocks and reasoning
# ------------------------------------------------------------------------------------------

case("think: block before the action", "<think>\nThe user wants X.\n</think>\n" + ACT,
     act("search", {"q": "x"}, reasoning="The user wants X."), source="text")
case("think: thinking variant", "<thinking>plan it</thinking>" + ACT, act("search", {"q": "x"}, reasoning="plan it"))
case("think: upper-case tags", "<THINK>plan it</THINK>" + ACT, act("search", {"q": "x"}, reasoning="plan it"))
case("think: a draft in the block loses to the action outside",
     '<think>maybe {"next_node":"wrong","args":{}}</think>\n' + ACT,
     act("search", {"q": "x"}, reasoning='maybe {"next_node":"wrong","args":{}}'), source="text",
     others=[{"source": "think", "next_node": "wrong", "args": {}}])
case("think: an action only inside the block is still found",
     "<think>I'll call {\"next_node\":\"search\",\"args\":{\"q\":\"x\"}} now</think>",
     act("search", {"q": "x"}, reasoning="I'll call"), source="think")
case("think: unclosed block holding the action",
     "<think>plan: {\"next_node\":\"search\",\"args\":{\"q\":\"x\"}} and more",
     act("search", {"q": "x"}, reasoning="plan:"), source="think")
case("think: block then prose then action", "<think>a</think>\nSo: " + ACT,
     act("search", {"q": "x"}, reasoning="a\nSo:"))
case("think: two blocks and prose between",
     "<think>a</think> mid <think>b</think> " + ACT, act("search", {"q": "x"}, reasoning="a\nmid\nb"))
case("think: a closing tag without an opening tag",
     'Let me consider {"next_node":"wrong","args":{}} first.\n</think>\n' + ACT,
     act("search", {"q": "x"}, reasoning='Let me consider {"next_node":"wrong","args":{}} first.'), source="text",
     others=[{"source": "think", "next_node": "wrong", "args": {}}])
case("think: an answer outside beats an action inside",
     '<think>{"next_node":"search","args":{}}</think>{"answer":"x"}', fin({"answer": "x"}, reasoning='{"next_node":"search","args":{}}'),
     source="text")
case("think: a think block and a thought key",
     '<think>r</think>{"thought":"t","next_node":"search","args":{}}', act("search", {}, thought="t", reasoning="r"))
case("think: think block then fenced final",
     '<think>The answer is simple.</think>\n```json\n{"next_node":"final_response","args":{"answer":"42"}}\n```',
     fin({"answer": "42"}, reasoning="The answer is simple."), source="fence")
case("think: only thinking, no action", "<think>hmm, {not json}</think> nothing", error=UNPARSEABLE)

# ------------------------------------------------------------------------------------------
# Several objects
# ------------------------------------------------------------------------------------------

case("multi: the first of two actions in prose",
     '{"next_node":"first","args":{}} {"next_node":"second","args":{}}', act("first", {}), source="text",
     ignored=[0, 33], others=[{"source": "text", "next_node": "second", "args": {}}])
case("multi: a streamed bare answer is not replaced by a later action",
     '{"answer":"draft"}\n{"next_node":"search","args":{}}', fin({"answer": "draft"}),
     others=[{"source": "text", "next_node": "search", "args": {}}])
case("multi: an action beats an earlier bare answer that streams nothing",
     '{"answer":" "}\n{"next_node":"search","args":{}}', act("search", {}, reasoning='{"answer":" "}'),
     others=[{"source": "text", "next_node": "final_response", "args": {"answer": " "}}])
case("multi: an object without action keys is skipped",
     '{"foo":1} then {"next_node":"search","args":{}}', act("search", {}, reasoning='{"foo":1} then'), others=[])
case("multi: a top-level array of actions",
     '[{"next_node":"a","args":{}},{"next_node":"b","args":{"k":1}}]', act("a", {}), source="list_item",
     others=[{"source": "list_item", "next_node": "b", "args": {"k": 1}}])
case("multi: an array with a non-action first",
     '[{"foo":1},{"next_node":"b","args":{}}]', act("b", {}), source="list_item")
case("multi: an action-shaped object that does not normalise is passed over",
     '{"thought":"planning"} {"next_node":"search","args":{}}', act("search", {}, reasoning='{"thought":"planning"}'))
case("multi: an empty next_node is passed over",
     '{"next_node":""} {"next_node":"search","args":{}}', act("search", {}, reasoning='{"next_node":""}'))
case("multi: three actions, the others in text order",
     'a {"next_node":"one"} b {"next_node":"two","args":{"x":1}} c {"next_node":"final_response","args":"bye"}',
     act("one", {}, reasoning="a"),
     others=[{"source": "text", "next_node": "two", "args": {"x": 1}},
             {"source": "text", "next_node": "final_response", "args": {"answer": "bye"}}])
LONG300 = "x" * 300
case("multi: a long final answer among the others is summarised",
     '{"next_node":"search","args":{}}\n' + compact({"next_node": "final_response", "args": {"answer": LONG300, "confidence": 1}}),
     act("search", {}),
     others=[{"source": "text", "next_node": "final_response", "args": {"confidence": 1, "answer_len": 300}}])
case("multi: NDJSON lines", '{"next_node":"a"}\n{"next_node":"b"}\n', act("a", {}), source="text",
     others=[{"source": "text", "next_node": "b", "args": {}}])

# ------------------------------------------------------------------------------------------
# Double-encoded JSON
# ------------------------------------------------------------------------------------------

case("double-encoded: a whole-input JSON string", '"{\\"next_node\\":\\"search\\",\\"args\\":{\\"q\\":\\"x\\"}}"',
     SEARCH, source="embedded_string", ignored=[0, 0])
case("double-encoded: triple-encoded", json.dumps(json.dumps(ACT)), SEARCH, source="embedded_string")
case("double-encoded: a final with escapes",
     json.dumps(compact({"next_node": "final_response", "args": {"answer": "line\n\"q\" é"}})),
     fin({"answer": "line\n\"q\" é"}), source="embedded_string")
case("double-encoded: surrounded by whitespace", '  ' + json.dumps(ACT) + '\n', SEARCH, source="embedded_string")
case("double-encoded: a JSON string holding fenced output",
     json.dumps("```json\n" + ACT + "\n```"), SEARCH, source="embedded_string")
case("double-encoded: in a fence", "```json\n" + json.dumps(ACT) + "\n```", SEARCH, source="embedded_string")
case("double-encoded: a JSON string in prose",
     'Output: "{\\"next_node\\":\\"search\\",\\"args\\":{\\"q\\":\\"x\\"}}" done',
     act("search", {"q": "x"}, reasoning="Output:"), source="embedded_string", ignored=[8, 5])
case("double-encoded: escaped JSON in prose without quotes (stringified, repaired)",
     'Output: {\\"next_node\\":\\"search\\",\\"args\\":{\\"q\\":\\"x\\"}}', act("search", {"q": "x"}, reasoning="Output:"),
     source="text")
case("double-encoded: a JSON string without JSON", '"just a sentence"', error=UNPARSEABLE)
case("double-encoded: the args of a tool", '{"next_node":"t","args":"{\\"a\\":[1,2]}"}', act("t", {"a": [1, 2]}))

# ------------------------------------------------------------------------------------------
# Python literals and other repairs
# ------------------------------------------------------------------------------------------

case("python: dict with single quotes", "{'next_node': 'x', 'args': {'q': 'y'}}", act("x", {"q": "y"}), source="direct")
case("python: True/False/None",
     "{'next_node': 'x', 'args': {'a': True, 'b': False, 'c': None}}", act("x", {"a": True, "b": False, "c": None}))
case("python: final with an apostrophe",
     "{'next_node': 'final_response', 'args': {'answer': \"It's done\"}}", fin({"answer": "It's done"}))
case("python: legacy final with None",
     "{'thought': 'done', 'next_node': None, 'args': {'raw_answer': 'ok'}}", fin({"answer": "ok"}, thought="done"))
case("python: dict in prose", "Action:\n{'next_node': 'x', 'args': {}}\nThanks", act("x", {}, reasoning="Action:"),
     source="text", ignored=[8, 7])
case("repair: unquoted keys", '{next_node: "search", args: {q: "x"}}', SEARCH, source="direct")
case("repair: a comment inside", '{"next_node":"search", // the tool\n"args":{"q":"x"}}', SEARCH, source="direct")

# ------------------------------------------------------------------------------------------
# Trailing commas
# ------------------------------------------------------------------------------------------

case("trailing comma: with a JSON literal", '{"next_node":"x","args":{"v":true,},}', act("x", {"v": True}),
     source="direct", repairs=["trailing_comma", "trailing_comma"])
case("trailing comma: with a number", '{"next_node":"x","args":{"v":1,},}', act("x", {"v": 1}), source="direct",
     repairs=["trailing_comma", "trailing_comma"])
case("trailing comma: in an array", '{"next_node":"final_response","args":["a","b",]}', fin({"answer": "a\nb"}))
case("trailing comma: in prose, prose after", 'Do: {"next_node":"x","args":{"v":null,}} ok?',
     act("x", {"v": None}, reasoning="Do:"), source="text", repairs=["trailing_comma"], ignored=[4, 4])
case("trailing comma: a valid action beats an earlier repaired one",
     '{"next_node":"x","args":{"v":1,}} {"next_node":"y","args":{}}',
     act("y", {}, reasoning='{"next_node":"x","args":{"v":1,}}'), source="text", repairs=[],
     others=[{"source": "text", "next_node": "x", "args": {"v": 1}}])
case("multi: a template before the real action loses (it needs a repair)",
     'Format: {"next_node": "<tool>", "args": {...}}\nMine: {"next_node":"search","args":{"q":"x"}}',
     act("search", {"q": "x"}, reasoning='Format: {"next_node": "<tool>", "args": {...}}\nMine:'), source="text",
     others=[{"source": "text", "next_node": "<tool>", "args": {}}])

# ------------------------------------------------------------------------------------------
# Truncated output: a truncated tool call never becomes a final answer
# ------------------------------------------------------------------------------------------

case("truncated: final missing its last brace",
     '{"next_node":"final_response","args":{"answer":"a"}', fin({"answer": "a"}), source="direct", repairs=["truncated"])
case("truncated: final cut inside the answer",
     '{"next_node":"final_response","args":{"answer":"The capital is Par', fin({"answer": "The capital is Par"}),
     repairs=["truncated"])
case("truncated: tool with an answer arg stays a tool",
     '{"next_node":"save_note","args":{"answer":"draft"}', act("save_note", {"answer": "draft"}), repairs=["truncated"])
case("truncated: tool cut inside an arg", '{"next_node":"send_email","args":{"to":"a@b.c","body":"Hello, I wanted',
     act("send_email", {"to": "a@b.c", "body": "Hello, I wanted"}), repairs=["truncated"])
case("truncated: tool with a nested answer object stays a tool",
     '{"next_node":"save","args":{"items":[{"answer":"x"}],"more":"cu',
     act("save", {"items": [{"answer": "x"}], "more": "cu"}))
case("truncated: cut inside next_node", '{"next_node":"final_resp', error=UNPARSEABLE)
case("truncated: cut after the next_node key", '{"next_node":', error=UNPARSEABLE)
case("truncated: cut inside a null next_node", '{"next_node":nu', error=UNPARSEABLE)
case("truncated: args before a cut next_node", '{"args":{"answer":"draft"},"next_node":"sa', error=UNPARSEABLE)
case("truncated: args and no next_node yet", '{"args":{"answer":"draft"}', error=UNPARSEABLE)
case("truncated: a bare answer cut short", '{"answer":"Paris is', error=UNPARSEABLE)
case("truncated: legacy final after a complete null",
     '{"thought":"t","next_node":null,"args":{"raw_answer":"ab', fin({"answer": "ab"}, thought="t"), repairs=["truncated"])
case("truncated: legacy null next_node, nothing else", '{"thought":"t","next_node":null', fin({}, thought="t"))
case("truncated: after prose", 'Sure: {"next_node":"final_response","args":{"answer":"Hel',
     fin({"answer": "Hel"}, reasoning="Sure:"), source="text", repairs=["truncated"], ignored=[6, 0])
case("truncated: a complete action before a truncated one",
     '{"next_node":"search","args":{}}\n{"next_node":"final_response","args":{"answer":"x',
     act("search", {}), others=[{"source": "text", "next_node": "final_response", "args": {"answer": "x"}}])
case("truncated: a streamed truncated answer is not replaced by a later fenced action",
     '{"next_node":"final_response","args":{"answer":"x\n```json\n{"next_node":"search","args":{}}\n```',
     fin({"answer": "x\n```json\n{"}), source="text")
case("truncated: a complete action beats an earlier truncated one in another region",
     '{"next_node":"search","args":{"q":"x\n```json\n{"next_node":"final_response","args":{"answer":"y"}}\n```',
     fin({"answer": "y"}, reasoning='{"next_node":"search","args":{"q":"x'), source="fence")
case("truncated: inside the action wrapper after its next_node",
     '{"action":{"next_node":"search","args":{"q":"x', act("search", {"q": "x"}))
case("truncated: inside the action wrapper's next_node", '{"action":{"next_node":"sea', error=UNPARSEABLE)
case("truncated: an outer string next_node decides before a cut wrapper one",
     '{"next_node":"search","action":{"next_node":"final_resp', act("search", {}))
case("truncated: an outer null next_node does not decide for a cut wrapper one",
     '{"next_node":null,"action":{"next_node":"final_resp', error=UNPARSEABLE)
case("truncated: a cut repeated next_node does not matter (the first counts)",
     '{"next_node":"search","args":{"q":"x"},"next_node":"final_resp', act("search", {"q": "x"}))

# ------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------

case("error: empty input", "", error=UNPARSEABLE)
case("error: whitespace", "  \n\t ", error=UNPARSEABLE)
case("error: JSON null", "null", error=UNPARSEABLE)
case("error: a number", "42", error=UNPARSEABLE)
case("error: true", "true", error=UNPARSEABLE)
case("error: empty array", "[]", error=UNPARSEABLE)
case("error: array of strings", '["a"]', error=UNPARSEABLE)
case("error: empty object", "{}", error=UNPARSEABLE)
case("error: args without an answer or next_node", '{"args":{"q":1}}', error=UNPARSEABLE)
case("error: unrelated object", '{"name":"Ada","age":36}', error=UNPARSEABLE)
case("error: next_node a number", '{"next_node":123}', error=MISSING)
case("error: next_node an object", '{"next_node":{"name":"search"}}', error=MISSING)
case("error: next_node an array", '{"next_node":["search"]}', error=MISSING)
case("error: next_node true", '{"next_node":true,"args":{"answer":"x"}}', error=MISSING)
case("error: empty next_node", '{"next_node":"","args":{}}', error=MISSING)
case("error: blank next_node", '{"next_node":"   ","args":{"q":1}}', error=MISSING)
case("error: empty next_node even with an answer", '{"next_node":"","args":{"answer":"x"}}', error=MISSING)
case("error: an empty fence", "```json\n```", error=UNPARSEABLE)
case("error: a fence of prose", "```\nno json here\n```", error=UNPARSEABLE)
case("error: a broken object that is not an action", "{oops: }", error=UNPARSEABLE)

# Object inputs (JS objects / parsed values)
case("object: a tool call", {"next_node": "search", "args": {"q": "x"}}, SEARCH)
case("object: a legacy final", {"thought": "t", "next_node": None, "args": {"raw_answer": "a"}},
     fin({"answer": "a"}, thought="t"))
case("object: a plan", {"next_node": "parallel", "args": {"steps": [{"node": "a"}]}},
     act("plan", {"steps": [{"node": "a", "args": {}}]}))
case("object: a wrapper with a string action", {"action": "{\"next_node\":\"t\"}"}, act("t", {}))
case("object: a bare answer", {"answer": "a", "confidence": 0.5}, fin({"answer": "a", "confidence": 0.5}))
case("object: an empty object", {}, error=UNPARSEABLE)
case("object: an empty next_node", {"next_node": ""}, error=MISSING)
case("object: a string holding fenced output", "```json\n" + ACT + "\n```", SEARCH)

# ------------------------------------------------------------------------------------------
# The reference cheat sheet (reference-behaviour.md §2.3), one case per row, our result
# ------------------------------------------------------------------------------------------

def cheat(row, inp, expected=None, reference=None, error=None, **extra):
    case("cheat-sheet: " + row, inp, expected, error, reference=reference, **extra)


cheat("tool call", '{"next_node":"t","args":{"q":1}}', act("t", {"q": 1}), "t {q:1}")
cheat("final with answer", '{"next_node":"final_response","args":{"answer":"a"}}', fin({"answer": "a"}),
      "final {answer:a, raw_answer:a}")
cheat("final with padded string args", '{"next_node":"final_response","args":"  s "}', fin({"answer": "s"}),
      "final s (trimmed)")
cheat("final with array args", '{"next_node":"final_response","args":["a","b"]}', fin({"answer": "a\nb"}), "final a\\nb")
cheat("final with null args", '{"next_node":"final_response","args":null}', fin({}), "final {}")
cheat("legacy null next_node with raw_answer", '{"thought":"x","next_node":null,"args":{"raw_answer":"a"}}',
      fin({"answer": "a"}, thought="x"), "final {raw_answer:a, answer:a}")
cheat("legacy plan and join", '{"thought":"x","plan":[{"node":"x"}],"join":{"node":"j"}}',
      act("plan", {"steps": [{"node": "x", "args": {}}], "join": {"node": "j", "args": {}, "inject": None}}, thought="x"),
      "parallel {steps:[{node:x,args:{}}], join:{node:j,inject:null,args:{}}}")
cheat("next_node plan", '{"next_node":"plan","args":{"steps":[{"node":"a"}]}}',
      act("plan", {"steps": [{"node": "a", "args": {}}]}), "parallel")
cheat("thought with next_node plan", '{"thought":"x","next_node":"plan","args":{"steps":[{"node":"a"}]}}',
      act("plan", {"steps": [{"node": "a", "args": {}}]}, thought="x"), "tool named plan (B2)")
cheat("thought with final and string args", '{"thought":"x","next_node":"final_response","args":"s"}',
      fin({"answer": "s"}, thought="x"), "final {} (B2)")
cheat("task.subagent", '{"next_node":"task.subagent","args":{"query":"q"}}', act("task", {"query": "q", "mode": "subagent"}),
      "tasks.spawn mode subagent")
cheat("task.tool", '{"next_node":"task.tool","args":{"tool":"t","tool_args":{}}}',
      act("task", {"tool": "t", "tool_args": {}, "mode": "job"}), "tasks.spawn mode job, tool renamed tool_name")
cheat("task", '{"next_node":"task","args":{"query":"q"}}', act("task", {"query": "q", "mode": "subagent"}),
      "tasks.spawn mode subagent")
cheat("bare answer with confidence", '{"answer":"a","confidence":0.9}', fin({"answer": "a", "confidence": 0.9}),
      "final {answer, confidence, raw_answer}")
cheat("args with an answer", '{"args":{"answer":"a"}}', fin({"answer": "a"}), "final")
cheat("string args alone", '{"args":"s"}', fin({"answer": "s"}), "final {} (B3)")
cheat("null next_node with string args", '{"next_node":null,"args":"s"}', fin({"answer": "s"}), "final {} (B3)")
cheat("action wrapper", '{"action":{"next_node":"t","args":{"k":"v"}}}', act("t", {"k": "v"}), "t")
cheat("action wrapper with final string args", '{"action":{"next_node":"final_response","args":"s"}}',
      fin({"answer": "s"}), "final {} (B3)")
cheat("empty object", "{}", error=UNPARSEABLE, reference="final {}")
cheat("thought only", '{"thought":"x"}', error=MISSING, reference="final {}")
cheat("null next_node only", '{"next_node":null}', fin({}), "final {}")
cheat("empty next_node", '{"next_node":""}', error=MISSING, reference="tool \"\" (B4)")
cheat("numeric next_node", '{"next_node":123}', error=MISSING, reference="final {answer:\"\",raw_answer:\"\"}")
cheat("fenced JSON", "```json\n" + ACT + "\n```", SEARCH, "first/highest-scoring action-shaped object", source="fence")
cheat("prose and JSON", "Let me search.\n" + ACT, act("search", {"q": "x"}, reasoning="Let me search."),
      "first/highest-scoring action-shaped object", source="text")
cheat("array of objects", "[" + ACT + ',{"next_node":"other"}]', SEARCH, "first/highest-scoring action-shaped object",
      source="list_item")
cheat("two actions, the second with a thought",
      '{"next_node":"search","args":{}}{"thought":"t","next_node":"final_response","args":{"answer":"x"}}',
      act("search", {}), "the second wins (+1 for thought), B5")
cheat("double-encoded", '"{\\"next_node\\":\\"search\\",\\"args\\":{}}"', act("search", {}), "error (B1)",
      source="embedded_string")
cheat("Python literal", "{'next_node': 'x', 'args': {'a': 1}}", act("x", {"a": 1}), "x via literal_eval")
cheat("trailing commas without JSON literals", '{"next_node":"x","args":{"v":1,},}', act("x", {"v": 1}), "OK")
cheat("trailing commas with JSON literals", '{"next_node":"x","args":{"v":false,"w":null,},}',
      act("x", {"v": False, "w": None}), "error (B7)")
cheat("truncated final", '{"next_node":"final_response","args":{"answer":"a"}', fin({"answer": "a"}),
      "final a (inner object salvaged)", repairs=["truncated"])
cheat("truncated tool", '{"next_node":"save","args":{"answer":"d"}', act("save", {"answer": "d"}), "final d (B8)",
      repairs=["truncated"])
cheat("plain prose", "Hello there, how can I help?", error=UNPARSEABLE, reference="error")
cheat("null", "null", error=UNPARSEABLE, reference="error")
cheat("42", "42", error=UNPARSEABLE, reference="error")
cheat("[]", "[]", error=UNPARSEABLE, reference="error")
cheat('["a"]', '["a"]', error=UNPARSEABLE, reference="error")
cheat("empty string", "", error=UNPARSEABLE, reference="error")

# ------------------------------------------------------------------------------------------
# Reference bugs B1-B11 (reference-behaviour.md §8), shown fixed
# ------------------------------------------------------------------------------------------

def bug(tag, what, inp, expected=None, error=None, reference=None, **extra):
    case(f"{tag}: {what}", inp, expected, error, reference=reference, **extra)


bug("B1", "a double-encoded action is decoded", '"{\\"next_node\\":\\"search\\",\\"args\\":{}}"', act("search", {}),
    reference="ValueError", source="embedded_string")
bug("B1", "an action wrapper holding a JSON string", '{"action":"{\\"next_node\\":\\"search\\"}"}', act("search", {}),
    reference="final {}")
bug("B1", "a double-encoded legacy final", json.dumps('{"thought":"t","next_node":null,"args":{"raw_answer":"r"}}'),
    fin({"answer": "r"}, thought="t"), reference="ValueError", source="embedded_string")
bug("B2", "a thought keeps string final args", '{"thought":"t","next_node":"final_response","args":"Hi"}',
    fin({"answer": "Hi"}, thought="t"), reference="final {}")
bug("B2", "a thought keeps the plan opcode", '{"thought":"t","next_node":"plan","args":{"steps":[{"node":"a"}]}}',
    act("plan", {"steps": [{"node": "a", "args": {}}]}, thought="t"), reference="tool named plan")
bug("B2", "a thought keeps task.subagent", '{"thought":"t","next_node":"task.subagent","args":{"query":"q","tool":"x"}}',
    act("task", {"query": "q", "mode": "subagent"}, thought="t"), reference="tool named task.subagent")
bug("B2", "a thought keeps the answer canonical", '{"thought":"t","next_node":"final_response","args":{"raw_answer":"r"}}',
    fin({"answer": "r"}, thought="t"), reference="no mirror")
bug("B3", "null next_node with string args", '{"next_node":null,"args":"Hi"}', fin({"answer": "Hi"}), reference="final {}")
bug("B3", "string args alone", '{"args":"Hi"}', fin({"answer": "Hi"}), reference="final {}")
bug("B3", "wrapped final with string args", '{"action":{"next_node":"final_response","args":"Hi"}}',
    fin({"answer": "Hi"}), reference="final {}")
bug("B3", "final args as an array of one answer object", '{"next_node":"final_response","args":[{"answer":"x"}]}',
    fin({"answer": "x"}), reference="final {}")
bug("B3", "legacy final with array args", '{"thought":"t","next_node":null,"args":["a","b"]}',
    fin({"answer": "a\nb"}, thought="t"), reference="final {}")
bug("B4", "an empty next_node is an error", '{"next_node":""}', error=MISSING, reference="tool named \"\"")
bug("B4", "an empty next_node with a thought is the same error", '{"thought":"t","next_node":""}', error=MISSING,
    reference="final {answer:\"\"}")
bug("B4", "a padded tool name is trimmed", '{"next_node":" lookup ","args":{}}', act("lookup", {}),
    reference="tool \" lookup \"")
bug("B4", "an upper-case opcode is the opcode", '{"next_node":"FINAL_RESPONSE","args":{"answer":"a"}}',
    fin({"answer": "a"}), reference="tool FINAL_RESPONSE")
bug("B5", "a draft in a think block loses to the fenced action",
    '<think>{"next_node":"wrong","args":{}}</think>\n```json\n{"next_node":"search","args":{}}\n```',
    act("search", {}, reasoning='{"next_node":"wrong","args":{}}'), reference="wrong", source="fence",
    others=[{"source": "think", "next_node": "wrong", "args": {}}])
bug("B5", "a thought key does not win over the first action",
    '{"next_node":"search","args":{}}{"thought":"t","next_node":"final_response","args":{"answer":"x"}}',
    act("search", {}), reference="final x", source="text",
    others=[{"source": "text", "next_node": "final_response", "args": {"answer": "x"}}])
bug("B6", "an empty answer does not shadow raw_answer",
    '{"next_node":"final_response","args":{"answer":"","raw_answer":"text"}}', fin({"answer": "text"}),
    reference="answer \"\"")
bug("B6", "a null answer does not shadow raw_answer",
    '{"next_node":"final_response","args":{"answer":null,"raw_answer":"text"}}', fin({"answer": "text"}),
    reference="answer null")
bug("B7", "trailing commas with true", '{"next_node":"x","args":{"v":true,},}', act("x", {"v": True}),
    reference="error", repairs=["trailing_comma", "trailing_comma"])
bug("B7", "trailing commas with a number", '{"next_node":"x","args":{"v":1,},}', act("x", {"v": 1}),
    reference="OK", repairs=["trailing_comma", "trailing_comma"])
bug("B8", "a truncated tool call stays a tool call", '{"next_node":"save_note","args":{"answer":"draft"}',
    act("save_note", {"answer": "draft"}), reference="final draft", repairs=["truncated"])
bug("B8", "a truncated object without a decided next_node is no action",
    '{"args":{"answer":"draft"},"next_node":"save_n', error=UNPARSEABLE, reference="final draft")
bug("B9", "a fenced action is one candidate", "```json\n" + ACT + "\n```", SEARCH, reference="other_json_count 1",
    source="fence", others=[])
bug("B9", "a second fenced action is reported",
    '```json\n{"next_node":"a","args":{}}\n```\n```json\n{"next_node":"b","args":{}}\n```', act("a", {}),
    reference="hidden by the pre-filter", source="fence", others=[{"source": "fence", "next_node": "b", "args": {}}])
bug("B10", "a prose answer with braces is not sliced",
    "The set {1,2} has two elements, and {a} is another.", error=UNPARSEABLE,
    reference="'{1,2} has two elements, and {a}' shown as the answer")
bug("B10", "prose with braces around a real action",
    "The set {1,2} has two elements.\n" + '{"next_node":"final_response","args":{"answer":"{1,2} has 2"}}' + "\nSee {a}.",
    fin({"answer": "{1,2} has 2"}, reasoning="The set {1,2} has two elements."), reference="slice from first { to last }",
    source="text")
bug("B10", "a template-like prose answer", "Dear {name}, your order {id} shipped. {{unsubscribe}}", error=UNPARSEABLE,
    reference="slice shown as the answer")
bug("B11", "escapes come back exactly decoded",
    r'{"next_node":"final_response","args":{"answer":"C:\\new \u00e9\u4e16 \"quoted\" \\u00e9 end\n"}}',
    fin({"answer": "C:\\new é世 \"quoted\" \\u00e9 end\n"}), reference="\\\\n becomes backslash+newline, \\u00e9 raw")
bug("B11", "an answer inside tool args is not a final answer",
    '{"next_node":"save_note","args":{"note":{"answer":"secret"}}} trailing', act("save_note", {"note": {"answer": "secret"}}),
    reference="regex finds answer at any depth")
bug("B11", "a broken tool call with an answer arg is never an answer",
    '{"next_node":"save_note","args":{"answer":"secret", "x": }} oops', act("save_note", {"answer": "secret", "x": None}),
    reference="last-resort regex returns final secret")


def main():
    names = set()
    for c in CASES:
        assert c["name"] not in names, c["name"]
        names.add(c["name"])
    text = json.dumps(CASES, ensure_ascii=False, indent=1)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "normalize.json"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
