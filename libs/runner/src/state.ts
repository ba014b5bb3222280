// The job state file: an intent log written before each resource is created (worktree, proxy,
// containers), so a worker that starts after a crash knows exactly what to remove. It names no
// secret: the Redis URL is stored without its password, only to tell which queue the job was on.
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { jobsRoot } from './paths.ts';

export const jobStateSchema = z.object({
  job_id: z.string(),
  run_id: z.string(),
  queue: z.object({ redis: z.string(), prefix: z.string() }),
  /** The repository the worktree was added to (the project, or a cache clone). */
  repo_source: z.string().nullable(),
  worktree: z.string(),
  artifacts_dir: z.string(),
  events_artifact: z.string(),
  keep: z.boolean(),
  /** Its pid, and the word its command line carries to tell it from a process that took the pid later (older states: none, the job id). */
  proxy: z.object({ pid: z.number().int(), mark: z.string().optional() }).nullable(),
  container_labels: z.record(z.string(), z.string()),
  worker: z.object({ pid: z.number().int(), host: z.string() }),
  /** Set once the repetition cleaned up after itself (a kept worktree stays, the rest is gone). */
  done: z.boolean(),
  created_at: z.string(),
});
export type JobState = z.infer<typeof jobStateSchema>;

export function newJobState(fields: Omit<JobState, 'worker' | 'done' | 'created_at' | 'proxy' | 'repo_source'>): JobState {
  return { ...fields, repo_source: null, proxy: null, worker: { pid: process.pid, host: hostname() }, done: false, created_at: new Date().toISOString() };
}

/** Per state file, the write in progress: writes land in the order they were asked for. */
const writing = new Map<string, Promise<void>>();

/**
 * The state as it is now, written whole (a temp file renamed over it). Writes to one file are
 * queued, so a repetition's phases running side by side (its workspace and its proxy) can each
 * record what they created without an older state landing last.
 */
export function writeJobState(path: string, state: JobState): Promise<void> {
  const text = JSON.stringify(state, null, 2);
  const write = async (): Promise<void> => {
    await mkdir(join(path, '..'), { recursive: true });
    const temp = `${path}.tmp-${process.pid}`;
    await writeFile(temp, text);
    await rename(temp, path);
  };
  const done = (writing.get(path) ?? Promise.resolve()).then(write, write);
  writing.set(path, done);
  void done.finally(() => writing.get(path) === done && writing.delete(path)).catch(() => undefined);
  return done;
}

export async function readJobState(path: string): Promise<JobState | null> {
  try {
    return jobStateSchema.parse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return null;
  }
}

/** Every job directory under the jobs root with its state (null when the state file is unreadable). */
export async function listJobStates(home: string): Promise<{ dir: string; jobId: string; state: JobState | null }[]> {
  const root = jobsRoot(home);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const out = [];
  for (const jobId of names.sort()) out.push({ dir: join(root, jobId), jobId, state: await readJobState(join(root, jobId, 'state.json')) });
  return out;
}
