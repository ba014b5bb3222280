// The real proxy starter: `<command> start …` as a process of its own (proxy.ts), with one more
// kept loaded for the next repetition. Starting Node and loading the proxy takes a few hundred
// milliseconds, which a repetition would otherwise wait for beside its workspace; a loaded standby
// takes only its options (its order) and listens. Each process still serves one repetition: the
// next standby is started as soon as a repetition's proxy is up (or the worker comes online: warm),
// so it loads while that repetition's agent runs. (Started when the proxy stops instead, it was
// still loading when the next repetition needed it, back to back.) One that exited meanwhile, or
// was started with another environment, is replaced by a fresh process, whose failure to start is
// the repetition's as before.
import { activateStandby, dismissStandby, spawnStandby, type ProxyStarter, type StandbyProxy } from './proxy.ts';

/** The same variables with the same values (the worker passes one object, but need not). */
function sameEnv(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/**
 * The command is the caller's to know (the CLI runs its own bin), as are the extra arguments (a
 * scripted upstream in tests).
 */
export function proxyStarter(command: readonly string[], extraArgs: readonly string[] = []): ProxyStarter {
  let spare: StandbyProxy | null = null;
  let closed = false;
  const warm = (env: NodeJS.ProcessEnv) => {
    if (!closed && spare === null) spare = spawnStandby(command, env);
  };
  /** The spare when it is alive and has this environment; else a fresh one (the spare, if any, is stopped). */
  const take = (env: NodeJS.ProcessEnv): StandbyProxy => {
    const kept = spare;
    spare = null;
    if (kept && sameEnv(kept.env, env) && kept.process.seen.exit === null) return kept;
    if (kept) void dismissStandby(kept);
    return spawnStandby(command, env);
  };
  const start: ProxyStarter = async (options) => {
    try {
      return await activateStandby(take(options.env), { ...options, command, extraArgs });
    } finally {
      warm(options.env);
    }
  };
  start.warm = warm;
  start.close = async () => {
    closed = true;
    const kept = spare;
    spare = null;
    if (kept) await dismissStandby(kept);
  };
  return start;
}
