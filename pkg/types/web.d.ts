// The web platform types the declarations name that a program without the DOM lib (a Node
// server with `@types/node` and `lib: ["ES2022"]`) does not have: the DOM's own where the
// program has them, else minimal stand-ins. Imported by name (by common.d.ts and by each
// entry's generated declarations, src/flat/abi.rs), never declared globally.

type GlobalWebAssembly = typeof globalThis extends { WebAssembly: infer W } ? W : {};

/** `WebAssembly.Module` and `WebAssembly.Memory`: the lib's where it declares them. */
export declare namespace WebAssembly {
  type Module = GlobalWebAssembly extends { Module: { prototype: infer M } } ? M : object;
  type Memory = GlobalWebAssembly extends { Memory: { prototype: infer M } } ? M : { readonly buffer: ArrayBuffer };
}

/** The DOM's `BufferSource`: bytes as an `ArrayBuffer` or a view of one. */
export type BufferSource = ArrayBufferView | ArrayBuffer;

/** The DOM's `RequestInfo`: a `Request` or a URL string. */
export type RequestInfo = Request | string;
