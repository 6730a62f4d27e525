// The part of runtime.js (generated into each entry by scripts/build: the glue's copy of
// pkg/entry/wasm-imports.js) that the TypeScript modules of pkg/entry import. For `tsc` only.
export class StreamrouteError extends Error {
  constructor(code: string, message: string, offset?: number);
  readonly code: string;
  readonly offset?: number;
  events?: unknown[];
}
