// @intutic/sandbox: the container sandbox every agent run goes through. Engine detection and health
// check, the sandbox images, and running a command isolated (egress only to a named proxy, no
// capabilities, unprivileged user, env passed by name over stdin, governance read-only to it).
export { answeringEngines, checkEngine, engineCandidates, PROBE_PID_LABEL, type Engine } from './engine.ts';
export { hostGatewayAddress } from './gateway.ts';
export {
  ensureSandboxImage,
  sandboxImageTag,
  sandboxVariantOf,
  imageSettingsFromEnv,
  DEFAULT_BASE_IMAGE,
  IMAGE_REPOSITORY,
  CONTEXT_HASH_LABEL,
  type EnsureSandboxImageOptions,
} from './image.ts';
export type { ImageVariant } from './build-context.ts';
export {
  createBuildProgress,
  withBuildProgress,
  verboseBuildOutput,
  parseStepLine,
  describeInstruction,
  BUILD_OUTPUT_HINT,
  type BuildProgress,
  type BuildProgressOptions,
  type BuildStep,
  type ProgressSink,
} from './build-progress.ts';
export { holdSandbox, runInSandbox, type HeldSandbox, type SandboxRunOptions, type SandboxRunResult } from './run.ts';
export { listSandboxContainers, removeSandboxContainers, type SandboxContainer } from './cleanup.ts';
export { SANDBOX_LABEL, RUN_CA_PATH, ENTRYPOINT_PATH, sandboxContainerSpec } from './container-spec.ts';
export { GOVERNANCE_MOUNT, protectedMountPoints, type WorkspaceProtection } from './workspace-protection.ts';
export { ENTRYPOINT_EXIT } from './entrypoint-codes.ts';
export { exitedBySignal } from './engine-errors.ts';
export { encodeEnvBlock } from './env-block.ts';
export {
  ensureAgentImage,
  ensureCodexAgentImage,
  ensureGeminiAgentImage,
  agentImageTag,
  agentPins,
  cliVersion,
  hostNpmRegistry,
  AGENT_IMAGE_REPOSITORY,
  AGENT_INPUTS_LABEL,
  type AgentPins,
  type EnsureAgentImageOptions,
} from './agent-image.ts';
export { pruneBuildLogs } from './build-logs.ts';
