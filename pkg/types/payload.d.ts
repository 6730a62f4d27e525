// Public types of 'streamroute/payload': final payloads, artifacts and sources.
export * from '../dist/payload/streamroute.js';
export * from './common.js';

// `buildFinalPayload` also takes a whole planner action, a type of the JSON build.
import type { PlannerAction as JsonPlannerAction } from '../dist/json/streamroute.js';

declare module '../dist/payload/streamroute.js' {
  export type PlannerAction = JsonPlannerAction;
}
