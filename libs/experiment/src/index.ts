export * from './model.ts';
export * from './plan.ts';
