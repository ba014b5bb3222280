// `intutic chaos run <file>`: validate, refuse a dirty tree or a missing engine, pin HEAD, capture the
// carry-in, enqueue the run's flow and follow it (phases, repetitions, the agent's stdout live), then
// print the summary and the report's path (and the JUnit / Markdown / HTML renderings asked for).
// Exit 0 scored, 1 aborted, 2 invalid, 3 could not run. Ctrl-C asks whether to cancel the run or
// leave it running; without a terminal it cancels. --dry-run stops before the queue: it shows the
// plan, the carry-in and the image check, and writes nothing.
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { formatDiagnostic } from '@intutic/experiment';
import { prepareRun } from '@intutic/runner';
import { formatCarryIn, planCarryIn } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import { chaosRunDeps } from './chaos-run/deps.ts';
import { dryRun } from './chaos-run/dry-run.ts';
import { chooseSandboxImage } from './chaos-run/image-choice.ts';
import type { ChaosRunDeps, ChaosRunOptions, PreparedPayload } from './chaos-run/options.ts';
import { enqueueAndFollow } from './chaos-run/queue-run.ts';
import { refuseRenderingsWhenDetached } from './chaos-run/renderings.ts';

export type { ChaosRunDeps, ChaosRunOptions, ImageStatus } from './chaos-run/options.ts';
export { CANARY_PLACEHOLDER } from './chaos-run/dry-run.ts';

export async function runChaosRun(options: ChaosRunOptions, deps: ChaosRunDeps): Promise<number> {
  const { ctx } = deps;
  const say = (line: string) => ctx.stderr.write(`${line}\n`);
  const { experiment, printable } = await loadExperiment(options.file, deps, say);
  refuseRenderingsWhenDetached(options);
  const { image, why } = chooseSandboxImage(experiment, options.sandboxImage, ctx.version);
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
  if (options.dryRun) return dryRun(prepared.notes, payload, printable, { status: await deps.imageStatus(engine, image), why }, ctx);
  await deps.ensureImage(engine, image);
  say(`sandbox image ${image} (${why})`);
  sayNotesAndCarryIn(prepared.notes, payload, say);
  if (ctx.signal.aborted) return EXIT.interrupted;
  return enqueueAndFollow({ options, deps, engine, image, experiment, payload, say });
}

/** The experiment, after printing its diagnostics; throws when it was not read or is not valid. */
async function loadExperiment(file: string, deps: ChaosRunDeps, say: (line: string) => void) {
  const validation = await deps.validate(file);
  for (const d of validation.errors) say(formatDiagnostic(d, 'error'));
  for (const d of validation.warnings) say(formatDiagnostic(d, 'warning'));
  if (validation.refused)
    throw new IntuticError(validation.refused, `${file} was not read: ${validation.errors[0]?.message ?? 'not a regular file of at most 1 MiB'}`);
  if (!validation.experiment) throw new IntuticError('E_EXPERIMENT_INVALID', `${file} is not a valid experiment (${validation.errors.length} error(s) above)`);
  const experiment = validation.experiment;
  // What may be printed: each placeholder's value shown as its ${NAME}.
  return { experiment, printable: validation.printable ?? experiment };
}

function sayNotesAndCarryIn(notes: string[], payload: PreparedPayload, say: (line: string) => void): void {
  for (const note of notes) say(`note: ${note}`);
  const carried = formatCarryIn(planCarryIn(payload.carry_in));
  // One line: `--dry-run` lists them one per line, and each repetition's log has them too.
  if (carried.length > 0) say(`carried into each repetition's worktree (never into your project): ${carried.join('; ')}`);
  for (const warning of payload.carry_in.warnings) say(`warning: ${warning}`);
}

const RUN_HELP_AFTER = [
  '',
  'Exit status: 0 scored, 1 aborted, 2 invalid, 3 could not run (bad file, no engine, dirty tree, no Redis), 130 cancelled.',
  'With --dry-run: 0 when it would run, 3 when it could not. No Redis is needed and nothing is written.',
  'Ctrl-C asks whether to cancel the run or leave it running in the queue; when stdin is not a terminal it cancels.',
  'A second Ctrl-C exits at once (a repetition then in progress is failed, never re-run, when a worker next starts).',
  'Redis: REDIS_URL, default redis://127.0.0.1:6379; when none answers and none is configured, one is started (redis-server, or a container) with its data under ~/.intutic/redis.',
].join('\n');

export function registerChaosRunCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('run')
    .description('run an experiment: baseline repetitions, then faulted ones, in the sandbox; score what the agent did')
    .argument('<file>', 'the experiment file (YAML)')
    .option(
      '--sandbox-image <image>',
      "the sandbox image (overrides sandbox_image; default: the shipped agent's image when the agent command starts Claude Code, Codex or Gemini CLI, else intutic/sandbox:<version>; intutic images are built on first use)",
    )
    .option('--out <report.json>', 'where the JSON report goes (default: under the OS temp directory)')
    .option('--keep', "keep each repetition's worktree", false)
    .option('--detach', 'enqueue the run and return; a worker runs it (intutic chaos worker)', false)
    .option('--parallel', "let several workers run one phase's repetitions at once (baselines still all finish before any faulted one)", false)
    .option('--dry-run', 'validate, show the plan, the carry-in and the image check, then stop: nothing is enqueued or written', false)
    .option('--junit <file.xml>', 'also write a JUnit XML file (a testcase per probe per faulted repetition)')
    .option('--summary-md <file.md>', 'also write a Markdown summary (for a CI step summary)')
    .option('--html <file.html>', 'also write the self-contained HTML report')
    .option('--verbose', 'print every line of a sandbox image build (default: progress, the full log to a file)')
    .addHelpText('after', RUN_HELP_AFTER)
    .action(async (file: string, flags: ChaosRunFlags) => {
      const options = chaosRunOptions(file, flags);
      reg.setExit(await runChaosRun(options, chaosRunDeps(reg.ctx, flags.verbose)));
    });
}

/** commander's flags, as `chaos run` declares them. */
interface ChaosRunFlags {
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
}

function chaosRunOptions(file: string, flags: ChaosRunFlags): ChaosRunOptions {
  return {
    file,
    keep: flags.keep,
    detach: flags.detach,
    parallel: flags.parallel,
    dryRun: flags.dryRun,
    renderings: {
      ...(flags.junit ? { junit: flags.junit } : {}),
      ...(flags.summaryMd ? { summaryMd: flags.summaryMd } : {}),
      ...(flags.html ? { html: flags.html } : {}),
    },
    ...(flags.sandboxImage ? { sandboxImage: flags.sandboxImage } : {}),
    ...(flags.out ? { out: flags.out } : {}),
  };
}
