// Where a suite's report goes, written by the worker that runs the suite job, next to the cells'
// reports: suite-report.json (the journal every suite view is rendered from), .md, .html and the JUnit
// .xml; and the suite into the run history, as a run's scoring job records the run. So a detached
// suite, followed by nobody, ends with every file and its history entry all the same.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { recordSuite } from '@intutic/history';
import { renderSuiteHtml, renderSuiteJUnit, renderSuiteJson, renderSuiteMarkdown, type SuiteReport } from '@intutic/report';

/** Every file of the suite report, by the extension a user looks for. */
export function suiteReportFiles(reportPath: string): { json: string; md: string; html: string; xml: string } {
  const dir = dirname(reportPath);
  return { json: reportPath, md: join(dir, 'suite-report.md'), html: join(dir, 'suite-report.html'), xml: join(dir, 'suite-report.xml') };
}

export interface SuiteReportOptions {
  /** The intutic home whose history records the suite. */
  home: string;
  log?: (line: string) => void;
}

export async function writeSuiteReport(report: SuiteReport, options: SuiteReportOptions): Promise<void> {
  const files = suiteReportFiles(report.report_path);
  await mkdir(dirname(files.json), { recursive: true });
  await writeFile(files.json, renderSuiteJson(report));
  await writeFile(files.md, renderSuiteMarkdown(report));
  await writeFile(files.html, renderSuiteHtml(report));
  await writeFile(files.xml, renderSuiteJUnit(report));
  try {
    await recordSuite(report, { home: options.home });
    options.log?.(`suite ${report.suite.id} recorded in the run history under ${options.home}`);
  } catch (error) {
    options.log?.(`warning: suite ${report.suite.id} could not be recorded in the history under ${options.home}: ${(error as Error).message}`);
  }
}
