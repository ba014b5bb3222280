// The terminal view of text the agent wrote: shown, never obeyed. Escape sequences (CSI, OSC, DCS,
// SOS, PM, APC; 7-bit and C1 forms), C0/C1 controls, bare CR, bidi and other invisible format
// characters are shown escaped (`\u001b[2J`); color (SGR) is dropped. Every row starts with a prefix
// the CLI's own lines never use, a line shows at most MAX_LINE_CHARS characters, and only whole rows
// are given back, so the terminal is at column 0 after every write and nothing another writer prints
// can leave agent text at the start of a row. Pure: state lives in the stream object; the artifacts
// keep the raw bytes, this is only the view.

/** Marks every row of agent output; no line the CLI prints of its own starts with it. */
export const AGENT_LINE_PREFIX = '│ ';
/** A line of agent output is shown up to this many characters, then how many more it had. */
export const MAX_LINE_CHARS = 1000;
/** An escape sequence is shown with at most this many of its characters. */
const MAX_SEQUENCE_CHARS = 32;

export interface TerminalSafeOptions {
  /** Paints the prefix (dim on a color terminal); its characters mark the row without color too. */
  paintPrefix?: (prefix: string) => string;
  /** The terminal's width, when it is one: rows are wrapped before it, each with the prefix. */
  columns?: () => number | undefined;
  maxLineChars?: number;
}

export interface TerminalSafeStream {
  /** What to write for this chunk: whole rows only, each prefixed and ending in a newline. */
  write(chunk: string | Uint8Array): string;
  /** The rest: a partial line, an unfinished sequence, a pending CR, shown as rows. */
  end(): string;
}

// Shown escaped: controls, format characters (bidi overrides and isolates, zero-width, BOM, tags),
// line and paragraph separators, lone surrogates. ZWJ stays: it only joins emoji.
const UNSAFE = /^(?!\u200d)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u;
const PLAIN = /[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]+/uy;
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]); // DCS, SOS, OSC, PM, APC
const ESC_STRINGS = new Set([']', 'P', 'X', '^', '_']);

