// The end of a followed suite: the Markdown matrix on stdout, where each file of the report is (the
// worker that ran the suite job wrote them all and recorded the suite in the history, so a detached
// suite has them too), and with --compare what changed since the earlier suite, cell by cell.
import { compareSuites, renderSuiteComparison, suiteSnapshotOfReport, type SuiteSnapshot } from '@intutic/history';
import { IntuticError } from '@intutic/errors';
import { renderSuiteMarkdown, type SuiteReport } from '@intutic/report';
import { suiteReportFiles } from '@intutic/runner';
import type { ChaosSuiteDeps } from './options.ts';

type Say = (line: string) => void;

export { suiteReportFiles };

/** `earlier`: the suite --compare named, looked up before anything ran. */
export function finishSuite(report: SuiteReport, earlier: SuiteSnapshot | null, deps: Pick<ChaosSuiteDeps, 'ctx'>, say: Say): void {
  const { ctx } = deps;
  const files = suiteReportFiles(report.report_path);
  ctx.stdout.write(`\n${renderSuiteMarkdown(report)}`);
  say(`suite report: ${files.json}`);
  say(`  Markdown ${files.md}, HTML ${files.html}, JUnit ${files.xml}`);
  say(`recorded in the run history by the worker that ran it (suite ${report.suite.id})`);
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
