// What a repetition does to the world, one seam per kind of effect: its proxy, its sandbox
// containers, its workspace, the artifacts it keeps, the time. The runner's phases reach the world
// only through these; the CLI wires the real ones (engineSandbox, gitWorkspace, diskArtifacts, and a
// proxyStarter for its own bin), tests wire fakes. Job state and output files stay plain file writes.
import { copyFile, rm, writeFile } from 'node:fs/promises';
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
import type { EventsMirror, MirrorResult } from './events-mirror.ts';
import type { ProxyStarter } from './proxy.ts';

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
  /** Where the kept events go, next to the report. */
  artifact: string;
  runId: string;
  /** A write that failed: no events are kept (a half-copied file would score as if the agent did less). */
  notKept: (failure: unknown) => void;
}

export interface ArtifactEffects {
  /** The events kept next to the report; the mirror's findings when it was the one that kept them. */
  keepEvents(input: KeepEventsInput): Promise<MirrorResult | null>;
  /** A copy kept for the record (the plan); a failure loses only that copy. */
  keepCopy(from: string, to: string): Promise<void>;
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

export const diskArtifacts: ArtifactEffects = {
  keepEvents: async ({ mirror, events, artifact, runId, notKept }) => {
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
    if (!kept) {
      await copyFile(events, artifact)
        .catch((failure: NodeJS.ErrnoException) => (failure.code === 'ENOENT' ? writeFile(artifact, '') : Promise.reject(failure)))
        .catch(discard);
    }
    return kept;
  },
  keepCopy: (from, to) => copyFile(from, to).catch(() => undefined),
};

export const systemTime = { now: (): number => Date.now() };
