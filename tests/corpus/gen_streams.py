#!/usr/bin/env python3
"""Writes the recorded-format sample streams of examples/streams/ that are generated (the
hand-written ones sit next to them). Each follows the provider's documented wire format:
OpenAI Chat Completions chunks, OpenAI Responses events, Anthropic Messages events, Gemini
streamGenerateContent?alt=sse (CRLF). Run from the repository root:

    python3 tests/corpus/gen_streams.py
"""
import json
import random

OUT = "examples/streams/"
NONCE = "5f0c9a2be4d1487fa3c6b8e2d9f17a40"
rng = random.Random(20241123)


def pieces(text, lo=1, hi=6):
    out, i = [], 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i:i + n])
        i += n
    return out


def dumps(v, ascii_=False):
    return json.dumps(v, ensure_ascii=ascii_, separators=(",", ":"))


def write(name, text, crlf=False):
    if crlf:
        text = text.replace("\n", "\r\n")
    with open(OUT + name, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def chat_chunk(delta, finish=None, ascii_=False, cid="chatcmpl-A1b2C3", model="gpt-4o-2024-08-06"):
    obj = {"id": cid, "object": "chat.completion.chunk", "created": 1732350000, "model": model,
           "system_fingerprint": "fp_5f20662549",
           "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    return "data: " + dumps(obj, ascii_) + "\n\n"


ACTION = {
    "thought": "The user greeted me in French; answer in kind.",
    "next_node": "final_response",
    "args": {"answer": "Bonjour ! Voilà \"la\" réponse :\n— café ☕, naïve 😀 \\o/ {ok}"},
}
ACTION_TEXT = json.dumps(ACTION, ensure_ascii=False, indent=1)

# --- OpenAI Chat: action-json content in tiny deltas (escapes: ensure_ascii, so \u00e9 and
# surrogate pairs), keep-alive comments, usage-only chunk, [DONE].
s = chat_chunk({"role": "assistant", "content": "", "refusal": None})
for k, p in enumerate(pieces(ACTION_TEXT)):
    s += chat_chunk({"content": p}, ascii_=True)
    if k % 17 == 5:
        s += ": keep-alive\n\n"
s += chat_chunk({}, "stop")
s += "data: " + dumps({"id": "chatcmpl-A1b2C3", "object": "chat.completion.chunk", "created": 1732350000,
                       "model": "gpt-4o-2024-08-06", "choices": [],
                       "usage": {"prompt_tokens": 120, "completion_tokens": 64, "total_tokens": 184,
                                 "prompt_tokens_details": {"cached_tokens": 0},
                                 "completion_tokens_details": {"reasoning_tokens": 0}}}) + "\n\n"
s += "data: [DONE]\n\n"
write("openai-chat-action.sse", s)

# --- OpenAI Chat: reasoning (reasoning_content, as DeepSeek/OpenRouter-style servers send),
# text, two parallel tool calls keyed by index, finish_reason tool_calls, usage, CRLF framing.
s = chat_chunk({"role": "assistant", "content": None}, model="deepseek-reasoner")
for p in pieces("Two cities, so two weather calls in parallel."):
    s += chat_chunk({"reasoning_content": p}, model="deepseek-reasoner")
for p in pieces("Let me check both."):
    s += chat_chunk({"content": p}, model="deepseek-reasoner")
calls = [("call_Wx1", "get_weather", '{"city": "Paris", "unit": "celsius"}'),
         ("call_Wx2", "get_weather", '{"city": "Tōkyō", "unit": "celsius"}')]
for i, (cid, name, args) in enumerate(calls):
    s += chat_chunk({"tool_calls": [{"index": i, "id": cid, "type": "function",
                                     "function": {"name": name, "arguments": ""}}]}, model="deepseek-reasoner")
    for p in pieces(args, 2, 9):
        s += chat_chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]}, model="deepseek-reasoner")
    s += ": keep-alive\n\n"
s += chat_chunk({}, "tool_calls", model="deepseek-reasoner")
s += "data: " + dumps({"id": "chatcmpl-A1b2C3", "object": "chat.completion.chunk", "created": 1732350000,
                       "model": "deepseek-reasoner", "choices": [],
                       "usage": {"prompt_tokens": 80, "completion_tokens": 95, "total_tokens": 175,
                                 "completion_tokens_details": {"reasoning_tokens": 40}}}) + "\n\n"
s += "data: [DONE]\n\n"
write("openai-chat-tools.sse", s, crlf=True)

# --- OpenAI Chat: an error mid-stream (the server sends an error object and closes).
s = chat_chunk({"role": "assistant", "content": ""})
for p in pieces("Here is the first part of"):
    s += chat_chunk({"content": p})
