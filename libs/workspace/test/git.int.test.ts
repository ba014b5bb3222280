import { renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { assertCleanTree, commitHasPath, dirtyPaths, git, gitRemote, hasCommit, pinHead, repoRoot } from '../src/index.ts';
import { makeRepo, removeScratch, scratch, sh, writeTree } from './helpers.ts';

afterAll(removeScratch);

describe('the clean-tree check', () => {
  it('passes on a freshly committed tree', async () => {
    const repo = makeRepo();
    await expect(assertCleanTree(repo)).resolves.toBeUndefined();
  });

  it('names every dirty path: modified, staged, deleted, renamed and untracked', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' });
    writeFileSync(join(repo, 'a.txt'), 'changed\n');
    writeFileSync(join(repo, 'b.txt'), 'staged\n');
    sh(repo, 'add', 'b.txt');
    unlinkSync(join(repo, 'c.txt'));
    renameSync(join(repo, 'd.txt'), join(repo, 'renamed.txt'));
    sh(repo, 'add', '-A', 'd.txt', 'renamed.txt');
    writeTree(repo, { 'new/dir/untracked.txt': 'x' });
    expect((await dirtyPaths(repo)).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'new/dir/untracked.txt', 'renamed.txt']);
    const error = await assertCleanTree(repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntuticError);
    expect((error as IntuticError).code).toBe('E_TREE_DIRTY');
    for (const path of ['a.txt', 'b.txt', 'c.txt', 'new/dir/untracked.txt', 'renamed.txt']) expect((error as Error).message).toContain(path);
  });

  it('does not count what intutic connect generated: those files are carried into every repetition', async () => {
    const repo = makeRepo();
    writeTree(repo, {
      '.claude/settings.json': '{}',
      '.claude/settings.local.json': '{}',
      '.codex/hooks.json': '{}',
      '.cursor/hooks.json': '{}',
      '.intutic/hooks/claude-code-check.cjs': '',
      '.intutic/.gitignore': '*',
    });
    await expect(assertCleanTree(repo)).resolves.toBeUndefined();
    // Anything else beside them still counts, including other files under .claude/.
    writeTree(repo, { '.claude/commands/deploy.md': 'x', 'src/x.ts': '' });
    const error = (await assertCleanTree(repo).catch((e: unknown) => e)) as IntuticError;
    expect(error.code).toBe('E_TREE_DIRTY');
    expect(error.message).toContain('.claude/commands/deploy.md');
    expect(error.message).toContain('src/x.ts');
    expect(error.message).not.toContain('settings.json');
  });

  it("does not count connect's wrapping of the committed MCP servers, but counts any other edit of .mcp.json", async () => {
    const servers = { docs: { command: 'npx', args: ['-y', 'docs-mcp'] } };
    const repo = makeRepo({ 'README.md': 'x\n', '.mcp.json': JSON.stringify({ mcpServers: servers }, null, 2) });
    const wrapped = { docs: { command: 'intutic-mcp-proxy', args: ['--name', 'docs', '--', 'npx', '-y', 'docs-mcp'] } };
    writeTree(repo, { '.mcp.json': JSON.stringify({ mcpServers: wrapped }, null, 2) });
    await expect(assertCleanTree(repo)).resolves.toBeUndefined();
    writeTree(repo, { '.mcp.json': JSON.stringify({ mcpServers: { ...wrapped, extra: { command: 'node', args: ['x.js'] } } }, null, 2) });
    await expect(assertCleanTree(repo)).rejects.toMatchObject({ code: 'E_TREE_DIRTY', message: expect.stringContaining('.mcp.json') });
  });

  it('ignores only what the user ignored', async () => {
    const repo = makeRepo({ '.gitignore': 'build/\n' });
    writeTree(repo, { 'build/out.js': 'x', '.intutic/hooks/gate.js': 'x' });
    expect(await dirtyPaths(repo)).toEqual(['.intutic/hooks/gate.js']);
  });
});

describe('pinning the commit', () => {
  it('returns HEAD and the repository root from a subdirectory', async () => {
    const repo = makeRepo({ 'src/x.ts': '1' });
    expect(await repoRoot(join(repo, 'src'))).toBe(repo);
    expect(await pinHead(repo)).toBe(sh(repo, 'rev-parse', 'HEAD').trim());
  });

  it('refuses a directory that is not a repository, and a repository with no commit', async () => {
    const plain = scratch('intutic-plain-');
    await expect(repoRoot(plain)).rejects.toMatchObject({ code: 'E_NOT_A_GIT_REPO' });
    sh(plain, 'init', '--quiet');
    await expect(pinHead(plain)).rejects.toMatchObject({ code: 'E_NOT_A_GIT_REPO' });
    rmSync(plain, { recursive: true, force: true });
  });

  it('reads the remote a worker elsewhere could fetch from', async () => {
    const repo = makeRepo();
    expect(await gitRemote(repo)).toBeNull();
    sh(repo, 'remote', 'add', 'upstream', 'https://git.example.invalid/p.git');
    expect(await gitRemote(repo)).toBe('https://git.example.invalid/p.git');
    sh(repo, 'remote', 'add', 'origin', 'https://git.example.invalid/o.git');
    expect(await gitRemote(repo)).toBe('https://git.example.invalid/o.git');
  });

  it('never hands on the credentials a remote URL carries', async () => {
    const repo = makeRepo();
    sh(repo, 'remote', 'add', 'origin', 'https://ci-bot:ghp_notARealToken123@git.example.invalid/o.git');
    expect(await gitRemote(repo)).toBe('https://git.example.invalid/o.git');
    sh(repo, 'remote', 'set-url', 'origin', 'git@git.example.invalid:team/o.git');
    expect(await gitRemote(repo)).toBe('git@git.example.invalid:team/o.git');
  });
});

describe('git through simple-git', () => {
  it('fails on any non-zero exit, also one git makes without a word', async () => {
    const repo = makeRepo();
    const sha = await pinHead(repo);
    await expect(git(repo, ['rev-parse', '--verify', '--quiet', 'refs/heads/no-such-branch'])).rejects.toThrow(/exited with code 1/);
    expect(await hasCommit(repo, sha)).toBe(true);
    expect(await hasCommit(repo, 'f'.repeat(40))).toBe(false);
    expect(await commitHasPath(repo, sha, 'README.md')).toBe(true);
    expect(await commitHasPath(repo, sha, 'no-such-file')).toBe(false);
    expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(`${sha}\n`);
  });

  it("runs under the user's environment as it is, editor and ssh command included", async () => {
    const repo = makeRepo();
    const saved = { EDITOR: process.env.EDITOR, GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND };
    process.env.EDITOR = 'vi';
    process.env.GIT_SSH_COMMAND = 'ssh -i /nonexistent/key';
    try {
      expect(await pinHead(repo)).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
