// What a repetition does to the world, one seam per kind of effect: its proxy, its sandbox
// containers, its workspace, the artifacts it keeps, the time. The runner's phases reach the world
// only through these; the CLI wires the real ones (engineSandbox, gitWorkspace, diskArtifacts, and a
// proxyStarter for its own bin), tests wire fakes. Job state and output files stay plain file writes.
import { rm, writeFile } from 'node:fs/promises';
import { isDiskFull } from '@intutic/errors';
import {
  holdSandbox,
  removeSandboxContainers,
  runInSandbox,
  type Engine,
  type HeldSandbox,
  type SandboxRunOptions,
  type SandboxRunResult,
} from '@intutic/sandbox';
import { applyCarryIn, createWorkspace, hideFromGit, removeWorkspace, resolveCommitSource } from '@intutic/workspace';
import { EVENTS_MAX_BYTES, type EventsMirror, type MirrorResult } from './events-mirror.ts';
import type { ProxyStarter } from './proxy.ts';
import { copySandboxFile, isRefused } from './sandbox-file.ts';

export interface SandboxEffects {
  /** One command in a new container: created, started, stopped on `signal` or its timeout, removed. */
  run(options: SandboxRunOptions): Promise<SandboxRunResult>;
  /** The same, started now and run when released (its timeout counts from then), or discarded. */
  hold(options: SandboxRunOptions): Promise<HeldSandbox>;
  /** Remove every sandbox container carrying these labels; how many were removed. */
  removeContainers(labels: Record<string, string>): Promise<number>;
}

export interface WorkspaceEffects {
  resolveSource: typeof resolveCommitSource;
  create: typeof createWorkspace;
  applyCarryIn: typeof applyCarryIn;
  hide: typeof hideFromGit;
  remove: typeof removeWorkspace;
}

export interface KeepEventsInput {
  /** The runner's copy, taken while the agent ran; null when the agent never started. */
  mirror: EventsMirror | null;
  /** The events file in the workspace. */
  events: string;
  /** The workspace it is in: read as sandbox-file.ts allows, never through a link. */
  worktree?: string;
  /** Where the kept events go, next to the report. */
  artifact: string;
  runId: string;
  /** A write that failed: no events are kept (a half-copied file would score as if the agent did less). */
  notKept: (failure: unknown) => void;
}

export interface ArtifactEffects {
  /** The events kept next to the report; the mirror's findings when it was the one that kept them. */
  keepEvents(input: KeepEventsInput): Promise<MirrorResult | null>;
  /**
   * A copy kept for the record (the plan); a failure loses only that copy. Resolves to the reason,
   * in words, when the file was not a plain file and so was not read (tampering).
   */
  keepCopy(from: string, to: string): Promise<string | void>;
}

export interface RepetitionEffects {
  /** The repetition's proxy; the real one runs the CLI's `start` in a process of its own. */
  startProxy: ProxyStarter;
  sandbox: SandboxEffects;
  workspace: WorkspaceEffects;
  artifacts: ArtifactEffects;
  clock: { now(): number };
}

export function engineSandbox(engine: Engine): SandboxEffects {
  return {
    run: (options) => runInSandbox(engine, options),
    hold: (options) => holdSandbox(engine, options),
    removeContainers: (labels) => removeSandboxContainers(engine, labels),
  };
}

export const gitWorkspace: WorkspaceEffects = {
  resolveSource: resolveCommitSource,
  create: createWorkspace,
  applyCarryIn,
  hide: hideFromGit,
  remove: removeWorkspace,
};

/** A compiled plan is a few kilobytes; far more is not one the runner wrote. */
const PLAN_MAX_BYTES = 16 * 1024 * 1024;

export const diskArtifacts: ArtifactEffects = {
  keepEvents: async ({ mirror, events, worktree, artifact, runId, notKept }) => {
    const discard = async (failure: unknown) => {
      notKept(failure);
      await rm(artifact, { force: true });
    };
    const kept = mirror
      ? await mirror.finish(artifact, runId).catch(async (failure: unknown) => {
          if (isDiskFull(failure)) await discard(failure);
          return null;
        })
      : null;
    if (kept) return kept;
    // No mirror (the agent never started) or it failed: the file itself, if it is a plain file.
    try {
      await copySandboxFile(events, artifact, EVENTS_MAX_BYTES, worktree ? { root: worktree } : {});
    } catch (failure) {
      if (isRefused(failure)) {
        await writeFile(artifact, '').catch(discard);
        return { tampering: [`the events file was replaced by ${failure.reason} (not read)`], forged: 0 };
      }
      if ((failure as NodeJS.ErrnoException).code === 'ENOENT') await writeFile(artifact, '').catch(discard);
      else await discard(failure);
    }
    return null;
  },
  keepCopy: (from, to) =>
    copySandboxFile(from, to, PLAN_MAX_BYTES).then(
      () => undefined,
      async (failure: unknown) => {
        await rm(to, { force: true }).catch(() => undefined);
        return isRefused(failure) ? `${failure.path} was ${failure.reason} (not kept)` : undefined;
      },
    ),
};

export const systemTime = { now: (): number => Date.now() };
