// Public types of 'streamroute/json': AnswerExtractor, LlmStreamChunker, PartialJson, JsonItemStream, parseJson, the repairs and the action normalisation.
export * from '../dist/json/streamroute.js';
export * from './common.js';
