export * from './catalog.ts';
export * from './probes.ts';
export * from './plan.ts';
export * from './match.ts';
export * from './seal.ts';
export * from './placement.ts';
