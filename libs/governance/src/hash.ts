// The identity of a call: identical call = same tool + same input. Keys are sorted so the order a
// harness serialized them in does not matter; the Python SDK computes the same hash (see fixtures).
// SHA-256 comes from @noble/hashes, not node:crypto: loading node:crypto costs a hook gate process
// about 7 ms of start-up, a quarter of what it spends beyond Node's own start (scripts/bench/gates.mjs).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

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
  return bytesToHex(sha256(utf8ToBytes(canonicalJson([tool, input ?? null])))).slice(0, 32);
}
