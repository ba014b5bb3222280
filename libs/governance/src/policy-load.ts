// Loading the policy: the rules snapshot and the approved-bypass list, from ~/.intutic/hooks/ or
// wherever INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES point. A missing file is an empty
// policy (reported in `missing`), unless INTUTIC_POLICY_REQUIRED says a snapshot was put there (a
// chaos run that carried one in): then its absence fails closed. A malformed or unreadable file is
// E_POLICY_INVALID naming file:line.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { JsonSyntaxError, parseJsonWithLines, type LocatedJson } from './json-lines.ts';
import { compilePattern } from './patterns.ts';
import { RULE_ACTIONS, RULE_MODES, RULE_SUBJECTS, type Bypass, type Policy, type Rule } from './types.ts';

export const SNAPSHOT_FILE = 'snapshot-rules.json';
export const BYPASSES_FILE = 'approved-bypasses.json';
export const POLICY_FORMAT_VERSION = 1;
/** Set (to anything but empty or 0) by whoever put a snapshot where the gates read it: a missing one is then an error. */
export const POLICY_REQUIRED_ENV = 'INTUTIC_POLICY_REQUIRED';

export function policyRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[POLICY_REQUIRED_ENV]?.trim() ?? '';
  return value !== '' && value !== '0';
}

/** Where the gates read the policy: the two variables, or ~/.intutic/hooks/. */
export function policyPaths(env: NodeJS.ProcessEnv = process.env): { snapshot: string; bypasses: string } {
  const dir = join(env.HOME || homedir(), '.intutic', 'hooks');
  return {
    snapshot: env.INTUTIC_SNAPSHOT_RULES || join(dir, SNAPSHOT_FILE),
    bypasses: env.INTUTIC_APPROVED_BYPASSES || join(dir, BYPASSES_FILE),
  };
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new IntuticError('E_POLICY_INVALID', `${path}: cannot read the policy file: ${(error as Error).message}`);
  }
}

type Path = (string | number)[];

class Checker {
  constructor(
    private readonly file: string,
    private readonly doc: LocatedJson,
  ) {}

  fail(path: Path, message: string): never {
    const where = path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '');
    throw new IntuticError('E_POLICY_INVALID', `${this.file}:${this.doc.lineOf(path)}: ${where ? where + ' ' : ''}${message}`, {
      hints: ['The format is described in libs/governance/README.md; `intutic policy init` writes a starter snapshot.'],
    });
  }

  object(value: unknown, path: Path, allowed: readonly string[]): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'must be an object');
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) if (!allowed.includes(key)) this.fail([...path, key], `is not a known field (known: ${allowed.join(', ')})`);
    return obj;
  }

  string(obj: Record<string, unknown>, key: string, path: Path, required: boolean): string | undefined {
    const v = obj[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v.trim() === '') this.fail([...path, key], required && v === undefined ? 'is required' : 'must be a non-empty string');
    return v;
  }

  oneOf<T extends string>(obj: Record<string, unknown>, key: string, path: Path, values: readonly T[], fallback?: T): T {
    const v = obj[key] ?? fallback;
    if (!values.includes(v as T))
      this.fail([...path, key], v === undefined ? `is required (one of ${values.join(', ')})` : `must be one of ${values.join(', ')}`);
    return v as T;
  }

  pattern(value: string, path: Path, isPath = false): void {
    try {
      compilePattern(value, { path: isPath });
    } catch (error) {
      this.fail(path, `is not a valid pattern: ${(error as Error).message}`);
    }
  }

  list(key: string): unknown[] {
    const root = this.object(this.doc.value, [], ['$schema', 'version', 'description', key]);
    if (root.version !== undefined && root.version !== POLICY_FORMAT_VERSION) this.fail(['version'], `must be ${POLICY_FORMAT_VERSION}`);
    const items = root[key] ?? [];
    if (!Array.isArray(items)) this.fail([key], 'must be an array');
    return items as unknown[];
  }
}

