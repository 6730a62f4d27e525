// Public types of 'streamroute/tags': the tag API.
export * from '../dist/tags/streamroute.js';
export * from './common.js';
