// The three shipped examples end to end with real Claude Code in the sandbox (examples-suite.ts), run
// as a user runs them (no --sandbox-image), and the Claude Code agent image they run in.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentPins, checkEngine, cliVersion, ensureAgentImage } from '@intutic/sandbox';
import { sandboxBuildEnv } from '@intutic/testkit';
import { describeExamples } from './examples-suite.ts';
import { agentImage, e2eReady } from './support.ts';

const ready = await e2eReady('examples end to end');
let image: string;

beforeAll(async () => {
  if (ready) image = await agentImage('claude');
}, 1_200_000);

describe.runIf(ready)('the agent image', () => {
  it('is reused when present and current, and runs the pinned Claude Code', async () => {
    const engine = await checkEngine({ env: process.env });
    const progress: string[] = [];
    expect(await ensureAgentImage(engine, { version: cliVersion(), env: sandboxBuildEnv(process.env), onProgress: (line) => progress.push(line) })).toBe(image);
    expect(progress).toEqual([]);
    const info = await engine.docker.getImage(image).inspect();
    expect(info.Config.Env).toEqual(expect.arrayContaining(['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1']));
    const version = execFileSync('docker', ['run', '--rm', '--network', 'none', '--entrypoint', 'claude', image, '--version'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(version).toContain(`${agentPins().claudeCode} (Claude Code)`);
  });
});

// No --sandbox-image: the run picks the Claude Code image from the agent command, as a user's would.
describeExamples('claude', ready, () => image, { imageFlag: false });
