// Types of sse.js for the TypeScript modules of pkg/entry (tsc only; the public declaration
// is sse.api.d.ts).
export interface SseEvent {
  event: string;
  data: string;
  id: string;
}
export class SseDecoder {
  constructor(options?: { flushOnFinish?: boolean; maxLineBytes?: number; maxEventBytes?: number });
  feed(chunk: string | Uint8Array | ArrayBuffer): SseEvent[];
  finish(): SseEvent[];
  readonly lastEventId: string;
  readonly pendingId: string | undefined;
  readonly retry: number | undefined;
  free(): void;
}
