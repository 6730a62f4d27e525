// A module worker importing every entry of the packed package: tests/js/entries.test.mjs
// bundles it like wrangler (each entry through its `workerd` condition, each entry's .wasm a
// CompiledWasm module of its own) and checks what tests/js/helpers/entries.mjs reports.
import * as streamroute from 'streamroute';
import * as client from 'streamroute/client';
import * as sse from 'streamroute/sse';
import * as json from 'streamroute/json';
import * as tags from 'streamroute/tags';
import * as payload from 'streamroute/payload';
import * as planning from 'streamroute/planning';
import { entriesResult } from '../helpers/entries.mjs';

export default {
  async fetch() {
    return Response.json(await entriesResult({ streamroute, client, sse, json, tags, payload, planning }));
  },
};
