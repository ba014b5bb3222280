// The real effects a chaos worker's repetitions have, wired here because the CLI knows what the
// runner must not guess: how to start a repetition's proxy. It is `intutic start`, run from the
// bundle that holds that command alone (apps/cli/dist/intutic-proxy.mjs, beside the CLI's own bundle
// this module is part of, in the checkout and in the installed package alike), or by the full bin
// where that bundle is missing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IntuticError } from '@intutic/errors';
import { diskArtifacts, engineSandbox, gitWorkspace, proxyStarter, systemTime, type RepetitionEffects } from '@intutic/runner';
import type { Engine } from '@intutic/sandbox';

/**
 * The argv prefix that runs `intutic start`: INTUTIC_CLI_COMMAND (a JSON array) when set, else the
 * proxy's own bundle, else this CLI's bin.
 */
export function intuticCommand(
  env: NodeJS.ProcessEnv,
  bin: string = fileURLToPath(new URL('../bin/intutic.mjs', import.meta.url)),
  proxyBundle: string = fileURLToPath(new URL('./intutic-proxy.mjs', import.meta.url)),
): string[] {
  if (env.INTUTIC_CLI_COMMAND) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(env.INTUTIC_CLI_COMMAND);
    } catch {
      parsed = null;
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string')) {
      throw new IntuticError('E_USAGE', 'INTUTIC_CLI_COMMAND must be a JSON array of strings, e.g. ["node","/path/to/intutic.mjs"]');
    }
    return parsed;
  }
  if (existsSync(proxyBundle)) return [process.execPath, proxyBundle];
  if (existsSync(bin)) return [process.execPath, bin];
  throw new IntuticError('E_USAGE', `cannot find the intutic CLI to start the repetition proxies with (no ${bin})`, {
    hints: ['Set INTUTIC_CLI_COMMAND to a JSON array such as ["node","/path/to/apps/cli/bin/intutic.mjs"].'],
  });
}

/** INTUTIC_CHAOS_PROXY_ARGS: extra `intutic start` arguments (a JSON array), e.g. a scripted upstream. */
export function proxyExtraArgsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const raw = env.INTUTIC_CHAOS_PROXY_ARGS;
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) {
    throw new IntuticError('E_USAGE', 'INTUTIC_CHAOS_PROXY_ARGS must be a JSON array of strings, e.g. ["--upstream-anthropic","http://127.0.0.1:8080"]');
  }
  return parsed;
}

export function repetitionEffects(env: NodeJS.ProcessEnv, engine: Engine): RepetitionEffects {
  return {
    startProxy: proxyStarter(intuticCommand(env), proxyExtraArgsFromEnv(env)),
    sandbox: engineSandbox(engine),
    workspace: gitWorkspace,
    artifacts: diskArtifacts,
    clock: systemTime,
  };
}
