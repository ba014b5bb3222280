export * from './model.ts';
export * from './plan.ts';
export * from './diagnostics.ts';
export * from './validate.ts';
export { environmentResolver, registryDomainFromUrl, REGISTRY_DOMAIN_VARIABLE, type ResolveVariable } from './placeholders.ts';
export { experimentFileSchema, type ExperimentFile } from './file-schema.ts';
export { experimentJsonSchema, EXPERIMENT_SCHEMA_ID } from './json-schema.ts';
export { findExamplesDir, listExampleFiles } from './examples-dir.ts';
