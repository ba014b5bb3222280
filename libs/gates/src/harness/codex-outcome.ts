// Codex (0.169) gives a shell command's PostToolUse `tool_response` as a bare string: its output,
// without the exit status. The status is in the session's rollout, the JSONL file the payload names
// as `transcript_path`: by the time the hook runs Codex has written the call's `item_completed` event
// (item.id is the hook's tool_use_id, with exit_code and status "completed" / "failed"). The rollout
// is the agent's own file, written by a process the agent drives: it is read as untrusted input —
// never through a link, never a FIFO or device, only its tail, and nothing in it can crash the gate.
// When the status is not there, the outcome is unknown (null), never a guessed success.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute } from 'node:path';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** The call just ended, so its event is near the end; a bounded tail keeps a huge rollout cheap. */
export const ROLLOUT_TAIL_BYTES = 1 << 20;

/** The rollout's tail as text, or null when it is not a regular file the gate may read. */
function readTail(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return null;
    const length = Math.min(info.size, ROLLOUT_TAIL_BYTES);
    const buf = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buf, read, length - read, info.size - length + read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The outcome one rollout line reports for the call, or undefined when the line is not about it. */
function outcomeOf(line: string, callId: string): boolean | null | undefined {
  if (!line.includes(callId)) return undefined; // cheap filter before parsing
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined; // the first line of the tail is usually cut
  }
  const payload = isObject(entry) ? entry.payload : undefined;
  if (!isObject(payload)) return undefined;
  // 0.169: {"type":"item_completed","item":{"id":<call id>,"exit_code":3,"status":"failed"}}
  if (payload.type === 'item_completed' && isObject(payload.item) && payload.item.id === callId) {
    return statusOf(payload.item.exit_code, payload.item.status);
  }
  // Older rollouts: {"type":"exec_command_end","call_id":<call id>,"exit_code":3}
  if (payload.type === 'exec_command_end' && payload.call_id === callId) return statusOf(payload.exit_code, payload.status);
  return undefined;
}

function statusOf(exitCode: unknown, status: unknown): boolean | null {
  if (typeof exitCode === 'number') return exitCode === 0 && status !== 'failed';
  if (status === 'failed' || status === 'declined') return false;
  if (status === 'completed') return true;
  return null;
}

/**
 * Whether the call `callId` succeeded, as the rollout at `transcriptPath` records it; null when it
 * does not say. The latest line about the call wins: a line the agent's own command printed into the
 * file comes before the one Codex wrote when that command ended.
 */
export function codexOutcome(transcriptPath: string | undefined, callId: string | undefined): boolean | null {
  if (!transcriptPath || !callId || !isAbsolute(transcriptPath)) return null;
  const text = readTail(transcriptPath);
  if (text === null) return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const outcome = outcomeOf(lines[i]!, callId);
    if (outcome !== undefined) return outcome;
  }
  return null;
}
