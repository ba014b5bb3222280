// The intent log: a repetition's workspace and proxy are created side by side, and each records what
// it made as soon as it exists. Whatever the order the writes finish in, the file ends as the last
// write asked for it, whole.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '@intutic/testkit';
import { newJobState, readJobState, writeJobState } from '../src/state.ts';

describe('writeJobState', () => {
  it('lands writes in the order they were asked for, each one whole', async () => {
    const path = join(scratchDir('intutic-job-state-'), 'job', 'state.json');
    const job = newJobState({
      job_id: 'j1',
      run_id: 'r1',
      queue: { redis: 'redis://127.0.0.1:6379', prefix: 'test' },
      worktree: '/tmp/w',
      artifacts_dir: '/tmp/a',
      events_artifact: '/tmp/a/events.jsonl',
      keep: false,
      container_labels: {},
    });
    const writes: Promise<void>[] = [];
    for (let pid = 1; pid <= 50; pid++) {
      job.proxy = { pid };
      // A large field makes each write slow enough for the next to start before it ends.
      job.repo_source = `/src/${pid}/${'x'.repeat(20_000)}`;
      writes.push(writeJobState(path, job));
    }
    await Promise.all(writes);
    const state = await readJobState(path);
    expect(state?.proxy).toEqual({ pid: 50 });
    expect(state?.repo_source).toBe(`/src/50/${'x'.repeat(20_000)}`);
    expect(() => JSON.parse(readFileSync(path, 'utf8')) as unknown).not.toThrow();
  });
});
