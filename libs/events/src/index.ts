export * from './limits.ts';
export * from './schema.ts';
export * from './writer.ts';
export * from './reader.ts';
