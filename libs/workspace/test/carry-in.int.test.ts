import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENV } from '@intutic/faults';
import { applyCarryIn, captureCarryIn, createWorkspace, dirtyPaths, pinHead, planCarryIn, rewriteProjectPaths } from '../src/index.ts';
import { POLICY_REQUIRED_ENV } from '@intutic/governance';
import { makeRepo, removeScratch, scratch, sh, writeTree } from './helpers.ts';

afterAll(removeScratch);

/** A project after `intutic connect`: generated gates and settings, ignored, naming its own path. */
function connectedProject(extraCommitted: Record<string, string> = {}) {
  const repo = makeRepo({ '.gitignore': '.intutic/\n.claude/\n.cursor/\n', 'README.md': 'x\n', ...extraCommitted });
  writeTree(repo, {
    '.intutic/hooks/claude-code-check.js': `#!/usr/bin/env node\n// gate for ${repo}\nrequire('${repo}/.intutic/hooks/lib/common.js');\n`,
    '.intutic/hooks/lib/common.js': 'module.exports = {};\n',
    '.claude/settings.json': JSON.stringify({
      hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: `node ${repo}/.intutic/hooks/claude-code-check.js` }] }] },
    }),
    '.claude/settings.local.json': JSON.stringify({ note: `sibling ${repo}2/other stays` }),
    '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: `${repo}/.intutic/hooks/cursor-check.js` }] } }),
  });
  chmodSync(join(repo, '.intutic/hooks/claude-code-check.js'), 0o755);
  return repo;
}

function policyHome(): { home: string } {
  const home = scratch();
  writeTree(home, { '.intutic/hooks/snapshot-rules.json': '{"rules":[]}', '.intutic/hooks/approved-bypasses.json': '[]' });
  return { home };
}

