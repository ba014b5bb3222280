// Validating an experiment file: YAML (with positions) -> placeholders -> file schema -> semantic
// rules -> normalized Experiment -> warnings. Every problem is reported at once, located as
// line:column; bad input never throws. Whatever the file holds, the work stays linear in its size
// (see limits.ts), and no message shows a placeholder's value, only its name.
import type { Diagnostic, Finding } from './diagnostics.ts';
import { experimentFileSchema } from './file-schema.ts';
import { findingsFromIssues } from './issues.ts';
import { MAX_DIAGNOSTICS } from './limits.ts';
import { readExperimentFile, type ExperimentInput, type RefusedInput } from './load.ts';
import type { Experiment } from './model.ts';
import { normalizeExperiment } from './normalize.ts';
import { resolvePlaceholders, type ResolveVariable } from './placeholders.ts';
import { placeholderRedactor, redactStrings } from './redact.ts';
import { semanticErrors } from './rules.ts';
import { locate, parseYamlSource, positionInText, type LocatedProblem, type YamlSource } from './source.ts';
import { experimentWarnings } from './warnings.ts';

export interface ValidateDeps {
  /** The value of a `${NAME}` placeholder's variable; see environmentResolver. */
  resolveVariable: ResolveVariable;
}

export interface ValidationResult {
  /** Present exactly when there are no errors. */
  experiment?: Experiment;
  /** The experiment as it may be printed: each placeholder's value shown as its `${NAME}`. Present with `experiment`. */
  printable?: Experiment;
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** Set when the input was refused before it was read: not a regular file, or over the size limit. */
  refused?: RefusedInput;
}

const byPosition = (a: Diagnostic, b: Diagnostic): number => a.line - b.line || a.column - b.column;

/** Sorted by position, each problem once, at most MAX_DIAGNOSTICS of them and a line counting the rest. */
function tidy(list: Diagnostic[], severity: 'error' | 'warning', file: string): Diagnostic[] {
  const seen = new Set<string>();
  const unique = list
    .filter((d) => {
      const key = `${d.line}:${d.column}:${d.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort(byPosition);
  if (unique.length <= MAX_DIAGNOSTICS) return unique;
  const rest = unique.length - MAX_DIAGNOSTICS;
  const message = `${rest} more ${severity}${rest === 1 ? '' : 's'} not shown (${MAX_DIAGNOSTICS} at most per file)${severity === 'error' ? ': fix the ones above first' : ''}`;
  // Located where the first one not shown is, so the count reads as part of the file's list.
  const { line, column } = unique[MAX_DIAGNOSTICS]!;
  return [...unique.slice(0, MAX_DIAGNOSTICS), { file, line, column, message, code: `too-many-${severity}s` }];
}

export function validateExperimentText(text: string, file: string, deps: ValidateDeps): ValidationResult {
  try {
    return validate(text, file, deps);
  } catch (error) {
    // A bug must not look like a crash to the user, and must not look like their mistake either.
    const detail = error instanceof Error ? error.message : String(error);
    return {
      errors: [{ file, line: 1, column: 1, message: `internal error while validating (a bug in intutic, please report it): ${detail}`, code: 'internal' }],
      warnings: [],
    };
  }
}

function validate(text: string, file: string, deps: ValidateDeps): ValidationResult {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    const message = 'a NUL character: an experiment file is YAML text, which never holds one (is this a binary file?)';
    return { errors: [{ file, ...positionInText(text, nul), message, code: 'nul-character' }], warnings: [] };
  }
  const source = parseYamlSource(text);
  let redact = (message: string): string => message;
  const fromProblem = (p: LocatedProblem): Diagnostic => ({ file, line: p.line, column: p.column, message: p.message, code: p.code });
  const fromFinding = (f: Finding): Diagnostic => ({ file, ...locate(source, f), message: f.message, code: f.code });
  const finish = (errors: Diagnostic[], warnings: Diagnostic[], experiment?: Experiment): ValidationResult => {
    const shown = (d: Diagnostic): Diagnostic => ({ ...d, message: redact(d.message) });
    const result: ValidationResult = { errors: tidy(errors, 'error', file).map(shown), warnings: tidy(warnings, 'warning', file).map(shown) };
    if (experiment && result.errors.length === 0) return { experiment, printable: redactStrings(experiment, redact), ...result };
    return result;
  };
  const yamlWarnings = source.warnings.map(fromProblem);
  if (source.errors.length > 0) {
    // One syntax slip often trips several parser rules on the same line; the first says it best.
    const lines = new Set<number>();
    const firstPerLine = source.errors.filter((e) => !lines.has(e.line) && lines.add(e.line));
    return finish(firstPerLine.map(fromProblem), yamlWarnings);
  }

  const root = source.doc.contents;
  if (root === null || (typeof root === 'object' && 'value' in root && (root.value === null || root.value === ''))) {
    const message = 'the file is empty: an experiment is a YAML mapping with name, agent, verify, repeat, faults, probes and abort';
    return finish([{ file, line: 1, column: 1, message, code: 'empty-file' }], yamlWarnings);
  }

  const placeholders = resolvePlaceholders(source, deps.resolveVariable);
  redact = placeholderRedactor(placeholders.substitutions);
  // Lists are joined with concat, never push(...list): a list can be longer than a call's arguments.
  let errors = placeholders.problems.map(fromProblem);
  const data = toData(source);
  if ('failure' in data) {
    errors.push({ file, line: 1, column: 1, message: `YAML: ${data.failure}`, code: 'yaml-syntax' });
    return finish(errors, yamlWarnings);
  }
  const raw = data.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const got = Array.isArray(raw) ? 'a list' : `a ${raw === null ? 'null' : typeof raw} value`;
    errors.push(
      fromFinding({ path: [], at: 'value', code: 'not-a-mapping', message: `an experiment is a YAML mapping of keys (name: …, agent: …), not ${got}` }),
    );
    return finish(errors, yamlWarnings);
  }

  const parsed = experimentFileSchema.safeParse(raw);
  const findings = [...(parsed.success ? [] : findingsFromIssues(parsed.error.issues, raw)), ...semanticErrors(raw)];
  errors = errors.concat(findings.map(fromFinding));
  if (!parsed.success || errors.length > 0) return finish(errors, yamlWarnings);

  const normalized = normalizeExperiment(parsed.data, raw);
  errors = errors.concat(normalized.findings.map(fromFinding));
  if (!normalized.experiment || errors.length > 0) return finish(errors, yamlWarnings);

  return finish([], [...yamlWarnings, ...experimentWarnings(normalized.experiment).map(fromFinding)], normalized.experiment);
}

function toData(source: YamlSource): { value: unknown } | { failure: string } {
  try {
    // maxAliasCount bounds "billion laughs" expansion.
    return { value: source.doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

/** Validate what was read; an input that could not be read is its own error. */
export function validateExperimentInput(input: ExperimentInput, file: string, deps: ValidateDeps): ValidationResult {
  if ('error' in input) return { errors: [{ ...input.error, file }], warnings: [], ...(input.refused ? { refused: input.refused } : {}) };
  return validateExperimentText(input.text, file, deps);
}

/** Read and validate a file; a missing, unreadable or refused file is an error diagnostic, never a throw. */
export async function validateExperimentFile(path: string, deps: ValidateDeps): Promise<ValidationResult> {
  return validateExperimentInput(await readExperimentFile(path), path, deps);
}
