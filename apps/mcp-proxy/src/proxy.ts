// One proxy session: load the plan and policy, start the MCP server as a child, relay stdio both
// ways, and end when either side does. The client closing stdin ends the server the way the SDK's
// stdio client does (stdin closed, then SIGTERM, then SIGKILL); the server exiting ends the proxy
// with the server's exit code. stdout carries protocol messages only.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { IntuticError, EXIT } from '@intutic/errors';
import { createGovernor } from './governance.ts';
import { applicablePlan, MUTATING_REFUSED, refusalMessage, sandboxPlacement, type Placement } from '@intutic/faults';
import { FaultPlanner, isMcpProxyFault, loadPlan } from './faults.ts';
import { LineSplitter } from './framing.ts';
import { createLog, Recorder, type Log } from './recorder.ts';
import { Relay } from './relay.ts';
import { Toolset } from './toolset.ts';

export interface McpProxyOptions {
  /** The server's name, as the harness knows it (the key in .mcp.json): tool matching and events use it. */
  name: string;
  command: string;
  args: readonly string[];
}

export interface McpProxyDeps {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborting it stops the server and ends the proxy (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** Whether mutating faults may apply here (tests); by default the sandbox's marker decides (see @intutic/faults placement.ts). */
  placement?: Placement;
}

/** How long the server gets to exit after its stdin closes, and again after SIGTERM. */
export const SHUTDOWN_GRACE_MS = 2000;

/** Run until the client or the server goes away; resolves to the proxy's exit code. */
export async function runMcpProxy(options: McpProxyOptions, deps: McpProxyDeps): Promise<number> {
  const log = createLog({ env: deps.env, cwd: deps.cwd, stderr: deps.stderr, server: options.name });
  const toolset = new Toolset(options.name);
  const loaded = loadPlan(deps.env);
  // Mutating faults apply only inside a repetition's sandbox; on the host they are said and left out.
  const { plan, refused } = loaded ? applicablePlan(loaded, deps.placement ?? sandboxPlacement(deps.env)) : { plan: null, refused: [] };
  const planner = plan ? new FaultPlanner(plan, options.name, toolset) : null;
  const recorder = new Recorder({ env: deps.env, log, server: options.name });
  if (planner) {
    recorder.runId = planner.plan.run_id;
    const mine = refused.filter((f) => isMcpProxyFault(f, options.name));
    if (mine.length > 0) {
      const message = refusalMessage(`intutic-mcp-proxy ${options.name}`, mine, deps.placement ?? sandboxPlacement(deps.env));
      deps.stderr.write(`${message}\n`);
      log(message);
      recorder.warning({ code: MUTATING_REFUSED, faults: mine.map((f) => f.index), detail: message });
    }
    recorder.planLoaded(planner.faults.map((f) => f.index));
    log(`plan ${planner.plan.run_id} loaded: faults ${planner.faults.map((f) => `${f.index}:${f.id}`).join(', ') || 'none for this proxy'}`);
  }
  const governor = createGovernor({ env: deps.env, cwd: deps.cwd, server: options.name, log });
  const child = spawn(options.command, [...options.args], { cwd: deps.cwd, env: deps.env, stdio: ['pipe', 'pipe', 'pipe'] });
  return session(child, deps, log, (write) => new Relay({ governor, planner, toolset, recorder, log, ...write }), options);
}

/** What the session's handlers share. */
interface SessionState {
  /** The proxy's exit code, once the session is ending. */
  ending: number | null;
  /**
   * Set when the client stops reading. A client that only closed stdin still gets the answers the
   * server writes before it exits (a script may send its requests and close).
   */
  clientGone: boolean;
}

interface Writers {
  toClient(line: string): void;
  toServer(line: string): void;
}

function session(
  child: ChildProcessWithoutNullStreams,
  deps: McpProxyDeps,
  log: Log,
  makeRelay: (write: Writers) => Relay,
  options: McpProxyOptions,
): Promise<number> {
  const { stdin, stdout, stderr } = deps;
  return new Promise<number>((resolve, reject) => {
    const state: SessionState = { ending: null, clientGone: false };
    const timers: NodeJS.Timeout[] = [];

    const relay = makeRelay(writers(child, deps, state));
    const onClientData = lineReader(new LineSplitter(), (line) => relay.fromClient(line), log, 'client');
    child.stdout.on(
      'data',
      lineReader(new LineSplitter(), (line) => relay.fromServer(line), log, 'server'),
    );
    child.stderr.pipe(stderr, { end: false });
    child.stdin.on('error', () => undefined); // the server went away; its exit ends the session

    const finish = (code: number): void => {
      for (const timer of timers) clearTimeout(timer);
      stdin.off('data', onClientData);
      stdin.off('end', onClientEnd);
      stdin.off('close', onClientEnd);
      deps.signal?.removeEventListener('abort', onAbort);
      stdin.pause();
      // Resolve once everything already written to stdout has been handed to the OS.
      if (state.clientGone || stdout.destroyed || !stdout.writable) resolve(code);
      else stdout.write('', () => resolve(code));
    };

    /**
     * Stop the server like the SDK's stdio client closes one (stdin closed, SIGTERM, SIGKILL), then
     * finish with `code`. When we are being stopped ourselves, the server gets SIGTERM at once: whoever
     * signalled us may not wait for the grace period before killing us and orphaning it.
     */
    const stop = (reason: string, code: number, urgent = false): void => {
      if (state.ending !== null) return;
      state.ending = code;
      log(`${reason}; stopping the server`);
      if (child.exitCode !== null || child.signalCode !== null) return finish(code);
      child.stdin.end();
      if (urgent) child.kill('SIGTERM');
      else timers.push(setTimeout(() => child.kill('SIGTERM'), SHUTDOWN_GRACE_MS));
      timers.push(setTimeout(() => child.kill('SIGKILL'), 2 * SHUTDOWN_GRACE_MS));
    };

    const onClientEnd = (): void => stop('the client closed stdin', EXIT.ok);
    const onAbort = (): void => stop('interrupted', EXIT.interrupted, true);
    stdin.on('data', onClientData);
    stdin.once('end', onClientEnd);
    stdin.once('close', onClientEnd);
    stdout.on('error', () => {
      state.clientGone = true;
      stop('the client stopped reading stdout', EXIT.ok);
    });
    if (deps.signal?.aborted) onAbort();
    else deps.signal?.addEventListener('abort', onAbort, { once: true });

    child.once('error', (error) => {
      if (state.ending !== null) return;
      state.ending = EXIT.couldNotRun;
      reject(serverFailedToStart(options, error));
      finish(EXIT.couldNotRun);
    });
    // 'close' comes after the server's stdout has ended, so every answer it wrote has been relayed.
    child.once('close', (code, signal) => {
      if (state.ending !== null) return finish(state.ending);
      const exit = code ?? 128 + (signal ? (constants.signals[signal] ?? 15) : 15);
      log(`the server exited (${code === null ? `signal ${signal}` : `code ${code}`}); exiting`);
      state.ending = exit;
      finish(exit);
    });
  });
}

/** Where the relay writes: each side's stream, with backpressure from the other side. */
function writers(child: ChildProcessWithoutNullStreams, deps: McpProxyDeps, state: SessionState): Writers {
  const { stdin, stdout } = deps;
  return {
    toClient: (line) => {
      if (state.clientGone) return;
      // Backpressure: stop reading the server until the client's side drains.
      if (!stdout.write(line)) {
        child.stdout.pause();
        stdout.once('drain', () => child.stdout.resume());
      }
    },
    toServer: (line) => {
      if (!child.stdin.writable) return;
      if (!child.stdin.write(line)) {
        stdin.pause();
        child.stdin.once('drain', () => stdin.resume());
      }
    },
  };
}

/** A 'data' listener that splits a side's stream into lines and hands each to the relay. */
function lineReader(splitter: LineSplitter, deliver: (line: string) => void, log: Log, side: 'client' | 'server'): (chunk: Buffer) => void {
  return (chunk) => {
    try {
      for (const line of splitter.push(chunk)) deliver(line);
    } catch (error) {
      log(`${side} stream: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

function serverFailedToStart(options: McpProxyOptions, error: Error): IntuticError {
  return new IntuticError('E_MCP_SERVER_FAILED', `cannot start the MCP server ${options.name} (${options.command}): ${error.message}`, {
    hints: ['check the server command after `--`; it runs without a shell'],
    cause: error,
  });
}
