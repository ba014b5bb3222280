// Temporary directories for tests, made in the OS temp directory (intutic-<name>-XXXXXX) and removed
// when their test file ends, also when a test in it failed: vitest-setup.ts registers the removal for
// every suite. INTUTIC_TEST_KEEP=1 keeps them, to look at after a failure (each is printed then).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/** A new empty directory (its real path), removed when the test file ends. */
export function scratchDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix.startsWith('intutic') ? prefix : `intutic-${prefix}`)));
  made.add(dir);
  return dir;
}

/** This test file's scratch directories, still there. */
export function scratchDirs(): string[] {
  return [...made];
}

/** Removes every scratch directory of this test file (vitest-setup.ts calls it after the file). */
export function removeScratchDirs(env: NodeJS.ProcessEnv = process.env): void {
  for (const dir of made) {
    if (env.INTUTIC_TEST_KEEP === '1') process.stderr.write(`kept ${dir} (INTUTIC_TEST_KEEP)\n`);
    else rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
  made.clear();
}
