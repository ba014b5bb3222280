// `intutic chaos gc`: job directories kept with --keep go once older than --older-than, running or
// recent ones stay; it says what it removed, or that there was nothing; bad input is a usage error.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobPaths, newJobState, pruneKeptJobs, writeJobState } from '@intutic/runner';
import { scratchDir } from '@intutic/testkit';
import { parseGcOptions, runGc } from '../src/commands/chaos-gc.ts';

const DAY = 24 * 3600 * 1000;

async function job(home: string, jobId: string, fields: { done: boolean; ageDays: number }): Promise<string> {
  const paths = jobPaths(home, jobId);
  mkdirSync(join(paths.dir, 'worktree'), { recursive: true });
  const state = newJobState({
    job_id: jobId,
    run_id: jobId.split('-')[0]!,
    queue: { redis: 'redis://127.0.0.1:6379', prefix: 'intutic' },
    worktree: join(paths.dir, 'worktree'),
    artifacts_dir: join(home, 'reports'),
    events_artifact: join(home, 'reports', 'events.jsonl'),
    keep: true,
    container_labels: {},
  });
  await writeJobState(paths.state, { ...state, done: fields.done, created_at: new Date(Date.now() - fields.ageDays * DAY).toISOString() });
  return paths.dir;
}

describe('chaos gc', () => {
  it('removes finished job directories older than the limit and keeps the rest', async () => {
    const home = scratchDir('gc-');
    const old = await job(home, 'r1-b1', { done: true, ageDays: 9 });
    const recent = await job(home, 'r2-b1', { done: true, ageDays: 1 });
    const running = await job(home, 'r3-b1', { done: false, ageDays: 30 });
    expect(await pruneKeptJobs(home, 7 * DAY)).toEqual(['r1-b1']);
    expect([existsSync(old), existsSync(recent), existsSync(running)]).toEqual([false, true, true]);
  });

  it('says what it removed, and what it could not check', async () => {
    const said: string[] = [];
    const deps = {
      say: (line: string) => said.push(line),
      sweepOrphans: async () => null,
      pruneKeptJobs: async (maxAgeMs: number) => (maxAgeMs === 2 * DAY ? ['r1-b1'] : []),
      pruneBuildLogs: () => 3,
    };
    expect(await runGc(parseGcOptions({ olderThan: '2' }), deps)).toBe(0);
    expect(said).toEqual([
      "dead workers' leftovers: not checked (no Redis answers; its job locks say which jobs are dead)",
      "removed r1-b1's job directory (kept with --keep, older than 2 days)",
      'removed 3 old image build log(s)',
    ]);
    said.length = 0;
    await runGc({ olderThanDays: 7 }, { ...deps, sweepOrphans: async () => [], pruneKeptJobs: async () => [], pruneBuildLogs: () => 0 });
    expect(said).toEqual(['nothing to remove']);
  });

  it('refuses an age that is not a number of days', () => {
    expect(() => parseGcOptions({ olderThan: 'soon' })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => parseGcOptions({ olderThan: '-1' })).toThrow('--older-than must be a number of days');
  });
});
