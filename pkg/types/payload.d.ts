// Public types of 'streamroute/payload': final payloads, artifacts and sources.
export * from '../dist/payload/streamroute.js';
export * from './common.js';
