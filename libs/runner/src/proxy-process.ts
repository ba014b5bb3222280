// The proxy as a child process, watched: its stdout and stderr copied to its output file while the
// last few KB are kept (its ready line, its last words), its exit recorded as it happens. Its stdin is
// a pipe the caller writes to (a standby proxy's order, proxy-standby.ts) and holds open. The output
// file is named when the process is given to a repetition: what it printed before goes there first.
// The output file failing to take a write (the disk is full) is reported once; later output is
// dropped from the file but still kept in the tail.
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { closeSync, createWriteStream, fstatSync, openSync, readSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

const READY_LINE = /intutic proxy listening on (http:\/\/[^\s]+)/;
const TAIL_BYTES = 4000;
/** Output printed before the file is named that is kept for it: a standby's start-up says little. */
const BEFORE_BYTES = 64 * 1024;

export type ProxyExit = { code: number | null; signal: NodeJS.Signals | null };

export const describeExit = (exit: ProxyExit): string => (exit.code !== null ? `code ${exit.code}` : `signal ${exit.signal}`);

export interface WatchedProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Filled in by the process's callbacks as it runs. */
  seen: { tail: string; readyUrl: string | null; exit: ProxyExit | null };
  exited: Promise<ProxyExit>;
  /** Settles once its stdout and stderr are read to the end ('close' comes after 'exit'). */
  outputDone: Promise<void>;
  /** From now on its output goes to `path` too, starting with what it printed so far; once. */
  writeOutputTo(path: string, onError: (error: Error) => void): void;
  /** Ends the output file (unless it failed or was never named); settles once the file is closed. */
  closeOutput(): Promise<void>;
  /** Settles at its next output or its exit, or after `ms`, whichever comes first. */
  nextChange(ms: number): Promise<void>;
}

/** Spawns `bin args` with `env` in its own process group and watches it. */
export function spawnWatched(bin: string, args: readonly string[], env: NodeJS.ProcessEnv): WatchedProcess {
  const child = spawn(bin, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env });
  // A child gone before its order is written: its exit says so, not an EPIPE here.
  child.stdin.on('error', () => undefined);
  let output: OutputFile | null = null;
  const before: Buffer[] = [];
  let beforeBytes = 0;
  const seen: WatchedProcess['seen'] = { tail: '', readyUrl: null, exit: null };
  let waiters: Array<() => void> = [];
  const changed = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  const onOutput = (chunk: Buffer) => {
    if (output) output.write(chunk);
    else if (beforeBytes < BEFORE_BYTES) {
      before.push(chunk);
      beforeBytes += chunk.length;
    }
    seen.tail = (seen.tail + chunk.toString('utf8')).slice(-TAIL_BYTES);
    seen.readyUrl ??= READY_LINE.exec(seen.tail)?.[1] ?? null;
    changed();
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = new Promise<ProxyExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  void exited.then((e) => {
    seen.exit = e;
    changed();
  });
  const outputDone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const nextChange = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(wake, ms);
      function wake(): void {
        clearTimeout(timer);
        waiters = waiters.filter((w) => w !== wake);
        resolve();
      }
      waiters.push(wake);
    });
  const writeOutputTo = (path: string, onError: (error: Error) => void) => {
    if (output) throw new Error('a watched process has one output file');
    output = openOutputFile(path, onError);
    for (const chunk of before.splice(0)) output.write(chunk);
  };
  const closeOutput = () => output?.close() ?? Promise.resolve();
  return { child, seen, exited, outputDone, writeOutputTo, closeOutput, nextChange };
}

interface OutputFile {
  write(chunk: Buffer): void;
  close(): Promise<void>;
}

/** An append-only file for the process's output; a write it cannot take is reported once, the rest dropped. */
function openOutputFile(path: string, onError: (error: Error) => void): OutputFile {
  const output = createWriteStream(path, { flags: 'a' });
  let failed = false;
  output.on('error', (error) => {
    if (failed) return;
    failed = true;
    onError(error);
  });
  const closed = new Promise<void>((resolve) => output.once('close', () => resolve()));
  return {
    write: (chunk) => {
      if (!failed && !output.destroyed) output.write(chunk);
    },
    close: () => {
      if (!failed && !output.destroyed) output.end();
      return closed;
    },
  };
}

/** SIGTERM, then SIGKILL if it has not exited within 3 s; settles once it has exited. */
export function stopProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 3000);
  return exited.then(() => clearTimeout(force));
}

/** The last `maxLines` lines of a file (read from its end only); none when it cannot be read. */
export function fileTail(path: string, maxLines: number): string[] {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.min(size, TAIL_BYTES));
      readSync(fd, buffer, 0, buffer.length, size - buffer.length);
      return lastLines(buffer.toString('utf8'), maxLines);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
}

export function lastLines(text: string, maxLines: number): string[] {
  const trimmed = text.trim();
  return trimmed === '' ? [] : trimmed.split('\n').slice(-maxLines);
}
