// Where a suite's report goes: suite-report.json (the journal every suite view is rendered from) and
// suite-report.md beside it, written by the worker that runs the suite job, next to the cells' reports.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { renderSuiteJson, renderSuiteMarkdown, type SuiteReport } from '@intutic/report';

export async function writeSuiteReport(report: SuiteReport): Promise<void> {
  await mkdir(dirname(report.report_path), { recursive: true });
  await writeFile(report.report_path, renderSuiteJson(report));
  await writeFile(join(dirname(report.report_path), 'suite-report.md'), renderSuiteMarkdown(report));
}
