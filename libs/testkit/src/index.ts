export * from './requirements.ts';
