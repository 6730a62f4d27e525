// The part of handled.js the TypeScript modules of pkg/entry import. For `tsc` only.
/** Throws `not_initialized` before `init()` has instantiated the module (in a browser). */
export function requireInit(): void;
/** `o[k] = v` with a key `__proto__` as an own data property. */
export function put(o: Record<string, unknown>, k: string, v: unknown): void;
