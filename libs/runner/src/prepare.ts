// Everything `chaos run` checks and captures before it enqueues anything, in the spec's order: a
// valid experiment, a git project with a clean tree (naming the dirty paths), HEAD pinned, the
// carry-in captured, the provider keys' names. Each refusal is an IntuticError ("could not run").
import { resolve } from 'node:path';
import { IntuticError } from '@intutic/errors';
import type { Experiment } from '@intutic/experiment';
import { newRunId, type RunPayload } from '@intutic/queue';
import { defaultReportPath } from '@intutic/report';
import { assertCleanTree, captureCarryIn, gitRemote, pinHead, repoRoot, userHome } from '@intutic/workspace';
import { PROVIDER_KEY_NAMES } from './sandbox-env.ts';

export interface PrepareInput {
  experiment: Experiment;
  experimentFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  sandboxImage: string;
  out?: string;
  keep: boolean;
  runId?: string;
  tmpDir?: string;
}

export interface PreparedRun {
  payload: RunPayload;
  /** Running from a subdirectory: paths are rewritten from the repository root. */
  notes: string[];
}

export async function prepareRun(input: PrepareInput): Promise<PreparedRun> {
  const root = await repoRoot(input.cwd);
  await assertCleanTree(root);
  const commit = await pinHead(root);
  const notes: string[] = [];
  if (resolve(input.cwd) !== root)
    notes.push(`running from ${input.cwd}: the project root is the repository root ${root}; its gates are carried in and its path is rewritten to /work`);
  const carryIn = await captureCarryIn({ projectRoot: root, commit, env: input.env, homeDir: userHome(input.env) });
  const runId = input.runId ?? newRunId();
  const reportPath = input.out ? resolve(input.cwd, input.out) : defaultReportPath(input.experiment.name, runId, input.tmpDir);
  if (!reportPath.endsWith('.json')) throw new IntuticError('E_USAGE', `--out must name a .json file: ${input.out}`);
  if (reportPath.startsWith(`${root}/`))
    notes.push(`the report goes inside the project (${reportPath}): unless it is ignored, the next run will find the tree dirty`);
  return {
    notes,
    payload: {
      schema_version: 1,
      run_id: runId,
      created_at: new Date().toISOString(),
      experiment: input.experiment,
      experiment_file: input.experimentFile,
      commit,
      repo: { path: root, remote: await gitRemote(root) },
      carry_in: carryIn,
      env_names: PROVIDER_KEY_NAMES.filter((name) => Boolean(input.env[name])),
      sandbox_image: input.sandboxImage,
      report_path: reportPath,
      keep: input.keep,
    },
  };
}
