// JSON.parse with positions: a small parser that records the line of every value by its path, so a
// policy file's errors can say `file:line`. Policy files are small; speed is not a concern here.

export interface LocatedJson {
  value: unknown;
  /** Line (1-based) where the value at a path starts; paths are keys/indexes joined by '/'. */
  lineOf(path: (string | number)[]): number;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

export function parseJsonWithLines(text: string): LocatedJson {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(what, line, i - lineStart + 1);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) {
      if (text[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
      i++;
    }
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\n') fail('unterminated string');
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('invalid string escape');
    }
  };
  const value = (path: string): unknown => {
    ws();
    lines.set(path, line);
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a "key"');
        const key = str();
        ws();
        if (text[i] !== ':') fail(`expected ':' after "${key}"`);
        i++;
        obj[key] = value(path === '' ? key : `${path}/${key}`);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return obj;
        } else fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(path === '' ? String(arr.length) : `${path}/${arr.length}`));
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return arr;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) return fail(c === undefined ? 'unexpected end of file' : `unexpected character '${c}'`);
    i += m[0].length;
    return JSON.parse(m[0]) as unknown;
  };
  const result = value('');
  ws();
  if (i < text.length) fail('unexpected text after the JSON value');
  return {
    value: result,
    lineOf: (path) => {
      for (let n = path.length; n >= 0; n--) {
        const found = lines.get(path.slice(0, n).join('/'));
        if (found !== undefined) return found;
      }
      return 1;
    },
  };
}
