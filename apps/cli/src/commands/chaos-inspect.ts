// `intutic chaos inspect <run>`: everything Redis and this machine know about a run's jobs — state,
// timings, why a job failed (a worker that died mid-repetition included), its logs, its artifacts and
// whatever of it is still on this machine (containers, worktree, proxy, job directory), each with the
// command that removes it. Reads only.
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT } from '@intutic/errors';
import { ranFor, type RunView, type SuitePayload } from '@intutic/queue';
import { artifactPaths, isJobProcess, JOB_LABEL, jobPaths, proxyMark, readJobState } from '@intutic/runner';
import { answeringEngines, listSandboxContainers, type SandboxContainer } from '@intutic/sandbox';
import { artifactsDirFor } from '@intutic/report';
import { intuticHome } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import { suiteStatusFromRedis } from './chaos-status-suite.ts';
import { isRepetition, jobLabel, jobOutcome, jobState, redisRunReader, withoutFileContents, type RunReader } from '../shared/run-views.ts';

export interface InspectOptions {
  /** A run id or an unambiguous prefix of one. */
  run: string;
  json: boolean;
}

/** What this machine holds of a run: files that exist, and what a job left behind. */
export interface MachineView {
  exists: (path: string) => boolean;
  /** What is left of a job here (containers, directory, worktree, proxy process), one description each with its removal command. */
  leftovers: (jobId: string, project: string) => Promise<string[]>;
}

export interface InspectDeps {
  stdout: Writable;
  runs: RunReader;
  machine: MachineView;
  /** The suite an argument names instead of a run, or null; without it the argument is a run. */
  findSuite?: (arg: string) => Promise<SuitePayload | null>;
}

