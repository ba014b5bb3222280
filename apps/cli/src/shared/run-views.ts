// The runs Redis holds, as `chaos status` and `chaos inspect` read and show them: one reader that
// opens the queue for a single look (never starting a Redis), and the words both commands use for a
// job's state and outcome. Reads only. A --parallel run also shows its faulted phase's gate, and the
// faulted repetitions the gate has not added yet as pending.
import { getRun, listRuns, readExistingQueue, resolveRunId, type JobView, type RepetitionKind, type RunView } from '@intutic/queue';

/** One look at the queue per call; the queue is closed afterwards. Fakes stand in for it in tests. */
export interface RunReader {
  /** The run named by its id or an unambiguous prefix of one (E_RUN_NOT_FOUND, E_USAGE when ambiguous). */
  run(idOrPrefix: string, options?: { logs?: boolean }): Promise<RunView>;
  /** Every run, newest first; with `countWorkers`, also how many workers are online (else null). */
  runs(options: { countWorkers: boolean }): Promise<{ runs: RunView[]; workersOnline: number | null }>;
}

/** The reader over the Redis the environment names; fails with E_REDIS_UNAVAILABLE when none answers. */
export function redisRunReader(env: NodeJS.ProcessEnv): RunReader {
  return {
    run: (idOrPrefix, options = {}) => readExistingQueue(env, async (queue) => getRun(queue, await resolveRunId(queue, idOrPrefix), options)),
    runs: ({ countWorkers }) =>
      readExistingQueue(env, async (queue) => {
        const runs = await listRuns(queue);
        return { runs, workersOnline: countWorkers ? await queue.workersOnline() : null };
      }),
  };
}

export function jobState(job: JobView): string {
  if (job.orphaned) return 'active, but its worker is gone';
  if (job.result?.status === 'skipped') return 'skipped';
  return job.state;
}

/** The job's id, and for the gate what it is: its id alone does not say. */
export function jobLabel(job: JobView): string {
  return job.kind === 'gate' ? `${job.id} (faulted phase gate)` : job.id;
}

/** A job that counts toward a run's progress: a repetition, not the gate nor scoring. */
export function isRepetition(job: JobView): job is JobView & { kind: RepetitionKind } {
  return job.kind === 'baseline' || job.kind === 'faulted';
}

export function jobOutcome(job: JobView): string {
  if (job.failed_reason) return job.failed_reason;
  if (job.state === 'pending') return 'added once every baseline is done';
  const r = job.result;
  if (r?.status === 'skipped') return r.stop?.reason ?? '';
  if (job.kind === 'gate') return gateOutcome(job);
  const o = r?.outcome;
  if (!o) return '';
  if (o.error) return `error: ${o.error}`;
  if (o.abort) return `aborted: ${o.abort.condition}`;
  return `agent ${o.agent_exit_code ?? '-'}, verify ${o.verify_exit_code ?? '-'}`;
}

function gateOutcome(gate: JobView): string {
  if (gate.result?.status === 'ran') return 'every baseline done: the faulted repetitions were added';
  if (gate.state === 'active') return 'adding the faulted repetitions';
  if (['waiting-children', 'waiting', 'prioritized', 'delayed'].includes(gate.state)) return 'adds the faulted repetitions once every baseline is done';
  return '';
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

/** Rows as columns padded to the widest cell, the last column unpadded; the first row is the header. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return (
    rows
      .map((r) =>
        r
          .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
