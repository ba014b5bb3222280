// `intutic chaos report <report.json> [--html f] [--junit f] [--summary-md f]`: render a finished run
// for people and CI — a self-contained HTML page with a timeline per repetition (read from the
// artifacts beside the report; missing artifacts are said on the page), JUnit XML, a Markdown summary.
// Each file is written atomically. Without an output flag it prints the terminal summary.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { readReport, renderSummary, writeRenderings, type RenderingTargets } from '@intutic/report';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export interface ChaosReportOptions {
  report: string;
  html?: string;
  junit?: string;
  summaryMd?: string;
}

export async function runChaosReport(options: ChaosReportOptions, ctx: CliContext): Promise<number> {
  const reportPath = resolve(ctx.cwd, options.report);
  const report = await readReport(reportPath);
  const targets: RenderingTargets = {};
  if (options.html) targets.html = resolve(ctx.cwd, options.html);
  if (options.junit) targets.junit = resolve(ctx.cwd, options.junit);
  if (options.summaryMd) targets.summaryMd = resolve(ctx.cwd, options.summaryMd);
  if (Object.keys(targets).length === 0) {
    ctx.stdout.write(renderSummary(report, { color: ctx.isTTY && !ctx.env.NO_COLOR }));
    ctx.stderr.write('(pass --html, --junit or --summary-md to write a rendering)\n');
    return 0;
  }
  const written = await writeRenderings(report, targets, { readFrom: reportPath });
  for (const w of written) ctx.stdout.write(`wrote ${w.kind}: ${w.path}\n`);
  return 0;
}

export function registerChaosReportCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('report')
    .description('render a finished run: a self-contained HTML page, JUnit XML for CI, a Markdown summary')
    .argument('<report>', 'the JSON report of the run')
    .option('--html <file>', 'write one self-contained HTML page: verdict, score, probes with intervals, a timeline per repetition')
    .option('--junit <file>', 'write JUnit XML: a testcase per probe per faulted repetition')
    .option('--summary-md <file>', 'write a Markdown summary for a CI step page (e.g. then append it to $GITHUB_STEP_SUMMARY)')
    .addHelpText(
      'after',
      '\nThe timeline is read from the artifacts directory named after the report; when it is missing the page says so.\nExit status: 0 written, 3 the report could not be read.',
    )
    .action(async (report: string, raw: { html?: string; junit?: string; summaryMd?: string }) => {
      reg.setExit(await runChaosReport({ report, ...raw }, reg.ctx));
    });
}