describe('carrying the gates into a repetition', () => {
  it('copies the gates and settings, rewrites the project path to /work, and never writes into the project', async () => {
    const repo = connectedProject();
    const sha = await pinHead(repo);
    const { home } = policyHome();
    const before = Object.fromEntries(['.claude/settings.json', '.intutic/hooks/claude-code-check.js'].map((p) => [p, readFileSync(join(repo, p), 'utf8')]));
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: home });
    expect(carryIn.files.map((f) => f.path).sort()).toEqual([
      '.claude/settings.json',
      '.claude/settings.local.json',
      '.cursor/hooks.json',
      '.intutic/hooks/claude-code-check.js',
      '.intutic/hooks/lib/common.js',
    ]);
    expect(carryIn.warnings).toEqual([]);

    const worktree = join(scratch(), 'wt');
    const governanceDir = join(scratch(), 'governance');
    await createWorkspace(repo, sha, worktree);
    const applied = await applyCarryIn(worktree, carryIn, { governanceDir });
    const settings = readFileSync(join(worktree, '.claude/settings.json'), 'utf8');
    expect(settings).toContain('node /work/.intutic/hooks/claude-code-check.js');
    expect(settings).not.toContain(repo);
    expect(readFileSync(join(worktree, '.intutic/hooks/claude-code-check.js'), 'utf8')).toContain("require('/work/.intutic/hooks/lib/common.js')");
    // Only whole path components are rewritten.
    expect(readFileSync(join(worktree, '.claude/settings.local.json'), 'utf8')).toContain(`${repo}2/other`);
    expect(statSync(join(worktree, '.intutic/hooks/claude-code-check.js')).mode & 0o111).not.toBe(0);
    // The policy goes outside the worktree, to what the sandbox mounts read-only at /intutic/governance.
    expect(applied.env).toEqual({
      [ENV.snapshotRules]: '/intutic/governance/policy/snapshot-rules.json',
      [ENV.approvedBypasses]: '/intutic/governance/policy/approved-bypasses.json',
      [POLICY_REQUIRED_ENV]: '1',
    });
    expect(readFileSync(join(governanceDir, 'policy/snapshot-rules.json'), 'utf8')).toBe('{"rules":[]}');
    expect(statSync(join(governanceDir, 'policy/snapshot-rules.json')).mode & 0o777).toBe(0o644);
    expect(existsSync(join(worktree, '.intutic-chaos'))).toBe(false);
    expect(applied.entries).toContainEqual({ path: '/intutic/governance/policy/snapshot-rules.json', action: 'carried_in', rewritten: false });
    // What the sandbox keeps the agent from changing: the gates' directory (its log a writable hole) and every settings file.
    expect(applied.protection).toEqual({
      readOnly: ['.intutic', '.claude/settings.json', '.claude/settings.local.json', '.cursor/hooks.json'],
      pinned: ['.intutic/events'],
      placeholders: [],
    });
    expect(statSync(join(worktree, '.intutic/events')).isDirectory()).toBe(true);
    expect(applied.entries).toContainEqual({ path: '.claude/settings.json', action: 'carried_in', rewritten: true });
    expect(applied.entries).toContainEqual({ path: '.intutic/hooks/lib/common.js', action: 'carried_in', rewritten: false });
    expect(applied.entries).toEqual(planCarryIn(carryIn));

    for (const [p, content] of Object.entries(before)) expect(readFileSync(join(repo, p), 'utf8')).toBe(content);
    expect(await dirtyPaths(repo)).toEqual([]);
  });

  it('keeps a committed copy instead of the project file, but still rewrites its paths', async () => {
    const repo = makeRepo({ 'README.md': 'x\n' });
    writeTree(repo, { '.codex/hooks.json': '{"hooks":{"PreToolUse":[{"command":"node PROJECT/.intutic/hooks/codex-check.js"}]}}'.replace('PROJECT', repo) });
    sh(repo, 'add', '.codex/hooks.json');
    sh(repo, 'commit', '--quiet', '-m', 'commit the codex hooks');
    const sha = await pinHead(repo);
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() });
    expect(carryIn.files).toEqual([expect.objectContaining({ path: '.codex/hooks.json', committed: true })]);
    // Tamper with the captured copy: the committed one must still win.
    carryIn.files[0]!.content_b64 = Buffer.from('{"replaced":true}').toString('base64');
    const worktree = join(scratch(), 'wt');
    await createWorkspace(repo, sha, worktree);
    const applied = await applyCarryIn(worktree, carryIn, { governanceDir: join(scratch(), 'governance') });
    expect(readFileSync(join(worktree, '.codex/hooks.json'), 'utf8')).toBe('{"hooks":{"PreToolUse":[{"command":"node /work/.intutic/hooks/codex-check.js"}]}}');
    expect(applied.entries).toEqual([{ path: '.codex/hooks.json', action: 'kept_committed', rewritten: true }]);
    // A committed settings file is governance too; no snapshot was carried, so none is required.
    expect(applied.protection).toEqual({ readOnly: ['.codex/hooks.json'], pinned: [], placeholders: [] });
    expect(applied.env).toEqual({});
  });

  it("merges the gate hooks connect added into a settings file the project commits, and nothing else of the project's edits", async () => {
    const own = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write .' }] }] },
    };
    const repo = makeRepo({ '.gitignore': '.intutic/\n', 'README.md': 'x\n', '.claude/settings.json': `${JSON.stringify(own, null, 2)}\n` });
    const gate = { matcher: '*', hooks: [{ type: 'command', command: `node ${repo}/.intutic/hooks/claude-code-check.cjs` }] };
    const working = { ...own, permissions: { allow: ['Bash(npm test)', 'Bash(rm:*)'] }, hooks: { ...own.hooks, PreToolUse: [gate] } };
    writeTree(repo, { '.intutic/hooks/claude-code-check.cjs': '// gate\n', '.claude/settings.json': JSON.stringify(working, null, 2) });
    const sha = await pinHead(repo);
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() });
    expect(planCarryIn(carryIn)).toContainEqual({ path: '.claude/settings.json', action: 'merged', rewritten: true });
    const worktree = join(scratch(), 'wt');
    await createWorkspace(repo, sha, worktree);
    const applied = await applyCarryIn(worktree, carryIn, { governanceDir: join(scratch(), 'governance') });
    const settings = JSON.parse(readFileSync(join(worktree, '.claude/settings.json'), 'utf8')) as typeof working;
    expect(settings.hooks.PreToolUse).toEqual([{ ...gate, hooks: [{ type: 'command', command: 'node /work/.intutic/hooks/claude-code-check.cjs' }] }]);
    expect(settings.hooks.PostToolUse).toEqual(own.hooks.PostToolUse);
    expect(settings.permissions).toEqual(own.permissions);
    expect(applied.entries).toContainEqual({ path: '.claude/settings.json', action: 'merged', rewritten: true });
  });

  it('refuses a repetition whose settings would register no gate, at capture and again where it is applied', async () => {
    const own = `${JSON.stringify({ permissions: { allow: ['Bash(npm test)'] } }, null, 2)}\n`;
    const repo = makeRepo({ '.gitignore': '.intutic/\n', 'README.md': 'x\n', '.claude/settings.json': own });
    writeTree(repo, { '.intutic/hooks/claude-code-check.cjs': '// gate\n' });
    const sha = await pinHead(repo);
    await expect(captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() })).rejects.toMatchObject({
      code: 'E_UNGOVERNED',
      message: expect.stringContaining('.claude/settings.json: registers no intutic gate'),
    });
    // A plan that lost its merge on the way (an older runner, an edited job) is refused by the worker too.
    writeTree(repo, {
      '.claude/settings.json': JSON.stringify({
        permissions: { allow: ['Bash(npm test)'] },
        hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `node ${repo}/.intutic/hooks/claude-code-check.cjs` }] }] },
      }),
    });
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() });
    for (const file of carryIn.files) delete file.merge;
    const worktree = join(scratch(), 'wt');
    await createWorkspace(repo, sha, worktree);
    await expect(applyCarryIn(worktree, carryIn, { governanceDir: join(scratch(), 'governance') })).rejects.toMatchObject({ code: 'E_UNGOVERNED' });
  });

  it('warns when there are no gates and no snapshot', async () => {
    const repo = makeRepo();
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: await pinHead(repo), env: {}, homeDir: scratch() });
    expect(carryIn.files).toEqual([]);
    expect(carryIn.warnings).toEqual([expect.stringContaining('the project has no generated gates'), expect.stringContaining('the gates have no snapshot')]);
  });

  it('takes the policy from where the two env vars point', async () => {
    const repo = connectedProject();
    const elsewhere = scratch();
    writeTree(elsewhere, { 'team-rules.json': '{"rules":[1]}', 'bypass.json': '["b"]' });
    const env = { [ENV.snapshotRules]: join(elsewhere, 'team-rules.json'), [ENV.approvedBypasses]: join(elsewhere, 'bypass.json') };
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: await pinHead(repo), env, homeDir: scratch() });
    expect(carryIn.policy.map((p) => [p.role, p.name, p.source])).toEqual([
      ['snapshot', 'team-rules.json', env[ENV.snapshotRules]],
      ['bypasses', 'bypass.json', env[ENV.approvedBypasses]],
    ]);
    const missing = await captureCarryIn({
      projectRoot: repo,
      commit: await pinHead(repo),
      env: { [ENV.snapshotRules]: '/nonexistent/rules.json' },
      homeDir: scratch(),
    });
    expect(missing.warnings).toEqual([expect.stringContaining(`${ENV.snapshotRules} points to /nonexistent/rules.json`)]);
  });

  it('rewrites the path the user typed and the one symlinks resolve to', async () => {
    const repo = connectedProject();
    const link = join(scratch(), 'link-to-project');
    symlinkSync(repo, link);
    const carryIn = await captureCarryIn({ projectRoot: link, commit: await pinHead(repo), env: {}, homeDir: scratch() });
    expect(carryIn.project_paths).toEqual([link, repo]);
    expect(rewriteProjectPaths(`${link}/a ${repo}/b ${repo}`, carryIn.project_paths, '/work')).toBe('/work/a /work/b /work');
  });
});

