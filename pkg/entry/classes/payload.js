// ArtifactCollector and ArtifactStream of the payload entry: JS classes over their wasm
// handles (src/wasm/payload.rs), which hold all their behaviour.
import { ArtifactCollectorHandle, ArtifactStreamHandle } from '../streamroute.js';
import { forward, Handled } from '../handled.js';

export class ArtifactCollector extends Handled {
  constructor(options) {
    super(new ArtifactCollectorHandle(options));
  }
}
forward(
  ArtifactCollector,
  ['all', 'clear', 'collect', 'collectAndRedact', 'collectAndRedactJson', 'collectJson'],
  ['maxInlineBytes', 'warnings'],
);

export class ArtifactStream extends Handled {
  constructor() {
    super(new ArtifactStreamHandle());
  }
}
forward(ArtifactStream, ['emit', 'finish', 'openStreams', 'reset']);
