// Rule patterns: a pattern written `/…/flags` is a regular expression and matches anywhere in the
// value; anything else is a glob matched against the whole value (`*` any run of characters, `?` one,
// `[…]` a class, `{a,b}` alternatives; for paths `*` stops at `/` and `**` crosses it).

export interface PatternOptions {
  /** Paths: `*` and `?` stay within one segment, `**` crosses segments. */
  path?: boolean;
  ignoreCase?: boolean;
}

const REGEX_FORM = /^\/(.+)\/([imsu]*)$/s;
const cache = new Map<string, RegExp>();

export function isRegexPattern(pattern: string): boolean {
  return REGEX_FORM.test(pattern);
}

function globToRegexSource(glob: string, path: boolean): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (path && glob[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += path ? '[^/]*' : '.*';
    } else if (c === '?') out += path ? '[^/]' : '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        out += `[${body.startsWith('!') ? '^' + body.slice(1) : body}]`;
        i = end;
      }
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '\\' && i + 1 < glob.length) out += '\\' + glob[++i];
    else out += /[.+^$()|\\\]{}]/.test(c) ? '\\' + c : c;
  }
  return out + ')'.repeat(braces);
}

/** Compile a pattern; throws a SyntaxError with the regex engine's message for a bad regex. */
export function compilePattern(pattern: string, options: PatternOptions = {}): RegExp {
  const key = `${options.path ? 'p' : ''}${options.ignoreCase ? 'i' : ''}:${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const m = REGEX_FORM.exec(pattern);
  const flags = (m ? m[2]! : '') + (options.ignoreCase && !(m?.[2] ?? '').includes('i') ? 'i' : '');
  const re = m ? new RegExp(m[1]!, flags) : new RegExp(`^(?:${globToRegexSource(pattern, options.path ?? false)})$`, flags + 's');
  cache.set(key, re);
  return re;
}

export function patternTest(pattern: string, value: string, options: PatternOptions = {}): boolean {
  const re = compilePattern(pattern, options);
  re.lastIndex = 0;
  return re.test(value);
}