s += "data: " + dumps({"error": {"message": "The server had an error while processing your request. Sorry about that!",
                                 "type": "server_error", "param": None, "code": None}}) + "\n\n"
write("openai-chat-error.sse", s)

# --- OpenAI Chat: tagged content (nonce-tag contract).
TAGGED = (f"[ARTIFACT:{NONCE}]\n# Release notes\n\n- Faster SSE decoding\n- New router: données → événements\n"
          f"[/ARTIFACT:{NONCE}]\n[USER:{NONCE}]\nShall I save this draft? 🙂\n[/USER:{NONCE}]")
s = chat_chunk({"role": "assistant", "content": ""})
for p in pieces(TAGGED, 1, 7):
    s += chat_chunk({"content": p})
s += chat_chunk({}, "stop")
s += "data: [DONE]\n\n"
write("openai-chat-tagged.sse", s)

# --- OpenAI Responses: reasoning summary, text, two parallel function calls, usage.
seq = [0]


def resp(event, **fields):
    obj = {"type": event, "sequence_number": seq[0], **fields}
    seq[0] += 1
    return f"event: {event}\ndata: {dumps(obj)}\n\n"


s = resp("response.created", response={"id": "resp_67c9", "object": "response", "status": "in_progress", "output": []})
s += resp("response.in_progress", response={"id": "resp_67c9", "object": "response", "status": "in_progress", "output": []})
s += resp("response.output_item.added", output_index=0, item={"id": "rs_1", "type": "reasoning", "summary": []})
s += resp("response.reasoning_summary_part.added", item_id="rs_1", output_index=0, summary_index=0,
          part={"type": "summary_text", "text": ""})
