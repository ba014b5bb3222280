// `intutic chaos suite <suite.yaml>`: every experiment of the suite under every profile, as ONE
// queued flow whose children are the cells. Validates the suite and each experiment first (every
// error at once, file:line), pins HEAD once, builds each cell's run in its agent's image, enqueues,
// then follows the matrix filling in (or, with --detach, says how to) and prints the Markdown matrix,
// where the suite report's files are, and with --compare what changed since an earlier suite.
// Exit 0 every cell scored, 1 a cell aborted, failed or was skipped, 2 a cell invalid (and none
// aborted), 3 could not run (invalid suite, no engine, dirty tree, no Redis), 130 cancelled.
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { EXIT } from '@intutic/errors';
import type { SuiteSnapshot } from '@intutic/history';
import type { RunQueue } from '@intutic/queue';
import type { ChaosWorker } from '@intutic/runner';
import type { Registration } from '../program.ts';
import { chaosSuiteDeps } from './chaos-suite/deps.ts';
import { earlierSuite, finishSuite } from './chaos-suite/finish.ts';
import { followSuite, suiteExitCode } from './chaos-suite/follow.ts';
import type { ChaosSuiteDeps, ChaosSuiteOptions } from './chaos-suite/options.ts';
import { loadSuite, prepareSuite, type PreparedSuite } from './chaos-suite/prepare.ts';

export type { ChaosSuiteDeps, ChaosSuiteOptions } from './chaos-suite/options.ts';

export async function runChaosSuite(options: ChaosSuiteOptions, deps: ChaosSuiteDeps): Promise<number> {
  const say = (line: string) => deps.ctx.stderr.write(`${line}\n`);
  const suite = await loadSuite(options.file, deps, say);
  const earlier = options.compare ? await earlierSuite(options.compare, suite.name, deps) : null;
  const prepared = await prepareSuite(suite, options, deps);
  for (const note of prepared.notes) say(`note: ${note}`);
  const engine = await deps.checkEngine();
  for (const image of prepared.images) await deps.ensureImage(engine, image);
  if (deps.ctx.signal.aborted) return EXIT.interrupted;
  const { queue, config } = await deps.connect(engine, say);
  let worker: ChaosWorker | null = null;
  try {
    await queue.enqueueSuite(prepared.suite, prepared.cells);
    announce(prepared, say);
    const online = await queue.workersOnline();
    if (options.detach) return sayDetached(prepared, online, say);
    if (online === 0) {
      say('no worker is online: this process runs one for the suite (start more with `intutic chaos worker` to run cells side by side)');
      worker = await deps.startWorker(engine, config, say);
    }
    return await followToEnd(queue, prepared, earlier, deps, say);
  } finally {
    await worker?.close();
    await queue.close();
  }
}

function announce({ suite }: PreparedSuite, say: (line: string) => void): void {
  say(`suite ${suite.suite_id} (${suite.name}): ${suite.experiments.length} experiment(s) × ${suite.profiles.length} profile(s) = ${suite.cells.length} cells`);
  for (const p of suite.profiles) say(`  profile ${p.id}: ${p.agent}${p.model ? `, model ${p.model}` : ''}, image ${p.image}`);
  say(`  each cell's report and the suite report go to ${dirname(suite.report_path)}/`);
}

function sayDetached({ suite }: PreparedSuite, online: number, say: (line: string) => void): number {
  say(online > 0 ? `${online} worker(s) online` : 'no worker is online: start one with `intutic chaos worker` (or docker compose up) to run the suite');
  say(`follow the whole suite with: intutic chaos status ${suite.suite_id} --follow`);
  for (const cell of suite.cells) say(`  ${cell.experiment} × ${cell.profile}: run ${cell.run_id} (intutic chaos status ${cell.run_id} --follow)`);
  say(`when every cell has ended, the suite report is written to ${suite.report_path} (and suite-report.md beside it)`);
  return EXIT.ok;
}

async function followToEnd(queue: RunQueue, prepared: PreparedSuite, earlier: SuiteSnapshot | null, deps: ChaosSuiteDeps, say: (line: string) => void) {
  const followed = await followSuite(queue, prepared.suite, deps.ctx.signal, say);
  if (!followed) return EXIT.interrupted;
  const { report, cancelled } = followed;
  finishSuite(report, earlier, deps, say);
  return cancelled ? EXIT.interrupted : suiteExitCode(report);
}

const SUITE_HELP_AFTER = [
  '',
  'Exit status: 0 every cell scored, 1 a cell aborted, failed or was skipped, 2 a cell invalid, 3 could not run',
  '(invalid suite or experiment, no engine, dirty tree, no Redis), 130 cancelled (Ctrl-C cancels every cell still to come).',
  'Every problem of the suite file and of each experiment it names is listed at once (file:line:column); nothing is',
  'enqueued unless all are valid. Cells run on every online worker; with none online this process runs one.',
].join('\n');

export function registerChaosSuiteCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('suite')
    .description('run every experiment of a suite under every agent profile (one queued flow) and print the matrix')
    .argument('<suite.yaml>', 'the suite file (YAML): name, experiments, profiles, repetitions, cost_ceiling_usd')
    .option('--out <dir>', 'the directory for the suite report and each cell report (default: under the OS temp directory)')
    .option('--keep', "keep each repetition's worktree", false)
    .option('--detach', 'enqueue the suite and return; workers run it (intutic chaos worker)', false)
    .option('--parallel', "let several workers run one cell's phase at once (cells already run side by side on several workers)", false)
    .option('--compare <suite>', 'afterwards, say per cell what changed beyond noise since an earlier suite (its id, a prefix, or latest)')
    .option('--verbose', 'print every line of a sandbox image build')
    .addHelpText('after', SUITE_HELP_AFTER)
    .action(async (file: string, flags: ChaosSuiteFlags) => {
      const options: ChaosSuiteOptions = {
        file,
        keep: flags.keep,
        detach: flags.detach,
        parallel: flags.parallel,
        ...(flags.out ? { out: flags.out } : {}),
        ...(flags.compare ? { compare: flags.compare } : {}),
      };
      reg.setExit(await runChaosSuite(options, chaosSuiteDeps(reg.ctx, flags.verbose)));
    });
}

/** commander's flags, as `chaos suite` declares them. */
interface ChaosSuiteFlags {
  out?: string;
  keep: boolean;
  detach: boolean;
  parallel: boolean;
  compare?: string;
  verbose?: boolean;
}
