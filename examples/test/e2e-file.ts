// What every end-to-end test file starts with: whether it can run here, its own queue prefix, and
// scratch directories that are removed, with the file's Redis keys, once its tests are done. Kept
// apart from support.ts, which the benchmarks import outside Vitest.
import { afterAll } from 'vitest';
import { deleteQueueKeys, e2eEnv, e2eReady, removeDir, scratchDir } from './support.ts';

export interface E2eFile {
  /** False locally when the engine or Redis is missing (the suite is skipped, the reason said); in CI the suite fails instead. */
  ready: boolean;
  queuePrefix: string;
  /** The environment every `intutic` command of the file runs with. */
  env: NodeJS.ProcessEnv;
  /** A new scratch directory, removed after the file's tests (kept with INTUTIC_TEST_KEEP=1). */
  scratch(name: string): string;
}

/** Call once at the top of a test file: `slug` names its queue prefix, `suite` its skip reason. */
export async function e2eFile(slug: string, suite: string): Promise<E2eFile> {
  const ready = await e2eReady(suite);
  const queuePrefix = `intutic-e2e-${slug}-${process.pid}`;
  const dirs: string[] = [];
  afterAll(async () => {
    if (!ready) return;
    await deleteQueueKeys(queuePrefix);
    for (const dir of dirs) removeDir(dir);
  });
  return {
    ready,
    queuePrefix,
    env: e2eEnv(queuePrefix),
    scratch(name) {
      const dir = scratchDir(name);
      dirs.push(dir);
      return dir;
    },
  };
}
