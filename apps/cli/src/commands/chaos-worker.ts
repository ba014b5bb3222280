// `intutic chaos worker`: a standalone worker for the run queue. It first removes what dead workers
// left (containers, proxies, worktrees), then runs repetitions one at a time (--concurrency for more)
// until Ctrl-C or SIGTERM, when it finishes the repetition in progress and exits.
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { redactUrl } from '@intutic/queue';
import { connectRunQueue, proxyExtraArgsFromEnv, resolveIntuticCommand, startChaosWorker } from '@intutic/runner';
import { checkEngine } from '@intutic/sandbox';
import { intuticHome } from '@intutic/workspace';
import type { Registration } from '../cli.ts';

export interface ChaosWorkerCommandOptions {
  concurrency: number;
  name?: string;
}

export function registerChaosWorkerCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('worker')
    .description('run repetitions from the queue (Redis at REDIS_URL) until stopped')
    .option('--concurrency <n>', 'repetitions run at once (each is its own sandbox)', '1')
    .option('--name <name>', 'a name shown for this worker')
    .addHelpText('after', '\nCtrl-C or SIGTERM: finish the repetition in progress, then exit; a second Ctrl-C exits at once (that repetition is then failed, never re-run).')
    .action(async (raw: { concurrency: string; name?: string }) => {
      const { ctx } = reg;
      const concurrency = Number(raw.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new IntuticError('E_USAGE', `--concurrency must be an integer from 1 to 32, got ${raw.concurrency}`);
      const say = (line: string) => ctx.stderr.write(`${line}\n`);
      const home = intuticHome(ctx.env);
      const engine = await checkEngine({ env: ctx.env });
      const { queue, config } = await connectRunQueue({ env: ctx.env, home, engine, log: say });
      await queue.close();
      const worker = await startChaosWorker({
        config,
        engine,
        home,
        intuticCommand: resolveIntuticCommand(ctx.env),
        proxyExtraArgs: proxyExtraArgsFromEnv(ctx.env),
        env: ctx.env,
        version: ctx.version,
        concurrency,
        log: say,
        ...(raw.name ? { name: raw.name } : {}),
      });
      // A job taken as stalled comes back only to be failed (its deferred failure), never run again:
      // "started" would read as a second run. Its "failed" line says what happened.
      worker.worker.on('active', (job) => {
        if (!job.deferredFailure) say(`started ${job.id}`);
      });
      worker.worker.on('completed', (job) => say(`finished ${job.id}`));
      worker.worker.on('failed', (job, error) => say(`failed ${job?.id ?? '?'}: ${error.message}`));
      say(`worker ready (pid ${process.pid}, ${engine.kind} at ${engine.endpoint}, Redis ${redactUrl(config.url)}, prefix ${config.prefix}, concurrency ${concurrency})`);
      await new Promise<void>((resolve) => (ctx.signal.aborted ? resolve() : ctx.signal.addEventListener('abort', () => resolve(), { once: true })));
      say('stopping: finishing the repetition in progress (Ctrl-C again to stop at once)…');
      await worker.close();
      reg.setExit(EXIT.ok);
    });
}
