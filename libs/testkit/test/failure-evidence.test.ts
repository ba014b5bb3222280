// What a failed agent test prints: the repetitions it ran (only those written since it started),
// each file's tail, long lines cut.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureEvidence, repetitionDirs } from '../src/failure-evidence.ts';
import { scratchDir } from '../src/scratch.ts';

function repetition(root: string, name: string, files: Record<string, string>, ageMs = 0): string {
  const dir = join(root, 'reports', 'run.artifacts', name);
  mkdirSync(dir, { recursive: true });
  const at = (Date.now() - ageMs) / 1000;
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(join(dir, file), text);
    utimesSync(join(dir, file), at, at);
  }
  return dir;
}

describe('failureEvidence', () => {
  it("shows the tails of this test's repetitions only, and nothing of a directory that is not one", () => {
    const root = scratchDir('evidence-');
    const since = Date.now() - 1000;
    repetition(root, 'rep-1-baseline', { 'agent.stdout.txt': 'from an earlier test\n' }, 60_000);
    const faulted = repetition(root, 'rep-1-faulted', {
      'agent.stdout.txt': Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n'),
      'proxy.log': `${'x'.repeat(600)}\n`,
    });
    mkdirSync(join(root, 'rep-notes'), { recursive: true });
    expect(repetitionDirs([root], since)).toEqual([faulted]);
    const text = failureEvidence(since, [root]);
    expect(text).toContain(`===== repetition ${faulted}`);
    expect(text).toContain('----- agent.stdout.txt (last 40 lines)\nline 10\n');
    expect(text).not.toContain('line 9\n');
    expect(text).toContain(`----- proxy.log (last 1 lines)\n${'x'.repeat(500)}…`);
    expect(text).not.toContain('from an earlier test');
    expect(failureEvidence(Date.now() + 60_000, [root])).toBe('');
  });
});
