// The three shipped examples end to end with real Gemini CLI in the sandbox (examples-suite.ts): the
// same experiments, prompts and scripts as with Claude Code, and the same verdicts and scores. And
// `intutic demo --agent gemini`, which runs registry-down the same way with no API key.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXIT } from '@intutic/errors';
import { runIntutic } from '../demo/src/intutic.ts';
import { describeExamples } from './examples-suite.ts';
import { agentImage, deleteQueueKeys, e2eEnv, e2eReady, scratchDir } from './support.ts';

const ready = await e2eReady('examples end to end, Gemini CLI');
const demoQueuePrefix = `intutic-e2e-demo-gemini-${process.pid}`;
let image: string;

beforeAll(async () => {
  if (ready) image = await agentImage('gemini');
}, 1_200_000);

afterAll(async () => {
  if (ready) await deleteQueueKeys(demoQueuePrefix);
});

describeExamples('gemini', ready, () => image);

describe.runIf(ready)('intutic demo --agent gemini', () => {
  it('runs registry-down through Gemini CLI with no API key, and says how to run it for real', async () => {
    const cwd = scratchDir('demo-gemini');
    // Its project, report and experiment copy go under TMPDIR: this test's scratch directory, removed after the file.
    const env = { ...e2eEnv(demoQueuePrefix), HOME: cwd, TMPDIR: cwd, GEMINI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };
    const demo = await runIntutic(['demo', '--agent', 'gemini'], { cwd, env, timeoutMs: 600_000 });
    const all = `${demo.stdout}\n${demo.stderr}`;
    expect(demo.code, all.slice(-4000)).toBe(0);
    expect(all).toContain('registry-down through Gemini CLI');
    expect(all).toContain("the scripted model, in place of Google's Gemini API");
    expect(all).toMatch(/demo finished in \d+ s: chaos run exited 0 \(verdict scored, score 88\.9\)/);
    // For real: the example with Gemini CLI's command, kept beside the report, and the key to set.
    expect(all).toContain('export GEMINI_API_KEY=');
    const experiment = /intutic chaos run (\S+\.gemini\.yaml) --sandbox-image (\S+)/.exec(all);
    expect(experiment?.[2]).toBe(image);
    const shipped = parse(readFileSync(experiment![1]!, 'utf8')) as { agent: string; repeat: number };
    expect(shipped).toMatchObject({ agent: expect.stringMatching(/^gemini -m gemini-2\.5-pro --yolo -p "Add the lodash package/), repeat: 3 });
    const report = /^report: (\S+\.json)$/m.exec(all)![1]!;
    for (const path of [report, report.replace(/\.json$/, '.artifacts'), experiment![1]!])
      expect(path.startsWith(`${cwd}/`) && existsSync(path), path).toBe(true);
  });

  it('refuses an agent it does not drive, saying which it does (exit 64)', async () => {
    const demo = await runIntutic(['demo', '--agent', 'aider'], { cwd: scratchDir('demo-bad-agent'), env: e2eEnv(demoQueuePrefix) });
    expect(demo.code).toBe(EXIT.usage);
    expect(demo.stderr).toContain('the demo has no agent "aider"');
    expect(demo.stderr).toContain('--agent takes claude or gemini');
  });
});
