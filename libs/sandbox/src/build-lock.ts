// One build of an image tag at a time on this machine, across processes: two `chaos run`s, a worker
// and a test suite starting together would otherwise each build the same tag, and the one finishing
// second leaves the first with an image whose label it did not expect. A second builder waits for
// the lock and then checks the image again (the caller does), so it reuses what the first built. A
// lock whose holder died (its pid is gone) is taken over; the wait says who it waits for. The last
// holder to leave removes the lock directory, so nothing of ours stays in the temp directory.
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BuildLockOptions {
  /** Where the lock files live (default: a directory of this user's under the temp directory). */
  dir?: string;
  /** How often a waiting builder looks again. */
  pollMs?: number;
}

const defaultDir = () => join(tmpdir(), `intutic-build-locks-${process.getuid?.() ?? 'user'}`);

/** Run `build` while holding the lock for this tag on this engine; `say` tells a waiting user why nothing moves. */
export async function withBuildLock<T>(
  tag: string,
  endpoint: string,
  say: (line: string) => void,
  build: () => Promise<T>,
  options: BuildLockOptions = {},
): Promise<T> {
  const dir = options.dir ?? defaultDir();
  const file = join(dir, `${createHash('sha256').update(`${endpoint}\0${tag}`).digest('hex').slice(0, 24)}.lock`);
  let told = false;
  while (!take(dir, file)) {
    const holder = holderOf(file);
    if (holder === null ? unwrittenFor(file) > UNWRITTEN_STALE_MS : !alive(holder)) {
      // Its holder is gone: the lock is stale. Whoever removes it first takes it next round.
      rmSync(file, { force: true });
      continue;
    }
    if (!told) {
      say(`waiting for another build of ${tag}${holder === null ? '' : ` (process ${holder})`} to finish`);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
  try {
    return await build();
  } finally {
    rmSync(file, { force: true });
    leave(dir);
  }
}

/** Create the lock file with this process's pid in it; false when another holds it. */
function take(dir: string, file: string): boolean {
  let fd: number | undefined;
  while (fd === undefined) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // Another builder removed the directory as it left, between our mkdir and open: make it again.
      if (code !== 'ENOENT') throw error;
    }
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Remove the lock directory when no other lock is in it (another builder may hold or take one). */
function leave(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}

/** A lock file still without a pid after this long was left by a holder that died while taking it. */
const UNWRITTEN_STALE_MS = 10_000;

function unwrittenFor(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** The holder's pid; null while it is still being written (or unreadable), which counts as held. */
function holderOf(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
