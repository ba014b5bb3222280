export * from './requirements.ts';
export * from './cli.ts';
