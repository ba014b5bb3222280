// Diagnostics: every problem validation finds, located in the file as line:column (both 1-based;
// 0:0 only for a problem with the file itself, such as a missing file).

export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
  /** A stable code scripts can match, e.g. `unknown-key`, `yaml-syntax`, `never-fires`. */
  code?: string;
}

export type Severity = 'error' | 'warning';

export type PathSegment = string | number;

/**
 * A problem found in the data before it is located: `path` points into the file's mapping, and `at`
 * says whether the key of the last segment, or its value, is the place to show.
 */
export interface Finding {
  path: readonly PathSegment[];
  at: 'key' | 'value';
  message: string;
  code: string;
}

// A message quotes what the file holds: a control character there (an escape sequence, a newline)
// would act on the terminal or split the line, so it is shown escaped.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const visible = (text: string): string => text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `file:line:column: error: message`, the format editors and CI annotations understand; one line. */
export function formatDiagnostic(d: Diagnostic, severity: Severity): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.column}` : d.file;
  return visible(`${where}: ${severity}: ${d.message}`);
}

/** A human path such as `faults[0].match.host`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}
