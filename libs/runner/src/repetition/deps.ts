// What runRepetition is given: where things go on the worker (home, the gateway address the proxy
// listens on, the queue it serves) and every effect it has on the world (effects.ts).
import type { RepetitionEffects } from '../effects.ts';

/** verify gets a fixed budget (it is the project's own check, not the agent); a worker may set another. */
export const VERIFY_TIMEOUT_MS = 15 * 60_000;
export const VERIFY_TIMEOUT_ENV = 'INTUTIC_CHAOS_VERIFY_TIMEOUT_S';

export function verifyTimeoutMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env[VERIFY_TIMEOUT_ENV]);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : VERIFY_TIMEOUT_MS;
}

export interface RunnerDeps extends RepetitionEffects {
  /** The address containers reach the host at; the proxy listens there. */
  gateway: string;
  /** ~/.intutic (or INTUTIC_HOME) on the worker's machine. */
  home: string;
  /** The worker's environment: provider key values are read from it by name. */
  env: NodeJS.ProcessEnv;
  queue: { redis: string; prefix: string };
}
