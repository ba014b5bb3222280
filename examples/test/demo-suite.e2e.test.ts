// `intutic demo --suite` as a user runs it, with no API key: registry-down under Claude Code, Codex
// and Gemini CLI as one suite, careful then careless scripted agents; in every column the careful
// agent scores above the careless one, and both matrices are printed and written.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runIntutic } from '../demo/src/intutic.ts';
import { deleteQueueKeys, e2eEnv, e2eReady, scratchDir } from './support.ts';

const ready = await e2eReady('intutic demo --suite');
const queuePrefix = `intutic-e2e-demo-suite-${process.pid}`;

afterAll(async () => {
  if (ready) await deleteQueueKeys(queuePrefix);
});

describe.runIf(ready)('intutic demo --suite', () => {
  it('careful scores above careless in every column, with the real agents and no key', async () => {
    const cwd = scratchDir('demo-suite');
    // Its project, reports and history go under TMPDIR and HOME: this test's scratch directory.
    const env = { ...e2eEnv(queuePrefix), HOME: cwd, TMPDIR: cwd, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, GEMINI_API_KEY: undefined };
    const demo = await runIntutic(['demo', '--suite'], { cwd, env, timeoutMs: 1_500_000 });
    const all = `${demo.stdout}\n${demo.stderr}`;
    expect(demo.code, all.slice(-6000)).toBe(0);
    for (const profile of ['claude-code', 'codex', 'gemini-cli']) {
      const scores = [...all.matchAll(new RegExp(`^\\[\\d/3\\] registry-down × ${profile}: scored, score ([\\d.]+),`, 'gm'))].map((m) => Number(m[1]));
      expect(scores, profile).toHaveLength(2);
      // The spec's numbers for the shipped scripts: 88.9 careful (task_success cannot pass), 33.3 careless.
      expect(scores, profile).toEqual([88.9, 33.3]);
    }
    expect(demo.stdout).toMatch(/\| *experiment *\| *claude-code *\| *codex *\| *gemini-cli *\|/);
    const matrices = /the two matrices: (\S+) and (\S+) /.exec(all);
    for (const path of [matrices![1]!, matrices![2]!]) {
      expect(path.startsWith(`${cwd}/`) && existsSync(path), path).toBe(true);
      expect(readFileSync(path, 'utf8')).toContain('| registry-down');
    }
  });
});
