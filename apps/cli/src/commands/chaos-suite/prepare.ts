// The suite before the queue: every diagnostic of the suite file and of each experiment it names,
// printed at once; then one run payload per cell (experiment × profile), built the way `chaos run`
// builds a run's (clean tree, HEAD pinned once for the whole suite, carry-in), each cell in the image
// `chaos run` would choose for its agent, its report beside the suite report.
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { IntuticError } from '@intutic/errors';
import { formatDiagnostic, profileAgentKind, type Experiment, type Suite } from '@intutic/experiment';
import { newRunId, type RunPayload, type SuitePayload } from '@intutic/queue';
import { prepareRun } from '@intutic/runner';
import { chooseSandboxImage } from '../chaos-run/image-choice.ts';
import type { ChaosSuiteDeps, ChaosSuiteOptions } from './options.ts';

/** The suite, after printing its diagnostics; throws (exit 3) when any file has an error. */
export async function loadSuite(file: string, deps: ChaosSuiteDeps, say: (line: string) => void): Promise<Suite> {
  const validation = await deps.validate(file);
  for (const d of validation.errors) say(formatDiagnostic(d, 'error'));
  for (const d of validation.warnings) say(formatDiagnostic(d, 'warning'));
  if (!validation.suite) {
    throw new IntuticError('E_EXPERIMENT_INVALID', `${file} is not a valid suite (${validation.errors.length} error(s) above); nothing was enqueued`, {
      hints: [`intutic chaos validate ${file} lists the same problems without running anything`],
    });
  }
  return validation.suite;
}

/** What a row injects, in one line: `egress.dns_fail on *.registry.npmjs.org`. */
export function faultLine(experiment: Experiment): string {
  return experiment.faults
    .map((f) => {
      const target = f.match.tool ?? f.match.host ?? f.match.model;
      return target ? `${f.id} on ${target}` : f.id;
    })
    .join(', ');
}

export interface PreparedSuite {
  suite: SuitePayload;
  cells: RunPayload[];
  /** The image of each profile's cells (every distinct one is checked, and built when it is intutic's). */
  images: string[];
  notes: string[];
}

export async function prepareSuite(suite: Suite, options: ChaosSuiteOptions, deps: ChaosSuiteDeps): Promise<PreparedSuite> {
  const { ctx } = deps;
  const suiteId = newRunId();
  const dir = options.out ? resolve(ctx.cwd, options.out) : join(tmpdir(), 'intutic-chaos', `suite-${suite.name}-${suiteId}`);
  const imageOf = (run: Experiment) => chooseSandboxImage(run, undefined, ctx.version).image;
  const first = suite.cells[0]!;
  // One pin and one carry-in for the whole suite: every cell runs on the same commit.
  const cellReport = (cell: Suite['cells'][number]) => join(dir, `${cell.experiment}--${cell.profile}.json`);
  const base = await prepareRun({
    experiment: first.run,
    experimentFile: suite.file,
    cwd: ctx.cwd,
    env: ctx.env,
    sandboxImage: imageOf(first.run),
    keep: options.keep,
    // Its notes then say when the reports would land inside the project (and dirty the next run's tree).
    out: cellReport(first),
  });
  const runIds = suite.cells.map((_, i) => `${suiteId}-${i + 1}`);
  const ceiling = suite.cost_ceiling_usd;
  const cells: RunPayload[] = suite.cells.map((cell, i) => ({
    ...base.payload,
    run_id: runIds[i]!,
    experiment: cell.run,
    experiment_file: suite.experiments.find((e) => e.experiment.name === cell.experiment)?.file ?? suite.file,
    sandbox_image: imageOf(cell.run),
    report_path: cellReport(cell),
    ...(options.parallel ? { parallel: true } : {}),
    suite: { id: suiteId, cost_ceiling_usd: ceiling, run_ids: runIds },
  }));
  const imageOfProfile = (id: string) => cells[suite.cells.findIndex((c) => c.profile === id)]!.sandbox_image;
  const payload: SuitePayload = {
    suite_id: suiteId,
    name: suite.name,
    file: suite.file,
    created_at: new Date().toISOString(),
    repetitions: suite.repetitions ?? Math.max(...suite.cells.map((c) => c.run.repeat)),
    cost_ceiling_usd: ceiling,
    profiles: suite.profiles.map((p) => ({ id: p.id, agent: profileAgentKind(p) ?? p.agent, model: p.model, image: imageOfProfile(p.id) })),
    experiments: suite.experiments.map(({ file, experiment }) => ({ name: experiment.name, file, fault: faultLine(experiment) })),
    cells: suite.cells.map((c, i) => ({ experiment: c.experiment, profile: c.profile, run_id: runIds[i]! })),
    report_path: join(dir, 'suite-report.json'),
    generator_version: ctx.version,
  };
  return { suite: payload, cells, images: [...new Set(cells.map((c) => c.sandbox_image))], notes: base.notes };
}
