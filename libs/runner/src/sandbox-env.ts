// The environment a repetition's sandbox gets, by name: the proxy URL for the model APIs and for
// HTTP(S) egress, the plan and events paths, the carried-in policy paths, and the user's provider
// keys when their shell sets them. Values are handed to runInSandbox in memory, never written or
// printed, and the canary is in none of them.
import { ENV } from '@intutic/faults';
import { SANDBOX_CHAOS_DIR } from './paths.ts';

/** The provider keys passed through by name when set (the spec's "Safety rules"). */
export const PROVIDER_KEY_NAMES = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'] as const;

export interface SandboxEnvInput {
  proxyUrl: string;
  proxyHost: string;
  faulted: boolean;
  /** INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES as applyCarryIn set them. */
  policyEnv: Record<string, string>;
  /** Names captured at enqueue; values come from the worker's environment. */
  passNames: readonly string[];
  workerEnv: NodeJS.ProcessEnv;
  canary: string;
}

export function buildSandboxEnv(input: SandboxEnvInput): { names: string[]; values: Record<string, string>; missing: string[] } {
  const values: Record<string, string> = {
    ANTHROPIC_BASE_URL: input.proxyUrl,
    OPENAI_BASE_URL: `${input.proxyUrl}/v1`,
    HTTP_PROXY: input.proxyUrl,
    HTTPS_PROXY: input.proxyUrl,
    // curl and wget read only the lowercase spellings.
    http_proxy: input.proxyUrl,
    https_proxy: input.proxyUrl,
    NO_PROXY: input.proxyHost,
    no_proxy: input.proxyHost,
    [ENV.events]: `${SANDBOX_CHAOS_DIR}/events.jsonl`,
    ...input.policyEnv,
  };
  if (input.faulted) values[ENV.plan] = `${SANDBOX_CHAOS_DIR}/plan.json`;
  const missing: string[] = [];
  for (const name of input.passNames) {
    const value = input.workerEnv[name];
    if (value === undefined || value === '') missing.push(name);
    else values[name] = value;
  }
  for (const [name, value] of Object.entries(values)) {
    // The canary reaching the agent any other way than an injected error would make failure_surfaced meaningless.
    if (value.includes(input.canary)) throw new Error(`refusing to pass ${name}: its value contains the repetition's canary`);
  }
  return { names: Object.keys(values), values, missing };
}
