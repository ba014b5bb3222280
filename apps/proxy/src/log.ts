// The proxy's log: one line per event worth a human's attention, to the --log file (or stderr).
// It never carries a secret: callers pass fields, and fields whose names look like credentials are
// dropped here, so no request header value can slip in by accident. Lines are stamped when logged
// and rendered and written a millisecond later, those of that millisecond in one write: as the
// events (events.ts), so that a model call's log line does not take the CPU its client needs to
// read the answer.
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  close(): Promise<void>;
}

const SECRET_NAME = /key|auth|token|secret|password|cookie|credential/i;

function render(level: string, message: string, fields: LogFields = {}, at = Date.now()): string {
  const parts = [new Date(at).toISOString(), level, message];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    const text = String(value);
    parts.push(`${name}=${/[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text}`);
  }
  return parts.join(' ') + '\n';
}

/** A logger writing to `path` (appended) or to `stream` (e.g. stderr) when no path is given. */
export function createLogger(target: { path?: string; stream?: Writable }): Logger {
  let out: Writable;
  let owned = false;
  if (target.path) {
    mkdirSync(dirname(target.path), { recursive: true });
    const file = createWriteStream(target.path, { flags: 'a' });
    // A log that cannot be written (the disk is full) must not take the proxy down mid-repetition:
    // say so once on stderr and go on there.
    file.once('error', (error) => {
      process.stderr.write(`${render('warn', 'the log file cannot be written; logging to stderr from here on', { path: target.path, error: error.message })}`);
      out = process.stderr;
      owned = false;
    });
    out = file;
    owned = true;
  } else {
    out = target.stream ?? process.stderr;
  }
  let waiting: [at: number, level: string, message: string, fields: LogFields | undefined][] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const lines = waiting;
    waiting = [];
    if (lines.length === 0 || !out.writable) return;
    out.write(lines.map(([at, level, message, fields]) => render(level, message, fields, at)).join(''));
  };
  const write = (level: string) => (message: string, fields?: LogFields) => {
    waiting.push([Date.now(), level, message, fields]);
    timer ??= setTimeout(flush, 1);
  };
  return {
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    close: () =>
      new Promise<void>((resolve) => {
        flush();
        if (!owned || !out.writable) return resolve();
        out.end(() => resolve());
      }),
  };
}

/** What a log line says in place of a message or field that quotes part of a real key. */
export const WITHHELD = '[withheld: quotes part of a provider key]';

/**
 * `log`, with any message or field value that quotes part of a real key (key-fragments.ts) replaced
 * by WITHHELD: the last line of defence, whatever a caller passes. Only the short strings a call logs
 * are checked, and only when the proxy holds keys.
 */
export function withoutKeys(log: Logger, fragments: { active: boolean; found(text: string): boolean }): Logger {
  if (!fragments.active) return log;
  const clean =
    (write: Logger['info']): Logger['info'] =>
    (message, fields) => {
      let safe: LogFields | undefined = fields;
      if (fields) {
        for (const [name, value] of Object.entries(fields)) {
          if (typeof value !== 'string' || !fragments.found(value)) continue;
          safe = { ...safe, [name]: WITHHELD };
        }
      }
      write(fragments.found(message) ? WITHHELD : message, safe);
    };
  return { info: clean(log.info), warn: clean(log.warn), error: clean(log.error), close: () => log.close() };
}

/** A logger that keeps lines in memory (tests assert on what was, and was not, logged). */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string, fields?: LogFields) => void lines.push(render(level, message, fields));
  return { lines, info: write('info'), warn: write('warn'), error: write('error'), close: async () => {} };
}
