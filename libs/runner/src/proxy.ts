// A repetition's dedicated proxy: the same binary `intutic start` runs, started as its own process
// (its own process group, so a Ctrl-C in the terminal reaches the CLI, not the proxy) on a free port
// of the address containers reach, then health-checked. The process is started as a standby (`start
// --standby`, apps/cli/src/standby.ts) and given the repetition's options on its stdin: at once here,
// or later when a worker keeps one loaded ahead of its next repetition (proxy-standby.ts). If it
// exits or never answers, the repetition fails with that error and the proxy's last words (the end
// of its output and log); if it exits later, before stop(), `died` settles with the same, so the
// repetition stops at once. Its output file failing to take a write (the disk is full) never crashes
// the worker: onOutputError hears of it and the tail stays.
// Provider keys reach it through its environment only, never argv (which the process list shows): the
// real key under its own name, the sandbox's stand-in as INTUTIC_STAND_IN_<name>; it swaps the one
// for the other upstream and refuses any other key.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { IntuticError } from '@intutic/errors';
import { REPETITION_ENV } from '@intutic/faults';
import { describeExit, fileTail, lastLines, spawnWatched, stopProcess, type WatchedProcess } from './proxy-process.ts';

/** After the proxy exits, how long its last output may take to arrive (a grandchild could hold the pipes open). */
const LAST_OUTPUT_MS = 500;
/** The proxy reads a key's stand-in from this variable (apps/proxy/src/llm/keys.ts), the real key from `name` itself. */
const STAND_IN_ENV_PREFIX = 'INTUTIC_STAND_IN_';

export interface StartProxyOptions {
  /** argv prefix that runs the intutic CLI, e.g. [process.execPath, '/…/apps/cli/bin/intutic.mjs']. */
  command: readonly string[];
  host: string;
  eventsPath: string;
  /** Faulted repetitions only: baselines run with no plan. */
  planPath?: string;
  logPath: string;
  caOutPath: string;
  /** The proxy process's own stdout and stderr go here. */
  outputPath: string;
  extraArgs?: readonly string[];
  /** The proxy's environment; the real provider keys are read from it by name. */
  env: NodeJS.ProcessEnv;
  /** By provider key name, the stand-in the sandbox holds (makeStandIns); none: clients' keys pass as they come. */
  standIns?: Readonly<Record<string, string>>;
  readyTimeoutMs?: number;
  /**
   * Called as soon as the process is the repetition's, before it is ready: the caller records it for
   * cleanup, by its pid and the mark its command line carries (cleanup.ts isJobProcess).
   */
  onSpawn?: (proxy: { pid: number; mark: string }) => Promise<void>;
  /** Called once when outputPath cannot be written (e.g. the disk is full); later output is dropped. */
  onOutputError?: (error: Error) => void;
}

export interface RunningProxy {
  url: string;
  host: string;
  port: number;
  pid: number;
  /** The per-run CA the sandbox must trust, when the proxy wrote one. */
  caCertPath: string | null;
  /**
   * Settles only if the process exits before stop() was called (killed, crashed): with its exit
   * status and last words, as the error the repetition fails with.
   */
  died: Promise<IntuticError>;
  stop(): Promise<void>;
}

/** What a repetition decides about its proxy; which command runs it is the starter's (proxyStarter). */
export type RepetitionProxyOptions = Omit<StartProxyOptions, 'command' | 'extraArgs'>;

/** Starts a repetition's proxy, health-checked: the runner's seam (RepetitionEffects.startProxy). */
export interface ProxyStarter {
  (options: RepetitionProxyOptions): Promise<RunningProxy>;
  /** Load a proxy process now, for the next repetition (a worker coming online): proxy-standby.ts. */
  warm?(env: NodeJS.ProcessEnv): void;
  /** Stop whatever proxy process it keeps for the next repetition (a worker going away). */
  close?(): Promise<void>;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** A proxy process loaded and waiting for its options on stdin, started with `env` (less any stand-ins). */
export interface StandbyProxy {
  process: WatchedProcess;
  env: NodeJS.ProcessEnv;
  /** In its command line, to know it as ours in the process list. */
  mark: string;
}

/** `<command> start --standby <mark>`, with the worker's environment and no stand-in or run id it may have inherited. */
export function spawnStandby(command: readonly string[], env: NodeJS.ProcessEnv): StandbyProxy {
  const [bin, ...prefix] = command;
  // An invariant of the caller (the CLI never wires an empty command): a bug, not a user's mistake.
  if (!bin) throw new Error('a proxy needs a command');
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!name.startsWith(STAND_IN_ENV_PREFIX) && name !== REPETITION_ENV) base[name] = value;
  const mark = `intutic-proxy-${randomBytes(6).toString('hex')}`;
  return { process: spawnWatched(bin, [...prefix, 'start', '--standby', mark], base), env, mark };
}

/** Stops a standby that will not be used (it would also stop by itself once its stdin ends). */
export async function dismissStandby(standby: StandbyProxy): Promise<void> {
  await stopProcess(standby.process.child, standby.process.exited);
  await standby.process.closeOutput();
}

