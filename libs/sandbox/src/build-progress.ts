// Image builds shown as progress, not logs. The reporter takes the lines an image build reports
// (docker's build stream, and the builders' own `building <tag> …`, `rebuilding <tag>: …`, `built
// <tag>`) and shows one line per image, redrawn in place on a terminal, or one line per step that
// does work otherwise (ARG, ENV, LABEL and the like take no time and are not given a line of their own). Every line goes to a log file whose path is printed once; a failed build shows the log's
// tail. Verbose prints every line as it comes. Nothing is printed or written while images are current.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

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

const STEP_LINE = /^Step (\d+)\/(\d+) : (.*)$/;
const WORK = /^(RUN|COPY|ADD|FROM)\s/i;
const IMAGE_START = /^(?:re)?building (\S+?[:/]\S+?):?(?: |$)/;
const IMAGE_DONE = /^built (\S+)$/;
const REDRAW_EVERY_MS = 200;

/** `Step 5/8 : RUN …` as n, m and what the step does; undefined for any other line. */
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
  const tail: string[] = [];
  let logFile: string | undefined;
  let fd: number | undefined;
  let image: ImageBuild | undefined;
  let drawn = false;
  let lastDraw = 0;
  let ticker: NodeJS.Timeout | undefined;

  const print = (text: string): void => {
    if (drawn) sink.write('\r\x1b[2K');
    drawn = false;
    sink.write(`${prefix}${text}\n`);
  };
  const draw = (text: string): void => {
    const width = Math.max(40, sink.columns || 100) - 1;
    sink.write(`\r\x1b[2K${`${prefix}${text}`.slice(0, width)}`);
    drawn = true;
    lastDraw = now();
  };
  const status = (b: ImageBuild): string => {
    const elapsed = formatElapsed(now() - b.started);
    return b.step ? `${b.tag}  step ${b.step.n}/${b.step.m}  ${b.step.what}  ${elapsed}` : `${b.tag}  starting  ${elapsed}`;
  };
  const stopTicker = (): void => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  };
  const log = (line: string): void => {
    if (fd === undefined) {
      mkdirSync(options.logDir, { recursive: true });
      logFile = join(options.logDir, `image-build-${new Date(now()).toISOString().replace(/[:.]/g, '-')}-${process.pid}.log`);
      fd = openSync(logFile, 'a');
      print(`full build log: ${logFile}`);
    }
    writeSync(fd, `${line}\n`);
    tail.push(line);
    if (tail.length > tailLines) tail.shift();
  };
  const closeLog = (): void => {
    stopTicker();
    if (drawn) sink.write('\r\x1b[2K');
    drawn = false;
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };

  const onProgress = (line: string): void => {
    log(line);
    if (verbose) return void sink.write(`${prefix}${line}\n`);
    const start = IMAGE_START.exec(line);
    const step = parseStepLine(line);
    const done = IMAGE_DONE.exec(line);
    if (start) {
      image = { tag: start[1]!, started: now() };
      if (tty) {
        draw(line);
        stopTicker();
        ticker = setInterval(() => image && draw(status(image)), 1000).unref();
      } else {
        print(line);
      }
    } else if (step) {
      image ??= { tag: 'image', started: now() };
      image.step = step;
      if (tty) draw(status(image));
      else if (step.works) print(`  step ${step.n}/${step.m}  ${step.what}  (at ${formatElapsed(now() - image.started)})`);
    } else if (done && image) {
      stopTicker();
      print(`built ${done[1]} in ${formatElapsed(now() - image.started)}${image.step ? ` (${image.step.m} steps)` : ''}`);
      image = undefined;
    } else if (done) {
      print(line);
    } else if (tty && image && now() - lastDraw >= REDRAW_EVERY_MS) {
      draw(status(image));
    }
  };

  return {
    onProgress,
    get logFile() {
      return logFile;
    },
    finish: closeLog,
    fail(error) {
      const wasLogging = fd !== undefined;
      closeLog();
      if (!wasLogging) return;
      const where = image
        ? `${image.tag} failed${image.step ? ` at step ${image.step.n}/${image.step.m} (${image.step.what})` : ''} after ${formatElapsed(now() - image.started)}`
        : 'the image build failed';
      const hints = (error as { hints?: unknown } | null)?.hints;
      const carried = Array.isArray(hints) && hints.includes(BUILD_OUTPUT_HINT);
      if (verbose || carried) {
        print(`${where}; full build log: ${logFile}`);
        return;
      }
      print(`${where}; the last ${tail.length} lines of its log (all of it: ${logFile}):`);
      for (const line of tail) print(`  ${line}`);
    },
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
