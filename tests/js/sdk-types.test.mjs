// structuredRequest bodies against the providers' own SDK request types: every provider ×
// mode × stream body (with a schema that has optional fields, $defs and a nested object) is
// written into a TypeScript file as an object literal typed by the official SDK
// (`openai`, `@anthropic-ai/sdk`, `@google/genai`) and checked by tsc in strict mode, where
// an excess property is an error. Gemini's REST body is checked member by member against the
// SDK's `Content`, `Tool`, `ToolConfig` and `GenerationConfig`.
//
// assistantTurn's messages the same way, per provider (`ChatCompletionMessageParam`,
// `ResponseInputItem`, `MessageParam` (`BetaMessageParam` for a compaction block), `Content`,
// Bedrock's `Message`), from hand-built events and from the bundled samples; and a
// structuredRequest body whose messages are a user's, the turn and the tool result after it,
// as that provider's request params. Bedrock's SDK types bytes as `Uint8Array`, which its JSON
// wire carries as base64 text (`Wire<T>`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { StreamRouter, assistantTurn, structuredModes, structuredRequest } from 'streamroute';
import { feedAll } from './helpers/chunking.mjs';
import { NONCE, SAMPLES } from './helpers/streams.mjs';
import { TURNS } from './helpers/turns.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const schema = {
  type: 'object',
  description: 'A quiz question.',
  properties: {
    question: { type: 'string' },
    choices: { type: 'array', items: { $ref: '#/$defs/Choice' } },
    difficulty: { type: 'string', enum: ['easy', 'hard'] },
  },
  required: ['question'],
  $defs: { Choice: { type: 'object', properties: { text: { type: 'string' }, correct: { type: 'boolean' } }, required: ['text'] } },
};
const messages = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Quiz me on Rust.' },
];

const TYPES = {
  'openai-chat': (stream) => `OpenAI.Chat.Completions.ChatCompletionCreateParams${stream ? 'Streaming' : 'NonStreaming'}`,
  'openai-responses': (stream) => `OpenAI.Responses.ResponseCreateParams${stream ? 'Streaming' : 'NonStreaming'}`,
  anthropic: (stream) => `Anthropic.MessageCreateParams${stream ? 'Streaming' : 'NonStreaming'}`,
  gemini: () => 'GeminiRestBody',
};

test('every structuredRequest body type-checks against the official SDK request types', { timeout: 120_000 }, () => {
  const lines = [
    "import OpenAI from 'openai';",
    "import Anthropic from '@anthropic-ai/sdk';",
    "import type { Content, Tool, ToolConfig, FunctionCallingConfig, FunctionCallingConfigMode, GenerationConfig } from '@google/genai';",
    // The SDK types enums as TS enums; on the wire they are their string values.
    'type WireToolConfig = Omit<ToolConfig, "functionCallingConfig"> & { functionCallingConfig?: Omit<FunctionCallingConfig, "mode"> & { mode?: `${FunctionCallingConfigMode}` } };',
    'type GeminiRestBody = { contents: Content[]; systemInstruction?: Content; tools?: Tool[]; toolConfig?: WireToolConfig; generationConfig?: GenerationConfig };',
  ];
  let n = 0;
  for (const provider of Object.keys(TYPES)) {
    for (const mode of structuredModes(provider)) {
      for (const stream of [true, false]) {
        const body = structuredRequest(provider, { messages, schema, name: 'make_quiz', stream, mode, model: 'some-model' });
        if (provider === 'gemini') assert.equal(body.model, undefined, 'Gemini takes the model in the URL');
        else assert.equal(body.model, 'some-model', provider);
        lines.push(`export const b${n++}: ${TYPES[provider](stream)} = ${JSON.stringify(body)};`);
      }
    }
  }
  assert.ok(n >= 20, `${n} bodies`);
  const r = tsc('bodies', lines);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // The check can fail: a body with a property the SDK does not know is rejected.
  const bad = tsc('bad', [
    ...lines.slice(0, 5),
    `export const bad: ${TYPES['openai-chat'](true)} = { model: 'm', messages: [], stream: true, bogus: 1 };`,
  ]);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /bogus/);
});

