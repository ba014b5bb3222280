// The broken-file corpus: every file under corpus/ starts with `# expect: line:column message` lines
// (and `# expect-warning:` lines), and validation must report exactly those errors, located exactly.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateExperimentFile } from '../src/index.ts';
import { CORPUS_DIR, fakeDeps } from './helpers.ts';

interface Expectation {
  line: number;
  column: number;
  text: string;
}

function expectations(text: string, kind: 'expect' | 'expect-warning'): Expectation[] {
  const pattern = new RegExp(`^# ${kind}: (\\d+):(\\d+) (.+)$`);
  return text.split('\n').flatMap((line) => {
    const m = pattern.exec(line);
    return m ? [{ line: Number(m[1]), column: Number(m[2]), text: m[3]! }] : [];
  });
}

const files = readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('the broken-file corpus', () => {
  it('holds at least 30 broken files, each saying what it expects', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    for (const file of files) expect(expectations(readFileSync(join(CORPUS_DIR, file), 'utf8'), 'expect').length, file).toBeGreaterThan(0);
  });

  it.each(files)('%s: reports exactly its expected errors at their line:column', async (file) => {
    const path = join(CORPUS_DIR, file);
    const text = readFileSync(path, 'utf8');
    const result = await validateExperimentFile(path, fakeDeps());
    expect(result.experiment).toBeUndefined();
    const wanted = expectations(text, 'expect');
    const got = result.errors.map((e) => `${e.line}:${e.column} ${e.message}`);
    expect(result.errors.length, `errors were:\n${got.join('\n')}`).toBe(wanted.length);
    for (const w of wanted) {
      const hit = result.errors.find((e) => e.line === w.line && e.column === w.column && e.message.includes(w.text));
      expect(hit, `expected ${w.line}:${w.column} "${w.text}"; errors were:\n${got.join('\n')}`).toBeDefined();
      expect(hit!.file).toBe(path);
    }
    for (const w of expectations(text, 'expect-warning')) {
      expect(result.warnings.some((d) => d.line === w.line && d.column === w.column && d.message.includes(w.text))).toBe(true);
    }
  });
});
