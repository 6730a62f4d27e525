// CapabilityMap and ToolIndex of the planning entry: JS classes over their wasm handles
// (src/wasm/plan.rs), which hold all their behaviour.
import { CapabilityMapHandle, ToolIndexHandle } from '../streamroute.js';
import { forward, Handled } from '../handled.js';

export class CapabilityMap extends Handled {
  constructor(json) {
    super(new CapabilityMapHandle(json));
  }
}
forward(CapabilityMap, ['audit', 'canonical', 'rule', 'toJSON'], ['version', 'warnings']);

export class ToolIndex extends Handled {
  constructor(catalog, options) {
    super(new ToolIndexHandle(catalog, options));
  }
}
forward(ToolIndex, ['narrow', 'retrieve', 'search', 'searchText', 'toJSON'], ['embeddings', 'model', 'size']);
