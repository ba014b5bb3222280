// Validating an experiment file: YAML (with positions) -> placeholders -> file schema -> semantic
// rules -> normalized Experiment -> warnings. Every problem is reported at once, located as
// line:column; bad input never throws.
import { readFile } from 'node:fs/promises';
import type { Diagnostic, Finding } from './diagnostics.ts';
import { experimentFileSchema } from './file-schema.ts';
import { findingsFromIssues } from './issues.ts';
import type { Experiment } from './model.ts';
import { normalizeExperiment } from './normalize.ts';
import { resolvePlaceholders, type ResolveVariable } from './placeholders.ts';
import { semanticErrors } from './rules.ts';
import { locate, parseYamlSource, type LocatedProblem, type YamlSource } from './source.ts';
import { experimentWarnings } from './warnings.ts';

export interface ValidateDeps {
  /** The value of a `${NAME}` placeholder's variable; see environmentResolver. */
  resolveVariable: ResolveVariable;
}

export interface ValidationResult {
  /** Present exactly when there are no errors. */
  experiment?: Experiment;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

const byPosition = (a: Diagnostic, b: Diagnostic): number => a.line - b.line || a.column - b.column;

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.line}:${d.column}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).sort(byPosition);
}

export function validateExperimentText(text: string, file: string, deps: ValidateDeps): ValidationResult {
  try {
    return validate(text, file, deps);
  } catch (error) {
    // A bug must not look like a crash to the user, and must not look like their mistake either.
    const detail = error instanceof Error ? error.message : String(error);
    return { errors: [{ file, line: 1, column: 1, message: `internal error while validating (a bug in intutic, please report it): ${detail}`, code: 'internal' }], warnings: [] };
  }
}

function validate(text: string, file: string, deps: ValidateDeps): ValidationResult {
  const source = parseYamlSource(text);
  const fromProblem = (p: LocatedProblem): Diagnostic => ({ file, line: p.line, column: p.column, message: p.message, code: p.code });
  const fromFinding = (f: Finding): Diagnostic => ({ file, ...locate(source, f), message: f.message, code: f.code });
  const yamlWarnings = source.warnings.map(fromProblem);
  if (source.errors.length > 0) {
    // One syntax slip often trips several parser rules on the same line; the first says it best.
    const firstPerLine = source.errors.filter((e, i, all) => all.findIndex((o) => o.line === e.line) === i);
    return { errors: dedupe(firstPerLine.map(fromProblem)), warnings: yamlWarnings };
  }

  const root = source.doc.contents;
  if (root === null || (typeof root === 'object' && 'value' in root && (root.value === null || root.value === ''))) {
    const message = 'the file is empty: an experiment is a YAML mapping with name, agent, verify, repeat, faults, probes and abort';
    return { errors: [{ file, line: 1, column: 1, message, code: 'empty-file' }], warnings: yamlWarnings };
  }

  const errors = resolvePlaceholders(source, deps.resolveVariable).map(fromProblem);
  const data = toData(source);
  if ('failure' in data) {
    errors.push({ file, line: 1, column: 1, message: `YAML: ${data.failure}`, code: 'yaml-syntax' });
    return { errors: dedupe(errors), warnings: yamlWarnings };
  }
  const raw = data.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const got = Array.isArray(raw) ? 'a list' : `a ${raw === null ? 'null' : typeof raw} value`;
    errors.push(fromFinding({ path: [], at: 'value', code: 'not-a-mapping', message: `an experiment is a YAML mapping of keys (name: …, agent: …), not ${got}` }));
    return { errors: dedupe(errors), warnings: yamlWarnings };
  }

  const parsed = experimentFileSchema.safeParse(raw);
  const findings = [...(parsed.success ? [] : findingsFromIssues(parsed.error.issues, raw)), ...semanticErrors(raw)];
  errors.push(...findings.map(fromFinding));
  if (!parsed.success || errors.length > 0) return { errors: dedupe(errors), warnings: yamlWarnings };

  const normalized = normalizeExperiment(parsed.data, raw);
  errors.push(...normalized.findings.map(fromFinding));
  if (!normalized.experiment || errors.length > 0) return { errors: dedupe(errors), warnings: yamlWarnings };

  const warnings = [...yamlWarnings, ...experimentWarnings(normalized.experiment).map(fromFinding)];
  return { experiment: normalized.experiment, errors: [], warnings: dedupe(warnings) };
}

function toData(source: YamlSource): { value: unknown } | { failure: string } {
  try {
    // maxAliasCount bounds "billion laughs" expansion.
    return { value: source.doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

/** Read and validate a file; a missing or unreadable file is an error diagnostic, never a throw. */
export async function validateExperimentFile(path: string, deps: ValidateDeps): Promise<ValidationResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    return { errors: [{ file: path, line: 0, column: 0, message: readFailure(error), code: 'file-unreadable' }], warnings: [] };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { errors: [{ file: path, line: 0, column: 0, message: 'not UTF-8 text: an experiment file is YAML', code: 'file-unreadable' }], warnings: [] };
  }
  if (text.includes('\u0000')) {
    return { errors: [{ file: path, line: 0, column: 0, message: 'a binary file, not YAML', code: 'file-unreadable' }], warnings: [] };
  }
  return validateExperimentText(text, path, deps);
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory, not an experiment file';
    case 'EACCES':
    case 'EPERM':
      return 'cannot read the file: permission denied';
    default:
      return `cannot read the file: ${error instanceof Error ? error.message : String(error)}`;
  }
}
