// A small project to run an example experiment in, made the way a user's would be: a git repository
// with the files the task needs committed, `intutic policy init` (the gates' snapshot, so the
// destructive-command tier applies) and `intutic connect` run in it. The generated gates and hook
// settings stay uncommitted and ignored, as they would in a real project; chaos run carries them in.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { hostNpmRegistry as npmRegistryOf } from '@intutic/sandbox';
import { HOOK_SETTINGS_FILES } from '@intutic/workspace';
import { runIntutic } from './intutic.ts';

export interface ExampleProject {
  /** The project root: run `intutic chaos run` here. */
  dir: string;
  /** The environment of every intutic command in the project; HOME (or INTUTIC_SNAPSHOT_RULES and
   * INTUTIC_APPROVED_BYPASSES) say where its policy is. */
  env: NodeJS.ProcessEnv;
}

/** Hook settings `intutic connect` writes for this machine; a project keeps them out of git. */
const IGNORED = HOOK_SETTINGS_FILES;

function git(dir: string, args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Create the project in `dir`, commit `files`, then write the policy and connect the gates, all with `env`. */
export async function createExampleProject(dir: string, files: Record<string, string>, env: NodeJS.ProcessEnv): Promise<ExampleProject> {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q']);
  git(dir, ['config', 'user.email', 'demo@intutic.invalid']);
  git(dir, ['config', 'user.name', 'intutic demo']);
  git(dir, ['config', 'commit.gpgsign', 'false']);
  for (const [path, text] of Object.entries({ '.gitignore': `${IGNORED.join('\n')}\nnode_modules/\n`, ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'the project the example experiment runs in']);

  for (const args of [['policy', 'init'], ['connect']]) {
    const run = await runIntutic(args, { cwd: dir, env, timeoutMs: 60_000 });
    // The demo made this project itself; the command's own output says what went wrong.
    if (run.code !== 0)
      throw new Error(
        `intutic ${args.join(' ')} failed (exit ${run.code}) in the demo's own fresh project; this is a bug in intutic or the demo unless the output below names a problem of this machine:\n${run.stdout}${run.stderr}`,
      );
  }
  const dirty = git(dir, ['status', '--porcelain']).trim();
  // The .gitignore above lists every file connect writes: anything else is a bug.
  if (dirty)
    throw new Error(
      `the example project is not clean after intutic connect (this is a bug in intutic or the demo: the demo's .gitignore misses a file connect writes):\n${dirty}`,
    );
  return { dir, env };
}

/** The registry npm on this machine is configured with (mirrors and corporate registries included). */
export function hostNpmRegistry(env: NodeJS.ProcessEnv = process.env): string {
  const url = npmRegistryOf(env);
  if (!url)
    throw new IntuticError('E_CONFIG_INVALID', 'cannot read the npm registry (`npm config get registry`)', {
      hints: ['Install npm, or set a registry: `npm config set registry https://registry.npmjs.org/`.'],
    });
  return url;
}
