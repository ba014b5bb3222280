export * from './model.ts';
export * from './plan.ts';
export * from './diagnostics.ts';
export * from './validate.ts';
export { readExperimentFile, readExperimentStream, type ExperimentInput, type RefusedInput } from './load.ts';
export { MAX_COST_USD, MAX_EXPERIMENT_BYTES, MAX_NESTING, MAX_PROBE_WEIGHT, MAX_WALL_CLOCK_S } from './limits.ts';
export { environmentResolver, registryDomainFromUrl, REGISTRY_DOMAIN_VARIABLE, type ResolveVariable } from './placeholders.ts';
export { experimentFileSchema, type ExperimentFile } from './file-schema.ts';
export { experimentJsonSchema, EXPERIMENT_SCHEMA_ID } from './json-schema.ts';
export { findExamplesDir, listExampleFiles } from './examples-dir.ts';
export { starterExperiment, nearestFaultId, DEFAULT_STARTER_FAULT, type StarterOptions } from './starter.ts';
export { AGENT_KINDS, agentKindOf, agentKindsIn, type AgentKind } from './agent-kind.ts';
export * from './profiles.ts';
export {
  validateSuiteFile,
  validateSuiteText,
  cellExperiment,
  suiteFileSchema,
  type Suite,
  type SuiteCellPlan,
  type SuiteExperimentEntry,
  type SuiteValidation,
} from './suite.ts';
export { profileMapping, profilesFileSchema } from './suite-profiles.ts';
export { mcpServersSchema, type McpServer, type McpServers } from './mcp-servers.ts';
