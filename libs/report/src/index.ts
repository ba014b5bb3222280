export * from './schema.ts';
export * from './io.ts';
export * from './build.ts';
export * from './summary.ts';
export * from './render/index.ts';
export * from './terminal-safe.ts';
export * from './suite/index.ts';
