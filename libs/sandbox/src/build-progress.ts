// Image builds shown as progress, not logs. The reporter takes the lines an image build reports
// (docker's build stream, and the builders' own `building <tag> …`, `rebuilding <tag>: …`, `built
// <tag>`) and shows one line per image, redrawn in place on a terminal, or one line per step that
// does work otherwise (ARG, ENV, LABEL and the like take no time and are not given a line of their own). Every line goes to a log file whose path is printed once; a failed build shows the log's
// tail. Verbose prints every line as it comes. Nothing is printed or written while images are current.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_LOG_PREFIX, BUILD_LOGS_KEPT, pruneBuildLogs } from './build-logs.ts';

/** Where progress is shown (process.stderr, a command's stderr). */
export interface ProgressSink {
  write(text: string): unknown;
  /** A terminal: each image's line is redrawn in place. */
  isTTY?: boolean;
  columns?: number;
}

export interface BuildProgressOptions {
  sink: ProgressSink;
  /** The log goes to a new file in this directory, made when the first build starts. */
  logDir: string;
  /** Every line as it comes (--verbose, INTUTIC_VERBOSE=1). */
  verbose?: boolean;
  /** Put before every line shown (not in the log), e.g. '[sandbox image] '. */
  prefix?: string;
  /** How many of the log's last lines a failed build shows (default 20). */
  tailLines?: number;
  now?: () => number;
}

export interface BuildProgress {
  /** Give this to ensureSandboxImage / ensureAgentImage as their onProgress. */
  readonly onProgress: (line: string) => void;
  /** The log's path once a build has started. */
  readonly logFile: string | undefined;
  /** The builds are done: clear a half-drawn line, close the log. */
  finish(): void;
  /** A build failed: say where, show the log's tail (unless the error carries it) and the log's path. */
  fail(error: unknown): void;
}

/** The hint that opens the build output an E_IMAGE_BUILD_FAILED carries, so it is not shown twice. */
export const BUILD_OUTPUT_HINT = 'last build output:';

export interface BuildStep {
  n: number;
  m: number;
  /** The step's instruction in a few words. */
  what: string;
  /** It runs or copies something (RUN, COPY, ADD, FROM), rather than only setting metadata. */
  works: boolean;
}

const STEP_LINE = /^(?:Step|STEP) (\d+)\/(\d+) ?: (.*)$/;
const WORK = /^(RUN|COPY|ADD|FROM)\s/i;
const IMAGE_START = /^(?:re)?building (\S+?[:/]\S+?):?(?: |$)/;
const IMAGE_DONE = /^built (\S+)$/;
const REDRAW_EVERY_MS = 200;

/** `Step 5/8 : RUN …` (or Podman's `STEP 5/8: RUN …`) as n, m and what the step does; undefined for any other line. */
export function parseStepLine(line: string): BuildStep | undefined {
  const match = STEP_LINE.exec(line.trim());
  return match ? { n: Number(match[1]), m: Number(match[2]), what: describeInstruction(match[3]!), works: WORK.test(match[3]!) } : undefined;
}