/**
 * What the standby adds to its environment: this repetition's stand-ins, and with a plan
 * REPETITION_ENV naming its run: this proxy serves that repetition's sandboxed agent, so it may apply
 * the plan's mutating faults (see @intutic/faults placement.ts).
 */
function repetitionEnv(standIns: Readonly<Record<string, string>>, planPath: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, standIn] of Object.entries(standIns)) out[`${STAND_IN_ENV_PREFIX}${name}`] = standIn;
  const runId = planPath ? planRunId(planPath) : null;
  if (runId) out[REPETITION_ENV] = runId;
  return out;
}

/** The run id of the plan the runner wrote; null when it cannot be read (the proxy then fails on it itself). */
function planRunId(planPath: string): string | null {
  try {
    const runId = (JSON.parse(readFileSync(planPath, 'utf8')) as { run_id?: unknown }).run_id;
    return typeof runId === 'string' ? runId : null;
  } catch {
    return null;
  }
}

export async function startProxy(options: StartProxyOptions): Promise<RunningProxy> {
  return activateStandby(spawnStandby(options.command, options.env), options);
}

/** The standby made this repetition's proxy: its output file named, its order written, then health-checked. */
export async function activateStandby(standby: StandbyProxy, options: StartProxyOptions): Promise<RunningProxy> {
  const proxy = standby.process;
  proxy.writeOutputTo(options.outputPath, (error) => options.onOutputError?.(error));
  if (proxy.child.pid !== undefined) await options.onSpawn?.({ pid: proxy.child.pid, mark: standby.mark });
  const order = { args: startArgs(options), env: repetitionEnv(options.standIns ?? {}, options.planPath) };
  proxy.child.stdin.write(`${JSON.stringify(order)}\n`);
  const readyUrl = await untilReady(proxy, options);
  return running(proxy, readyUrl, options);
}

/** `start`'s arguments: on a free port of `host`, with the repetition's plan, events, log and CA paths. */
function startArgs(options: StartProxyOptions): string[] {
  return [
    '--host',
    options.host,
    '--port',
    '0',
    ...(options.planPath ? ['--plan', options.planPath] : []),
    '--events',
    options.eventsPath,
    '--log',
    options.logPath,
    '--ca-out',
    options.caOutPath,
    ...(options.extraArgs ?? []),
  ];
}

/** Its last words: what it printed last, and the last lines of its log. */
function proxyFailure(proxy: WatchedProcess, options: StartProxyOptions, what: string): IntuticError {
  const output = lastLines(proxy.seen.tail, 15);
  const log = fileTail(options.logPath, 10);
  return new IntuticError('E_PROXY_FAILED', `the repetition's proxy ${what}`, {
    hints: [
      output.length > 0 ? `its output (${options.outputPath}) ended with:` : `its output (${options.outputPath}) is empty`,
      ...output.map((l) => `  ${l}`),
      ...(log.length > 0 ? [`its log (${options.logPath}) ended with:`, ...log.map((l) => `  ${l}`)] : []),
    ],
  });
}

/** Its ready URL once it said it listens and answers there; if it exits or times out first, it is stopped and that is the error. */
async function untilReady(proxy: WatchedProcess, options: StartProxyOptions): Promise<string> {
  const fail = async (what: string): Promise<never> => {
    await stopProcess(proxy.child, proxy.exited);
    await proxy.closeOutput();
    throw proxyFailure(proxy, options, what);
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  for (;;) {
    const { exit, readyUrl } = proxy.seen;
    if (exit) return fail(`exited (${describeExit(exit)}) before it was ready`);
    if (readyUrl && (await healthy(readyUrl))) return readyUrl;
    if (Date.now() > deadline) {
      return fail(readyUrl ? `never answered on ${readyUrl}/health` : 'never said it was listening');
    }
    // Its ready line (or its exit) ends the wait at once; a ready line without an answer yet, 100 ms.
    await proxy.nextChange(readyUrl ? 100 : 1000);
  }
}

/** The ready proxy: `died` settles if it exits before stop() is called. */
function running(proxy: WatchedProcess, readyUrl: string, options: StartProxyOptions): RunningProxy {
  const url = new URL(readyUrl);
  let stopping = false;
  const died = new Promise<IntuticError>((resolve) => {
    void proxy.exited.then(async (exit) => {
      if (stopping) return;
      // Its last lines are the point: wait for the rest of its output first.
      await Promise.race([proxy.outputDone, new Promise((r) => setTimeout(r, LAST_OUTPUT_MS).unref())]);
      if (!stopping) resolve(proxyFailure(proxy, options, `exited (${describeExit(exit)}) while the repetition ran`));
    });
  });
  return {
    url: readyUrl.replace(/\/$/, ''),
    host: url.hostname,
    port: Number(url.port),
    pid: proxy.child.pid!,
    caCertPath: existsSync(options.caOutPath) ? options.caOutPath : null,
    died,
    stop: async () => {
      stopping = true;
      await stopProcess(proxy.child, proxy.exited);
      await proxy.closeOutput();
    },
  };
}
