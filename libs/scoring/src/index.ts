export * from './records.ts';
export * from './observer.ts';
export * from './probes.ts';
export * from './stats.ts';
export * from './verdict.ts';
export * from './warnings.ts';
export * from './result.ts';
export * from './score.ts';
export { TIGHT_LOOP_WINDOW_MS } from './tight-loop.ts';
