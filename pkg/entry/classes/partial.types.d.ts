// The event types of partial.js, shared by its public declaration (scripts/build appends this
// file before partial.api.d.ts) and by the TypeScript modules of pkg/entry (through partial.d.ts).

/** A path from the root of a JSON document: object keys and array indices (`[]` is the root). Frozen. */
export type JsonPath = readonly (string | number)[];

/**
 * What changed in a `PartialJson` document. A string gives `begin`, `append`*, `set` (the whole
 * string), `end`; a number or literal `set`, `end`; an object or array `begin`, its members'
 * events, `end`. Nothing reported is ever changed by later input.
 */
export type JsonEvent =
  | { type: 'begin'; path: JsonPath; kind: 'object' | 'array' | 'string' }
  | { type: 'append'; path: JsonPath; text: string }
  | { type: 'set'; path: JsonPath; value: string | number | boolean | null }
  | { type: 'end'; path: JsonPath };
