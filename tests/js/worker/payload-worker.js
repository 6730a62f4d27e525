// A module worker running the payload API inside workerd (tests/js/payload.test.mjs bundles it
// like worker.js): POST { schema, observation, args } returns the redacted observation, the
// collected artifacts and sources, an artifact_chunk event and the built payload, so the test
// can compare them with what Node computes.
import {
  ArtifactCollector,
  ArtifactStream,
  StreamrouteError,
  buildFinalPayload,
  collectSources,
  redactArtifacts,
  redactArtifactsJson,
  validateFinalPayload,
} from 'streamroute/payload';

export default {
  async fetch(request) {
    const { schema, observation, args } = await request.json();
    const collector = new ArtifactCollector();
    collector.collect('analyze_sales', schema, observation);
    const sources = collectSources([{ node: 'analyze_sales', schema, observation }]);
    const built = buildFinalPayload(args, { artifacts: collector.all(), sources });
    let error = null;
    try {
      validateFinalPayload({ confidence: 2 });
    } catch (e) {
      error = { code: e.code, isStreamrouteError: e instanceof StreamrouteError, problems: e.problems };
    }
    return Response.json({
      redacted: redactArtifacts(observation, schema),
      redactedJson: redactArtifactsJson(JSON.stringify(observation), schema),
      artifacts: collector.all(),
      sources,
      chunk: new ArtifactStream().emit('sales_chart', observation.chart_options, true),
      built,
      error,
    });
  },
};
