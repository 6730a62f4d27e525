// What every runtime checks of the package's entries (tests/js/entries.test.mjs in Node ESM and
// CommonJS, Chromium and workerd; vite.test.mjs in a Vite build and the Vite dev server): the
// exact export list of each entry, `buildInfo()`, one real call per entry, and that
// `StreamrouteError` is one class, whichever entry threw and whichever entry's export it is
// tested against. `entriesResult(modules)` runs in the runtime (no Node APIs) and returns JSON;
// `EXPECTED_ENTRIES` is what it must equal.

/** Entry directory under pkg/dist -> package subpath. */
export const ENTRY_NAMES = {
  streamroute: 'streamroute',
  client: 'streamroute/client',
  sse: 'streamroute/sse',
  json: 'streamroute/json',
  tags: 'streamroute/tags',
  payload: 'streamroute/payload',
  planning: 'streamroute/planning',
};

// What every entry exports besides its own API (the loaders and the wasm-bindgen glue).
const COMMON = ['StreamrouteError', '__sr_memory', '__streamroute_start', 'buildInfo', 'init', 'initSync', 'version'];

/** The exact export names of each entry (sorted). */
export const EXPORTS = {
  streamroute: [
    ...COMMON,
    'AnswerExtractor',
    'DurableObjectSseStore',
    'JsonItemStream',
    'LlmStreamChunker',
    'MemorySseStore',
    'PartialJson',
    'SseDecoder',
    'SseEncoder',
    'SseLog',
    'SseLogDurableObject',
    'StreamMux',
    'StreamRouter',
    'StreamState',
    'TagEventWriter',
    'TagFilter',
    'TaggedTurn',
    'actionToLegacy',
    'assistantTurn',
    'checkTagged',
    'connectSse',
    'correctiveMessage',
    'fromSse',
    'makeNonce',
    'normalizeAction',
    'normalizeActionWithDiagnostics',
    'parseJson',
    'parseTagged',
    'repairJson',
    'repairJsonWithLog',
    'routeResponse',
    'sanitizeUntrusted',
    'structuredModes',
    'structuredRequest',
    'tagContract',
    'toSse',
  ].sort(),
  client: [...COMMON, 'PartialJson', 'SseDecoder', 'StreamMux', 'StreamState', 'connectSse', 'fromSse'].sort(),
  sse: [
    ...COMMON,
    'DurableObjectSseStore',
    'MemorySseStore',
    'SseDecoder',
    'SseEncoder',
    'SseLog',
    'SseLogDurableObject',
    'connectSse',
  ].sort(),
  json: [
    ...COMMON,
    'AnswerExtractor',
    'JsonItemStream',
    'LlmStreamChunker',
    'PartialJson',
    'actionToLegacy',
    'normalizeAction',
    'normalizeActionWithDiagnostics',
    'parseJson',
    'repairJson',
    'repairJsonWithLog',
  ].sort(),
  tags: [
    ...COMMON,
    'TagEventWriter',
    'TagFilter',
    'TaggedTurn',
    'checkTagged',
    'correctiveMessage',
    'makeNonce',
    'parseTagged',
    'sanitizeUntrusted',
    'tagContract',
  ].sort(),
  payload: [
    ...COMMON,
    'ArtifactCollector',
    'ArtifactStream',
    'buildFinalPayload',
    'collectSources',
    'redactArtifacts',
    'redactArtifactsJson',
    'validateFinalPayload',
  ].sort(),
  planning: [
    ...COMMON,
    'CapabilityMap',
    'ToolIndex',
    'applyRemovals',
    'autoTimeGrain',
    'checkCoverage',
    'classifyRepair',
    'defaultLabels',
    'narrowTools',
    'reextractionMessage',
    'retrievalQueries',
    'validateRequirements',
  ].sort(),
};

const FEATURES = {
  streamroute: ['sse', 'json', 'tags', 'router'],
  client: ['client'],
  sse: ['sse'],
  json: ['json'],
  tags: ['tags'],
  payload: ['payload'],
  planning: ['planning'],
};

const NONCE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

