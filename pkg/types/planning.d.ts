// Public types of 'streamroute/planning': the planning checks.
export * from '../dist/planning/streamroute.js';
export * from './common.js';
