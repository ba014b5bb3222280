// Workspace protection against a real engine: read-only governance mounts are never lent to the agent,
// /work and the pinned directories are root's (0777) while the command runs so that the agent cannot
// chmod them shut, and every owner and mode is as before once the run is over, for a root-owned
// workspace (lent) and a user's one alike. The escape attempts themselves, as the agent, are in
// libs/runner/test/governance-reach.int.test.ts.
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { removeSandboxContainers, runInSandbox, type WorkspaceProtection } from '../src/index.ts';
import { docker, sandboxFixture, tempWorkspace, type SandboxFixture } from './support.ts';

const ready = requireOrSkip('sandbox protection', dockerRequirement());
const testLabel = { 'dev.intutic.test': `protection-${process.pid}` };
const PROTECTION = { readOnly: ['.intutic', '.claude/settings.json'], pinned: ['.intutic/events', '.intutic-chaos'] };

describe.runIf(ready)('protecting governance in the workspace', () => {
  let fx: SandboxFixture;
  const dirs: string[] = [];
  const track = (dir: string) => (dirs.push(dir), dir);

  /** A workspace after the carry-in, every entry owned by `owner`, and a governance directory. */
  function setUp(owner: [number, number] | null): { workspace: string; protection: WorkspaceProtection } {
    const workspace = track(tempWorkspace('intutic-protect-'));
    const governanceDir = track(scratchDir('intutic-governance-'));
    mkdirSync(join(workspace, '.intutic/hooks'), { recursive: true });
    mkdirSync(join(workspace, '.intutic/events'));
    mkdirSync(join(workspace, '.claude'));
    mkdirSync(join(workspace, '.intutic-chaos'));
    writeFileSync(join(workspace, '.intutic/hooks/gate.cjs'), '// gate\n');
    writeFileSync(join(workspace, '.claude/settings.json'), '{"hooks":{}}\n');
    writeFileSync(join(workspace, '.claude/notes.md'), 'notes\n');
    writeFileSync(join(workspace, 'README.md'), 'hi\n');
    writeFileSync(join(governanceDir, 'plan.json'), '{}\n');
    chmodSync(governanceDir, 0o755); // as the runner leaves it: readable by the agent's user, whatever the umask
    if (owner) for (const path of tree(workspace)) chownSync(join(workspace, path), ...owner);
    return { workspace, protection: { ...PROTECTION, governanceDir } };
  }

  function tree(root: string, rel = ''): string[] {
    const info = lstatSync(join(root, rel));
    return [rel, ...(info.isDirectory() ? readdirSync(join(root, rel)).flatMap((name) => tree(root, rel ? `${rel}/${name}` : name)) : [])];
  }
  const owners = (root: string, paths: string[]) =>
    Object.fromEntries(paths.map((p) => [p || '/', (({ uid, gid, mode }) => `${uid}:${gid} ${(mode & 0o7777).toString(8)}`)(lstatSync(join(root, p)))]));

  beforeAll(async () => {
    fx = await sandboxFixture('base');
  }, 600_000);

  afterAll(async () => {
    await removeSandboxContainers(fx.engine, testLabel).catch(() => 0);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const INSIDE = [
    'stat -c "%n %u:%g %a" /work /work/.claude /work/.intutic-chaos /work/.intutic/events /work/.claude/settings.json /work/.intutic/hooks/gate.cjs',
    'chmod 0 /work 2>/dev/null && echo CHMOD-WORK-WORKED',
    'chmod 0 /work/.claude 2>/dev/null && echo CHMOD-CLAUDE-WORKED',
    'echo agent > /work/made.txt && echo e >> /work/.intutic-chaos/events.jsonl && echo g > /work/.intutic/events/gates.jsonl && echo n >> /work/.claude/notes.md',
    // Refused by the mounts themselves, not by ownership: in a user's workspace the agent owns these files.
    'echo x >> /work/.claude/settings.json 2>/dev/null && echo EDIT-WORKED',
    'rm -f /work/.claude/settings.json 2>/dev/null && echo DELETE-WORKED',
    'mv /work/.claude /work/claude.moved 2>/dev/null && echo RENAME-DIR-WORKED',
    'chmod 0666 /work/.intutic/hooks/gate.cjs 2>/dev/null && echo CHMOD-GATE-WORKED',
    'echo x > /intutic/governance/plan.json 2>/dev/null && echo PLAN-WORKED',
    'echo y >> /work/.claude/notes.md && mv /work/.claude/notes.md /work/.claude/notes2.md && mv /work/.claude/notes2.md /work/.claude/notes.md && echo CONTROL-OK',
    'cat /intutic/governance/plan.json /work/.intutic/hooks/gate.cjs >/dev/null && echo READ-OK',
    'echo "ID $(id -u):$(id -g)"',
  ].join('; ');

  it.each([
    ['a root-owned workspace (lent to the agent)', null, '1000:1000', '0:0'],
    ["a user's workspace (the agent runs as its owner)", [4242, 4343] as [number, number], '4242:4343', '4242:4343'],
  ])('%s: sealed while the command runs, as it was afterwards', async (_, owner, agentIds, hostIds) => {
    const { workspace, protection } = setUp(owner);
    const paths = tree(workspace);
    const before = owners(workspace, paths);
    let stdout = '';
    let stderr = '';
    const result = await runInSandbox(fx.engine, {
      image: fx.image,
      workspace,
      protection,
      envNames: [],
      env: {},
      labels: testLabel,
      command: INSIDE,
      onStdout: (c) => (stdout += String(c)),
      onStderr: (c) => (stderr += String(c)),
    });
    expect(result.exitCode, stderr).toBe(0);
    const seen = Object.fromEntries(
      stdout
        .split('\n')
        .filter((l) => l.startsWith('/work'))
        .map((l) => [l.split(' ')[0], l.split(' ').slice(1).join(' ')]),
    );
    const governanceOwner = owner ? hostIds : '0:0';
    expect(seen).toEqual({
      // Sealed: root's, writable by all, so the agent can write in them but not chmod them.
      '/work': '0:0 777',
      '/work/.claude': '0:0 777',
      '/work/.intutic-chaos': '0:0 777',
      '/work/.intutic/events': '0:0 777',
      // Read-only mounts are never lent: a root-owned workspace's governance stays root's.
      '/work/.claude/settings.json': `${governanceOwner} 644`,
      '/work/.intutic/hooks/gate.cjs': `${governanceOwner} 644`,
    });
    expect(stdout).not.toContain('WORKED');
    expect(stdout).toContain('CONTROL-OK');
    expect(stdout).toContain('READ-OK');
    // Afterwards: every owner and mode as before, and what the agent wrote is the host user's.
    expect(owners(workspace, paths)).toEqual(before);
    expect(owners(workspace, ['made.txt', '.intutic/events/gates.jsonl'])).toEqual({
      'made.txt': `${hostIds} 644`,
      '.intutic/events/gates.jsonl': `${hostIds} 644`,
    });
    expect(stdout).toContain(`ID ${agentIds}\n`);
  });

  it('refuses, before any container exists, a protected path that leads through a symlink or does not exist', async () => {
    const { workspace, protection } = setUp(null);
    symlinkSync('/etc', join(workspace, 'linked'));
    const name = `intutic-protect-refused-${process.pid}`;
    await expect(
      runInSandbox(fx.engine, {
        image: fx.image,
        workspace,
        protection: { ...protection, readOnly: ['linked/passwd'] },
        envNames: [],
        env: {},
        name,
        command: 'true',
      }),
    ).rejects.toThrow(/cannot protect \/work\/linked in the sandbox: linked is a symlink in the workspace/);
    await expect(
      runInSandbox(fx.engine, {
        image: fx.image,
        workspace,
        protection: { ...protection, readOnly: ['.codex/hooks.json'] },
        envNames: [],
        env: {},
        name,
        command: 'true',
      }),
    ).rejects.toThrow(/\.codex does not exist/);
    expect((await docker(['ps', '-a', '-q', '--filter', `name=${name}`])).stdout.trim()).toBe('');
  });
});
