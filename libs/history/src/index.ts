export * from './entry.ts';
export * from './store.ts';
export * from './compare.ts';
export * from './render.ts';
