// `intutic chaos worker`: a standalone worker for the run queue. It first removes what dead workers
// left (containers, proxies, worktrees), then runs repetitions one at a time (--concurrency for more)
// until Ctrl-C or SIGTERM, when it finishes the repetition in progress and exits.
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { connectRunQueue, redactUrl, type QueueConfig } from '@intutic/queue';
import { startChaosWorker } from '@intutic/runner';
import { checkEngine, type Engine } from '@intutic/sandbox';
import { intuticHome } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';
import { repetitionEffects } from '../runner-deps.ts';

export interface ChaosWorkerCommandOptions {
  concurrency: number;
  name?: string;
}

/** What the worker says about a job as it takes, finishes or fails it. */
export type WorkerJobEvent =
  | { kind: 'active'; id: string; /** Taken as stalled only to be failed, never run again. */ deferredFailure: boolean }
  | { kind: 'completed'; id: string }
  | { kind: 'failed'; id: string | undefined; message: string };

export interface RunningWorker {
  onJob: (listener: (event: WorkerJobEvent) => void) => void;
  /** Finish the repetitions in progress, then stop. */
  close: () => Promise<void>;
}

export interface WorkerDeps {
  /** A line for the operator (stderr). */
  log: (line: string) => void;
  /** Fires on Ctrl-C or SIGTERM: the worker then finishes what it runs and stops. */
  signal: AbortSignal;
  pid: number;
  checkEngine: () => Promise<Engine>;
  /** The queue's Redis, started first when none is configured and none answers. */
  queueConfig: (engine: Engine, log: (line: string) => void) => Promise<QueueConfig>;
  startWorker: (options: { config: QueueConfig; engine: Engine; concurrency: number; name?: string; log: (line: string) => void }) => Promise<RunningWorker>;
}

export function parseWorkerOptions(raw: { concurrency: string; name?: string }): ChaosWorkerCommandOptions {
  const concurrency = Number(raw.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new IntuticError('E_USAGE', `--concurrency must be an integer from 1 to 32, got ${raw.concurrency}`);
  return { concurrency, ...(raw.name ? { name: raw.name } : {}) };
}

const untilAborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

export async function runWorker(options: ChaosWorkerCommandOptions, deps: WorkerDeps): Promise<number> {
  const say = deps.log;
  const engine = await deps.checkEngine();
  const config = await deps.queueConfig(engine, say);
  const worker = await deps.startWorker({ config, engine, concurrency: options.concurrency, log: say, ...(options.name ? { name: options.name } : {}) });
  worker.onJob((event) => {
    // A job taken as stalled comes back only to be failed (its deferred failure), never run again:
    // "started" would read as a second run. Its "failed" line says what happened.
    if (event.kind === 'active' && !event.deferredFailure) say(`started ${event.id}`);
    if (event.kind === 'completed') say(`finished ${event.id}`);
    if (event.kind === 'failed') say(`failed ${event.id ?? '?'}: ${event.message}`);
  });
  say(
    `worker ready (pid ${deps.pid}, ${engine.kind} at ${engine.endpoint}, Redis ${redactUrl(config.url)}, prefix ${config.prefix}, concurrency ${options.concurrency})`,
  );
  await untilAborted(deps.signal);
  say('stopping: finishing the repetition in progress (Ctrl-C again to stop at once)…');
  await worker.close();
  return EXIT.ok;
}

/** The real engine, Redis and BullMQ worker, configured from the environment. */
export function workerDepsFrom(ctx: CliContext): WorkerDeps {
  const home = intuticHome(ctx.env);
  return {
    log: (line) => ctx.stderr.write(`${line}\n`),
    signal: ctx.signal,
    pid: process.pid,
    checkEngine: () => checkEngine({ env: ctx.env }),
    queueConfig: async (engine, log) => {
      const { queue, config } = await connectRunQueue({ env: ctx.env, home, engine, log });
      await queue.close();
      return config;
    },
    startWorker: async ({ config, engine, concurrency, name, log }) => {
      const worker = await startChaosWorker({
        config,
        engine,
        home,
        effects: repetitionEffects(ctx.env, engine),
        env: ctx.env,
        version: ctx.version,
        concurrency,
        log,
        ...(name ? { name } : {}),
      });
      return {
        onJob: (listener) => {
          worker.worker.on('active', (job) => listener({ kind: 'active', id: String(job.id), deferredFailure: Boolean(job.deferredFailure) }));
          worker.worker.on('completed', (job) => listener({ kind: 'completed', id: String(job.id) }));
          worker.worker.on('failed', (job, error) => listener({ kind: 'failed', id: job?.id, message: error.message }));
        },
        close: () => worker.close(),
      };
    },
  };
}

export function registerChaosWorkerCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('worker')
    .description('run repetitions from the queue (Redis at REDIS_URL) until stopped')
    .option('--concurrency <n>', 'repetitions run at once (each is its own sandbox)', '1')
    .option('--name <name>', 'a name shown for this worker')
    .addHelpText(
      'after',
      '\nCtrl-C or SIGTERM: finish the repetition in progress, then exit; a second Ctrl-C exits at once (that repetition is then failed, never re-run).',
    )
    .action(async (raw: { concurrency: string; name?: string }) => {
      reg.setExit(await runWorker(parseWorkerOptions(raw), workerDepsFrom(reg.ctx)));
    });
}
