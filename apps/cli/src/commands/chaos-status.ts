// `intutic chaos status [run]`: the runs Redis holds with their state, or one run's jobs. Reads only.
// `--follow` follows one run until it ends, as `chaos run` does, and exits with its code; Ctrl-C
// stops following, never the run.
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { openExistingQueue, ranFor, resolveRunId, type JobView, type RunView } from '@intutic/queue';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';
import { followExistingRun } from '../follow-run.ts';
import { printSuite, suiteStatusFromRedis, type SuiteStatus } from './chaos-status-suite.ts';
import { isRepetition, jobLabel, jobOutcome, jobState, redisRunReader, table, withoutFileContents, type RunReader } from '../shared/run-views.ts';

export interface StatusOptions {
  /** A run id or an unambiguous prefix of one; none lists every run. */
  run?: string;
  json: boolean;
  follow: boolean;
}

export interface StatusDeps {
  stdout: Writable;
  runs: RunReader;
  /** Follow the run until it ends (or Ctrl-C lets go of it); resolves to the exit code to end with. */
  follow: (runArg: string) => Promise<number>;
  /** Suites, which an argument may name instead of a run. */
  suites: SuiteStatus;
}

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));
const seconds = (job: JobView) => {
  const ran = ranFor(job);
  if (ran !== null) return `${(ran / 1000).toFixed(1)} s${job.stalled ? ', then its worker died' : ''}`;
  return job.started_at ? (job.orphaned ? 'its worker died' : 'running') : '-';
};

export function runProgress(run: RunView): string {
  const reps = run.jobs.filter(isRepetition);
  const done = reps.filter((j) => j.state === 'completed' || j.state === 'failed').length;
  const active = reps.find((j) => j.state === 'active');
  if (run.result) return `${run.result.verdict}${run.result.score === null ? '' : ` ${Math.round(run.result.score * 10) / 10}`}`;
  return `${done}/${reps.length} done${active ? `, ${active.id} ${active.orphaned ? 'orphaned' : 'running'}` : ''}${run.cancel_reason ? ', cancelling' : ''}`;
}

export function printRuns(out: Writable, runs: RunView[], workers: number): void {
  out.write(`${workers} worker(s) online\n`);
  if (runs.length === 0) {
    out.write('no runs in the queue\n');
    return;
  }
  out.write(
    table([
      ['run', 'experiment', 'created', 'state', 'progress / verdict'],
      ...runs.map((r) => [r.run_id, r.payload.experiment.name, r.payload.created_at.replace('T', ' ').slice(0, 19), r.state, runProgress(r)]),
    ]),
  );
}

export function printRunJobs(out: Writable, run: RunView): void {
  out.write(`run ${run.run_id}: ${run.payload.experiment.name}, ${run.state}${run.cancel_reason ? ` (cancel requested: ${run.cancel_reason})` : ''}\n`);
  out.write(`report: ${run.payload.report_path}\n`);
  out.write(
    table([
      ['job', 'state', 'started', 'took', 'outcome'],
      ...run.jobs.map((j) => [
        jobLabel(j),
        jobState(j),
        time(j.started_at),
        seconds(j),
        j.kind === 'score' ? (run.result ? `${run.result.verdict}` : '') : jobOutcome(j),
      ]),
    ]),
  );
}

export async function runStatus(options: StatusOptions, deps: StatusDeps): Promise<number> {
  const { run: runArg, json, follow } = options;
  if (follow && !runArg)
    throw new IntuticError('E_USAGE', '--follow needs a run id: intutic chaos status <run> --follow', {
      hints: ['`intutic chaos status` lists the runs Redis holds.'],
    });
  if (follow && json)
    throw new IntuticError('E_USAGE', '--follow and --json cannot be combined: --follow prints the live progress and the summary', {
      hints: [`Drop --json to follow the run; \`intutic chaos status ${runArg ?? '<run>'} --json\` prints its jobs' state as JSON.`],
    });
  const suite = runArg ? await deps.suites.find(runArg) : null;
  if (suite && json)
    throw new IntuticError('E_USAGE', `${suite.suite_id} is a suite: --json shows one run; give a cell's run id`, {
      hints: ['`intutic chaos status <suite>` lists its cells and their runs'],
    });
  if (suite && follow) return deps.suites.follow(suite);
  if (suite) {
    await printSuite(deps.stdout, suite, async (runId) => runProgress(await deps.runs.run(runId)));
    return EXIT.ok;
  }
  if (runArg && follow) return deps.follow(runArg);
  if (runArg) {
    const run = await deps.runs.run(runArg);
    if (json) deps.stdout.write(JSON.stringify(withoutFileContents(run), null, 2) + '\n');
    else printRunJobs(deps.stdout, run);
  } else {
    const { runs, workersOnline } = await deps.runs.runs({ countWorkers: !json });
    if (json) deps.stdout.write(JSON.stringify(runs.map(withoutFileContents), null, 2) + '\n');
    else printRuns(deps.stdout, runs, workersOnline ?? 0);
  }
  return EXIT.ok;
}

/** Follow a run in the Redis the environment names; following waits through a Redis outage, as `chaos run` does. */
export function followFromRedis(ctx: CliContext): (runArg: string) => Promise<number> {
  return async (runArg) => {
    const queue = await openExistingQueue(ctx.env);
    try {
      return await followExistingRun(queue, await resolveRunId(queue, runArg), ctx);
    } finally {
      await queue.close();
    }
  };
}

export function registerChaosStatusCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('status')
    .description('list the runs in the queue and their state, one run’s jobs, or a suite’s cells')
    .argument('[run]', 'a run id (or an unambiguous prefix of one), or a suite id')
    .option('--json', 'print as JSON', false)
    .option(
      '--follow',
      "follow the run until it ends, as `chaos run` does: its progress, then the summary; exits with the run's code (a suite: each cell as it ends, then the matrix)",
      false,
    )
    .addHelpText('after', '\nWith --follow: exit 0 scored, 1 aborted, 2 invalid; Ctrl-C stops following (exit 130), the run goes on.')
    .action(async (runArg: string | undefined, raw: { json: boolean; follow: boolean }) => {
      const { ctx } = reg;
      const code = await runStatus(
        { ...(runArg ? { run: runArg } : {}), json: raw.json, follow: raw.follow },
        { stdout: ctx.stdout, runs: redisRunReader(ctx.env), follow: followFromRedis(ctx), suites: suiteStatusFromRedis(ctx) },
      );
      reg.setExit(code);
    });
}
