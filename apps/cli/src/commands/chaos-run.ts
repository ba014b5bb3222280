// `intutic chaos run <file>`: validate, refuse a dirty tree or a missing engine, pin HEAD, capture the
// carry-in, enqueue the run's flow and follow it (phases, repetitions, the agent's stdout live), then
// print the summary and the report's path (and the JUnit / Markdown / HTML renderings asked for).
// Exit 0 scored, 1 aborted, 2 invalid, 3 could not run. Ctrl-C asks whether to cancel the run or
// leave it running; without a terminal it cancels. --dry-run stops before the queue: it shows the
// plan, the carry-in and the image check, and writes nothing.
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { compilePlan, formatDiagnostic, validateExperimentFile, type Experiment, type ValidationResult } from '@intutic/experiment';
import { connectRunQueue, repetitionJobId, type QueueConfig, type RunQueue } from '@intutic/queue';
import { writeRenderings, type RenderingTargets, type Report } from '@intutic/report';
import { prepareRun, startChaosWorker, type ChaosWorker } from '@intutic/runner';
import { checkEngine, ensureSandboxImage, sandboxImageTag, sandboxVariantOf, withBuildProgress, type Engine } from '@intutic/sandbox';
import { formatCarryIn, intuticHome, planCarryIn } from '@intutic/workspace';
import type { Registration } from '../cli.ts';
import { imageBuildProgress, type CliContext } from '../context.ts';
import { repetitionEffects } from '../runner-deps.ts';
import { awaitRunEnd, followCommand, showProgress } from '../follow-run.ts';
import { cliPlaceholderResolver } from '../shared/placeholders.ts';

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

/** Shown instead of a canary in the dry run's plan: each faulted repetition generates its own. */
export const CANARY_PLACEHOLDER = '<canary: E-INTUTIC-xxxxxxxx, generated per faulted repetition>';

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

export async function runChaosRun(options: ChaosRunOptions, deps: ChaosRunDeps): Promise<number> {
  const { ctx } = deps;
  const say = (line: string) => ctx.stderr.write(`${line}\n`);
  const validation = await deps.validate(options.file);
  for (const d of validation.errors) say(formatDiagnostic(d, 'error'));
  for (const d of validation.warnings) say(formatDiagnostic(d, 'warning'));
  if (validation.refused)
    throw new IntuticError(validation.refused, `${options.file} was not read: ${validation.errors[0]?.message ?? 'not a regular file of at most 1 MiB'}`);
  if (!validation.experiment)
    throw new IntuticError('E_EXPERIMENT_INVALID', `${options.file} is not a valid experiment (${validation.errors.length} error(s) above)`);
  const experiment = validation.experiment;
  // What may be printed: each placeholder's value shown as its ${NAME}.
  const printable = validation.printable ?? experiment;

  if (options.detach && options.renderings && Object.values(options.renderings).some(Boolean)) {
    throw new IntuticError('E_USAGE', '--junit, --summary-md and --html need the finished report: they cannot be used with --detach', {
      hints: ['Render them later with `intutic chaos report <report.json> --junit … --summary-md … --html …`.'],
    });
  }

  const image = options.sandboxImage ?? experiment.sandbox_image ?? sandboxImageTag(ctx.version, 'base');
  const prepared = await prepareRun({
    experiment,
    experimentFile: options.file,
    cwd: ctx.cwd,
    env: ctx.env,
    sandboxImage: image,
    ...(options.out ? { out: options.out } : {}),
    keep: options.keep,
  });
  const payload = options.parallel ? { ...prepared.payload, parallel: true } : prepared.payload;
  const engine = await deps.checkEngine();
  if (options.dryRun) return dryRun(prepared.notes, payload, printable, await deps.imageStatus(engine, image), ctx);
  await deps.ensureImage(engine, image);
  for (const note of prepared.notes) say(`note: ${note}`);
  const carried = formatCarryIn(planCarryIn(payload.carry_in));
  // One line: `--dry-run` lists them one per line, and each repetition's log has them too.
  if (carried.length > 0) say(`carried into each repetition's worktree (never into your project): ${carried.join('; ')}`);
  for (const warning of payload.carry_in.warnings) say(`warning: ${warning}`);
  if (ctx.signal.aborted) return EXIT.interrupted;

  const { queue, config } = await deps.connect(engine, say);
  let worker: ChaosWorker | null = null;
  let unsubscribe: (() => Promise<void>) | null = null;
  try {
    if (!options.detach) unsubscribe = await showProgress(queue, payload.run_id, ctx);
    await queue.enqueue(payload);
    const total = experiment.repeat * 2;
    say(
      `run ${payload.run_id}: ${experiment.name}, ${experiment.repeat} baseline then ${experiment.repeat} faulted repetitions (${total}), commit ${payload.commit.slice(0, 12)}, image ${image}`,
    );
    say(`report: ${payload.report_path}`);
    const online = await queue.workersOnline();
    if (options.detach) {
      const followHint = `follow it with: ${followCommand(payload.run_id)}`;
      say(
        online > 0
          ? `${online} worker(s) online; ${followHint}`
          : `no worker is online: start one with \`intutic chaos worker\` (or docker compose up) to run it, then ${followHint}`,
      );
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
        say(`left running: run ${payload.run_id}. Follow it with: ${followCommand(payload.run_id)}`);
        if (worker) say('this process ran the only worker: it finishes the current repetition and exits; start `intutic chaos worker` to go on with the run');
        follow.abort();
      }
    };
    if (ctx.signal.aborted) void onInterrupt();
    else ctx.signal.addEventListener('abort', () => void onInterrupt(), { once: true });
    const end = await awaitRunEnd(queue, payload.run_id, ctx, follow.signal);
    if (end.state === 'detached') return EXIT.ok;
    if (!end.report) return end.code;
    const code = cancelled ? EXIT.interrupted : end.code;
    return (await writeRequestedRenderings(end.report, options.renderings, ctx)) ? code : Math.max(code, EXIT.couldNotRun);
  } finally {
    await unsubscribe?.();
    await worker?.close();
    await queue.close();
  }
}

