// git in the sandbox, end to end: a real `chaos run` (built CLI, Redis, engine, -node image, proxy,
// carry-in) whose scripted agent (fixtures/agents/git-work.sh) reads `git status` (clean, with the
// gates and hook settings carried in: committed ones rewritten in place, uncommitted ones copied, a
// placeholder settings file), `git log` (the project's history), commits on a branch of its own, and
// whose verify checks that commit with git. The run is scored, and the project's refs, objects,
// config and hooks are byte for byte what they were.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip, gitDirHash } from '@intutic/testkit';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('git in the sandbox', await redisRequirement()) && requireOrSkip('git in the sandbox', dockerRequirement());

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=fixture', '-c', 'user.email=fixture@example.invalid', ...args], { cwd, encoding: 'utf8' });

let world: World;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('git');
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!ok)('git in a repetition, for the agent and for verify', () => {
  it('status clean, history there, a commit on a branch; scored; the project untouched', async () => {
    const { project } = world;
    // Commit Codex's hooks (they name the project's path, so the carry-in rewrites them in place) and
    // leave Claude's settings uncommitted and not ignored; plant config and a hook that must not travel.
    writeFileSync(join(project, '.gitignore'), '.cursor/\n');
    git(project, 'add', '.gitignore', '.codex/hooks.json');
    git(project, 'commit', '--quiet', '-m', 'commit the codex hooks');
    expect(readFileSync(join(project, '.codex/hooks.json'), 'utf8')).toContain(project);
    git(project, 'config', 'remote.origin.url', 'https://user:planted-token@git.example.invalid/p.git');
    git(project, 'config', 'credential.helper', 'store --file /planted/credentials');
    writeFileSync(join(project, '.git/hooks/post-checkout'), '#!/bin/sh\necho planted-hook-ran\n', { mode: 0o755 });
    const history = git(project, 'log', '--format=%H').trim().split('\n');
    const before = gitDirHash(project);

    const file = world.experiment('registry-down', {
      agent: `sh agents/git-work.sh ${REGISTRY_HOST}`,
      verify:
        'test -z "$(git status --porcelain)" && test "$(git symbolic-ref --short HEAD)" = agent-work && test "$(git log -1 --format=%s)" = "agent: add a note" && test "$(git log -1 --format=%ae)" = sandbox@intutic.invalid && git show HEAD:NOTE.md | grep -q "a note from the agent" && git merge-base --is-ancestor ' +
        history[0] +
        ' HEAD',
      repeat: 1,
    });
    const out = join(world.root, 'git.json');
    const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out]);
    const report = readReportFile(out);
    for (const rep of report.repetitions)
      process.stderr.write(
        `--- ${rep.kind} (error: ${rep.error}):\n${readFileSync(rep.artifacts.agent_output, 'utf8')}${readFileSync(rep.artifacts.agent_stderr, 'utf8')}\n`,
      );
    expect(result.code, result.stderr).toBe(0);
    expect(report.verdict).toBe('scored');

    for (const rep of report.repetitions) {
      const stdout = readFileSync(rep.artifacts.agent_output, 'utf8');
      expect(rep.error, rep.kind).toBeNull();
      expect([rep.kind, rep.agent_exit_code, rep.verify_exit_code]).toEqual([rep.kind, 0, 0]);
      expect(stdout).toContain('STATUS[]');
      expect(stdout).toContain(`HEAD ${history[0]} detached`);
      expect(stdout.split('\n').filter((l) => l.startsWith('LOG '))).toHaveLength(history.length);
      expect(stdout).toContain('DIFF empty');
      expect(stdout).toContain('COMMITTED NOTE.md');
      expect(stdout.split('\n').filter((l) => l.startsWith('COMMITTED '))).toEqual(['COMMITTED NOTE.md']);
      expect(stdout).toContain('AFTER[]');
      expect(stdout).not.toContain('planted');
    }
    expect(report.repetitions.find((r) => r.kind === 'faulted')?.injections).toBeGreaterThan(0);
    // The run carried in both kinds: a committed file rewritten in place and uncommitted ones.
    expect(result.stderr).toMatch(/\.codex\/hooks\.json: kept the committed copy, project path rewritten/);
    expect(result.stderr).toMatch(/\.claude\/settings\.json: carried in/);
    expect(gitDirHash(project)).toEqual(before);
    expect(git(project, 'branch', '--list', 'agent-work')).toBe('');
  });
});
