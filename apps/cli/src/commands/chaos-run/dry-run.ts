// `chaos run --dry-run`: what the run would do, on stdout — the plan a faulted repetition gets, the
// carry-in, the provider keys and the image check. Nothing is enqueued, started or written.
import { EXIT } from '@intutic/errors';
import { compilePlan, type Experiment } from '@intutic/experiment';
import { repetitionJobId } from '@intutic/queue';
import { formatCarryIn, planCarryIn } from '@intutic/workspace';
import type { CliContext } from '../../context.ts';
import type { ImageStatus, PreparedPayload } from './options.ts';

/** Shown instead of a canary in the dry run's plan: each faulted repetition generates its own. */
export const CANARY_PLACEHOLDER = '<canary: E-INTUTIC-xxxxxxxx, generated per faulted repetition>';

const IMAGE_LINES: Record<ImageStatus, string> = {
  present: 'present',
  'would-build': 'not present: it would be built on first use',
  missing: 'MISSING, and not an intutic image that could be built',
};

/** Exit 0 when it would run, 3 when it could not (the image is missing). */
export function dryRun(notes: string[], payload: PreparedPayload, printable: Experiment, image: { status: ImageStatus; why: string }, ctx: CliContext): number {
  const { experiment } = payload;
  const out = (line = '') => ctx.stdout.write(`${line}\n`);
  out(`dry run of ${experiment.name}: nothing is enqueued, started or written`);
  out(
    `  ${experiment.repeat} baseline then ${experiment.repeat} faulted repetitions${payload.parallel ? " (--parallel: a phase's repetitions on several workers at once)" : ''}`,
  );
  out(`  commit ${payload.commit} of ${payload.repo.path}${payload.repo.remote ? ` (remote ${payload.repo.remote})` : ''}`);
  out(`  report would go to ${payload.report_path}`);
  for (const note of notes) out(`  note: ${note}`);
  out(`  image ${payload.sandbox_image} (${image.why}): ${IMAGE_LINES[image.status]}`);
  out('');
  out(`the plan each faulted repetition gets (its own run id and canary; run ids ${repetitionJobId(payload.run_id, 'faulted', 1)}…):`);
  out(JSON.stringify(compilePlan(printable, repetitionJobId(payload.run_id, 'faulted', 1), CANARY_PLACEHOLDER), null, 2));
  out('');
  const carried = formatCarryIn(planCarryIn(payload.carry_in));
  out(carried.length > 0 ? `carried into each repetition's worktree:\n${carried.map((l) => `  ${l}`).join('\n')}` : 'nothing is carried into the worktrees');
  for (const warning of payload.carry_in.warnings) out(`warning: ${warning}`);
  if (payload.env_names.length > 0) out(`provider keys, kept on the host (the sandbox gets a stand-in under each name): ${payload.env_names.join(', ')}`);
  out('');
  if (image.status === 'missing') {
    out(`it could not run: the image ${payload.sandbox_image} does not exist (build it FROM intutic/sandbox:${ctx.version}-node)`);
    return EXIT.couldNotRun;
  }
  out('it would run: drop --dry-run to start it');
  return EXIT.ok;
}
