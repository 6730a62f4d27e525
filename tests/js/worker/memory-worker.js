// A module worker that runs tests/js/helpers/memory.mjs on the packed `streamroute` (its
// workerd entry) and returns the report: tests/js/memory.test.mjs bundles it like wrangler.
import * as streamroute from 'streamroute';
import { memoryReport } from '../helpers/memory.mjs';

export default {
  async fetch() {
    return Response.json(await memoryReport(streamroute));
  },
};
