// Temporary git repositories for the workspace tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scratchDir } from '@intutic/testkit';

const created: string[] = [];

/** A fresh temporary directory (symlinks resolved), removed by removeScratch(). */
export function scratch(prefix = 'intutic-ws-'): string {
  const dir = scratchDir(prefix);
  created.push(dir);
  return dir;
}

export function removeScratch(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A repository with one commit holding `committed`; returns its (symlink-free) path. */
export function makeRepo(committed: Record<string, string> = { 'README.md': 'hello\n' }): string {
  const root = scratch();
  sh(root, 'init', '--quiet');
  writeTree(root, committed);
  sh(root, 'add', '-A');
  sh(root, 'commit', '--quiet', '-m', 'initial');
  return root;
}
