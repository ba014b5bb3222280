// What `chaos run` takes: the options its flags become, and the deps it runs with (the engine, the
// queue, the terminal), injected so the command's logic runs in tests without them.
import type { ValidationResult } from '@intutic/experiment';
import type { QueueConfig, RunQueue } from '@intutic/queue';
import type { RenderingTargets } from '@intutic/report';
import type { ChaosWorker, prepareRun } from '@intutic/runner';
import type { Engine } from '@intutic/sandbox';
import type { CliContext } from '../../context.ts';

export interface ChaosRunOptions {
  file: string;
  sandboxImage?: string;
  out?: string;
  keep: boolean;
  detach: boolean;
  /** Validate, plan and check the image; enqueue nothing, write nothing. */
  dryRun?: boolean;
  /** A phase's repetitions may run on several workers at once. */
  parallel?: boolean;
  /** Renderings written once the report is (paths relative to the working directory). */
  renderings?: RenderingTargets;
}

/** What --dry-run says of the image: there, built on first use, or neither (the run could not start). */
export type ImageStatus = 'present' | 'would-build' | 'missing';

export interface ChaosRunDeps {
  ctx: CliContext;
  validate(file: string): Promise<ValidationResult>;
  checkEngine(): Promise<Engine>;
  ensureImage(engine: Engine, image: string): Promise<void>;
  /** --dry-run's image check: looks, never builds or pulls. */
  imageStatus(engine: Engine, image: string): Promise<ImageStatus>;
  connect(engine: Engine, log: (line: string) => void): Promise<{ queue: RunQueue; config: QueueConfig }>;
  startWorker(engine: Engine, config: QueueConfig, log: (line: string) => void): Promise<ChaosWorker>;
  /** Asked on Ctrl-C when a person is at the terminal. */
  ask(): Promise<'cancel' | 'leave'>;
  interactive: boolean;
}

/** The run's payload as prepareRun makes it (with `parallel` set by --parallel). */
export type PreparedPayload = Awaited<ReturnType<typeof prepareRun>>['payload'];