for p in pieces("**Planning** I need the weather for two cities."):
    s += resp("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=0, delta=p)
s += resp("response.reasoning_summary_text.done", item_id="rs_1", output_index=0, summary_index=0,
          text="**Planning** I need the weather for two cities.")
s += resp("response.output_item.done", output_index=0, item={"id": "rs_1", "type": "reasoning", "summary": []})
s += resp("response.output_item.added", output_index=1,
          item={"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []})
for p in pieces("Checking Paris and Zürich…"):
    s += resp("response.output_text.delta", item_id="msg_1", output_index=1, content_index=0, delta=p)
s += resp("response.output_item.done", output_index=1,
          item={"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "content": []})
for k, (city, idx) in enumerate([("Paris", 2), ("Zürich", 3)]):
    args = dumps({"location": city, "units": "metric"})
    item = {"id": f"fc_{k}", "type": "function_call", "status": "in_progress", "arguments": "",
            "call_id": f"call_R{k}", "name": "get_weather"}
    s += resp("response.output_item.added", output_index=idx, item=item)
    for p in pieces(args, 2, 8):
        s += resp("response.function_call_arguments.delta", item_id=f"fc_{k}", output_index=idx, delta=p)
    s += resp("response.function_call_arguments.done", item_id=f"fc_{k}", output_index=idx, arguments=args)
    s += resp("response.output_item.done", output_index=idx, item={**item, "status": "completed", "arguments": args})
s += resp("response.completed", response={"id": "resp_67c9", "object": "response", "status": "completed",
                                          "usage": {"input_tokens": 52, "input_tokens_details": {"cached_tokens": 0},
                                                    "output_tokens": 88, "output_tokens_details": {"reasoning_tokens": 32},
                                                    "total_tokens": 140}})
write("openai-responses-tools.sse", s)

# --- OpenAI Responses: failure mid-stream.
seq[0] = 0
s = resp("response.created", response={"id": "resp_9", "object": "response", "status": "in_progress", "output": []})
for p in pieces("Partial answer"):
    s += resp("response.output_text.delta", item_id="msg_9", output_index=0, content_index=0, delta=p)
s += resp("response.failed", response={"id": "resp_9", "object": "response", "status": "failed",
                                       "error": {"code": "server_error", "message": "The model failed to generate a response."}})
write("openai-responses-error.sse", s)

# --- Anthropic: thinking, text, two parallel tool_use blocks with input_json_delta, ping,
# message_delta stop_reason tool_use with usage, message_stop.


def ant(event, **fields):
    return f"event: {event}\ndata: {dumps({'type': event, **fields})}\n\n"


s = ant("message_start", message={"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
                                  "content": [], "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None,
                                  "usage": {"input_tokens": 472, "output_tokens": 2, "cache_read_input_tokens": 128}})
s += ant("content_block_start", index=0, content_block={"type": "thinking", "thinking": "", "signature": ""})
for p in pieces("Two lookups; I can run them in parallel."):
    s += ant("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": p})
s += ant("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"})
s += ant("content_block_stop", index=0)
s += ant("content_block_start", index=1, content_block={"type": "text", "text": ""})
s += ant("ping")
for p in pieces("I'll look up both cities."):
    s += ant("content_block_delta", index=1, delta={"type": "text_delta", "text": p})
s += ant("content_block_stop", index=1)
for k, city in enumerate(["San Francisco, CA", "Kraków"]):
    idx = 2 + k
    s += ant("content_block_start", index=idx,
             content_block={"type": "tool_use", "id": f"toolu_01T1x1fJ34qAm{k}", "name": "get_weather", "input": {}})
    s += ant("content_block_delta", index=idx, delta={"type": "input_json_delta", "partial_json": ""})
    for p in pieces(dumps({"location": city, "unit": "fahrenheit" if k == 0 else "celsius"}), 2, 9):
        s += ant("content_block_delta", index=idx, delta={"type": "input_json_delta", "partial_json": p})
    s += ant("content_block_stop", index=idx)
s += ant("message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None}, usage={"output_tokens": 89})
s += ant("message_stop")
write("anthropic-tools.sse", s)

# --- Anthropic: action-json content with an overloaded error mid-stream.
s = ant("message_start", message={"id": "msg_02", "type": "message", "role": "assistant", "content": [],
                                  "model": "claude-haiku-4-5", "stop_reason": None, "stop_sequence": None,
                                  "usage": {"input_tokens": 30, "output_tokens": 1}})
s += ant("content_block_start", index=0, content_block={"type": "text", "text": ""})
for p in pieces('{"next_node": "final_response", "args": {"answer": "Partial ans'):
    s += ant("content_block_delta", index=0, delta={"type": "text_delta", "text": p})
s += "event: error\ndata: " + dumps({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}) + "\n\n"
write("anthropic-error.sse", s)

# --- Anthropic: action-json content after a thinking block (a tool call action).
TOOL_ACTION = json.dumps({"thought": "Need the docs first.", "next_node": "search_docs",
                          "args": {"query": "SSE reconnect \"Last-Event-ID\"", "answer": "not for the user"}})
s = ant("message_start", message={"id": "msg_03", "type": "message", "role": "assistant", "content": [],
                                  "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None,
                                  "usage": {"input_tokens": 210, "output_tokens": 1}})
s += ant("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""})
s += ant("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Search before answering."})
s += ant("content_block_stop", index=0)
s += ant("content_block_start", index=1, content_block={"type": "text", "text": ""})
for p in pieces("Let me search.\n```json\n" + TOOL_ACTION + "\n```"):
    s += ant("content_block_delta", index=1, delta={"type": "text_delta", "text": p})
s += ant("content_block_stop", index=1)
s += ant("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None}, usage={"output_tokens": 61})
s += ant("message_stop")
write("anthropic-action.sse", s)

# --- Gemini: thought parts, text, two whole functionCalls, usage, CRLF.


def gem(parts, finish=None, usage=None):
    cand = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    obj = {"candidates": [cand]}
    if usage:
        obj["usageMetadata"] = usage
    obj["modelVersion"] = "gemini-2.5-flash"
    obj["responseId"] = "b3BlbmFp"
    return "data: " + dumps(obj) + "\n\n"


s = gem([{"text": "**Weighing the request** Two places, two calls.", "thought": True}])
s += gem([{"text": "Looking up São Paulo "}])
s += gem([{"text": "and Reykjavík."}], usage={"promptTokenCount": 41, "candidatesTokenCount": 9, "totalTokenCount": 50})
s += gem([{"functionCall": {"name": "get_weather", "args": {"city": "São Paulo"}}},
          {"functionCall": {"name": "get_weather", "args": {"city": "Reykjavík", "days": 3}}}],
         finish="STOP", usage={"promptTokenCount": 41, "candidatesTokenCount": 30, "totalTokenCount": 95,
                               "thoughtsTokenCount": 24})
write("gemini-tools.sse", s, crlf=True)

# --- Gemini: an error mid-stream.
s = gem([{"text": "Starting"}])
s += "data: " + dumps({"error": {"code": 503, "message": "The model is overloaded. Please try again later.",
                                 "status": "UNAVAILABLE"}}) + "\n\n"
write("gemini-error.sse", s, crlf=True)

# --- Plain text: an action written by a model with no SSE framing.
write("plain-action.txt", "<think>The user wants a haiku.</think>\n" + json.dumps({
    "next_node": "final_response",
    "args": {"answer": "Bytes stream like rain —\nrouted in one quiet pass,\nno tags left behind."}},
    ensure_ascii=False) + "\n")
