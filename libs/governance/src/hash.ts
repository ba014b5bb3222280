// The identity of a call: identical call = same tool + same input. Keys are sorted so the order a
// harness serialized them in does not matter; the Python SDK computes the same hash (see fixtures).
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth (undefined members dropped, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

export function hashToolInput(tool: string, input: unknown): string {
  return createHash('sha256').update(canonicalJson([tool, input ?? null])).digest('hex').slice(0, 32);
}
