// `intutic chaos run <file>`: validate, refuse a dirty tree or a missing engine, pin HEAD, capture the
// carry-in, enqueue the run's flow and follow it (phases, repetitions, the agent's stdout live), then
// print the summary and the report's path. Exit 0 scored, 1 aborted, 2 invalid, 3 could not run.
// Ctrl-C asks whether to cancel the run or leave it running; without a terminal it cancels.
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { formatDiagnostic, validateExperimentFile, type ValidationResult } from '@intutic/experiment';
import { renderProgress, waitForRun, type QueueConfig, type RunQueue } from '@intutic/queue';
import { renderSummary, reportSchema } from '@intutic/report';
import { connectRunQueue, prepareRun, proxyExtraArgsFromEnv, resolveIntuticCommand, startChaosWorker, type ChaosWorker } from '@intutic/runner';
import { checkEngine, ensureSandboxImage, sandboxImageTag, sandboxVariantOf, type Engine } from '@intutic/sandbox';
import { formatCarryIn, intuticHome, planCarryIn } from '@intutic/workspace';
import type { Registration } from '../cli.ts';
import type { CliContext } from '../context.ts';
import { cliPlaceholderResolver } from './chaos-validate.ts';

export interface ChaosRunOptions {
  file: string;
  sandboxImage?: string;
  out?: string;
  keep: boolean;
  detach: boolean;
}

export interface ChaosRunDeps {
  ctx: CliContext;
  validate(file: string): Promise<ValidationResult>;
  checkEngine(): Promise<Engine>;
  ensureImage(engine: Engine, image: string, log: (line: string) => void): Promise<void>;
  connect(engine: Engine, log: (line: string) => void): Promise<{ queue: RunQueue; config: QueueConfig }>;
  startWorker(engine: Engine, config: QueueConfig, log: (line: string) => void): Promise<ChaosWorker>;
  /** Asked on Ctrl-C when a person is at the terminal. */
  ask(): Promise<'cancel' | 'leave'>;
  interactive: boolean;
}

export async function runChaosRun(options: ChaosRunOptions, deps: ChaosRunDeps): Promise<number> {
  const { ctx } = deps;
  const say = (line: string) => ctx.stderr.write(`${line}\n`);
  const validation = await deps.validate(options.file);
  for (const d of validation.errors) say(formatDiagnostic(d, 'error'));
  for (const d of validation.warnings) say(formatDiagnostic(d, 'warning'));
  if (!validation.experiment) throw new IntuticError('E_EXPERIMENT_INVALID', `${options.file} is not a valid experiment (${validation.errors.length} error(s) above)`);
  const experiment = validation.experiment;

  const image = options.sandboxImage ?? experiment.sandbox_image ?? sandboxImageTag(ctx.version, 'base');
  const prepared = await prepareRun({ experiment, experimentFile: options.file, cwd: ctx.cwd, env: ctx.env, sandboxImage: image, ...(options.out ? { out: options.out } : {}), keep: options.keep });
  const { payload } = prepared;
  const engine = await deps.checkEngine();
  await deps.ensureImage(engine, image, say);
  for (const note of prepared.notes) say(`note: ${note}`);
  const carried = formatCarryIn(planCarryIn(payload.carry_in));
  if (carried.length > 0) say(`carried into each repetition's worktree (never into your project):\n${carried.map((l) => `  ${l}`).join('\n')}`);
  for (const warning of payload.carry_in.warnings) say(`warning: ${warning}`);
  if (ctx.signal.aborted) return EXIT.interrupted;

  const { queue, config } = await deps.connect(engine, say);
  let worker: ChaosWorker | null = null;
  let unsubscribe: (() => Promise<void>) | null = null;
  try {
    if (!options.detach) unsubscribe = await queue.subscribe(payload.run_id, (m) => {
      const out = renderProgress(m);
      if (out) (out.stream === 'stdout' ? ctx.stdout : ctx.stderr).write(out.text);
    });
    await queue.enqueue(payload);
    const total = experiment.repeat * 2;
    say(`run ${payload.run_id}: ${experiment.name}, ${experiment.repeat} baseline then ${experiment.repeat} faulted repetitions (${total}), commit ${payload.commit.slice(0, 12)}, image ${image}`);
    say(`report: ${payload.report_path}`);
    const online = await queue.workersOnline();
    if (options.detach) {
      say(online > 0 ? `${online} worker(s) online; follow it with: intutic chaos status ${payload.run_id}` : 'no worker is online: start one with `intutic chaos worker` (or docker compose up) to run it');
      return EXIT.ok;
    }
    if (online === 0) {
      say('no worker is online: this process runs one for the run');
      worker = await deps.startWorker(engine, config, say);
    }

    const follow = new AbortController();
    let cancelled = false;
    const onInterrupt = async () => {
      const choice = deps.interactive ? await deps.ask() : 'cancel';
      if (choice === 'cancel') {
        cancelled = true;
        say(`cancelling run ${payload.run_id}: the running repetition is stopped and the rest skipped…`);
        await queue.cancel(payload.run_id);
      } else {
        say(`left running: run ${payload.run_id}. Follow it with: intutic chaos status ${payload.run_id}`);
        if (worker) say('this process ran the only worker: it finishes the current repetition and exits; start `intutic chaos worker` to go on with the run');
        follow.abort();
      }
    };
    if (ctx.signal.aborted) void onInterrupt();
    else ctx.signal.addEventListener('abort', () => void onInterrupt(), { once: true });
    const end = await waitForRun(queue, payload.run_id, { signal: follow.signal });
    if (end.state === 'detached') return EXIT.ok;
    if (end.state === 'missing') throw new IntuticError('E_RUN_NOT_FOUND', `run ${payload.run_id} disappeared from the queue`);
    if (end.state === 'failed') {
      say(`error: the run could not be scored: ${end.reason}`);
      return EXIT.aborted;
    }
    const report = reportSchema.parse(end.result.report);
    ctx.stdout.write('\n' + renderSummary(report, { color: ctx.isTTY && !ctx.env.NO_COLOR }));
    return cancelled ? EXIT.interrupted : report.exit_code;
  } finally {
    await unsubscribe?.();
    await worker?.close();
    await queue.close();
  }
}