// One real call per entry: what it gives.
const CALLS = {
  streamroute: (m) => {
    const router = new m.StreamRouter({ provider: 'auto', content: 'text' });
    const events = router.feed('data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    const done = router.finish();
    router.free();
    return [...events, ...done].map((e) => e.type + (e.text ? `:${e.text}` : ''));
  },
  client: (m) => {
    // A frame split inside "é", its text folded into a snapshot.
    const d = new m.SseDecoder();
    const bytes = new TextEncoder().encode('data: {"text":"caf\u00e9"}\n\n');
    const cut = bytes.indexOf(0xc3) + 1;
    const frames = [...d.feed(bytes.subarray(0, cut)), ...d.feed(bytes.subarray(cut))];
    d.free();
    const state = new m.StreamState();
    state.apply({ type: 'answer_delta', text: JSON.parse(frames[0].data).text });
    const p = new m.PartialJson();
    p.feed('{"a":[1,');
    const partial = p.value;
    p.free();
    return [state.snapshot().answer, partial];
  },
  sse: (m) => {
    const d = new m.SseDecoder();
    const events = d.feed('event: hi\ndata: caf\u00e9\n\n');
    d.free();
    return events;
  },
  json: (m) => {
    const x = new m.AnswerExtractor();
    const text = x.feed('{"answer":"he') + x.feed('llo"}') + x.finish();
    x.free();
    return [text, m.parseJson('{"a":[1,2]}')];
  },
  tags: (m) => m.parseTagged(`[ARTIFACT:${NONCE}]{}[/ARTIFACT:${NONCE}][USER:${NONCE}]hello[/USER:${NONCE}]`, NONCE).user,
  payload: (m) => m.buildFinalPayload({ answer: 'Revenue grew.' }).payload.raw_answer,
  planning: (m) => [m.autoTimeGrain(400, 10), m.autoTimeGrain(30, 10)],
};

/** A StreamrouteError thrown by each entry (by its wasm). */
const THROWS = {
  streamroute: (m) => new m.StreamRouter({ nope: 1 }),
  client: (m) => new m.StreamMux({ key: 'nope' }),
  sse: (m) => new m.SseDecoder({ maxLineBytes: 0 }),
  json: (m) => m.parseJson('{'),
  tags: (m) => new m.TagFilter(42),
  payload: (m) => m.validateFinalPayload({ confidence: 2 }),
  planning: (m) => m.validateRequirements(42),
};

/** A class of each entry, constructed before `init()` in a browser (`beforeInitResult`). */
const CLASSES = {
  streamroute: 'StreamRouter',
  client: 'StreamState',
  sse: 'SseDecoder',
  json: 'PartialJson',
  tags: 'TagFilter',
  payload: 'ArtifactCollector',
  planning: 'CapabilityMap',
};

/**
 * In a browser, before any `init()`: what constructing a class of each entry throws (its
 * `code` and `message`): the JS classes of the client entry (`StreamState`, which holds no
 * wasm until it parses tool arguments) as well as its wasm ones.
 */
export function beforeInitResult(modules) {
  const out = {};
  const attempt = (name, f) => {
    try {
      f();
      out[name] = 'constructed';
    } catch (e) {
      out[name] = { code: e?.code, message: e?.message, isError: e instanceof modules.streamroute.StreamrouteError };
    }
  };
  for (const [dir, cls] of Object.entries(CLASSES)) attempt(dir, () => new modules[dir][cls]());
  attempt('clientDecoder', () => new modules.client.SseDecoder());
  attempt('clientMux', () => new modules.client.StreamMux({ key: 'session_id' }));
  return out;
}

const NOT_READY = { code: 'not_initialized', message: 'call `await init()` first', isError: true };
/** What `beforeInitResult` returns. */
export const EXPECTED_BEFORE_INIT = {
  streamroute: NOT_READY,
  client: NOT_READY,
  sse: NOT_READY,
  json: NOT_READY,
  tags: NOT_READY,
  payload: NOT_READY,
  planning: NOT_READY,
  clientDecoder: NOT_READY,
  clientMux: NOT_READY,
};

/**
 * Runs the checks on `modules` (entry directory -> the module namespace or `require` result),
 * after `await init()` of each. Returns what `EXPECTED_ENTRIES` holds when all is well.
 */
export async function entriesResult(modules) {
  const dirs = Object.keys(ENTRY_NAMES);
  const out = { exports: {}, info: {}, calls: {}, errors: {}, sameClass: true };
  for (const dir of dirs) {
    const m = modules[dir];
    await m.init();
    await m.init();
    out.exports[dir] = Object.keys(m)
      .filter((k) => k !== 'default' && k !== '__esModule')
      .sort();
    const info = m.buildInfo();
    out.info[dir] = { entry: info.entry, features: info.features, version: info.version === m.version() };
    out.calls[dir] = CALLS[dir](m);
    if (m.StreamrouteError !== modules.streamroute.StreamrouteError) out.sameClass = false;
  }
  const thrown = async (f) => {
    try {
      await f();
    } catch (e) {
      return e;
    }
    return null;
  };
  for (const dir of dirs) {
    const e = await thrown(() => THROWS[dir](modules[dir]));
    // Whose StreamrouteError it is an instance of: every entry's.
    out.errors[dir] = { code: e?.code, instanceOf: dirs.filter((d) => e instanceof modules[d].StreamrouteError) };
  }
  // An error thrown by the JS of an entry (connectSse of the SSE entry refuses `router`, and
  // `profile`, which needs PartialJson).
  for (const [name, dir, option] of [
    ['sseRouter', 'sse', { router: {} }],
    ['sseProfile', 'sse', { profile: 'planner' }],
    ['clientRouter', 'client', { router: {} }],
  ]) {
    const e = await thrown(() => modules[dir].connectSse('http://127.0.0.1:9/', {}, option).next());
    out.errors[name] = { code: e?.code, instanceOf: dirs.filter((d) => e instanceof modules[d].StreamrouteError) };
  }
  return out;
}

const ALL = Object.keys(ENTRY_NAMES);

/** What `entriesResult` returns for a correct package. */
export const EXPECTED_ENTRIES = {
  exports: EXPORTS,
  info: Object.fromEntries(ALL.map((d) => [d, { entry: ENTRY_NAMES[d], features: FEATURES[d], version: true }])),
  calls: {
    streamroute: ['answer_delta:hi', 'done'],
    client: ['caf\u00e9', { a: [1] }],
    sse: [{ event: 'hi', data: 'caf\u00e9', id: '' }],
    json: ['hello', { a: [1, 2] }],
    tags: 'hello',
    payload: 'Revenue grew.',
    planning: ['month', 'day'],
  },
  errors: {
    streamroute: { code: 'invalid_input', instanceOf: ALL },
    client: { code: 'invalid_option', instanceOf: ALL },
    sse: { code: 'invalid_option', instanceOf: ALL },
    json: { code: 'json_invalid', instanceOf: ALL },
    tags: { code: 'invalid_input', instanceOf: ALL },
    payload: { code: 'payload_invalid', instanceOf: ALL },
    planning: { code: 'requirements_invalid', instanceOf: ALL },
    sseRouter: { code: 'invalid_input', instanceOf: ALL },
    sseProfile: { code: 'invalid_input', instanceOf: ALL },
    clientRouter: { code: 'invalid_input', instanceOf: ALL },
  },
  sameClass: true,
};