/** A path as one shell word, quoted only when it needs to be. */
const word = (text: string) => (/^[\w./@:+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

/** The job's containers (null: no engine answered), found by the label every one of them carries. */
export type JobContainers = (jobId: string) => Promise<SandboxContainer[] | null>;

/** Containers on every engine that answers (Docker and a Podman beside it); the engines are asked once per inspection. */
export function containersOnEngine(env: NodeJS.ProcessEnv): JobContainers {
  let engines: ReturnType<typeof answeringEngines> | undefined;
  return async (jobId) => {
    engines ??= answeringEngines({ env });
    const found = await engines;
    if (found.length === 0) return null;
    const lists = await Promise.all(found.map((engine) => listSandboxContainers(engine, { [JOB_LABEL]: jobId }).catch(() => [])));
    return lists.flat();
  };
}

/** The job's containers, directory, worktree and proxy under the intutic home, when they are still there. */
export function jobLeftoversUnder(home: string, containers: JobContainers): MachineView['leftovers'] {
  return async (jobId, project) => {
    const out: string[] = [];
    const listed = await containers(jobId);
    if (listed === null) out.push('containers: unknown (no container engine answered)');
    for (const c of listed ?? []) out.push(`container ${c.name} (${c.state}, ${c.status}); remove: docker rm -f ${word(c.name)}`);
    const paths = jobPaths(home, jobId);
    const state = await readJobState(paths.state);
    if (!state) return existsSync(paths.dir) ? [...out, `job directory ${paths.dir}; remove: rm -rf ${word(paths.dir)}`] : out;
    if (state.proxy && (await isJobProcess(state.proxy.pid, proxyMark(state)))) out.push(`proxy process ${state.proxy.pid}; stop: kill ${state.proxy.pid}`);
    if (existsSync(state.worktree)) {
      const repo = word(state.repo_source ?? project);
      out.push(`worktree ${state.worktree}; remove: git -C ${repo} worktree remove --force ${word(state.worktree)}`);
    }
    out.push(`job directory ${paths.dir}${state.done ? ' (kept with --keep)' : ''}; remove: rm -rf ${word(paths.dir)}`);
    return out;
  };
}

export async function printInspection(out: Writable, run: RunView, machine: MachineView): Promise<void> {
  const p = run.payload;
  out.write(`run ${run.run_id}: ${p.experiment.name} (${p.experiment_file}), ${run.state}\n`);
  out.write(`  created ${p.created_at}, commit ${p.commit}, repository ${p.repo.path}${p.repo.remote ? ` (${p.repo.remote})` : ''}\n`);
  out.write(`  image ${p.sandbox_image}; report ${p.report_path}${machine.exists(p.report_path) ? '' : ' (not written yet)'}\n`);
  out.write(`  artifacts ${artifactsDirFor(p.report_path)}\n`);
  if (run.cancel_reason) out.write(`  cancel requested: ${run.cancel_reason}\n`);
  if (run.result) out.write(`  verdict ${run.result.verdict}${run.result.score === null ? '' : `, score ${run.result.score}`}\n`);
  for (const job of run.jobs) {
    out.write(`\n${jobLabel(job)} — ${jobState(job)}\n`);
    out.write(`  created ${time(job.created_at)}, started ${time(job.started_at)}, finished ${time(job.finished_at)}\n`);
    const ran = ranFor(job);
    if (job.stalled && ran !== null) out.write(`  ran ${(ran / 1000).toFixed(1)} s (last sign of life ${time(job.alive_at)}), then its worker died\n`);
    else if (job.orphaned && job.started_at !== null && job.alive_at !== null)
      out.write(`  ran ${((job.alive_at - job.started_at) / 1000).toFixed(1)} s until its worker's last sign of life at ${time(job.alive_at)}\n`);
    if (job.orphaned) out.write('  its worker died (no lock): the next worker to start fails it as stalled and removes what it left; it is never re-run\n');
    const outcome = jobOutcome(job);
    if (outcome) out.write(`  ${job.state === 'failed' ? 'failed: ' : ''}${outcome}\n`);
    if (job.progress) out.write(`  run id ${job.progress.run_id}, reached phase: ${job.progress.phase}\n`);
    // A pending repetition has nothing yet, here or anywhere.
    if (isRepetition(job) && job.state !== 'pending') {
      const artifacts = job.result?.outcome?.artifacts ?? artifactPaths(p.report_path, job.kind, job.index);
      for (const [name, path] of Object.entries(artifacts)) if (name !== 'dir') out.write(`  ${name}: ${path}${machine.exists(path) ? '' : ' (absent)'}\n`);
      for (const thing of await machine.leftovers(job.id, p.repo.path)) out.write(`  still on this machine: ${thing}\n`);
    }
    if (job.logs.length > 0) {
      out.write('  log:\n');
      for (const line of job.logs) out.write(`    ${line}\n`);
    }
  }
}

/** A suite: where its report goes, then every cell inspected as a run is. */
async function inspectSuite(suite: SuitePayload, options: InspectOptions, deps: InspectDeps): Promise<number> {
  const cells = [];
  for (const cell of suite.cells) cells.push({ ...cell, run: await deps.runs.run(cell.run_id, { logs: true }) });
  if (options.json) {
    deps.stdout.write(JSON.stringify({ suite, cells: cells.map((c) => ({ ...c, run: withoutFileContents(c.run) })) }, null, 2) + '\n');
    return EXIT.ok;
  }
  const written = deps.machine.exists(suite.report_path) ? '' : ' (not written yet: the suite job writes it once every cell has ended)';
  deps.stdout.write(`suite ${suite.suite_id}: ${suite.name} (${suite.file}), ${suite.cells.length} cells, created ${suite.created_at}\n`);
  deps.stdout.write(`  report ${suite.report_path}${written}\n`);
  if (suite.cost_ceiling_usd !== null) deps.stdout.write(`  cost ceiling ${suite.cost_ceiling_usd} USD\n`);
  for (const cell of cells) {
    deps.stdout.write(`\n== ${cell.experiment} × ${cell.profile}\n`);
    await printInspection(deps.stdout, cell.run, deps.machine);
  }
  return EXIT.ok;
}

export async function runInspect(options: InspectOptions, deps: InspectDeps): Promise<number> {
  const suite = (await deps.findSuite?.(options.run)) ?? null;
  if (suite) return inspectSuite(suite, options, deps);
  const run = await deps.runs.run(options.run, { logs: true });
  if (options.json) deps.stdout.write(JSON.stringify(withoutFileContents(run), null, 2) + '\n');
  else await printInspection(deps.stdout, run, deps.machine);
  return EXIT.ok;
}

export function registerChaosInspectCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('inspect')
    .description("show a run's jobs (or every cell's of a suite): state, timings, failure reasons, logs, artifacts and leftovers")
    .argument('<run>', 'a run id (or an unambiguous prefix of one), or a suite id')
    .option('--json', 'print as JSON', false)
    .action(async (runArg: string, raw: { json: boolean }) => {
      const { ctx } = reg;
      const code = await runInspect(
        { run: runArg, json: raw.json },
        {
          stdout: ctx.stdout,
          runs: redisRunReader(ctx.env),
          machine: { exists: existsSync, leftovers: jobLeftoversUnder(intuticHome(ctx.env), containersOnEngine(ctx.env)) },
          findSuite: (arg) => suiteStatusFromRedis(ctx).find(arg),
        },
      );
      reg.setExit(code);
    });
}
