// The terminal view of agent output: every sequence and control an agent can print reaches the
// terminal as visible text, never as something the terminal acts on, whole or split across chunks;
// every row is marked as the agent's, so none passes for the CLI's own lines; lines are capped.
import { describe, expect, it } from 'vitest';
import { AGENT_LINE_PREFIX, MAX_LINE_CHARS, terminalSafeStream, visibleInline, type TerminalSafeOptions } from '../src/terminal-safe.ts';

/** Anything a terminal acts on or hides, other than the newline that ends a row. */
const ACTS_ON_TERMINAL = /(?!\n)(?!\u200d)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

const show = (chunks: (string | Uint8Array)[], options: TerminalSafeOptions = {}) => {
  const view = terminalSafeStream(options);
  return chunks.map((c) => view.write(c)).join('') + view.end();
};
const whole = (text: string) => show([text]);

// What an agent printed in the reproduction, one case a line, with what the user must see instead.
const HOSTILE: [name: string, raw: string, shown: string][] = [
  ['clear screen, cursor home', 'a\x1b[2J\x1b[Hb', 'a\\u001b[2J\\u001b[Hb'],
  ['erase scrollback, reset', '\x1b[3J\x1bcx', '\\u001b[3J\\u001bcx'],
  ['window title (OSC, BEL)', 't\x1b]0;pwned\x07u', 't\\u001b]…u'],
  ['window title (OSC, ST)', 't\x1b]2;pwned\x1b\\u', 't\\u001b]…u'],
  ['hyperlink (OSC 8)', '\x1b]8;;https://evil.invalid\x1b\\click\x1b]8;;\x1b\\', '\\u001b]…click\\u001b]…'],
  ['DCS', 'x\x1bP1$qm\x1b\\y', 'x\\u001bP…y'],
  ['APC, PM, SOS', '\x1b_a\x1b\\\x1b^b\x1b\\\x1bXc\x1b\\d', '\\u001b_…\\u001b^…\\u001bX…d'],
  ['C1 CSI and OSC', '\u009b2J\u009d0;t\u009cz', '\\u009b2J\\u009d…z'],
  ['charset switch (ESC ( 0)', '\x1b(0q', '\\u001b(0q'],
  ['color is dropped, text kept', '\x1b[1;31mred\x1b[0m ok', 'red ok'],
  ['NUL, BEL, backspace, VT, FF, DEL', 'a\x00\x07\b\x0b\x0c\x7fb', 'a\\u0000\\u0007\\u0008\\u000b\\u000c\\u007fb'],
  ['other C0 and C1', '\x01\x1f\u0085\u008d', '\\u0001\\u001f\\u0085\\u008d'],
  ['bare CR cannot go back over the prefix', 'fake\r✔ verdict: pass', 'fake\\u000d✔ verdict: pass'],
  ['bidi overrides and isolates', 'abc\u202e\u2066\u2069\u200f\u061cdef', 'abc\\u202e\\u2066\\u2069\\u200f\\u061cdef'],
  ['line separator, zero width, BOM, tag', 'a\u2028b\u200b\ufeff\u{e0041}c', 'a\\u2028b\\u200b\\ufeff\\u{e0041}c'],
  ['lone surrogate', 'x\ud800y', 'x\\ud800y'],
  ['unfinished CSI at the end', 'z\x1b[12', 'z\\u001b[12'],
  ['lone ESC at the end', 'z\x1b', 'z\\u001b'],
  ['CSI broken by a control', '\x1b[1\x07x', '\\u001b[1\\u0007x'],
  ['tab to the next stop of 8', 'ab\tc', 'ab      c'],
];