function located(file: string, text: string): Checker {
  try {
    return new Checker(file, parseJsonWithLines(text));
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw new IntuticError('E_POLICY_INVALID', `${file}:${error.line}:${error.column}: not valid JSON: ${error.message}`);
    }
    throw error;
  }
}

export function parseSnapshot(file: string, text: string): Rule[] {
  const check = located(file, text);
  const ids = new Set<string>();
  return check.list('rules').map((raw, i) => {
    const at: Path = ['rules', i];
    const obj = check.object(raw, at, ['id', 'subject', 'pattern', 'action', 'mode', 'reason', 'tool', 'description']);
    const id = check.string(obj, 'id', at, true)!;
    if (ids.has(id)) check.fail([...at, 'id'], `"${id}" is used by an earlier rule`);
    if (id.startsWith('destructive.')) check.fail([...at, 'id'], 'must not start with "destructive." (reserved for the built-in tier)');
    ids.add(id);
    const subject = check.oneOf(obj, 'subject', at, RULE_SUBJECTS);
    const pattern = check.string(obj, 'pattern', at, true)!;
    check.pattern(pattern, [...at, 'pattern'], subject === 'path');
    const tool = check.string(obj, 'tool', at, false);
    if (tool !== undefined) check.pattern(tool, [...at, 'tool']);
    const reason = obj.reason === undefined ? '' : check.string(obj, 'reason', at, true)!;
    const rule: Rule = {
      id,
      subject,
      pattern,
      action: check.oneOf(obj, 'action', at, RULE_ACTIONS),
      mode: check.oneOf(obj, 'mode', at, RULE_MODES, 'enforce'),
      reason,
    };
    if (tool !== undefined) rule.tool = tool;
    return rule;
  });
}

export function parseBypasses(file: string, text: string): Bypass[] {
  const check = located(file, text);
  return check.list('bypasses').map((raw, i) => {
    const at: Path = ['bypasses', i];
    const obj = check.object(raw, at, ['id', 'rule', 'tool', 'pattern', 'reason', 'approved_by', 'expires_at']);
    const bypass: Bypass = {
      id: check.string(obj, 'id', at, true)!,
      rule: check.string(obj, 'rule', at, true)!,
      reason: check.string(obj, 'reason', at, true)!,
    };
    for (const key of ['tool', 'pattern', 'approved_by', 'expires_at'] as const) {
      const v = check.string(obj, key, at, false);
      if (v !== undefined) bypass[key] = v;
    }
    if (bypass.pattern !== undefined) check.pattern(bypass.pattern, [...at, 'pattern']);
    if (bypass.expires_at !== undefined && Number.isNaN(Date.parse(bypass.expires_at))) check.fail([...at, 'expires_at'], 'must be an ISO 8601 date');
    return bypass;
  });
}

export function loadPolicy(env: NodeJS.ProcessEnv = process.env): Policy {
  const paths = policyPaths(env);
  const snapshotText = readIfPresent(paths.snapshot);
  if (snapshotText === null && policyRequired(env)) {
    // Deciding without it would drop every rule the run was given: refuse instead, and say what is gone.
    throw new IntuticError('E_POLICY_INVALID', `${paths.snapshot}: the policy snapshot is missing, but ${POLICY_REQUIRED_ENV} says this run has one`, {
      hints: ['The run carried the snapshot in; something removed it. Every call is refused until it is back.'],
    });
  }
  const bypassText = readIfPresent(paths.bypasses);
  return {
    rules: snapshotText === null ? [] : parseSnapshot(paths.snapshot, snapshotText),
    bypasses: bypassText === null ? [] : parseBypasses(paths.bypasses, bypassText),
    sources: { snapshot: snapshotText === null ? null : paths.snapshot, bypasses: bypassText === null ? null : paths.bypasses },
    missing: { snapshot: snapshotText === null },
  };
}

export const EMPTY_POLICY: Policy = { rules: [], bypasses: [], sources: { snapshot: null, bypasses: null }, missing: { snapshot: true } };
