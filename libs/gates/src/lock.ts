// A cross-process file lock for the gates' shared state: short-lived hook processes of one
// repetition (and concurrent hook calls) serialize their read-modify-write of counters and holds
// here. O_EXCL create is atomic on every local filesystem; a lock left by a killed process is
// taken over once it is older than `staleMs`. The Python SDK uses the same protocol.
import { IntuticError } from '@intutic/errors';
import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';

export interface LockOptions {
  /** Give up after this long (the gate then fails closed). */
  timeoutMs?: number;
  /** A lock file older than this belongs to a dead process. */
  staleMs?: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number): void => void Atomics.wait(sleeper, 0, 0, ms);

export function withFileLock<T>(lockPath: string, fn: () => T, { timeoutMs = 5000, staleMs = 10_000 }: LockOptions = {}): T {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > staleMs) unlinkSync(lockPath);
      } catch {
        // released meanwhile: try again at once
      }
      if (Date.now() > deadline)
        throw new IntuticError('E_LOCK_TIMEOUT', `could not lock ${lockPath} within ${timeoutMs} ms`, {
          hints: [`another process holds it; one that died leaves it stale after ${staleMs} ms`],
        });
      sleepSync(Math.min(1 + attempt, 8) + Math.random() * 3);
      continue;
    }
    try {
      writeSync(fd, `${process.pid} ${Date.now()}\n`);
      closeSync(fd);
      return fn();
    } finally {
      try {
        unlinkSync(lockPath);
      } catch {
        // taken over as stale by another process: nothing left to release
      }
    }
  }
}
