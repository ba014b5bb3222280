// How the CLI fills `${NAME}` placeholders in an experiment for the commands that load one outside
// `chaos validate`'s own loop (`chaos run`, `chaos score`): from the environment, and the registry's
// domain from `npm config get registry` only when a file asks and the environment does not set it.
import { execFileSync } from 'node:child_process';
import { environmentResolver, type ResolveVariable } from '@intutic/experiment';
import type { CliContext } from '../context.ts';

/**
 * `${NPM_REGISTRY_DOMAIN}` and the like, from the environment; the registry's domain from
 * `npm config get registry` when the environment does not set it (npm runs only if a file asks).
 */
export function cliPlaceholderResolver(ctx: Pick<CliContext, 'env' | 'cwd'>): ResolveVariable {
  return environmentResolver(ctx.env, () => {
    try {
      return execFileSync('npm', ['config', 'get', 'registry'], {
        cwd: ctx.cwd,
        env: ctx.env,
        encoding: 'utf8',
        timeout: 20_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      return undefined;
    }
  });
}
