// What a harness adapter is: it reads that harness's hook JSON, asks the engine, and answers in the
// harness's own format. `failClosed` is the answer when anything goes wrong: refuse the call.
import type { Gate } from '../engine.ts';

export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface HarnessAdapter {
  /** Recorded as the events' `harness`, e.g. "claude-code". */
  name: string;
  handle(gate: Gate, payload: Record<string, unknown>): HookAnswer;
  failClosed(reason: string): HookAnswer;
}

export const answer = (stdout = '', exitCode = 0, stderr = ''): HookAnswer => ({ stdout, stderr, exitCode });

export function str(payload: Record<string, unknown>, key: string): string | undefined {
  const v = payload[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Whether a tool's reported response means it succeeded. Harnesses report failures in several
 * spellings: is_error / isError (MCP results), success: false, interrupted, a non-zero exit code,
 * or an error string.
 */
export function responseOk(response: unknown): boolean {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return true;
  const r = response as Record<string, unknown>;
  if (r.is_error === true || r.isError === true || r.success === false || r.interrupted === true) return false;
  for (const key of ['exit_code', 'exitCode', 'returnCode', 'return_code', 'status_code']) {
    if (typeof r[key] === 'number' && r[key] !== 0) return false;
  }
  return !(typeof r.error === 'string' && r.error !== '');
}
