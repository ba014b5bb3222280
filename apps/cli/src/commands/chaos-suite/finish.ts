// The end of a followed suite: the renderings the worker does not write (HTML, JUnit) beside the
// suite-report.json and .md it wrote, the Markdown matrix on stdout, where each file is, the suite in
// the history, and with --compare what changed since the earlier suite, cell by cell.
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { compareSuites, recordSuite, renderSuiteComparison, suiteSnapshotOfReport, type SuiteSnapshot } from '@intutic/history';
import { IntuticError } from '@intutic/errors';
import { renderSuiteHtml, renderSuiteJUnit, renderSuiteMarkdown, type SuiteReport } from '@intutic/report';
import { intuticHome } from '@intutic/workspace';
import type { ChaosSuiteDeps } from './options.ts';

type Say = (line: string) => void;

/** Every file of the suite report, by the extension a user looks for. */
export function suiteReportFiles(reportPath: string): { json: string; md: string; html: string; xml: string } {
  const dir = dirname(reportPath);
  return { json: reportPath, md: join(dir, 'suite-report.md'), html: join(dir, 'suite-report.html'), xml: join(dir, 'suite-report.xml') };
}

/** `earlier`: the suite --compare named, looked up before anything ran. */
export async function finishSuite(report: SuiteReport, earlier: SuiteSnapshot | null, deps: ChaosSuiteDeps, say: Say): Promise<void> {
  const { ctx } = deps;
  const files = suiteReportFiles(report.report_path);
  await writeFile(files.html, renderSuiteHtml(report));
  await writeFile(files.xml, renderSuiteJUnit(report));
  ctx.stdout.write(`\n${renderSuiteMarkdown(report)}`);
  say(`suite report: ${files.json}`);
  say(`  Markdown ${files.md}, HTML ${files.html}, JUnit ${files.xml}`);
  const home = intuticHome(ctx.env);
  try {
    await recordSuite(report, { home });
    say(`recorded in the run history under ${home} (suite ${report.suite.id})`);
  } catch (error) {
    say(`warning: the suite could not be recorded in the history under ${home}: ${(error as Error).message}`);
  }
  if (earlier) ctx.stdout.write(`\n${renderSuiteComparison(compareSuites(earlier, suiteSnapshotOfReport(report)))}`);
}

/** The suite --compare names, from the history; refused before the suite runs when there is none. */
export async function earlierSuite(ref: string, name: string, deps: ChaosSuiteDeps): Promise<SuiteSnapshot> {
  const earlier = await deps.findSuite(ref, name);
  if (earlier) return earlier;
  throw new IntuticError('E_RUN_NOT_FOUND', `--compare ${ref}: no such suite in the history; nothing was enqueued`, {
    hints: [`a suite's id is in its suite-report.json (suite.id); "latest" takes the newest recorded suite named ${name}`],
  });
}
