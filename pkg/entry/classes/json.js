// JsonItemStream: the items of an array (or a stream of values) as each closes. Its wasm half
// is `JsonItemStreamHandle` (src/wasm/json.rs).
import { JsonItemStreamHandle } from '../streamroute.js';
import { headerText, Machine, READ } from '../boundary.js';

export class JsonItemStream extends Machine {
  constructor(path, options) {
    super(new JsonItemStreamHandle(path, options));
  }

  // The header's text is the JSON array of the items (abi.rs).
  [READ](input) {
    return JSON.parse(headerText(input.header));
  }
}
