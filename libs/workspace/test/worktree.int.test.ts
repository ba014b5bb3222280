import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addWorktree, dirtyPaths, listWorktrees, pinHead, removeWorktree, resolveCommitSource } from '../src/index.ts';
import { makeRepo, removeScratch, scratch, sh } from './helpers.ts';

afterAll(removeScratch);


describe('worktrees of the pinned commit', () => {
  it('checks out the pinned commit, not a later HEAD, and leaves the project untouched', async () => {
    const repo = makeRepo({ 'file.txt': 'v1\n' });
    const sha = await pinHead(repo);
    writeFileSync(join(repo, 'file.txt'), 'v2\n');
    sh(repo, 'commit', '--quiet', '-am', 'later');
    const path = join(scratch(), 'worktree');
    await addWorktree(repo, sha, path);
    expect(readFileSync(join(path, 'file.txt'), 'utf8')).toBe('v1\n');
    expect(sh(path, 'rev-parse', 'HEAD').trim()).toBe(sha);
    // Detached: HEAD names no branch, so the run never moves one of the user's branches.
    expect(() => sh(path, 'symbolic-ref', '-q', 'HEAD')).toThrow();
    expect(await listWorktrees(repo)).toContain(path);
    expect(await dirtyPaths(repo)).toEqual([]);
  });

  it('removes a worktree the agent wrote into, and forgets it', async () => {
    const repo = makeRepo();
    const path = join(scratch(), 'worktree');
    await addWorktree(repo, await pinHead(repo), path);
    writeFileSync(join(path, 'agent-output.txt'), 'x');
    writeFileSync(join(path, 'README.md'), 'edited by the agent');
    await removeWorktree(repo, path);
    expect(existsSync(path)).toBe(false);
    expect(await listWorktrees(repo)).not.toContain(path);
    expect(await dirtyPaths(repo)).toEqual([]);
    await expect(removeWorktree(repo, path)).resolves.toBeUndefined();
  });

  it('cleans up a leftover whose directory is already gone (a dead worker)', async () => {
    const repo = makeRepo();
    const path = join(scratch(), 'worktree');
    await addWorktree(repo, await pinHead(repo), path);
    rmSync(path, { recursive: true, force: true });
    expect(await listWorktrees(repo)).toContain(path);
    await removeWorktree(repo, path);
    expect(await listWorktrees(repo)).not.toContain(path);
  });

  it('gets a commit from the remote when the local repository does not have it', async () => {
    const origin = makeRepo({ 'remote.txt': 'from the remote\n' });
    const sha = await pinHead(origin);
    const cache = scratch();
    const source = await resolveCommitSource({ repoPath: join(cache, 'no-such-project'), remote: origin, commit: sha, cacheDir: cache });
    expect(source).not.toBe(origin);
    const path = join(scratch(), 'worktree');
    await addWorktree(source, sha, path);
    expect(readFileSync(join(path, 'remote.txt'), 'utf8')).toBe('from the remote\n');
    await removeWorktree(source, path);
    await expect(resolveCommitSource({ repoPath: join(cache, 'nope'), remote: null, commit: sha, cacheDir: cache })).rejects.toMatchObject({
      code: 'E_NOT_A_GIT_REPO',
    });
  });
});
