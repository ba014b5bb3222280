// What `chaos suite` takes: the options its flags become, and the deps it runs with (the suite's
// validation, the engine and images, the queue, a worker of its own, the history), injected so the
// command's logic runs in tests without them.
import type { SuiteValidation } from '@intutic/experiment';
import type { SuiteSnapshot } from '@intutic/history';
import type { QueueConfig, RunQueue } from '@intutic/queue';
import type { ChaosWorker } from '@intutic/runner';
import type { Engine } from '@intutic/sandbox';
import type { CliContext } from '../../context.ts';

export interface ChaosSuiteOptions {
  file: string;
  /** The directory the suite report and every cell's report go to (default: under the OS temp directory). */
  out?: string;
  keep: boolean;
  detach: boolean;
  /** A cell's phase may run its repetitions on several workers at once. */
  parallel: boolean;
  /** An earlier suite id (or a unique prefix), or `latest`: the newest recorded suite of the same name. */
  compare?: string;
}

export interface ChaosSuiteDeps {
  ctx: CliContext;
  validate(file: string): Promise<SuiteValidation>;
  checkEngine(): Promise<Engine>;
  ensureImage(engine: Engine, image: string): Promise<void>;
  connect(engine: Engine, log: (line: string) => void): Promise<{ queue: RunQueue; config: QueueConfig }>;
  startWorker(engine: Engine, config: QueueConfig, log: (line: string) => void): Promise<ChaosWorker>;
  /** The earlier suite `--compare` names (an id, a prefix, or `latest` of this name), from the history; null when it has none. */
  findSuite(ref: string, name: string): Promise<SuiteSnapshot | null>;
}
