import { describe, expect, it } from 'vitest';
import { longestFirst } from '../src/sequencer.ts';

const file = (path: string, project: string) => ({ moduleId: `/repo/${path}`, project: { name: project } });

describe('longestFirst', () => {
  it("starts each project's files longest first, keeps the projects in vitest's order, and counts an unrecorded file as a middling one", () => {
    const base = [
      file('a/unit.test.ts', 'unit'),
      file('b/unit.test.ts', 'unit'),
      file('a/short.e2e.test.ts', 'e2e'),
      file('b/new.e2e.test.ts', 'e2e'),
      file('c/demo.e2e.test.ts', 'e2e'),
    ];
    const seconds = { 'a/unit.test.ts': 1, 'b/unit.test.ts': 3, 'a/short.e2e.test.ts': 5, 'c/demo.e2e.test.ts': 540 };
    expect(longestFirst(base, seconds, '/repo').map((f) => f.moduleId)).toEqual([
      '/repo/b/unit.test.ts',
      '/repo/a/unit.test.ts',
      '/repo/c/demo.e2e.test.ts',
      '/repo/b/new.e2e.test.ts',
      '/repo/a/short.e2e.test.ts',
    ]);
  });

  it("keeps vitest's order for files of equal or no recorded seconds", () => {
    const base = [file('x.test.ts', 'unit'), file('y.test.ts', 'unit'), file('z.test.ts', 'unit')];
    expect(longestFirst(base, {}, '/repo')).toEqual(base);
  });
});
