// Hook payloads as the real agent binaries sent them (scripts/record-hook-payloads.ts wrote them,
// host paths scrubbed): the unit tests feed the gates these, not payloads written by hand.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, 'fixtures/recorded');

export function recordedPayload(agent: string, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(DIR, agent, name), 'utf8')) as Record<string, unknown>;
}

/** Codex's rollout as it was when the exit-3 call's PostToolUse ran, copied to `to`. */
export function copyRecordedRollout(to: string): string {
  copyFileSync(join(DIR, 'codex-0.169.0/rollout.jsonl'), to);
  return to;
}