async function askCancelOrLeave(ctx: CliContext): Promise<'cancel' | 'leave'> {
  const rl = createInterface({ input: process.stdin, output: ctx.stderr });
  // A second Ctrl-C at the question means cancel.
  const interrupted = new Promise<'cancel'>((r) => rl.once('SIGINT', () => r('cancel')));
  try {
    for (;;) {
      const answer = await Promise.race([rl.question('\nCancel the run (c) or leave it running in the queue (l)? [c/l] '), interrupted]);
      if (answer === 'cancel' || /^c/i.test(answer.trim())) return 'cancel';
      if (/^l/i.test(answer.trim())) return 'leave';
    }
  } finally {
    rl.close();
  }
}

export function registerChaosRunCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('run')
    .description('run an experiment: baseline repetitions, then faulted ones, in the sandbox; score what the agent did')
    .argument('<file>', 'the experiment file (YAML)')
    .option('--sandbox-image <image>', 'the sandbox image (overrides sandbox_image; intutic/sandbox:<version>[-node] is built on first use)')
    .option('--out <report.json>', 'where the JSON report goes (default: under the OS temp directory)')
    .option('--keep', "keep each repetition's worktree", false)
    .option('--detach', 'enqueue the run and return; a worker runs it (intutic chaos worker)', false)
    .addHelpText(
      'after',
      [
        '',
        'Exit status: 0 scored, 1 aborted, 2 invalid, 3 could not run (bad file, no engine, dirty tree, no Redis), 130 cancelled.',
        'Ctrl-C asks whether to cancel the run or leave it running in the queue; when stdin is not a terminal it cancels.',
        'A second Ctrl-C exits at once (a repetition then in progress is failed, never re-run, when a worker next starts).',
        'Redis: REDIS_URL, default redis://127.0.0.1:6379; when none answers and none is configured, one is started (redis-server, or a container) with its data under ~/.intutic/redis.',
      ].join('\n'),
    )
    .action(async (file: string, raw: { sandboxImage?: string; out?: string; keep: boolean; detach: boolean }) => {
      const { ctx } = reg;
      const home = intuticHome(ctx.env);
      const resolveVariable = cliPlaceholderResolver(ctx);
      const workerOptions = (engine: Engine, config: QueueConfig, log: (line: string) => void) => ({
        config,
        engine,
        home,
        intuticCommand: resolveIntuticCommand(ctx.env),
        proxyExtraArgs: proxyExtraArgsFromEnv(ctx.env),
        env: ctx.env,
        version: ctx.version,
        log,
      });
      const code = await runChaosRun(
        { file, keep: raw.keep, detach: raw.detach, ...(raw.sandboxImage ? { sandboxImage: raw.sandboxImage } : {}), ...(raw.out ? { out: raw.out } : {}) },
        {
          ctx,
          validate: (f) => validateExperimentFile(resolve(ctx.cwd, f), { resolveVariable }),
          checkEngine: () => checkEngine({ env: ctx.env }),
          ensureImage: async (engine, image, log) => {
            const variant = sandboxVariantOf(image, ctx.version);
            if (variant) {
              await ensureSandboxImage(engine, { version: ctx.version, variant, env: ctx.env, onProgress: log });
              return;
            }
            const exists = await engine.docker.getImage(image).inspect().then(() => true, () => false);
            if (!exists) {
              throw new IntuticError('E_SANDBOX_FAILED', `the sandbox image ${image} does not exist on ${engine.endpoint}`, {
                hints: [`build it FROM intutic/sandbox:${ctx.version}-node (see "Bring your agent"), or pass --sandbox-image intutic/sandbox:${ctx.version}-node to have it built`],
              });
            }
          },
          connect: (engine, log) => connectRunQueue({ env: ctx.env, home, engine, log }),
          startWorker: (engine, config, log) => startChaosWorker(workerOptions(engine, config, log)),
          ask: () => askCancelOrLeave(ctx),
          interactive: ctx.isTTY && Boolean(process.stdin.isTTY),
        },
      );
      reg.setExit(code);
    });
}
