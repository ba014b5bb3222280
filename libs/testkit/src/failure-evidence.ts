// When a test that drove an agent fails, the why is in the repetitions it ran: the agent's output,
// the tail of the events and the proxy's log. vitest-setup.ts prints them for every failed test,
// from the repetition directories (rep-<n>-<kind>) written under this file's scratch directories
// since the test started, before those directories are removed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDirs } from './scratch.ts';

const FILES: [name: string, lines: number][] = [
  ['agent.stdout.txt', 40],
  ['agent.stderr.txt', 20],
  ['events.jsonl', 15],
  ['proxy.log', 30],
  ['verify.txt', 15],
];
const MAX_REPETITIONS = 6;
const MAX_DEPTH = 8;

/** The repetition artifact directories under `roots` that changed at or after `since` (ms), newest last. */
export function repetitionDirs(roots: Iterable<string>, since: number): string[] {
  const found: { dir: string; mtime: number }[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name === '.git') continue;
      const path = join(dir, entry.name);
      if (/^rep-\d+-(baseline|faulted)$/.test(entry.name)) {
        const mtime = newestIn(path);
        if (mtime >= since) found.push({ dir: path, mtime });
      } else if (depth < MAX_DEPTH) walk(path, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return found.sort((a, b) => a.mtime - b.mtime).map((f) => f.dir);
}

function newestIn(dir: string): number {
  let newest = 0;
  for (const [name] of FILES) {
    try {
      newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
    } catch {
      // Not written by this repetition.
    }
  }
  return newest;
}

/** The evidence of the repetitions a failed test ran, as text (empty when it ran none). */
export function failureEvidence(since: number, roots: Iterable<string> = scratchDirs()): string {
  const dirs = repetitionDirs(roots, since).slice(-MAX_REPETITIONS);
  const parts: string[] = [];
  for (const dir of dirs) {
    parts.push(`\n===== repetition ${dir}`);
    for (const [name, lines] of FILES) {
      let text: string;
      try {
        text = readFileSync(join(dir, name), 'utf8');
      } catch {
        continue;
      }
      const tail = text.trimEnd().split('\n').slice(-lines);
      parts.push(`----- ${name} (last ${tail.length} lines)`, ...tail.map((line) => (line.length > 500 ? `${line.slice(0, 500)}…` : line)));
    }
  }
  return parts.join('\n');
}
