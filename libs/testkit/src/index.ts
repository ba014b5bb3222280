export * from './requirements.ts';
export * from './cli.ts';
export * from './model/index.ts';
export * from './sandbox.ts';
export * from './files.ts';
export * from './scratch.ts';
