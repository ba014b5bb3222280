// `intutic chaos status [run]`: the runs Redis holds with their state, or one run's jobs. Reads only.
// `--follow` follows one run until it ends, as `chaos run` does, and exits with its code; Ctrl-C
// stops following, never the run.
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { getRun, listRuns, resolveRunId, type JobView, type RunView } from '@intutic/queue';
import { openExistingQueue, readExistingQueue } from '@intutic/runner';
import type { Registration } from '../cli.ts';
import { followExistingRun } from '../follow-run.ts';

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ').trimEnd()).join('\n') + '\n';
}

const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));
const seconds = (job: JobView) => (job.started_at && job.finished_at ? `${((job.finished_at - job.started_at) / 1000).toFixed(1)} s` : job.started_at ? 'running' : '-');

export function jobState(job: JobView): string {
  if (job.orphaned) return 'active, but its worker is gone';
  if (job.result?.status === 'skipped') return 'skipped';
  return job.state;
}

export function jobOutcome(job: JobView): string {
  if (job.failed_reason) return job.failed_reason;
  const r = job.result;
  if (r?.status === 'skipped') return r.stop?.reason ?? '';
  const o = r?.outcome;
  if (!o) return '';
  if (o.error) return `error: ${o.error}`;
  if (o.abort) return `aborted: ${o.abort.condition}`;
  return `agent ${o.agent_exit_code ?? '-'}, verify ${o.verify_exit_code ?? '-'}`;
}

function runProgress(run: RunView): string {
  const reps = run.jobs.filter((j) => j.kind !== 'score');
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
  out.write(table([['run', 'experiment', 'created', 'state', 'progress / verdict'], ...runs.map((r) => [r.run_id, r.payload.experiment.name, r.payload.created_at.replace('T', ' ').slice(0, 19), r.state, runProgress(r)])]));
}

export function printRunJobs(out: Writable, run: RunView): void {
  out.write(`run ${run.run_id}: ${run.payload.experiment.name}, ${run.state}${run.cancel_reason ? ` (cancel requested: ${run.cancel_reason})` : ''}\n`);
  out.write(`report: ${run.payload.report_path}\n`);
  out.write(table([['job', 'state', 'started', 'took', 'outcome'], ...run.jobs.map((j) => [j.id, jobState(j), time(j.started_at), seconds(j), j.kind === 'score' ? (run.result ? `${run.result.verdict}` : '') : jobOutcome(j)])]));
}

/** For --json: the carried-in files by path only; their contents are the project's, not status. */
export function withoutFileContents(run: RunView): unknown {
  const { carry_in } = run.payload;
  return {
    ...run,
    payload: {
      ...run.payload,
      carry_in: { ...carry_in, files: carry_in.files.map(({ content_b64: _c, ...f }) => f), policy: carry_in.policy.map(({ content_b64: _c, ...p }) => p) },
    },
  };
}

export function registerChaosStatusCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('status')
    .description('list the runs in the queue and their state, or one run’s jobs')
    .argument('[run]', 'a run id (or an unambiguous prefix of one)')
    .option('--json', 'print as JSON', false)
    .option('--follow', "follow the run until it ends, as `chaos run` does: its progress, then the summary; exits with the run's code", false)
    .addHelpText('after', '\nWith --follow: exit 0 scored, 1 aborted, 2 invalid; Ctrl-C stops following (exit 130), the run goes on.')
    .action(async (runArg: string | undefined, raw: { json: boolean; follow: boolean }) => {
      const { ctx } = reg;
      if (raw.follow && !runArg) throw new IntuticError('E_USAGE', '--follow needs a run id: intutic chaos status <run> --follow', { hints: ['`intutic chaos status` lists the runs Redis holds.'] });
      if (raw.follow && raw.json) throw new IntuticError('E_USAGE', '--follow and --json cannot be combined: --follow prints the live progress and the summary', { hints: [`Drop --json to follow the run; \`intutic chaos status ${runArg ?? '<run>'} --json\` prints its jobs' state as JSON.`] });
      if (runArg && raw.follow) {
        // Following waits through a Redis outage, as `chaos run` does.
        const queue = await openExistingQueue(ctx.env);
        try {
          reg.setExit(await followExistingRun(queue, await resolveRunId(queue, runArg), ctx));
        } finally {
          await queue.close();
        }
        return;
      }
      await readExistingQueue(ctx.env, async (queue) => {
        if (runArg) {
          const run = await getRun(queue, await resolveRunId(queue, runArg));
          if (raw.json) ctx.stdout.write(JSON.stringify(withoutFileContents(run), null, 2) + '\n');
          else printRunJobs(ctx.stdout, run);
        } else {
          const runs = await listRuns(queue);
          if (raw.json) ctx.stdout.write(JSON.stringify(runs.map(withoutFileContents), null, 2) + '\n');
          else printRuns(ctx.stdout, runs, await queue.workersOnline());
        }
      });
      reg.setExit(EXIT.ok);
    });
}
