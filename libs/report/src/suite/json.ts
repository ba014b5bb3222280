// The suite's JSON view: the SuiteReport itself (validated, so a caller never writes a file another
// version cannot read back), pretty-printed. The matrix, overall scores and differences are derived
// views; they are recomputed from it (suiteMatrix), never stored beside it.
import { suiteReportSchema, type SuiteReport } from './schema.ts';

export function renderSuiteJson(report: SuiteReport): string {
  return `${JSON.stringify(suiteReportSchema.parse(report), null, 2)}\n`;
}
