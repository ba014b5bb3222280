// Zod issues of the file schema turned into findings a person can act on: which key is unknown and
// what was meant, which id is misspelled, what a value must be and what it was.
import { z } from 'zod';
import { FAULT_IDS, PROBE_IDS, getFault, getProbe, isFaultId, isProbeId } from '@intutic/faults';
import { formatPath, type Finding, type PathSegment } from './diagnostics.ts';
import { ABORT_CONDITIONS, ABORT_OBJECT_SCHEMAS } from './file-schema.ts';
import { allowedKeysAt, describeOwner, schemaAt, valueAt } from './schema-path.ts';
import { didYouMean } from './suggest.ts';

type Issue = z.core.$ZodIssue;

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

const EXPECTED: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping (key: value)',
  record: 'a mapping (key: value)',
  array: 'a list',
};

const toPath = (path: readonly PropertyKey[]): PathSegment[] => path.map((s) => (typeof s === 'number' ? s : String(s)));

export function findingsFromIssues(issues: readonly Issue[], raw: unknown, prefix: readonly PathSegment[] = []): Finding[] {
  return issues.flatMap((issue) => findingsFromIssue(issue, raw, [...prefix, ...toPath(issue.path)]));
}

function findingsFromIssue(issue: Issue, raw: unknown, path: PathSegment[]): Finding[] {
  const where = formatPath(path);
  const value = valueAt(raw, path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => unknownKey(raw, path, key));
    case 'invalid_union':
      if (issue.discriminator !== undefined) return [unknownId(raw, path)];
      if (path[0] === 'abort' && path.length === 2) return abortItem(raw, path);
      return [{ path, at: 'value', code: 'invalid-value', message: `${where}: must be ${unionExpectation(issue)}, got ${describeValue(value)}` }];
    case 'invalid_type': {
      if (value === undefined) return [missingKey(raw, path)];
      const schema = schemaAt(raw, path);
      const integer = issue.expected === 'number' && schema instanceof z.ZodNumber && schema.isInt;
      const expected = integer ? EXPECTED['int']! : (EXPECTED[issue.expected] ?? issue.expected);
      const unquote = issue.expected === 'number' || issue.expected === 'int' || issue.expected === 'boolean';
      const hint =
        unquote && typeof value === 'string' && value.trim() !== '' && /^(-?[\d.]+|true|false)$/.test(value.trim()) ? ' (write it without quotes)' : '';
      return [{ path, at: 'value', code: 'invalid-type', message: `${where}: must be ${expected}, got ${describeValue(value)}${hint}` }];
    }
    case 'too_small':
    case 'too_big':
      return [{ path, at: 'value', code: 'out-of-range', message: `${where}: ${bound(issue, value)}` }];
    case 'invalid_format':
      return [{ path, at: 'value', code: 'invalid-format', message: `${where}: ${issue.message} (got ${describeValue(value)})` }];
    case 'invalid_value': {
      const allowed = issue.values.map((v) => String(v));
      const hint = typeof value === 'string' ? didYouMean(value, allowed) : '';
      const list = hint.startsWith(' (expected') ? '' : ` (one of: ${allowed.join(', ')})`;
      return [{ path, at: 'value', code: 'invalid-value', message: `${where}: ${describeValue(value)} is not allowed${hint}${list}` }];
    }
    default:
      return [{ path, at: 'value', code: 'invalid-value', message: `${where}: ${issue.message}` }];
  }
}

function unknownKey(raw: unknown, objectPath: PathSegment[], key: string): Finding {
  const path = [...objectPath, key];
  const [section, index, sub] = objectPath;
  const id = valueAt(raw, [section ?? '', index ?? '', 'id']);
  if (
    section === 'faults' &&
    sub === 'match' &&
    objectPath.length === 3 &&
    typeof id === 'string' &&
    isFaultId(id) &&
    ['tool', 'host', 'model'].includes(key)
  ) {
    const keys = getFault(id).matchKeys;
    return { path, at: 'key', code: 'match-key', message: `fault ${id} matches on ${keys.join(' or ')} only: match.${key} could never match` };
  }
  if (section === 'probes' && objectPath.length === 2 && key === 'value' && typeof id === 'string' && isProbeId(id) && !getProbe(id).value) {
    return { path, at: 'key', code: 'probe-value', message: `probe ${id} takes no value` };
  }
  const allowed = allowedKeysAt(raw, objectPath);
  return { path, at: 'key', code: 'unknown-key', message: `unknown key "${key}"${describeOwner(raw, objectPath)}${didYouMean(key, allowed)}` };
}

