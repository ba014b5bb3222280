// The process around a hook gate: read the hook JSON from stdin, decide, answer, exit. Anything that
// goes wrong — unreadable input, a malformed policy or plan, a lock that cannot be had, a bug —
// refuses the call (fail closed) with the reason, and is recorded when the events file is known.
import { readSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { openGate, ENV_NAMES, GATE_LOG_FILE } from './engine.ts';
import { appendLine, eventLine } from './event-lines.ts';
import { answer, type HarnessAdapter, type HookAnswer } from './harness/types.ts';
import { MANAGED_FLAG, managedEnv, managedGateActive } from './managed.ts';

const STDIN_TIMEOUT_MS = 10_000;

/**
 * Read all of stdin synchronously: a stream on stdin would load net/stream internals, which costs a
 * hook process more start-up time than everything it decides. EAGAIN (a non-blocking pipe) waits a
 * millisecond and tries again, up to the timeout.
 */
function readStdin(): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(65536);
  const deadline = Date.now() + STDIN_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw error;
      if (Date.now() > deadline) throw new IntuticError('E_HOOK_INPUT_INVALID', `no hook input on stdin within ${STDIN_TIMEOUT_MS / 1000} s`);
      Atomics.wait(pause, 0, 0, 1);
      continue;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function recordFailure(harness: string, events: string | undefined, logDir: string | null, reason: string): void {
  const line = eventLine(
    {
      type: 'gate_decision',
      source: 'gate',
      tool: 'unknown',
      decision: 'block',
      rule: 'gate.failed_closed',
      mode: 'enforce',
      destructive: false,
      harness,
      reason,
    },
    Date.now(),
  );
  for (const path of [events, logDir === null ? undefined : join(logDir, GATE_LOG_FILE)]) {
    try {
      if (path) appendLine(path, line);
    } catch {
      // nowhere to record it: the refusal itself still reaches the agent
    }
  }
}

/**
 * Write all of `text` to fd 1 or 2 synchronously, for the same reason stdin is read that way:
 * process.stdout would load the stream machinery. EAGAIN (a non-blocking pipe that is full) waits a
 * millisecond and tries again.
 */
function writeAll(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

function finish(a: HookAnswer): void {
  try {
    if (a.stdout) writeAll(1, a.stdout.endsWith('\n') ? a.stdout : a.stdout + '\n');
    if (a.stderr) writeAll(2, a.stderr);
  } catch {
    // the harness stopped reading (EPIPE): the exit code below still carries the decision
  }
  process.exitCode = a.exitCode;
}

/** What a gate answers when it has no opinion: the harness goes on as if no hook were registered. */
const noOpinion = (adapter: HarnessAdapter): HookAnswer => answer(adapter.name === 'gemini' ? '{}' : '');

/**
 * Run the gate for one hook call. A project gate lives at <project>/.intutic/hooks/<name> and logs to
 * <project>/.intutic/events; it stands down (no decision, no event) where the sandbox registered the
 * managed gate of its harness, which decides instead (managed.ts). A managed gate (`--managed`, run
 * from the image's admin-level registration) takes its settings from the sandbox's root-owned file
 * and keeps no log of its own: the events file is the record.
 */
export function runHook(adapter: HarnessAdapter, argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): void {
  const managed = argv.slice(2).includes(MANAGED_FLAG);
  const hooksDir = dirname(resolve(argv[1] ?? '.'));
  const logDir = managed ? null : join(hooksDir, '..', 'events');
  let events = managed ? undefined : env[ENV_NAMES.events];
  try {
    if (!managed && managedGateActive(adapter.name, env)) {
      finish(noOpinion(adapter));
      return;
    }
    const gateEnv = managed ? managedEnv(env) : env;
    events = gateEnv[ENV_NAMES.events];
    const text = readStdin();
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      throw new IntuticError('E_HOOK_INPUT_INVALID', `the hook input is not JSON (${text.length} bytes)`);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw new IntuticError('E_HOOK_INPUT_INVALID', 'the hook input is not a JSON object');
    const projectDir = managed ? '/work' : join(hooksDir, '..', '..');
    const gate = openGate({ source: 'gate', harness: adapter.name, env: gateEnv, projectDir, logDir });
    finish(adapter.handle(gate, payload as Record<string, unknown>));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    recordFailure(adapter.name, events, logDir, reason);
    finish(adapter.failClosed(reason));
  }
}