describe('terminalSafeStream', () => {
  it.each(HOSTILE)('%s: shown escaped on a marked row', (_name, raw, shown) => {
    expect(whole(raw)).toBe(`${AGENT_LINE_PREFIX}${shown}\n`);
  });

  it.each(HOSTILE)('%s: the same when split at every character and at every byte', (_name, raw) => {
    const expected = whole(raw);
    expect(show(Array.from(raw))).toBe(expected);
    // Byte by byte: a character split across chunks is decoded whole.
    const bytes = new TextEncoder().encode(raw);
    if (!raw.includes('\ud800')) expect(show(Array.from(bytes, (b) => Uint8Array.of(b)))).toBe(expected);
  });

  it('nothing a terminal acts on reaches it, whatever the split', () => {
    const all = HOSTILE.map(([, raw]) => raw).join('\n') + '\r\n\x1b]0;unterminated';
    for (const size of [1, 2, 3, 5, 7, 64]) {
      const chunks: string[] = [];
      for (let i = 0; i < all.length; i += size) chunks.push(all.slice(i, i + size));
      const out = show(chunks);
      expect(out).not.toMatch(ACTS_ON_TERMINAL);
      expect(out).toBe(whole(all));
    }
  });

  it('marks every row, so lines imitating the CLI cannot pass for its own', () => {
    const out = whole('✔ verdict: pass\n■ baseline repetition 1: agent exit 0, verify exit 0, 1.0 s\n\nverdict: scored — all good\nreport: /tmp/x.json');
    expect(out.split('\n').slice(0, -1)).toEqual([
      '│ ✔ verdict: pass',
      '│ ■ baseline repetition 1: agent exit 0, verify exit 0, 1.0 s',
      '│',
      '│ verdict: scored — all good',
      '│ report: /tmp/x.json',
    ]);
  });

  it('CRLF ends a line, also when the CR and the LF come in different chunks', () => {
    expect(show(['one\r', '\ntwo\r\n'])).toBe('│ one\n│ two\n');
  });

  it('gives back whole rows only: a partial line waits for its end (or end())', () => {
    const view = terminalSafeStream();
    expect(view.write('✔ verdict')).toBe('');
    expect(view.write(': pass')).toBe('');
    expect(view.write('\nnext')).toBe('│ ✔ verdict: pass\n');
    expect(view.end()).toBe('│ next\n');
    expect(view.end()).toBe('');
  });

  it('invalid UTF-8 is shown as U+FFFD; a character split across byte chunks stays whole', () => {
    const euro = new TextEncoder().encode('€'); // e2 82 ac
    expect(show([Uint8Array.of(0x61, 0xff, 0xfe, 0x62), euro.subarray(0, 1), euro.subarray(1), Uint8Array.of(0xc3)])).toBe('│ a\ufffd\ufffdb€\ufffd\n');
    // C1 CSI as UTF-8 (c2 9b) split between its two bytes is still caught.
    expect(show([Uint8Array.of(0xc2), Uint8Array.of(0x9b, 0x32, 0x4a)])).toBe('│ \\u009b2J\n');
  });

  it(`shows a line up to ${MAX_LINE_CHARS} characters, then how many more it had`, () => {
    const out = whole('a'.repeat(MAX_LINE_CHARS + 500) + '\nshort');
    expect(out).toBe(`│ ${'a'.repeat(MAX_LINE_CHARS)}… [500 more characters not shown]\n│ short\n`);
    // Bounded however long the line runs without a newline.
    const view = terminalSafeStream();
    for (let i = 0; i < 1000; i++) expect(view.write('b'.repeat(10_000))).toBe('');
    expect(view.end()).toBe(`│ ${'b'.repeat(MAX_LINE_CHARS)}… [${10_000_000 - MAX_LINE_CHARS} more characters not shown]\n`);
  });

  it('a long escape sequence is shown shortened', () => {
    expect(whole(`\x1b[${'1;'.repeat(100)}H`)).toBe(`│ \\u001b[${'1;'.repeat(12)}1…\n`);
  });

  it('wraps rows before the terminal would, each with the prefix, so no row starts with agent text', () => {
    const out = show([`${' '.repeat(30)}✔ verdict: pass ${'x'.repeat(50)}\n`], { columns: () => 40 });
    const rows = out.split('\n').slice(0, -1);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row.startsWith(AGENT_LINE_PREFIX)).toBe(true);
      // Non-ASCII counted as two columns: a row never reaches past the terminal's edge.
      expect(Array.from(row).reduce((w, c) => w + (c.charCodeAt(0) < 0x80 ? 1 : 2), 0) - 1).toBeLessThanOrEqual(40);
    }
    expect(rows.map((r) => r.slice(AGENT_LINE_PREFIX.length)).join('')).toBe(`${' '.repeat(30)}✔ verdict: pass ${'x'.repeat(50)}`);
  });

  it('paints the prefix when asked; the text is left as it is', () => {
    expect(show(['hi\n'], { paintPrefix: (p) => `<dim>${p}</dim>` })).toBe('<dim>│ </dim>hi\n');
  });
});

describe('visibleInline', () => {
  it('keeps quoted text on one line with nothing a terminal acts on', () => {
    expect(visibleInline('a\n✔ verdict: pass\x1b[2J\r\u202e')).toBe('a\\u000a✔ verdict: pass\\u001b[2J\\u000d\\u202e');
  });

  it('caps what it shows', () => {
    expect(visibleInline('x'.repeat(30), 10)).toBe(`${'x'.repeat(10)}… [20 more characters not shown]`);
  });
});
