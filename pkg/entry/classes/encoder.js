// SseEncoder: events, comments and heartbeats to `text/event-stream` text. The wasm half is
// `SseEncoderHandle` (src/wasm/sse.rs).
import { SseEncoderHandle } from '../streamroute.js';
import { forward, Handled } from '../handled.js';

export class SseEncoder extends Handled {
  constructor(options) {
    super(new SseEncoderHandle(options));
  }
}
forward(SseEncoder, ['comment', 'encode', 'ping']);
