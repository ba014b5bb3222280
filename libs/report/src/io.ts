// Writing and reading reports. Writes are atomic (a temp file renamed over the target), so a crash
// or a full disk never leaves half a report (the temp file is removed, and a full disk is said as
// such, naming the directory); reading validates against the schema and names what is wrong.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { IntuticError, writeFailure } from '@intutic/errors';
import { reportSchema, REPORT_SCHEMA_VERSION, type Report } from './schema.ts';

/** Reports go under the OS temp directory by default, so they never dirty the tree the next run needs clean. */
export function defaultReportPath(experimentName: string, runId: string, tmp: string = tmpdir()): string {
  return join(tmp, 'intutic-chaos', `${experimentName}-${runId}.json`);
}

/** The directory named after the report that holds each repetition's events, outputs and proxy log. */
export function artifactsDirFor(reportPath: string): string {
  return join(dirname(reportPath), `${basename(reportPath).replace(/\.json$/i, '')}.artifacts`);
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temp, JSON.stringify(value, null, 2) + '\n', { mode: 0o644 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw writeFailure(dirname(path), basename(path), error);
  }
}

export async function writeReport(report: Report): Promise<void> {
  await writeJsonAtomic(report.report_path, reportSchema.parse(report));
}

export async function readReport(path: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new IntuticError('E_FILE_NOT_FOUND', `cannot read the report ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new IntuticError('E_REPORT_INVALID', `${path} is not JSON: ${(error as Error).message}`);
  }
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (version !== REPORT_SCHEMA_VERSION) {
    throw new IntuticError('E_REPORT_INVALID', `${path} has schema_version ${JSON.stringify(version)}; this intutic reads version ${REPORT_SCHEMA_VERSION}`);
  }
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new IntuticError('E_REPORT_INVALID', `${path} is not a valid intutic report`, { hints: first });
  }
  return parsed.data;
}
