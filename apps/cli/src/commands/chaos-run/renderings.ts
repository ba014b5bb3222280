// The JUnit / Markdown / HTML renderings `chaos run` writes once the report is: they need the
// finished report, so --detach refuses them; one failing to be written costs exit 3, never the report.
import { resolve } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { writeRenderings, type RenderingTargets, type Report } from '@intutic/report';
import type { CliContext } from '../../context.ts';
import type { ChaosRunOptions } from './options.ts';

/** E_USAGE when renderings are asked for with --detach (this process would not see the report). */
export function refuseRenderingsWhenDetached(options: ChaosRunOptions): void {
  if (options.detach && options.renderings && Object.values(options.renderings).some(Boolean)) {
    throw new IntuticError('E_USAGE', '--junit, --summary-md and --html need the finished report: they cannot be used with --detach', {
      hints: ['Render them later with `intutic chaos report <report.json> --junit … --summary-md … --html …`.'],
    });
  }
}

/** Writes the renderings asked for; false (after saying why) when one could not be written. */
export async function writeRequestedRenderings(report: Report, targets: RenderingTargets | undefined, ctx: CliContext): Promise<boolean> {
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