/** Writes the renderings asked for; false (after saying why) when one could not be written. */
async function writeRequestedRenderings(report: Report, targets: RenderingTargets | undefined, ctx: CliContext): Promise<boolean> {
  if (!targets) return true;
  const resolved: RenderingTargets = {};
  for (const key of ['junit', 'summaryMd', 'html'] as const) if (targets[key]) resolved[key] = resolve(ctx.cwd, targets[key]);
  if (Object.keys(resolved).length === 0) return true;
  try {
    for (const written of await writeRenderings(report, resolved, { readFrom: report.report_path })) ctx.stderr.write(`${written.kind}: ${written.path}\n`);
    return true;
  } catch (error) {
    ctx.stderr.write(`error: the renderings could not be written (the report is at ${report.report_path}): ${(error as Error).message}\n`);
    return false;
  }
}

/** --dry-run: what the run would do, on stdout; nothing enqueued, started or written. */
function dryRun(notes: string[], payload: ChaosRunOptionsPayload, printable: Experiment, image: ImageStatus, ctx: CliContext): number {
  const { experiment } = payload;
  const out = (line = '') => ctx.stdout.write(`${line}\n`);
  out(`dry run of ${experiment.name}: nothing is enqueued, started or written`);
  out(
    `  ${experiment.repeat} baseline then ${experiment.repeat} faulted repetitions${payload.parallel ? " (--parallel: a phase's repetitions on several workers at once)" : ''}`,
  );
  out(`  commit ${payload.commit} of ${payload.repo.path}${payload.repo.remote ? ` (remote ${payload.repo.remote})` : ''}`);
  out(`  report would go to ${payload.report_path}`);
  for (const note of notes) out(`  note: ${note}`);
  const imageLine = {
    present: 'present',
    'would-build': 'not present: it would be built on first use',
    missing: 'MISSING, and not an intutic image that could be built',
  }[image];
  out(`  image ${payload.sandbox_image}: ${imageLine}`);
  out('');
  out(`the plan each faulted repetition gets (its own run id and canary; run ids ${repetitionJobId(payload.run_id, 'faulted', 1)}…):`);
  out(JSON.stringify(compilePlan(printable, repetitionJobId(payload.run_id, 'faulted', 1), CANARY_PLACEHOLDER), null, 2));
  out('');
  const carried = formatCarryIn(planCarryIn(payload.carry_in));
  out(carried.length > 0 ? `carried into each repetition's worktree:\n${carried.map((l) => `  ${l}`).join('\n')}` : 'nothing is carried into the worktrees');
  for (const warning of payload.carry_in.warnings) out(`warning: ${warning}`);
  if (payload.env_names.length > 0) out(`provider keys, kept on the host (the sandbox gets a stand-in under each name): ${payload.env_names.join(', ')}`);
  out('');
  if (image === 'missing') {
    out(`it could not run: the image ${payload.sandbox_image} does not exist (build it FROM intutic/sandbox:${ctx.version}-node)`);
    return EXIT.couldNotRun;
  }
  out('it would run: drop --dry-run to start it');
  return EXIT.ok;
}

