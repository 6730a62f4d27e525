// structuredRequest bodies against the providers' own SDK request types: every provider ×
// mode × stream body (with a schema that has optional fields, $defs and a nested object) is
// written into a TypeScript file as an object literal typed by the official SDK
// (`openai`, `@anthropic-ai/sdk`, `@google/genai`) and checked by tsc in strict mode, where
// an excess property is an error. Gemini's REST body is checked member by member against the
// SDK's `Content`, `Tool`, `ToolConfig` and `GenerationConfig`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { structuredModes, structuredRequest } from 'streamroute';

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
const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Quiz me on Rust.' }];

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
  const dir = join(here, '.tmp', 'sdk-types');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bodies.ts'), lines.join('\n') + '\n');
  const tsc = join(here, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022',
    '--module', 'esnext', '--moduleResolution', 'bundler', join(dir, 'bodies.ts')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  // The check can fail: a body with a property the SDK does not know is rejected.
  writeFileSync(join(dir, 'bad.ts'), `${lines.slice(0, 5).join('\n')}\nexport const bad: ${TYPES['openai-chat'](true)} = { model: 'm', messages: [], stream: true, bogus: 1 };\n`);
  const bad = spawnSync(process.execPath, [tsc, '--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022',
    '--module', 'esnext', '--moduleResolution', 'bundler', join(dir, 'bad.ts')], { encoding: 'utf8' });
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