describe('protecting what was carried in', () => {
  it('adds an empty, protected settings.local.json when only settings.json is there, so none can be added to turn the hooks off', async () => {
    const repo = makeRepo({ '.gitignore': '.intutic/\n.claude/\n', 'README.md': 'x\n' });
    const gate = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `node ${repo}/.intutic/hooks/claude-code-check.cjs` }] }] } };
    writeTree(repo, { '.intutic/hooks/claude-code-check.cjs': '// gate\n', '.claude/settings.json': JSON.stringify(gate) });
    const sha = await pinHead(repo);
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() });
    const worktree = join(scratch(), 'wt');
    await createWorkspace(repo, sha, worktree);
    const applied = await applyCarryIn(worktree, carryIn, { governanceDir: join(scratch(), 'governance') });
    expect(applied.protection).toEqual({
      readOnly: ['.intutic', '.claude/settings.json', '.claude/settings.local.json'],
      pinned: ['.intutic/events'],
      placeholders: ['.claude/settings.local.json'],
    });
    expect(readFileSync(join(worktree, '.claude/settings.local.json'), 'utf8')).toBe('{}\n');
    // The carry-in listing names what came from the project; the placeholder is the sandbox's.
    expect(applied.entries.map((e) => e.path)).toEqual(['.intutic/hooks/claude-code-check.cjs', '.claude/settings.json']);
  });

  it('makes what it protects readable to the agent whatever the umask (a read-only mount is not lent to it)', async () => {
    const repo = makeRepo({ '.gitignore': '.intutic/\n', 'README.md': 'x\n' });
    writeTree(repo, { '.intutic/hooks/claude-code-check.cjs': '// gate\n' });
    const sha = await pinHead(repo);
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() });
    carryIn.files[0]!.mode = 0o600;
    const worktree = join(scratch(), 'wt');
    await createWorkspace(repo, sha, worktree);
    mkdirSync(join(worktree, '.intutic/hooks'), { recursive: true, mode: 0o700 });
    chmodSync(join(worktree, '.intutic'), 0o700);
    await applyCarryIn(worktree, carryIn, { governanceDir: join(scratch(), 'governance') });
    expect(statSync(join(worktree, '.intutic')).mode & 0o777).toBe(0o755);
    expect(statSync(join(worktree, '.intutic/hooks/claude-code-check.cjs')).mode & 0o777).toBe(0o644);
  });

  it('refuses a governance path the commit has as a symlink: a mount or a write through it could reach outside', async () => {
    const outside = scratch();
    writeFileSync(join(outside, 'settings.json'), '{}');
    const repo = makeRepo({ 'README.md': 'x\n' });
    mkdirSync(join(repo, '.claude'));
    symlinkSync(join(outside, 'settings.json'), join(repo, '.claude/settings.json'));
    sh(repo, 'add', '.claude/settings.json');
    sh(repo, 'commit', '--quiet', '-m', 'a linked settings file');
    const sha = await pinHead(repo);
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: scratch() });
    const worktree = join(scratch(), 'wt');
    await createWorkspace(repo, sha, worktree);
    await expect(applyCarryIn(worktree, carryIn, { governanceDir: join(scratch(), 'governance') })).rejects.toThrow(
      /refusing to carry in \.claude\/settings\.json: \.claude\/settings\.json is a symlink in the commit/,
    );
    expect(readFileSync(join(outside, 'settings.json'), 'utf8')).toBe('{}');
  });
});

describe('rewriteProjectPaths', () => {
  it.each([
    ['node /p/proj/.intutic/hooks/x.js', 'node /work/.intutic/hooks/x.js'],
    ['"/p/proj"', '"/work"'],
    ['/p/project/x', '/p/project/x'],
    ['/p/proj-old/x', '/p/proj-old/x'],
    ['{"c":"\\/p\\/proj\\/x"}', '{"c":"\\/work\\/x"}'],
    ['cd /p/proj && /p/proj/run', 'cd /work && /work/run'],
  ])('%s -> %s', (input, expected) => {
    expect(rewriteProjectPaths(input, ['/p/proj'], '/work')).toBe(expected);
  });
});
