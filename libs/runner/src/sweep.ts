// What a worker does when it starts (and now and then while it runs): remove the containers, proxy
// processes and worktrees that a dead worker left. A job is alive exactly while a worker holds its
// BullMQ lock (renewed every few seconds), so anything of a job whose lock is gone is an orphan.
// Only jobs on the same Redis are judged; another queue's leftovers are not ours to remove.
import { rm, stat } from 'node:fs/promises';
import { QUEUE_NAME, type RedisConnection } from '@intutic/queue';
import { SANDBOX_LABEL, type Engine } from '@intutic/sandbox';
import { cleanupJob, type CleanupDeps, type CleanupResult } from './cleanup.ts';
import { JOB_LABEL, QUEUE_LABEL, queueLabel } from './paths.ts';
import { listJobStates } from './state.ts';

export interface SweepOptions {
  home: string;
  engine: Engine | null;
  /** How a job's containers and worktree are removed (the worker's effects). */
  cleanup: CleanupDeps;
  redis: RedisConnection;
  /** This worker's queue: the redacted Redis URL and the key prefix. */
  queue: { redis: string; prefix: string };
  /** A job directory with no state file is removed once it is this old (a worker died creating it). */
  staleDirMs?: number;
  /**
   * Asked, once its lock is found gone, whether to leave a job alone anyway: one this worker runs
   * itself, or any while Redis was just away (a lock that ran out then is being taken again).
   */
  spare?: (jobId: string) => boolean;
}

export interface SweepReport {
  jobs: { jobId: string; result: CleanupResult }[];
  containers: number;
}

async function locked(redis: RedisConnection, prefix: string, jobId: string): Promise<boolean> {
  return (await redis.exists(`${prefix}:${QUEUE_NAME}:${jobId}:lock`)) === 1;
}

export async function sweepOrphans(options: SweepOptions): Promise<SweepReport> {
  const report: SweepReport = { jobs: [], containers: 0 };
  for (const { dir, jobId, state } of await listJobStates(options.home)) {
    if (state === null) {
      const age =
        Date.now() -
        (await stat(dir).then(
          (s) => s.mtimeMs,
          () => 0,
        ));
      if (age > (options.staleDirMs ?? 60_000)) report.jobs.push({ jobId, result: await cleanupJob(dir, null, options.cleanup) });
      continue;
    }
    if (state.done || state.queue.redis !== options.queue.redis) continue;
    if ((await locked(options.redis, state.queue.prefix, jobId)) || options.spare?.(jobId)) continue;
    report.jobs.push({ jobId, result: await cleanupJob(dir, state, options.cleanup) });
  }
  // Containers whose job directory is gone too (or was never written) are found by their labels.
  if (options.engine) {
    const containers = await options.engine.docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, JOB_LABEL] } }).catch(() => []);
    for (const info of containers) {
      const label = info.Labels?.[QUEUE_LABEL] ?? '';
      const jobId = info.Labels?.[JOB_LABEL] ?? '';
      const hash = label.lastIndexOf('#');
      if (hash < 0 || label.slice(0, hash) !== options.queue.redis) continue;
      if ((await locked(options.redis, label.slice(hash + 1), jobId)) || options.spare?.(jobId)) continue;
      await options.engine.docker
        .getContainer(info.Id)
        .remove({ force: true })
        .then(
          () => report.containers++,
          () => undefined,
        );
    }
  }
  return report;
}

/** How long a job directory kept with --keep stays before a worker or `chaos gc` removes it. */
export const KEPT_JOB_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/**
 * Remove the job directories kept with --keep (finished jobs only: their worktree is a repository of
 * their own inside the directory) once they are older than `maxAgeMs`. Returns the removed job ids.
 */
export async function pruneKeptJobs(home: string, maxAgeMs = KEPT_JOB_MAX_AGE_MS, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const { dir, jobId, state } of await listJobStates(home)) {
    if (!state?.done || now - Date.parse(state.created_at) <= maxAgeMs) continue;
    await rm(dir, { recursive: true, force: true, maxRetries: 3 }).then(
      () => removed.push(jobId),
      () => undefined,
    );
  }
  return removed;
}

export function describeSweep(report: SweepReport): string[] {
  return report.jobs
    .map(({ jobId, result }) => {
      const parts = [
        result.proxyKilled ? 'stopped its proxy' : '',
        result.containersRemoved ? `removed ${result.containersRemoved} container(s)` : '',
        result.worktreeRemoved ? 'removed its worktree' : '',
        result.eventsSaved ? 'saved its events next to the report' : '',
        result.eventsRefused ? `did not save its events: the events file was ${result.eventsRefused} (tampering; not read)` : '',
      ].filter(Boolean);
      return `cleaned up after ${jobId}, whose worker is gone: ${parts.join(', ') || 'nothing was left'}`;
    })
    .concat(report.containers ? [`removed ${report.containers} orphaned sandbox container(s)`] : []);
}

export { queueLabel };
