// A repetition's workspace: a standalone repository of the pinned commit. git works in it as in the
// user's checkout, nothing of the project's git config or hooks reaches it, the project's .git is
// read only, and what the runner carries in does not show as a change.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyCarryIn,
  captureCarryIn,
  carryInHiddenPaths,
  createWorkspace,
  dirtyPaths,
  hideFromGit,
  listWorktrees,
  pinHead,
  removeWorkspace,
  resolveCommitSource,
  SANDBOX_COMMITTER,
} from '../src/index.ts';
import { makeRepo, removeScratch, scratch, sh, writeTree } from './helpers.ts';
import { treeHash } from '@intutic/testkit';

afterAll(removeScratch);

/** Plain git in the workspace, as the agent runs it: no -c identity, no user-level config. */
function agentGit(cwd: string, ...args: string[]): string {
  return sh(cwd, ...args);
}

/** A project with history, a second branch, a tag, and config and hooks that must not travel. */
function plantedProject(): { repo: string; first: string; pinned: string } {
  const repo = makeRepo({ 'README.md': 'one\n', 'src/app.js': 'console.log(1)\n' });
  const first = sh(repo, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo, 'src/app.js'), 'console.log(2)\n');
  sh(repo, 'commit', '--quiet', '-am', 'second');
  sh(repo, 'tag', 'v2');
  const pinned = sh(repo, 'rev-parse', 'HEAD').trim();
  sh(repo, 'branch', 'feature', first);
  writeFileSync(join(repo, 'README.md'), 'later\n');
  sh(repo, 'commit', '--quiet', '-am', 'after the pin');
  const included = join(scratch(), 'included.gitconfig');
  writeFileSync(included, '[credential]\n\thelper = store --file /secret/included\n');
  for (const [key, value] of [
    ['remote.origin.url', 'https://user:s3cret-token@git.example.invalid/project.git'],
    ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'],
    ['credential.helper', 'store --file /secret/credentials'],
    ['credential.https://git.example.invalid.username', 'planted-user'],
    ['include.path', included],
    ['includeIf.gitdir:/.path', included],
    ['core.hooksPath', '/planted/hooks'],
    ['core.fsmonitor', 'touch /tmp/planted-fsmonitor'],
    ['core.sshCommand', 'ssh -i /secret/key'],
    ['http.extraHeader', 'Authorization: Bearer planted'],
    ['user.name', 'Planted Person'],
    ['user.email', 'planted@example.invalid'],
  ])
    sh(repo, 'config', key!, value!);
  for (const hook of ['post-checkout', 'pre-commit', 'post-commit']) {
    writeFileSync(join(repo, '.git/hooks', hook), '#!/bin/sh\necho planted > /tmp/planted-hook-ran\n');
    chmodSync(join(repo, '.git/hooks', hook), 0o755);
  }
  return { repo, first, pinned };
}