test('OpenAI strict mode: the schema goes out in strict form, or not strict', () => {
  const chat = structuredRequest('openai-chat', { messages, schema, name: 'make_quiz' });
  const fn = chat.tools[0].function;
  assert.equal(fn.strict, true);
  const check = (s) => {
    if (s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'))) {
      assert.equal(s.additionalProperties, false);
      assert.deepEqual(s.required, Object.keys(s.properties));
    }
    for (const v of Object.values(s.properties ?? {})) check(v);
    for (const v of Object.values(s.$defs ?? {})) check(v);
    if (s.items) check(s.items);
    for (const v of s.anyOf ?? []) check(v);
  };
  check(fn.parameters);
  assert.deepEqual(fn.parameters.properties.difficulty, { type: ['string', 'null'], enum: ['easy', 'hard', null] });
  const open = { type: 'object', properties: { scores: { type: 'object', additionalProperties: { type: 'number' } } } };
  const loose = structuredRequest('openai-responses', { messages, schema: open, name: 'scores' }).tools[0];
  assert.deepEqual([loose.strict, loose.parameters], [false, open]);
});

// tsc (strict, excess properties are errors) on `lines`, written as NAME.ts.
function tsc(name, lines) {
  const dir = join(here, '.tmp', 'sdk-types');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.ts`), lines.join('\n') + '\n');
  const bin = join(here, 'node_modules', 'typescript', 'bin', 'tsc');
  return spawnSync(
    process.execPath,
    [
      bin,
      '--strict',
      '--noEmit',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      join(dir, `${name}.ts`),
    ],
    { encoding: 'utf8' },
  );
}

const TURN_HEADER = [
  "import OpenAI from 'openai';",
  "import Anthropic from '@anthropic-ai/sdk';",
  "import type { Content, Tool, ToolConfig, FunctionCallingConfig, FunctionCallingConfigMode, GenerationConfig } from '@google/genai';",
  "import type { Message, ConverseStreamRequest } from '@aws-sdk/client-bedrock-runtime';",
  'type Wire<T> = T extends Uint8Array ? string : T extends readonly (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;',
  'type WireToolConfig = Omit<ToolConfig, "functionCallingConfig"> & { functionCallingConfig?: Omit<FunctionCallingConfig, "mode"> & { mode?: `${FunctionCallingConfigMode}` } };',
  'type GeminiRestBody = { contents: Content[]; systemInstruction?: Content; tools?: Tool[]; toolConfig?: WireToolConfig; generationConfig?: GenerationConfig };',
  "type BedrockRestBody = Omit<Wire<ConverseStreamRequest>, 'modelId'>;",
];
// The SDK type of one message of a turn, and of a streamed request body; `beta`: Anthropic's beta API.
const TURN_TYPES = {
  'openai-chat': ['OpenAI.Chat.Completions.ChatCompletionMessageParam', 'OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming'],
  'openai-responses': ['OpenAI.Responses.ResponseInputItem', 'OpenAI.Responses.ResponseCreateParamsStreaming'],
  anthropic: ['Anthropic.MessageParam', 'Anthropic.MessageCreateParamsStreaming'],
  'anthropic-beta': ['Anthropic.Beta.BetaMessageParam', 'Anthropic.Beta.Messages.MessageCreateParamsStreaming'],
  gemini: ['Content', 'GeminiRestBody'],
  bedrock: ['Wire<Message>', 'BedrockRestBody'],
};

test('assistantTurn messages type-check against the SDK message types, and in a structuredRequest body', { timeout: 120_000 }, () => {
  const lines = [...TURN_HEADER];
  let n = 0;
  const add = (provider, beta, turn, result) => {
    const [message, request] = TURN_TYPES[beta ? `${provider}-beta` : provider];
    lines.push(`export const t${n}: ${message}[] = ${JSON.stringify(turn)};`);
    const user = { role: 'user', content: 'What is the weather in Paris?' };
    const messages = [user, ...turn, ...(result ? [result] : [])];
    const body = structuredRequest(provider, { messages, schema, name: 'make_quiz', model: 'some-model' });
    lines.push(`export const r${n++}: ${request} = ${JSON.stringify(body)};`);
  };
  for (const c of TURNS.filter((x) => TURN_TYPES[x.provider])) add(c.provider, c.beta, assistantTurn(c.provider, c.events), c.result);
  for (const s of SAMPLES.filter((x) => TURN_TYPES[x.provider] && x.content === 'text')) {
    const events = feedAll(new StreamRouter({ provider: 'auto', content: s.content, nonce: NONCE }), [s.bytes]);
    const turn = assistantTurn(s.provider, events);
    // A compaction block is in Anthropic's beta types only.
    const beta = s.provider === 'anthropic' && JSON.stringify(turn).includes('"type":"compaction"');
    add(s.provider, beta, turn);
  }
  assert.ok(n >= 30, `${n} turns`);
  const r = tsc('turns', lines);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // The check can fail: a turn with a member the SDK does not know is rejected.
  const bad = tsc('bad-turn', [
    ...TURN_HEADER,
    "export const bad: Anthropic.MessageParam[] = [{ role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: 's', bogus: 1 }] }];",
  ]);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /bogus/);
});
