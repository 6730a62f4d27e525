// StreamRouter: turns a raw provider stream into routed events, in one pass. The wasm half is
// `StreamRouterHandle` (src/wasm/router.rs).
import { StreamRouterHandle } from '../streamroute.js';
import { headerText, Machine, READ, u32, views } from '../boundary.js';
import { forward } from '../handled.js';
import * as op from '../abi.js';

export class StreamRouter extends Machine {
  constructor(options) {
    super(new StreamRouterHandle(options));
  }

  /**
   * The provider format in force: the configured one, or what `"auto"` detected (`"auto"`
   * until an event showed it).
   */

  /** A TransformStream<Uint8Array | string, RoutedEvent> over this router. */
  transform() {
    const router = this;
    return new TransformStream({
      transform(chunk, controller) {
        for (const e of router.feed(chunk)) controller.enqueue(e);
      },
      flush(controller) {
        for (const e of router.finish()) controller.enqueue(e);
      },
    });
  }

  // Per event a ROUTE_ opcode and its words (abi.rs); strings follow one another in the text.
  [READ](input, count) {
    const h = input.header;
    const text = headerText(h);
    views();
    const out = new Array(count);
    let p = 0;
    const take = (len) => text.slice(p, (p += len));
    let i = u32[h + op.OPS] >>> 2;
    // Fields beyond the op words: a JSON object of those present (0: none).
    const more = (e) => {
      const n = u32[i++];
      return n === 0 ? e : Object.assign(e, JSON.parse(take(n)));
    };
    for (let k = 0; k < count; k++) {
      switch (u32[i++]) {
        case op.ROUTE_ANSWER:
          out[k] = { type: 'answer_delta', text: take(u32[i++]) };
          break;
        case op.ROUTE_REASONING:
          out[k] = { type: 'thinking_delta', text: take(u32[i++]), source: 'reasoning' };
          break;
        case op.ROUTE_THOUGHT:
          out[k] = { type: 'thinking_delta', text: take(u32[i++]), source: 'thought' };
          break;
        case op.ROUTE_ARTIFACT:
          out[k] = { type: 'artifact_delta', text: take(u32[i++]) };
          break;
        case op.ROUTE_USER:
          out[k] = { type: 'user_delta', text: take(u32[i++]) };
          break;
        case op.ROUTE_TOOL_START: {
          const index = u32[i++];
          const id = take(u32[i++]);
          const name = take(u32[i++]);
          out[k] = more({ type: 'tool_call_start', index, id, name, provider_executed: u32[i++] === 1 });
          break;
        }
        case op.ROUTE_TOOL_DELTA: {
          const index = u32[i++];
          out[k] = { type: 'tool_call_delta', index, arguments: take(u32[i++]) };
          break;
        }
        case op.ROUTE_TOOL_CALL: {
          const index = u32[i++];
          const id = take(u32[i++]);
          const name = take(u32[i++]);
          const args = JSON.parse(take(u32[i++]));
          const repaired = u32[i++] === 1;
          out[k] = more({ type: 'tool_call', index, id, name, arguments: args, repaired, provider_executed: u32[i++] === 1 });
          break;
        }
        case op.ROUTE_ACTION:
          out[k] = { type: 'action', action: JSON.parse(take(u32[i++])) };
          break;
        case op.ROUTE_USAGE:
          out[k] = { type: 'usage', ...JSON.parse(take(u32[i++])) };
          break;
        case op.ROUTE_DONE: {
          const ok = u32[i++] === 1;
          const parseOk = u32[i++] === 1;
          const has = u32[i++] === 1;
          const reason = take(u32[i++]);
          // `violations` (`content: "tagged"`), `stop_details`, `finish_message` when present.
          out[k] = more({ type: 'done', ok, parse_ok: parseOk, finish_reason: has ? reason : null, finish: take(u32[i++]) });
          break;
        }
        case op.ROUTE_ERROR: {
          const code = take(u32[i++]);
          const message = take(u32[i++]);
          const has = u32[i++] === 1;
          const providerCode = take(u32[i++]);
          out[k] = { type: 'error', code, message, provider_code: has ? providerCode : null };
          break;
        }
        case op.ROUTE_TOOL_RESULT: {
          const index = u32[i++];
          const id = take(u32[i++]);
          const name = take(u32[i++]);
          out[k] = { type: 'tool_result', index, id, name, result: JSON.parse(take(u32[i++])), provider_executed: true };
          break;
        }
        case op.ROUTE_ANSWER_PHASE: {
          const phase = take(u32[i++]);
          out[k] = { type: 'answer_delta', text: take(u32[i++]), phase };
          break;
        }
        case op.ROUTE_OBJECT:
          out[k] = JSON.parse(take(u32[i++]));
          break;
        case op.ROUTE_SOURCE:
          out[k] = { type: 'source', ...JSON.parse(take(u32[i++])) };
          break;
        default:
          out[k] = { type: 'refusal_delta', text: take(u32[i++]) };
      }
    }
    return out;
  }
}
forward(StreamRouter, [], ['provider']);
