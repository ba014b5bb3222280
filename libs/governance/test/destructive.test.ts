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

  it('covers every rule of the tier (with the corpus) and a good number of commands that must not hit', () => {
    const corpus = JSON.parse(readFileSync(new URL('../../gates/conformance/destructive-corpus.json', import.meta.url), 'utf8')) as {
      cases: { command?: string; destructive: boolean }[];
    };
    const corpusRules = corpus.cases
      .filter((c) => c.destructive && c.command)
      .map((c) => detectDestructiveCommand(c.command!, { cwd: '/work/proj', home: '/root' })?.rule);
    const hitRules = new Set([...fixture.cases.map((c) => c.rule), ...corpusRules]);
    for (const r of DESTRUCTIVE_RULES) expect({ rule: r.id, covered: hitRules.has(r.id) }).toEqual({ rule: r.id, covered: true });
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
        expect({ command: wrap(c.command), rule: detectDestructiveCommand(wrap(c.command), ctxOf(c))?.rule }).toEqual({
          command: wrap(c.command),
          rule: c.rule,
        });
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

describe('lines too involved to read', () => {
  const ctx = { cwd: '/work/proj', home: '/root' };
  it('blocks a script nested deeper than it reads, as an unsure gate must', () => {
    const nested = Array.from({ length: 12 }).reduce<string>((s) => `bash -c ${JSON.stringify(s)}`, 'rm -rf /');
    expect(detectDestructiveCommand(nested, ctx)?.rule).toBe('destructive.unresolved_script');
    expect(detectDestructiveCommand('$('.repeat(3000) + 'ls' + ')'.repeat(3000), ctx)?.rule).toBe('destructive.unresolved_script');
  });

  it('reads long plain input through to an answer (a control: nothing in it is destructive)', () => {
    expect(detectDestructiveCommand('echo ' + 'a'.repeat(200_000), ctx)).toBeNull();
    expect(detectDestructiveCommand('cat <<EOF\n' + 'x\n'.repeat(50_000) + 'EOF', ctx)).toBeNull();
  });
});