/** One code point as `\u001b` (or `\u{e0041}` past the BMP). */
export function escapeCodePoint(c: string): string {
  const code = c.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Untrusted text inside one of the CLI's own lines: one line, nothing a terminal acts on, capped. */
export function visibleInline(text: string, maxChars = MAX_LINE_CHARS): string {
  const chars = Array.from(text, (c) => (UNSAFE.test(c) ? escapeCodePoint(c) : c)).join('');
  const all = Array.from(chars);
  return all.length <= maxChars ? chars : `${all.slice(0, maxChars).join('')}… [${all.length - maxChars} more characters not shown]`;
}

type Mode = 'text' | 'esc' | 'esc-intermediate' | 'csi' | 'string';

class SafeStream implements TerminalSafeStream {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly maxLine: number;
  private mode: Mode = 'text';
  private sequence = '';
  private pendingCR = false;
  private afterStringEsc = false;
  private highSurrogate = '';
  private row = '';
  private rowWidth = 0;
  private lineChars = 0;
  private dropped = 0;
  private out: string[] = [];

  constructor(private readonly options: TerminalSafeOptions) {
    this.maxLine = options.maxLineChars ?? MAX_LINE_CHARS;
  }

  write(chunk: string | Uint8Array): string {
    // Bytes go through one streaming decoder: a character split across chunks stays whole, invalid
    // UTF-8 becomes U+FFFD.
    let text = this.highSurrogate + (typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    this.highSurrogate = '';
    // A string chunk may end between the two halves of a surrogate pair: the half waits for the rest.
    if (/[\ud800-\udbff]$/.test(text)) {
      this.highSurrogate = text.slice(-1);
      text = text.slice(0, -1);
    }
    this.feedAll(text);
    return this.take();
  }

  end(): string {
    this.feedAll(this.highSurrogate + this.decoder.decode());
    this.highSurrogate = '';
    if (this.pendingCR) this.put(escapeCodePoint('\r'));
    this.pendingCR = false;
    this.closeSequence();
    if (this.row !== '' || this.lineChars > 0 || this.dropped > 0) this.newline();
    return this.take();
  }

  private feedAll(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.mode === 'text' && !this.pendingCR) {
        // The common case, a run of plain text, in one step.
        PLAIN.lastIndex = i;
        const run = PLAIN.exec(text);
        if (run) {
          this.put(run[0]);
          i = PLAIN.lastIndex;
          continue;
        }
      }
      const c = String.fromCodePoint(text.codePointAt(i)!);
      this.feed(c);
      i += c.length;
    }
  }

  private take(): string {
    const text = this.out.join('');
    this.out = [];
    return text;
  }

  private feed(c: string): void {
    if (this.pendingCR) {
      this.pendingCR = false;
      if (c === '\n') return this.newline();
      this.put(escapeCodePoint('\r'));
    }
    if (this.mode === 'text') return this.text(c);
    if (this.mode === 'esc') return this.afterEsc(c);
    if (this.mode === 'string') return this.inString(c);
    const code = c.codePointAt(0)!;
    if (code >= 0x20 && code <= 0x2f) return this.collect(c); // intermediate bytes
    if (this.mode === 'csi' && code >= 0x30 && code <= 0x3f) return this.collect(c); // parameter bytes
    const final = this.mode === 'csi' ? code >= 0x40 && code <= 0x7e : code >= 0x30 && code <= 0x7e;
    if (!final) {
      // Not a sequence after all: show what came so far, then take this character as text.
      this.closeSequence();
      return this.feed(c);
    }
    const params = this.sequence.replace(/^\\u(001b\[|009b)/, '');
    const isColor = this.mode === 'csi' && c === 'm' && /^[\d;:]*$/.test(params);
    this.collect(c);
    if (!isColor) this.put(this.sequence);
    this.mode = 'text';
    this.sequence = '';
  }

  private text(c: string): void {
    const code = c.codePointAt(0)!;
    if (c === '\n') return this.newline();
    if (c === '\r') {
      this.pendingCR = true; // CRLF is a line end; a bare CR is shown, never allowed to go back over the prefix
      return;
    }
    if (c === '\t') return this.put(' '.repeat(8 - (this.lineChars % 8)));
    if (c === '\x1b') return this.start('esc', '');
    if (code === 0x9b) return this.start('csi', escapeCodePoint(c));
    if (C1_STRINGS.has(code)) return this.start('string', `${escapeCodePoint(c)}…`);
    this.put(UNSAFE.test(c) ? escapeCodePoint(c) : c);
  }

  private afterEsc(c: string): void {
    const code = c.codePointAt(0)!;
    const esc = escapeCodePoint('\x1b');
    const closesString = this.afterStringEsc && c === '\\';
    this.afterStringEsc = false;
    this.mode = 'text';
    if (closesString) return; // ESC \ (ST) ended the string just shown
    if (c === '[') return this.start('csi', `${esc}[`);
    if (ESC_STRINGS.has(c)) return this.start('string', `${esc}${c}…`);
    if (code >= 0x20 && code <= 0x2f) return this.start('esc-intermediate', `${esc}${c}`);
    if (code >= 0x30 && code <= 0x7e) return this.put(`${esc}${c}`);
    this.put(esc);
    this.feed(c);
  }

  /** The payload of OSC, DCS and the like is not kept: its marker was shown; it ends at BEL, ST, CAN, SUB, ESC or a newline. */
  private inString(c: string): void {
    const code = c.codePointAt(0)!;
    if (code === 0x07 || code === 0x9c || code === 0x18 || code === 0x1a) return this.closeSequence();
    if (c === '\x1b') {
      this.closeSequence();
      this.afterStringEsc = true;
      return this.start('esc', '');
    }
    if (c === '\n') {
      this.closeSequence();
      this.newline();
    }
  }

  private start(mode: Mode, shown: string): void {
    this.mode = mode;
    this.sequence = shown;
    if (mode === 'string') this.put(shown);
  }

  private collect(c: string): void {
    if (this.sequence.length < MAX_SEQUENCE_CHARS) this.sequence += c;
    else if (!this.sequence.endsWith('…')) this.sequence += '…';
  }

  /** An unfinished sequence is shown as far as it came (a string's marker is already shown). */
  private closeSequence(): void {
    if (this.mode === 'esc' && !this.afterStringEsc) this.put(escapeCodePoint('\x1b'));
    else if (this.mode === 'csi' || this.mode === 'esc-intermediate') this.put(this.sequence);
    this.mode = 'text';
    this.sequence = '';
    this.afterStringEsc = false;
  }

  /** Safe text onto the current row: capped per line, wrapped before the terminal would wrap it. */
  private put(text: string, capped = true): void {
    const width = this.options.columns?.();
    const wrapAt = width && width > AGENT_LINE_PREFIX.length + 8 ? width - AGENT_LINE_PREFIX.length : undefined;
    if (capped && this.lineChars >= this.maxLine) {
      for (const _ of text) this.dropped += 1;
      return;
    }
    for (const c of text) {
      if (capped && this.lineChars >= this.maxLine) {
        this.dropped += 1;
        continue;
      }
      // Counted wide unless ASCII: a row may end early, never past the terminal's edge.
      const w = c.charCodeAt(0) < 0x80 ? 1 : 2;
      if (wrapAt !== undefined && this.row !== '' && this.rowWidth + w > wrapAt) this.emitRow();
      this.row += c;
      this.rowWidth += w;
      if (capped) this.lineChars += 1;
    }
  }

  private newline(): void {
    if (this.dropped > 0) this.put(`… [${this.dropped} more characters not shown]`, false);
    this.emitRow();
    this.lineChars = 0;
    this.dropped = 0;
  }

  private emitRow(): void {
    const paint = this.options.paintPrefix ?? ((p: string) => p);
    this.out.push(`${paint(this.row === '' ? AGENT_LINE_PREFIX.trimEnd() : AGENT_LINE_PREFIX)}${this.row}\n`);
    this.row = '';
    this.rowWidth = 0;
  }
}

/** A view of one output stream (one repetition's stdout, say); feed it chunks as they come. */
export function terminalSafeStream(options: TerminalSafeOptions = {}): TerminalSafeStream {
  return new SafeStream(options);
}
