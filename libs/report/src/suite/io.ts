// Reading a suite report back (`chaos suite --compare <file>`): a clear message and a stable code for
// a missing file, non-JSON, another schema version or a file that is not a suite report.
import { readFile } from 'node:fs/promises';
import { IntuticError } from '@intutic/errors';
import { SUITE_REPORT_SCHEMA_VERSION, suiteReportSchema, type SuiteReport } from './schema.ts';

export async function readSuiteReport(path: string): Promise<SuiteReport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new IntuticError('E_FILE_NOT_FOUND', `cannot read the suite report ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new IntuticError('E_REPORT_INVALID', `${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = suiteReportSchema.safeParse(raw);
  if (!parsed.success) {
    const version = (raw as { schema_version?: unknown } | null)?.schema_version;
    const first = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    const why =
      version === SUITE_REPORT_SCHEMA_VERSION
        ? 'is not a valid intutic suite report'
        : `is not an intutic suite report of schema_version ${SUITE_REPORT_SCHEMA_VERSION}`;
    throw new IntuticError('E_REPORT_INVALID', `${path} ${why}`, { hints: first });
  }
  return parsed.data;
}