function unknownId(raw: unknown, idPath: PathSegment[]): Finding {
  const kind = idPath[0] === 'probes' ? 'probe' : 'fault';
  const ids: readonly string[] = kind === 'probe' ? PROBE_IDS : FAULT_IDS;
  const id = valueAt(raw, idPath);
  if (id === undefined) {
    return { path: idPath.slice(0, -1), at: 'value', code: `missing-${kind}-id`, message: `${formatPath(idPath.slice(0, -1))}: this ${kind} has no id` };
  }
  if (typeof id !== 'string') {
    return { path: idPath, at: 'value', code: `unknown-${kind}`, message: `${formatPath(idPath)}: a ${kind} id must be a string, got ${describeValue(id)}` };
  }
  return { path: idPath, at: 'value', code: `unknown-${kind}`, message: `unknown ${kind} id "${id}"${didYouMean(id, ids)}` };
}

function missingKey(raw: unknown, path: PathSegment[]): Finding {
  const parent = path.slice(0, -1);
  const key = String(path[path.length - 1]);
  const [section, index] = path;
  const id = valueAt(raw, [section ?? '', index ?? '', 'id']);
  if (section === 'faults' && typeof id === 'string' && isFaultId(id)) {
    const required = getFault(id).requiredMatch;
    if (required && (key === 'match' || (path[2] === 'match' && key === required))) {
      return {
        path: parent,
        at: 'value',
        code: 'match-required',
        message: `fault ${id} requires match.${required}: say which ${required} the fault applies to`,
      };
    }
  }
  if (section === 'probes' && key === 'value' && typeof id === 'string' && isProbeId(id)) {
    const doc = getProbe(id).value;
    return { path: parent, at: 'value', code: 'probe-value', message: `probe ${id} needs a value: ${doc?.description ?? 'a number'}` };
  }
  const hint = key === 'abort' ? ': a cost ceiling is mandatory (abort: [{ cost_usd_above: 2 }])' : '';
  return { path: parent, at: 'value', code: 'missing-key', message: `missing required key "${key}"${describeOwner(raw, parent)}${hint}` };
}

function abortItem(raw: unknown, path: PathSegment[]): Finding[] {
  const item = valueAt(raw, path);
  const known = ABORT_CONDITIONS.join(', ');
  if (typeof item === 'string') {
    return [{ path, at: 'value', code: 'unknown-abort', message: `unknown abort condition "${item}"${didYouMean(item, ABORT_CONDITIONS)}` }];
  }
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    const keys = Object.keys(item);
    if (keys.length === 1) {
      const key = keys[0]!;
      if (key in ABORT_OBJECT_SCHEMAS) {
        const result = ABORT_OBJECT_SCHEMAS[key as keyof typeof ABORT_OBJECT_SCHEMAS].safeParse(item);
        if (!result.success) return findingsFromIssues(result.error.issues, raw, path);
      }
      if (key === 'destructive_attempt') {
        return [
          {
            path: [...path, key],
            at: 'key',
            code: 'invalid-value',
            message: 'destructive_attempt takes no value: write it as a plain list item "- destructive_attempt"',
          },
        ];
      }
      return [{ path: [...path, key], at: 'key', code: 'unknown-abort', message: `unknown abort condition "${key}"${didYouMean(key, ABORT_CONDITIONS)}` }];
    }
    if (keys.length > 1) {
      return [
        {
          path,
          at: 'value',
          code: 'invalid-abort',
          message: `${formatPath(path)}: one condition per list item (got ${keys.join(', ')}): write each as its own "- key: value" line`,
        },
      ];
    }
  }
  return [
    {
      path,
      at: 'value',
      code: 'invalid-abort',
      message: `${formatPath(path)}: must be one of ${known} (e.g. "- cost_usd_above: 2"), got ${describeValue(item)}`,
    },
  ];
}

function unionExpectation(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  const atRoot = issue.errors.flatMap((branch) => branch.filter((i) => i.path.length === 0));
  const literals = atRoot.flatMap((i) => (i.code === 'invalid_value' ? i.values.map((v) => String(v)) : []));
  if (literals.length === atRoot.length && literals.length > 0) return `one of ${literals.join(', ')}`;
  const types = atRoot.flatMap((i) => (i.code === 'invalid_type' ? [EXPECTED[i.expected] ?? i.expected] : []));
  const unique = [...new Set(types)];
  return unique.length > 0 ? unique.join(' or ') : 'one of the allowed forms';
}

function bound(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>, value: unknown): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'array':
      return small ? `must have at least ${limit} item${limit === 1 ? '' : 's'}` : `must have at most ${limit} items`;
    case 'string':
      if (small && limit === 1) return 'must not be empty';
      return small ? `must be at least ${limit} characters long` : `must be at most ${limit} characters long`;
    default: {
      const word = small ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than';
      return `must be ${word} ${limit} (got ${describeValue(value)})`;
    }
  }
}
