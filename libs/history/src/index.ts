export * from './entry.ts';
export * from './store.ts';
export * from './compare.ts';
export * from './render.ts';
export * from './suite.ts';
export * from './suite-render.ts';