type ChaosRunOptionsPayload = Awaited<ReturnType<typeof prepareRun>>['payload'];

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
    .option('--parallel', "let several workers run one phase's repetitions at once (baselines still all finish before any faulted one)", false)
    .option('--dry-run', 'validate, show the plan, the carry-in and the image check, then stop: nothing is enqueued or written', false)
    .option('--junit <file.xml>', 'also write a JUnit XML file (a testcase per probe per faulted repetition)')
    .option('--summary-md <file.md>', 'also write a Markdown summary (for a CI step summary)')
    .option('--html <file.html>', 'also write the self-contained HTML report')
    .option('--verbose', 'print every line of a sandbox image build (default: progress, the full log to a file)')
    .addHelpText(
      'after',
      [
        '',
        'Exit status: 0 scored, 1 aborted, 2 invalid, 3 could not run (bad file, no engine, dirty tree, no Redis), 130 cancelled.',
        'With --dry-run: 0 when it would run, 3 when it could not. No Redis is needed and nothing is written.',
        'Ctrl-C asks whether to cancel the run or leave it running in the queue; when stdin is not a terminal it cancels.',
        'A second Ctrl-C exits at once (a repetition then in progress is failed, never re-run, when a worker next starts).',
        'Redis: REDIS_URL, default redis://127.0.0.1:6379; when none answers and none is configured, one is started (redis-server, or a container) with its data under ~/.intutic/redis.',
      ].join('\n'),
    )
    .action(
      async (
        file: string,
        raw: {
          sandboxImage?: string;
          out?: string;
          keep: boolean;
          detach: boolean;
          parallel: boolean;
          dryRun: boolean;
          junit?: string;
          summaryMd?: string;
          html?: string;
          verbose?: boolean;
        },
      ) => {
        const { ctx } = reg;
        const home = intuticHome(ctx.env);
        const resolveVariable = cliPlaceholderResolver(ctx);
        const workerOptions = (engine: Engine, config: QueueConfig, log: (line: string) => void) => ({
          config,
          engine,
          home,
          effects: repetitionEffects(ctx.env, engine),
          env: ctx.env,
          version: ctx.version,
          log,
        });
        const code = await runChaosRun(
          {
            file,
            keep: raw.keep,
            detach: raw.detach,
            parallel: raw.parallel,
            dryRun: raw.dryRun,
            renderings: {
              ...(raw.junit ? { junit: raw.junit } : {}),
              ...(raw.summaryMd ? { summaryMd: raw.summaryMd } : {}),
              ...(raw.html ? { html: raw.html } : {}),
            },
            ...(raw.sandboxImage ? { sandboxImage: raw.sandboxImage } : {}),
            ...(raw.out ? { out: raw.out } : {}),
          },
          {
            ctx,
            validate: (f) => validateExperimentFile(resolve(ctx.cwd, f), { resolveVariable }),
            checkEngine: () => checkEngine({ env: ctx.env }),
            ensureImage: async (engine, image) => {
              const variant = sandboxVariantOf(image, ctx.version);
              if (variant) {
                await withBuildProgress(imageBuildProgress(ctx, raw.verbose), (onProgress) =>
                  ensureSandboxImage(engine, { version: ctx.version, variant, env: ctx.env, onProgress }),
                );
                return;
              }
              const exists = await engine.docker
                .getImage(image)
                .inspect()
                .then(
                  () => true,
                  () => false,
                );
              if (!exists) {
                throw new IntuticError('E_SANDBOX_FAILED', `the sandbox image ${image} does not exist on ${engine.endpoint}`, {
                  hints: [
                    `build it FROM intutic/sandbox:${ctx.version}-node (see "Bring your agent"), or pass --sandbox-image intutic/sandbox:${ctx.version}-node to have it built`,
                  ],
                });
              }
            },
            imageStatus: async (engine, image) => {
              if (
                await engine.docker
                  .getImage(image)
                  .inspect()
                  .then(
                    () => true,
                    () => false,
                  )
              )
                return 'present';
              return sandboxVariantOf(image, ctx.version) ? 'would-build' : 'missing';
            },
            connect: (engine, log) => connectRunQueue({ env: ctx.env, home, engine, log }),
            startWorker: (engine, config, log) => startChaosWorker(workerOptions(engine, config, log)),
            ask: () => askCancelOrLeave(ctx),
            interactive: ctx.isTTY && Boolean(process.stdin.isTTY),
          },
        );
        reg.setExit(code);
      },
    );
}