/** A Dockerfile instruction in a few words: the packages a RUN installs, else the start of it. */
export function describeInstruction(instruction: string, max = 60): string {
  const flat = instruction.replace(/\s+/g, ' ').trim();
  const space = flat.indexOf(' ');
  const keyword = space < 0 ? flat : flat.slice(0, space);
  const args = space < 0 ? '' : flat.slice(space + 1);
  if (keyword.toUpperCase() !== 'RUN') return shorten(flat, max);
  const command = args.replace(/^\/bin\/sh -c /, '');
  const install = /\b(apt-get install|npm install|pip install)\b([^;&|]*)/.exec(command);
  if (!install) return shorten(command.replace(/^(?:set -[a-z]+;?\s*)+/, ''), max);
  const words = install[2]!
    .replace(/@?\$\{[^}]*\}/g, '')
    .replace(/["']/g, '')
    .split(' ');
  return shorten([install[1], ...words.filter((w) => w && !w.startsWith('-') && !w.startsWith('$'))].join(' '), max);
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

interface ImageBuild {
  tag: string;
  started: number;
  step?: BuildStep;
}

export function createBuildProgress(options: BuildProgressOptions): BuildProgress {
  const { sink, prefix = '', verbose = false, tailLines = 20 } = options;
  const now = options.now ?? Date.now;
  const tty = !verbose && sink.isTTY === true;
  const screen = createProgressScreen(sink, prefix, now);
  const log = createBuildLog(options.logDir, tailLines, now, (file) => screen.print(`full build log: ${file}`));
  let image: ImageBuild | undefined;
  let ticker: NodeJS.Timeout | undefined;

  const stopTicker = (): void => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  };
  const closeLog = (): void => {
    stopTicker();
    screen.clear();
    log.close();
  };
  const imageStarted = (line: string, tag: string): void => {
    image = { tag, started: now() };
    if (tty) {
      screen.draw(line);
      stopTicker();
      ticker = setInterval(() => image && screen.draw(imageStatus(image, now)), 1000).unref();
    } else {
      screen.print(line);
    }
  };
  const stepStarted = (step: BuildStep): void => {
    image ??= { tag: 'image', started: now() };
    image.step = step;
    if (tty) screen.draw(imageStatus(image, now));
    else if (step.works) screen.print(`  step ${step.n}/${step.m}  ${step.what}  (at ${formatElapsed(now() - image.started)})`);
  };
  const imageBuilt = (line: string, tag: string): void => {
    if (image) {
      stopTicker();
      screen.print(`built ${tag} in ${formatElapsed(now() - image.started)}${image.step ? ` (${image.step.m} steps)` : ''}`);
      image = undefined;
    } else {
      screen.print(line);
    }
  };

  const onProgress = (line: string): void => {
    log.write(line);
    if (verbose) return void sink.write(`${prefix}${line}\n`);
    const start = IMAGE_START.exec(line);
    const step = parseStepLine(line);
    const done = IMAGE_DONE.exec(line);
    if (start) imageStarted(line, start[1]!);
    else if (step) stepStarted(step);
    else if (done) imageBuilt(line, done[1]!);
    else if (tty && image && now() - screen.lastDraw >= REDRAW_EVERY_MS) screen.draw(imageStatus(image, now));
  };

  return {
    onProgress,
    get logFile() {
      return log.file;
    },
    finish: closeLog,
    fail(error) {
      const wasLogging = log.open;
      closeLog();
      if (!wasLogging) return;
      const where = image ? imageFailure(image, now) : 'the image build failed';
      if (verbose || carriesBuildOutput(error)) {
        screen.print(`${where}; full build log: ${log.file}`);
        return;
      }
      screen.print(`${where}; the last ${log.tail.length} lines of its log (all of it: ${log.file}):`);
      for (const line of log.tail) screen.print(`  ${line}`);
    },
  };
}

/** The line shown for an image being built: its tag, its step and how long it has taken. */
function imageStatus(b: ImageBuild, now: () => number): string {
  const elapsed = formatElapsed(now() - b.started);
  return b.step ? `${b.tag}  step ${b.step.n}/${b.step.m}  ${b.step.what}  ${elapsed}` : `${b.tag}  starting  ${elapsed}`;
}

function imageFailure(b: ImageBuild, now: () => number): string {
  return `${b.tag} failed${b.step ? ` at step ${b.step.n}/${b.step.m} (${b.step.what})` : ''} after ${formatElapsed(now() - b.started)}`;
}

/** The error is an E_IMAGE_BUILD_FAILED that shows the build's last output itself. */
function carriesBuildOutput(error: unknown): boolean {
  const hints = (error as { hints?: unknown } | null)?.hints;
  return Array.isArray(hints) && hints.includes(BUILD_OUTPUT_HINT);
}

/** Where lines are shown: printed lines scroll; a drawn line (a terminal's) is redrawn in place until the next print. */
interface ProgressScreen {
  print(text: string): void;
  draw(text: string): void;
  /** Wipe a drawn line. */
  clear(): void;
  /** When a line was last drawn. */
  readonly lastDraw: number;
}

function createProgressScreen(sink: ProgressSink, prefix: string, now: () => number): ProgressScreen {
  let drawn = false;
  let lastDraw = 0;
  const clear = (): void => {
    if (drawn) sink.write('\r\x1b[2K');
    drawn = false;
  };
  return {
    print(text) {
      clear();
      sink.write(`${prefix}${text}\n`);
    },
    draw(text) {
      const width = Math.max(40, sink.columns || 100) - 1;
      sink.write(`\r\x1b[2K${`${prefix}${text}`.slice(0, width)}`);
      drawn = true;
      lastDraw = now();
    },
    clear,
    get lastDraw() {
      return lastDraw;
    },
  };
}

/** Every line of the builds, in a file made on the first line, and the last `tailLines` of them. */
interface BuildLog {
  write(line: string): void;
  close(): void;
  /** The log's path once the first line is written (kept after close). */
  readonly file: string | undefined;
  readonly open: boolean;
  readonly tail: readonly string[];
}

function createBuildLog(logDir: string, tailLines: number, now: () => number, onOpen: (file: string) => void): BuildLog {
  const tail: string[] = [];
  let file: string | undefined;
  let fd: number | undefined;
  return {
    write(line) {
      if (fd === undefined) {
        mkdirSync(logDir, { recursive: true });
        // One slot for the new log among those kept.
        pruneBuildLogs(logDir, { keep: BUILD_LOGS_KEPT - 1 });
        file = join(logDir, `${BUILD_LOG_PREFIX}${new Date(now()).toISOString().replace(/[:.]/g, '-')}-${process.pid}.log`);
        fd = openSync(file, 'a');
        onOpen(file);
      }
      writeSync(fd, `${line}\n`);
      tail.push(line);
      if (tail.length > tailLines) tail.shift();
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
    get file() {
      return file;
    },
    get open() {
      return fd !== undefined;
    },
    tail,
  };
}

/** Run image builds with a reporter for their onProgress: finished when they are, failed (and rethrown) when not. */
export async function withBuildProgress<T>(options: BuildProgressOptions, build: (onProgress: (line: string) => void) => Promise<T>): Promise<T> {
  const progress = createBuildProgress(options);
  try {
    const result = await build(progress.onProgress);
    progress.finish();
    return result;
  } catch (error) {
    progress.fail(error);
    throw error;
  }
}

/** --verbose, or INTUTIC_VERBOSE=1 in the environment: image builds print every line. */
export function verboseBuildOutput(env: NodeJS.ProcessEnv, flag?: boolean): boolean {
  return flag === true || env.INTUTIC_VERBOSE === '1';
}
