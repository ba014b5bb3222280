// Keeping the files `intutic connect` creates out of `git status` without touching the user's
// .gitignore: one marked block in the repository's own .git/info/exclude (never committed, never
// shared), which `intutic disconnect` removes again, leaving the rest of the file as it was.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { git } from './git.ts';

const BEGIN = '# >>> intutic connect: its generated files (intutic disconnect removes this block)';
const END = '# <<< intutic connect';

/** The exclude file git reads for the repository around `dir` (worktrees included), or null outside git. */
export async function gitExcludeFile(dir: string): Promise<string | null> {
  try {
    const path = (await git(dir, ['rev-parse', '--git-path', 'info/exclude'])).trim();
    return isAbsolute(path) ? path : join(dir, path);
  } catch {
    return null;
  }
}

function withoutBlock(text: string): string {
  const start = text.indexOf(`${BEGIN}\n`);
  if (start < 0) return text;
  const end = text.indexOf(`${END}\n`, start);
  return end < 0 ? text : text.slice(0, start) + text.slice(end + END.length + 1);
}

/** `text` with our block holding exactly these paths (relative to the top level, posix); none: no block. */
export function excludeText(text: string, paths: readonly string[]): string {
  const rest = withoutBlock(text);
  if (paths.length === 0) return rest;
  const lines = [...new Set(paths)].sort().map((p) => `/${p.replace(/([*?[\\])/g, '\\$1')}`);
  const sep = rest === '' || rest.endsWith('\n') ? '' : '\n';
  return `${rest}${sep}${BEGIN}\n${lines.join('\n')}\n${END}\n`;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * Write our block into the exclude file (temp file + rename; its other lines unchanged). With no
 * paths the block is removed, and a file that held nothing else and did not exist before is removed.
 */
export function writeExcludeBlock(excludeFile: string, paths: readonly string[], options: { existedBefore?: boolean } = {}): void {
  const before = readOrEmpty(excludeFile);
  const after = excludeText(before, paths);
  if (after === '' && options.existedBefore === false) return void rmSync(excludeFile, { force: true });
  if (after === before) return;
  mkdirSync(dirname(excludeFile), { recursive: true });
  const tmp = `${excludeFile}.intutic-${process.pid}.tmp`;
  writeFileSync(tmp, after);
  renameSync(tmp, excludeFile);
}