describe('a standalone workspace of the pinned commit', () => {
  it('has the history, HEAD detached at the pin, and working git; the project is read only', async () => {
    const { repo, first, pinned } = plantedProject();
    const before = treeHash(join(repo, '.git'));
    const path = join(scratch(), 'worktree');
    await createWorkspace(repo, pinned, path);

    expect(agentGit(path, 'rev-parse', 'HEAD').trim()).toBe(pinned);
    expect(() => agentGit(path, 'symbolic-ref', '-q', 'HEAD')).toThrow();
    expect(readFileSync(join(path, 'README.md'), 'utf8')).toBe('one\n');
    expect(agentGit(path, 'log', '--format=%H').trim().split('\n')).toEqual([pinned, first]);
    expect(agentGit(path, 'status', '--porcelain')).toBe('');
    // The project's branches and tags, as local names (no remote-tracking copies).
    expect(agentGit(path, 'for-each-ref', '--format=%(refname)').trim().split('\n').sort()).toEqual(['refs/heads/feature', 'refs/heads/main', 'refs/tags/v2']);

    // The agent's everyday git: branch, commit (as the sandbox's committer), stash, switch, reset.
    writeFileSync(join(path, 'src/app.js'), 'console.log(3)\n');
    expect(agentGit(path, 'diff', '--stat')).toContain('src/app.js');
    agentGit(path, 'stash');
    expect(agentGit(path, 'status', '--porcelain')).toBe('');
    agentGit(path, 'stash', 'pop');
    agentGit(path, 'switch', '--quiet', '-c', 'agent-work');
    // execFileSync passes no identity: the commit works with the clone's own config alone.
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['commit', '--quiet', '-am', 'agent change'], {
      cwd: path,
      env: { PATH: process.env.PATH, HOME: scratch(), GIT_CONFIG_NOSYSTEM: '1' },
    });
    expect(agentGit(path, 'log', '-1', '--format=%an <%ae>').trim()).toBe(`${SANDBOX_COMMITTER.name} <${SANDBOX_COMMITTER.email}>`);
    agentGit(path, 'switch', '--quiet', '--detach', pinned);
    agentGit(path, 'reset', '--quiet', '--hard', 'feature');
    expect(readFileSync(join(path, 'src/app.js'), 'utf8')).toBe('console.log(1)\n');
    expect(existsSync('/tmp/planted-hook-ran')).toBe(false);

    // Nothing of the project's config, hooks or includes; no remote; objects copied, not linked.
    const config = readFileSync(join(path, '.git/config'), 'utf8');
    for (const planted of ['s3cret', 'credential', 'include', 'hooksPath', 'fsmonitor', 'sshCommand', 'extraHeader', 'Planted', 'remote', repo]) {
      expect(config, planted).not.toContain(planted);
    }
    expect(agentGit(path, 'remote')).toBe('');
    const keys = agentGit(path, 'config', '--local', '--list', '--name-only').trim().split('\n');
    expect(keys).toEqual(expect.arrayContaining(['user.name', 'user.email', 'core.bare']));
    expect(keys.filter((k) => !/^core\.(repositoryformatversion|filemode|symlinks|ignorecase|bare|logallrefupdates)$|^user\.(name|email)$/.test(k))).toEqual(
      [],
    );
    const hooks = join(path, '.git/hooks');
    expect(existsSync(hooks) ? readdirSync(hooks).filter((h) => !h.endsWith('.sample')) : []).toEqual([]);
    const packs = (dir: string) => readdirSync(join(dir, '.git/objects/pack')).filter((f) => f.endsWith('.pack'));
    const loose = (dir: string) =>
      readdirSync(join(dir, '.git/objects'))
        .filter((d) => /^[0-9a-f]{2}$/.test(d))
        .flatMap((d) => readdirSync(join(dir, '.git/objects', d)).map((f) => join('.git/objects', d, f)));
    const objects = [...packs(repo).map((p) => join('.git/objects/pack', p)), ...loose(repo)];
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects.filter((o) => existsSync(join(path, o)))) {
      expect(statSync(join(path, object)).ino, object).not.toBe(statSync(join(repo, object)).ino);
      expect(statSync(join(path, object)).nlink, object).toBe(1);
    }
    expect(objects.filter((o) => existsSync(join(path, o))).length).toBeGreaterThan(0);

    expect(treeHash(join(repo, '.git'))).toEqual(before);
    expect(await listWorktrees(repo)).toEqual([repo]);
    await removeWorkspace(repo, path);
    expect(existsSync(path)).toBe(false);
    expect(treeHash(join(repo, '.git'))).toEqual(before);
  });

  it('shows a clean tree with the carry-in applied: untracked files excluded, rewritten committed ones skipped', async () => {
    // .codex/hooks.json is committed and names the project's path (rewritten in place); the rest is not committed.
    const repo = makeRepo({ 'README.md': 'x\n' });
    writeTree(repo, {
      '.codex/hooks.json': JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `${repo}/.intutic/hooks/codex-check.js` }] }] } }),
    });
    sh(repo, 'add', '-A');
    sh(repo, 'commit', '--quiet', '-m', 'codex hooks');
    writeTree(repo, {
      '.intutic/hooks/claude-code-check.js': `// gate for ${repo}\n`,
      '.intutic/hooks/codex-check.js': '// codex gate\n',
      '.claude/settings.json': JSON.stringify({
        hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: `node ${repo}/.intutic/hooks/claude-code-check.js` }] }] },
      }),
    });
    const sha = await pinHead(repo);
    const home = scratch();
    const carryIn = await captureCarryIn({ projectRoot: repo, commit: sha, env: {}, homeDir: home });
    const path = join(scratch(), 'worktree');
    await createWorkspace(repo, sha, path);
    const applied = await applyCarryIn(path, carryIn, { governanceDir: join(scratch(), 'governance') });
    expect(applied.protection.placeholders).toEqual(['.claude/settings.local.json']);
    mkdirSync(join(path, '.intutic-chaos'));
    writeFileSync(join(path, '.intutic-chaos/events.jsonl'), '');
    expect((await dirtyPaths(path)).length).toBeGreaterThan(0);

    const hidden = carryInHiddenPaths(applied, ['.intutic-chaos']);
    expect(hidden.tracked).toEqual(['.codex/hooks.json']);
    await hideFromGit(path, hidden);
    expect(await dirtyPaths(path)).toEqual([]);
    // Only the rewritten tracked file is marked skip-worktree, nothing else of the tree.
    expect(
      agentGit(path, 'ls-files', '-v')
        .split('\n')
        .filter((l) => !l.startsWith('H ')),
    ).toEqual(['S .codex/hooks.json', '']);
    expect(agentGit(path, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    // Written later, by the gates and the proxy: still not the agent's changes.
    writeFileSync(join(path, '.intutic-chaos/gate-counters.json'), '{}');
    mkdirSync(join(path, '.intutic/events'), { recursive: true });
    writeFileSync(join(path, '.intutic/events/log.jsonl'), '{}');
    expect(agentGit(path, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    // git add -A leaves them out of the agent's commit; the agent's own file goes in.
    writeFileSync(join(path, 'agent.txt'), 'mine\n');
    agentGit(path, 'add', '-A');
    expect(agentGit(path, 'diff', '--cached', '--name-only').trim()).toBe('agent.txt');
    expect(readFileSync(join(path, '.codex/hooks.json'), 'utf8')).toContain('/work/.intutic/hooks/codex-check.js');
    await removeWorkspace(null, path);
    expect(existsSync(path)).toBe(false);
  });

  it('removes a workspace an older version added as a git worktree, and its registration', async () => {
    const repo = makeRepo();
    const path = join(scratch(), 'worktree');
    sh(repo, 'worktree', 'add', '--quiet', '--detach', path, 'HEAD');
    writeFileSync(join(path, 'agent-output.txt'), 'x');
    await removeWorkspace(repo, path);
    expect(existsSync(path)).toBe(false);
    expect(await listWorktrees(repo)).toEqual([repo]);
    // One whose directory is already gone (a dead worker) is forgotten too.
    sh(repo, 'worktree', 'add', '--quiet', '--detach', path, 'HEAD');
    rmSync(path, { recursive: true, force: true });
    await removeWorkspace(repo, path);
    expect(await listWorktrees(repo)).toEqual([repo]);
    await expect(removeWorkspace(repo, path)).resolves.toBeUndefined();
  });

  it('gets a commit from the remote when the local repository does not have it', async () => {
    const origin = makeRepo({ 'remote.txt': 'from the remote\n' });
    const sha = await pinHead(origin);
    const cache = scratch();
    const source = await resolveCommitSource({ repoPath: join(cache, 'no-such-project'), remote: origin, commit: sha, cacheDir: cache });
    expect(source).not.toBe(origin);
    const path = join(scratch(), 'worktree');
    await createWorkspace(source, sha, path);
    expect(readFileSync(join(path, 'remote.txt'), 'utf8')).toBe('from the remote\n');
    expect(agentGit(path, 'remote')).toBe('');
    await removeWorkspace(source, path);
    await expect(resolveCommitSource({ repoPath: join(cache, 'nope'), remote: null, commit: sha, cacheDir: cache })).rejects.toMatchObject({
      code: 'E_NOT_A_GIT_REPO',
    });
  });

  it('makes one cache clone when workers sharing a home need the remote at the same moment', async () => {
    const origin = makeRepo({ 'remote.txt': 'from the remote\n' });
    const sha = await pinHead(origin);
    const cache = scratch();
    const sources = await Promise.all(
      Array.from({ length: 4 }, () => resolveCommitSource({ repoPath: join(cache, 'no-such-project'), remote: origin, commit: sha, cacheDir: cache })),
    );
    expect(new Set(sources).size).toBe(1);
    // The clone is whole, and no worker's staging directory is left beside it.
    expect(readdirSync(cache)).toEqual([basename(sources[0]!)]);
    const path = join(scratch(), 'worktree');
    await createWorkspace(sources[0]!, sha, path);
    expect(readFileSync(join(path, 'remote.txt'), 'utf8')).toBe('from the remote\n');
  });
});
