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
  const parser = new LineRecordingParser(text);
  const result = parser.value('');
  parser.end();
  const lines = parser.lines;
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

const childPath = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}/${key}`);

/** A recursive-descent JSON parser that notes the line each value starts on, keyed by its path. */
class LineRecordingParser {
  readonly lines = new Map<string, number>();
  private readonly text: string;
  private i = 0;
  private line = 1;
  private lineStart = 0;

  constructor(text: string) {
    this.text = text;
  }

  value(path: string): unknown {
    this.whitespace();
    this.lines.set(path, this.line);
    const c = this.text[this.i];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return this.string();
    return this.literal(c);
  }

  /** Only whitespace may follow the value. */
  end(): void {
    this.whitespace();
    if (this.i < this.text.length) this.fail('unexpected text after the JSON value');
  }

  private object(path: string): Record<string, unknown> {
    this.i++;
    const obj: Record<string, unknown> = {};
    this.whitespace();
    if (this.text[this.i] === '}') {
      this.i++;
      return obj;
    }
    for (;;) {
      this.whitespace();
      if (this.text[this.i] !== '"') this.fail('expected a "key"');
      const key = this.string();
      this.whitespace();
      if (this.text[this.i] !== ':') this.fail(`expected ':' after "${key}"`);
      this.i++;
      obj[key] = this.value(childPath(path, key));
      this.whitespace();
      if (this.text[this.i] === ',') this.i++;
      else if (this.text[this.i] === '}') {
        this.i++;
        return obj;
      } else this.fail("expected ',' or '}'");
    }
  }

  private array(path: string): unknown[] {
    this.i++;
    const arr: unknown[] = [];
    this.whitespace();
    if (this.text[this.i] === ']') {
      this.i++;
      return arr;
    }
    for (;;) {
      arr.push(this.value(childPath(path, arr.length)));
      this.whitespace();
      if (this.text[this.i] === ',') this.i++;
      else if (this.text[this.i] === ']') {
        this.i++;
        return arr;
      } else this.fail("expected ',' or ']'");
    }
  }

  /** A string, escapes decoded by JSON.parse; `i` is at its opening quote. */
  private string(): string {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length && this.text[this.i] !== '"') {
      if (this.text[this.i] === '\n') this.fail('unterminated string');
      this.i += this.text[this.i] === '\\' ? 2 : 1;
    }
    if (this.i >= this.text.length) this.fail('unterminated string');
    this.i++;
    try {
      return JSON.parse(this.text.slice(start, this.i)) as string;
    } catch {
      return this.fail('invalid string escape');
    }
  }

  /** A number, true, false or null. */
  private literal(c: string | undefined): unknown {
    const m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.i, this.i + 64));
    if (!m) return this.fail(c === undefined ? 'unexpected end of file' : `unexpected character '${c}'`);
    this.i += m[0].length;
    return JSON.parse(m[0]) as unknown;
  }

  private whitespace(): void {
    while (this.i < this.text.length && ' \t\r\n'.includes(this.text[this.i]!)) {
      if (this.text[this.i] === '\n') {
        this.line++;
        this.lineStart = this.i + 1;
      }
      this.i++;
    }
  }

  private fail(what: string): never {
    throw new JsonSyntaxError(what, this.line, this.i - this.lineStart + 1);
  }
}
