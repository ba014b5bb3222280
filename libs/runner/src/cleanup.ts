// Removing what a repetition left: its proxy process, its sandbox containers, its worktree and its
// job directory. The same code runs at the end of every repetition and when a worker sweeps up after
// a dead one, so a crash at any point leaves nothing that a later worker does not remove. Before the
// worktree goes, a dead job's events file is saved next to the report, so the run stays inspectable
// (when it can be: a full disk there costs the events, never the rest of the clean-up).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SandboxEffects, WorkspaceEffects } from './effects.ts';
import { EVENTS_MAX_BYTES } from './events-mirror.ts';
import { CHAOS_DIR_IN_WORKTREE, JOB_LABEL } from './paths.ts';
import { copySandboxFile, isRefused } from './sandbox-file.ts';
import { readJobState, writeJobState, type JobState } from './state.ts';

/** Whether `pid` is alive and is the job's proxy: its command line carries `mark` (proxyMark). */
export async function isJobProcess(pid: number, mark: string): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes(mark);
  } catch {
    // No /proc (macOS): the pid is alive and was recorded by this job; trust it.
    return true;
  }
}

/** What the job's proxy's command line carries: its standby mark, or (older states) the job id in its paths. */
export function proxyMark(state: Pick<JobState, 'proxy' | 'job_id'>): string {
  return state.proxy?.mark ?? state.job_id;
}

async function killProcessGroup(pid: number, mark: string): Promise<boolean> {
  if (!(await isJobProcess(pid, mark))) return false;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig); // the proxy leads its own process group
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // gone already
      }
    }
  };
  signal('SIGTERM');
  for (let i = 0; i < 30 && (await isJobProcess(pid, mark)); i++) await new Promise((r) => setTimeout(r, 100));
  if (await isJobProcess(pid, mark)) signal('SIGKILL');
  return true;
}

export interface CleanupDeps {
  /** null: no engine, so no containers to remove. */
  sandbox: Pick<SandboxEffects, 'removeContainers'> | null;
  workspace: Pick<WorkspaceEffects, 'remove'>;
}

export interface CleanupResult {
  proxyKilled: boolean;
  containersRemoved: number;
  worktreeRemoved: boolean;
  eventsSaved: boolean;
  /** The events file was not a plain file (a link, a FIFO…): not read, not saved; what it was, in words. */
  eventsRefused: string | null;
}

/**
 * Remove everything of the job whose directory is `jobDir`. `state` defaults to its state file; a
 * missing one means nothing was created yet beyond the directory itself.
 */
export async function cleanupJob(jobDir: string, state: JobState | null, deps: CleanupDeps, options: { keepWorktree?: boolean } = {}): Promise<CleanupResult> {
  const result: CleanupResult = { proxyKilled: false, containersRemoved: 0, worktreeRemoved: false, eventsSaved: false, eventsRefused: null };
  const known = state ?? (await readJobState(join(jobDir, 'state.json')));
  if (!known) {
    await rm(jobDir, { recursive: true, force: true });
    return result;
  }
  if (known.proxy) result.proxyKilled = await killProcessGroup(known.proxy.pid, proxyMark(known));
  if (deps.sandbox) result.containersRemoved = await deps.sandbox.removeContainers({ [JOB_LABEL]: known.job_id }).catch(() => 0);
  const events = join(known.worktree, CHAOS_DIR_IN_WORKTREE, 'events.jsonl');
  if (!existsSync(known.events_artifact)) {
    // Best effort: a full disk there must not keep the rest from being removed, nor leave half a file.
    // The file is the sandbox's to replace: only a plain file is read (sandbox-file.ts).
    result.eventsSaved = await mkdir(dirname(known.events_artifact), { recursive: true })
      .then(() => copySandboxFile(events, known.events_artifact, EVENTS_MAX_BYTES, { root: known.worktree }))
      .then(
        () => true,
        (failure: unknown) => {
          if (isRefused(failure)) result.eventsRefused = failure.reason;
          return rm(known.events_artifact, { force: true }).then(
            () => false,
            () => false,
          );
        },
      );
  }
  if (options.keepWorktree ?? known.keep) {
    await writeJobState(join(jobDir, 'state.json'), { ...known, proxy: null, done: true });
    return result;
  }
  if (existsSync(known.worktree) || known.repo_source) {
    // A standalone repository: deleting it is all. repo_source lets a workspace an older version
    // added as a `git worktree` be unregistered from the project too.
    await deps.workspace.remove(known.repo_source, known.worktree);
    result.worktreeRemoved = true;
  }
  await rm(jobDir, { recursive: true, force: true });
  return result;
}
