// Comparing a directory before and after: every file's bytes hashed, so equal means untouched.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir` (relative path → sha256 of its bytes), but those `skip` names. */
export function treeHash(dir: string, skip: (relativePath: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!skip(relative(dir, path))) out[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** A project's .git file by file, but its index (a `git status` in the project may refresh its stat data). */
export const gitDirHash = (project: string): Record<string, string> => treeHash(join(project, '.git'), (path) => path === 'index');
