import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DESTRUCTIVE_RULES, detectDestructiveCommand } from '../src/index.ts';

interface Case {
  command: string;
  rule: string | null;
  cwd?: string;
  home?: string;
}
const fixture = JSON.parse(readFileSync(new URL('../../gates/conformance/destructive.json', import.meta.url), 'utf8')) as { cases: Case[] };
const ctxOf = (c: Case) => ({ ...(c.cwd ? { cwd: c.cwd } : {}), ...(c.home ? { home: c.home } : {}) });

describe('destructive tier (shared conformance table)', () => {
  it.each(fixture.cases.map((c) => [c.command, c] as const))('%s', (_, c) => {
    expect(detectDestructiveCommand(c.command, ctxOf(c))?.rule ?? null).toBe(c.rule);
  });

  it('covers every rule of the tier with cases that hit and a good number that must not', () => {
    const hitRules = new Set(fixture.cases.map((c) => c.rule));
    for (const r of DESTRUCTIVE_RULES) expect(hitRules.has(r.id)).toBe(true);
    expect(fixture.cases.filter((c) => c.rule === null).length).toBeGreaterThan(60);
  });
});

describe('evasion wrappers compose', () => {
  const hits = fixture.cases.filter((c) => c.rule !== null && !c.command.includes('\n') && !c.command.includes('cd '));
  const quoteSingle = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const wrappers: [string, (s: string) => string][] = [
    ['sudo', (s) => `sudo ${s}`],
    ['bash -c', (s) => `bash -c ${quoteSingle(s)}`],
    ['sh -c inside sudo env', (s) => `sudo env FOO=1 sh -c ${quoteSingle(s)}`],
    ['after a chain', (s) => `echo start && ${s}`],
    ['in a subshell', (s) => `( ${s} )`],
    ['after ||', (s) => `false || ${s}`],
    ['extra spaces', (s) => `   ${s.replace(/ /g, '   ')}   `],
  ];
  for (const [name, wrap] of wrappers) {
    it(`${name}: every hit still hits the same rule`, () => {
      for (const c of hits) {
        if (name === 'extra spaces' && /["']/.test(c.command)) continue; // spacing inside quotes is data
        expect({ command: wrap(c.command), rule: detectDestructiveCommand(wrap(c.command), ctxOf(c))?.rule }).toEqual({ command: wrap(c.command), rule: c.rule });
      }
    });
  }
});

describe('parser robustness', () => {
  it('never throws on unbalanced quotes, parentheses or odd input', () => {
    for (const s of ['"', "'", '$(', '`', '(((', ')))', 'rm -rf "/', "bash -c 'rm -rf /", '<<EOF', '\\', '${', 'a |', '&& ||', ':(){']) {
      expect(() => detectDestructiveCommand(s)).not.toThrow();
    }
  });

  it('still sees a destructive command at the end of an unterminated quote', () => {
    expect(detectDestructiveCommand("bash -c 'rm -rf /")?.rule).toBe('destructive.rm_recursive');
  });
});
