// Lexical helpers of the governance shell parser: quoting markers, parentheses matching, ANSI-C
// quoted strings.
/** Quoted or escaped `$` and backtick: text, not expansions (restoreLiterals turns them back). */
const LITERAL_DOLLAR = '\u0002';
const LITERAL_BACKTICK = '\u0003';
export const literal = (text: string): string => text.replace(/\$/g, LITERAL_DOLLAR).replace(/`/g, LITERAL_BACKTICK);
export const restoreLiterals = (text: string): string => text.replace(/\u0002/g, '$').replace(/\u0003/g, '`');
export const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';

/** Find the index of the `)` closing a `(` opened just before `start`, skipping quotes and nesting. */
export function matchParen(src: string, start: number): number {
  let depth = 1;
  for (let i = start; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') i++;
    else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      i = end === -1 ? src.length : end;
    } else if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return src.length;
}

export function ansiC(body: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"' };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, esc: string) => {
    if (esc[0] === 'x') return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (/^[0-7]+$/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    return map[esc] ?? esc;
  });
}
