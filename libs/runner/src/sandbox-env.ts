// The environment a repetition's sandbox gets, by name: the proxy URL for the model APIs (Anthropic,
// OpenAI, Gemini) and for HTTP(S) egress, the plan and events paths, the carried-in policy paths, and
// a stand-in for each provider key the user's shell sets. Provider keys stay on the host: the sandbox
// holds a fresh stand-in under the key's name, and only the repetition's proxy knows the real key and
// swaps it in.
// Values are handed to runInSandbox in memory, never written or printed, and the canary is in none.
import { randomBytes } from 'node:crypto';
import { PROVIDER_KEY_ENV } from '@intutic/events';
import { ENV } from '@intutic/faults';
import { SANDBOX_CHAOS_DIR, SANDBOX_PLAN_PATH } from './paths.ts';

/** The provider keys a repetition stands in for when set (the spec's "Safety rules"): the proxy's names. */
export const PROVIDER_KEY_NAMES = [PROVIDER_KEY_ENV.anthropic, PROVIDER_KEY_ENV.openai, PROVIDER_KEY_ENV.gemini] as const;
export type ProviderKeyName = (typeof PROVIDER_KEY_NAMES)[number];

/** Shaped like each provider's keys, so client libraries that look at a key's form take the stand-in. */
const STAND_IN_PREFIX: Readonly<Record<ProviderKeyName, string>> = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-intutic-',
  OPENAI_API_KEY: 'sk-intutic-',
  // Google API keys start AIza; the Gemini API takes the key in x-goog-api-key or ?key=, both URL-safe here.
  GEMINI_API_KEY: 'AIzaSy-intutic-',
};

const isProviderKey = (name: string): name is ProviderKeyName => (PROVIDER_KEY_NAMES as readonly string[]).includes(name);

/**
 * A fresh stand-in for each provider key among `passNames` that the worker's environment sets, by key
 * name. The repetition's proxy gets them (startProxy's standIns) and so does the sandbox.
 */
export function makeStandIns(passNames: readonly string[], workerEnv: NodeJS.ProcessEnv, random: (n: number) => Buffer = randomBytes): Record<string, string> {
  const standIns: Record<string, string> = {};
  for (const name of passNames) {
    if (isProviderKey(name) && workerEnv[name]?.trim()) standIns[name] = `${STAND_IN_PREFIX[name]}${random(24).toString('hex')}`;
  }
  return standIns;
}

export interface SandboxEnvInput {
  proxyUrl: string;
  proxyHost: string;
  faulted: boolean;
  /** INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES as applyCarryIn set them. */
  policyEnv: Record<string, string>;
  /** Names captured at enqueue; values come from the worker's environment (provider keys: their stand-ins). */
  passNames: readonly string[];
  workerEnv: NodeJS.ProcessEnv;
  /** makeStandIns' result: what the sandbox gets under each provider key's name. */
  standIns: Readonly<Record<string, string>>;
  canary: string;
}

export function buildSandboxEnv(input: SandboxEnvInput): { names: string[]; values: Record<string, string>; missing: string[] } {
  const values: Record<string, string> = {
    ANTHROPIC_BASE_URL: input.proxyUrl,
    OPENAI_BASE_URL: `${input.proxyUrl}/v1`,
    // Gemini CLI (@google/genai) adds the API version itself: the base is the proxy's origin.
    GOOGLE_GEMINI_BASE_URL: input.proxyUrl,
    // Gemini CLI skips a project's hooks (the gates) in a folder it does not trust, and lets the tool
    // run: the worktree is trusted whatever the agent image's settings say.
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // The image trusts /work for git in its system config, which Gemini CLI's shell turns off
    // (GIT_CONFIG_SYSTEM=/dev/null); it keeps GIT_CONFIG_COUNT/KEY_n/VALUE_n and appends its own.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
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
  if (input.faulted) values[ENV.plan] = SANDBOX_PLAN_PATH;
  const missing: string[] = [];
  for (const name of input.passNames) {
    const value = isProviderKey(name) ? input.standIns[name] : input.workerEnv[name];
    if (value === undefined || value === '') missing.push(name);
    else values[name] = value;
  }
  for (const [name, value] of Object.entries(values)) {
    // The canary reaching the agent any other way than an injected error would make failure_surfaced meaningless.
    if (value.includes(input.canary)) throw new Error(`refusing to pass ${name}: its value contains the repetition's canary`);
  }
  return { names: Object.keys(values), values, missing };
}
