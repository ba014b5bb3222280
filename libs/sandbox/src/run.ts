// Run one command in a sandbox container: create it, attach, start, send the env block over stdin,
// stream stdout/stderr as they come, and return the exit code and timings. An abort or timeout stops
// it within a second (SIGTERM to the entrypoint, SIGKILL shortly after); the container is always
// removed. holdSandbox does all but the last steps ahead of time: the command runs when it is released.
import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type Docker from 'dockerode';
import { IntuticError } from '@intutic/errors';
import type { Engine } from './engine.ts';
import { sandboxContainerSpec } from './container-spec.ts';
import { encodeEnvBlock } from './env-block.ts';
import { newTrailerNonce } from './exit-trailer.ts';
import { describeEntrypointFailure } from './entrypoint-codes.ts';
import { engineError, engineGoingAway, engineGone, engineStillThere, exitedBySignal } from './engine-errors.ts';
import { attachStreams, type SandboxStreams } from './attach.ts';
import { RunControl } from './run-control.ts';
import { giveBackWorkspace } from './ownership.ts';
import { checkProtectionSources, type WorkspaceProtection } from './workspace-protection.ts';

export interface SandboxRunOptions {
  image: string;
  /** Run through `sh -c` as the unprivileged user, cwd /work, stdin /dev/null. */
  command: string;
  /** Host directory mounted at /work (read-write). */
  workspace: string;
  /**
   * Governance the agent's user must not change: paths of the workspace mounted read-only over
   * themselves (their parents pinned as mount points), and a host directory at /intutic/governance.
   */
  protection?: WorkspaceProtection;
  /** Names of variables to pass; their values are read from `env` at run time. */
  envNames: string[];
  env: NodeJS.ProcessEnv;
  /** The only address the container may reach; absent = no network egress at all. */
  proxy?: { host: string; port: number };
  /** Host path of a CA certificate the sandbox must trust (the proxy's TLS interception). */
  caCertPath?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  labels?: Record<string, string>;
  name?: string;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** Called once the container has started (its entrypoint is being given the env block). */
  onStarted?: () => void;
  /**
   * Called with the command's exit code when the entrypoint says it is over (its processes killed,
   * the workspace given back), tens of milliseconds before the container is gone and the run
   * resolves with the same code. Not called when the sandbox was stopped or never ran the command.
   */
  onCommandEnded?: (exitCode: number) => void;
  /**
   * Called when a sandbox being stopped (the signal, the timeout) says the stop is done: every process
   * in it killed, the workspace given back. The engine tears the container down after that, and the
   * run resolves then. Not called when it was not stopped, nor when it never got its env block.
   */
  onStopped?: () => void;
  memoryBytes?: number;
  pidsLimit?: number;
}

export interface SandboxRunResult {
  exitCode: number;
  timedOut: boolean;
  aborted: boolean;
  startedAt: number;
  endedAt: number;
  durationMs: number;
  /** Set when the sandbox itself failed (firewall, env block, setup) rather than the command. */
  error?: string;
  /** Names asked for that the caller's environment does not set; they were not passed. */
  missingEnv?: string[];
}

/** How long to wait for the last output after the container has exited. */
const OUTPUT_DRAIN_MS = 1_000;

async function resolveProxy(proxy: { host: string; port: number }): Promise<{ ip: string; port: number }> {
  if (!Number.isInteger(proxy.port) || proxy.port < 1 || proxy.port > 65535) throw new IntuticError('E_USAGE', `invalid proxy port: ${proxy.port}`);
  const ip = isIPv4(proxy.host) ? proxy.host : (await lookup(proxy.host, { family: 4 })).address;
  if (ip.startsWith('127.')) {
    throw new IntuticError('E_USAGE', `the proxy address ${proxy.host}:${proxy.port} is loopback, which a container cannot reach`, {
      hints: ["listen on the engine's bridge gateway instead (hostGatewayAddress; 172.17.0.1 on a stock Docker)"],
    });
  }
  return { ip, port: proxy.port };
}

async function createContainer(engine: Engine, spec: Docker.ContainerCreateOptions, image: string): Promise<Docker.Container> {
  try {
    return await engine.docker.createContainer(spec);
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) {
      throw new IntuticError('E_SANDBOX_FAILED', `the sandbox image ${image} does not exist on ${engine.endpoint}`, {
        hints: ['use intutic/sandbox:<version> or -node (built on first use), or build your image FROM intutic/sandbox:<version>-node'],
      });
    }
    throw engineError(engine, 'could not create the sandbox container', error);
  }
}

/** A sandbox started and waiting for its env block: its command has not run yet. */
export interface HeldSandbox {
  /**
   * Send the env block: the command runs now, and its timeout counts from here. Resolves when it is
   * over and the container is gone. A held container that is no longer running (the engine stopped or
   * restarted) is replaced by a fresh one, whose start then says what became of the engine; with the caller's signal already aborted, nothing runs (exit 130).
   */
  run(): Promise<SandboxRunResult>;
  /** It will not run: the container is removed. */
  discard(): Promise<void>;
}

/** A container created, attached and started, its entrypoint waiting for the env block on stdin. */
interface Started {
  container: Docker.Container;
  io: SandboxStreams;
  exited: Promise<{ StatusCode: number }>;
  /** Whether it exited already, before its env block was sent. */
  gone: () => boolean;
  block: ReturnType<typeof encodeEnvBlock>['block'];
  missing: string[];
  workspaceOwner: number;
  /** Where the entrypoint's exit trailer is said; release() points it at onCommandEnded or onStopped. */
  trailer: { to: (exitCode: number) => void };
}

export async function runInSandbox(engine: Engine, opts: SandboxRunOptions): Promise<SandboxRunResult> {
  const startedAt = Date.now();
  const started = await startSandbox(engine, opts);
  if ('aborted' in started) return result(startedAt, started.missing, { exitCode: 130, timedOut: false, aborted: true });
  return release(engine, opts, started, startedAt);
}

/**
 * Everything a run does before its command, done now: the container is created and started, and its
 * entrypoint waits for the env block, which only run() sends. What takes a container engine most of
 * a second, off the path of whatever the caller is waiting for (the runner holds a repetition's
 * verify while its agent runs). Nothing in it runs until then, and its mounts are bound as it starts.
 */
export async function holdSandbox(engine: Engine, opts: SandboxRunOptions): Promise<HeldSandbox> {
  const started = await startSandbox(engine, opts);
  if ('aborted' in started) return { run: () => runInSandbox(engine, opts), discard: () => Promise.resolve() };
  let used = false;
  const remove = () => started.container.remove({ force: true }).catch(() => undefined);
  return {
    run: async () => {
      if (used) throw new Error('a held sandbox runs once');
      used = true;
      if (!opts.signal?.aborted && (await stillWaiting(started))) return release(engine, opts, started, Date.now());
      await remove();
      // Stopped before it was released: its command never runs, as with runInSandbox's.
      return runInSandbox(engine, opts);
    },
    discard: async () => {
      if (used) return;
      used = true;
      await remove();
    },
  };
}

/**
 * Whether the held container is still there, running, its entrypoint waiting: asked of the engine, since
 * a stopping engine stops its containers before it stops answering, and a container stopped that way
 * must not pass for a command that exited 143.
 */
async function stillWaiting(started: Started): Promise<boolean> {
  if (started.gone()) return false;
  const info = await started.container.inspect().catch(() => null);
  return info?.State.Running === true && !info.State.Paused && !info.State.Restarting;
}

function result(
  startedAt: number,
  missing: string[],
  partial: Pick<SandboxRunResult, 'exitCode' | 'timedOut' | 'aborted'> & { error?: string },
): SandboxRunResult {
  const endedAt = Date.now();
  return { ...partial, startedAt, endedAt, durationMs: endedAt - startedAt, ...(missing.length ? { missingEnv: missing } : {}) };
}

/** Checked, created, attached and started; or not even created, when the caller's signal is already aborted. */
async function startSandbox(engine: Engine, opts: SandboxRunOptions): Promise<Started | { aborted: true; missing: string[] }> {
  await checkWorkspace(opts);
  const trailerNonce = newTrailerNonce();
  const envBlock = encodeEnvBlock(opts.envNames, opts.env, trailerNonce);
  const proxy = opts.proxy ? await resolveProxy(opts.proxy) : undefined;
  const workspaceOwner = (await stat(opts.workspace)).uid;
  if (opts.signal?.aborted) return { aborted: true, missing: envBlock.missing };
  const container = await createContainer(engine, containerSpec(engine, opts, proxy), opts.image);
  const trailer = { to: (exitCode: number) => opts.onCommandEnded?.(exitCode) };
  try {
    const io = await attachStreams(engine, container, { ...opts, onCommandEnded: (exitCode) => trailer.to(exitCode) }, trailerNonce);
    const exited = container.wait({ condition: engine.kind === 'docker' ? 'removed' : 'next-exit' }) as Promise<{ StatusCode: number }>;
    let gone = false;
    exited.then(
      () => (gone = true),
      () => (gone = true),
    );
    await startContainer(engine, container, opts.image);
    return { container, io, exited, gone: () => gone, block: envBlock.block, missing: envBlock.missing, workspaceOwner, trailer };
  } catch (error) {
    await container.remove({ force: true }).catch(() => undefined);
    throw error instanceof IntuticError ? error : engineError(engine, 'the sandbox failed', error);
  }
}

/** Send the env block and see the command through: stopped on the signal or the timeout, output drained, container removed. */
async function release(engine: Engine, opts: SandboxRunOptions, started: Started, startedAt: number): Promise<SandboxRunResult> {
  const { container, io, exited, workspaceOwner } = started;
  const control = new RunControl(container);
  // The trailer after a stop says the stop is done; otherwise, that the command is over.
  started.trailer.to = (exitCode) => (control.stopping ? opts.onStopped?.() : opts.onCommandEnded?.(exitCode));
  try {
    io.stdin.end(started.block);
    opts.onStarted?.();
    opts.signal?.addEventListener('abort', control.onAbort, { once: true });
    if (opts.signal?.aborted) control.onAbort();
    if (opts.timeoutMs !== undefined) control.stopAfter(opts.timeoutMs);
    const { StatusCode } = await exited.catch((error: unknown) => {
      throw engineError(engine, 'lost the sandbox while it ran', error);
    });
    if (!control.stopping && exitedBySignal(StatusCode)) await engineStillThere(engine, StatusCode);
    await Promise.race([io.ended, control.delay(OUTPUT_DRAIN_MS)]);
    if (engine.kind !== 'docker') await container.remove({ force: true }).catch(() => undefined);
    // A SIGKILL can cut the entrypoint's give-back short; finish it from the host when we may.
    if (control.stopping && workspaceOwner === 0) await giveBackWorkspace(opts.workspace);
    const error = control.stopping ? undefined : describeEntrypointFailure(StatusCode, io.entrypointMessage());
    return result(startedAt, started.missing, { exitCode: StatusCode, timedOut: control.timedOut, aborted: control.aborted, ...(error ? { error } : {}) });
  } catch (error) {
    await container.remove({ force: true }).catch(() => undefined);
    throw error instanceof IntuticError ? error : engineError(engine, 'the sandbox failed', error);
  } finally {
    opts.signal?.removeEventListener('abort', control.onAbort);
    control.clearTimers();
  }
}

/** The workspace is an existing directory given by absolute path, and the governance it protects is in it. */
async function checkWorkspace(opts: SandboxRunOptions): Promise<void> {
  const isDirectory =
    isAbsolute(opts.workspace) &&
    (await stat(opts.workspace).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  if (!isDirectory) throw new IntuticError('E_USAGE', `the sandbox workspace must be an existing directory given by absolute path: ${opts.workspace}`);
  if (opts.protection) await checkProtectionSources(opts.workspace, opts.protection);
}

function containerSpec(engine: Engine, opts: SandboxRunOptions, proxy: { ip: string; port: number } | undefined): Docker.ContainerCreateOptions {
  return sandboxContainerSpec({
    image: opts.image,
    command: opts.command,
    workspace: opts.workspace,
    kind: engine.kind,
    ...(proxy ? { proxy } : {}),
    ...(opts.caCertPath ? { caCertPath: opts.caCertPath } : {}),
    ...(opts.protection ? { protection: opts.protection } : {}),
    ...(opts.labels ? { labels: opts.labels } : {}),
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.memoryBytes ? { memoryBytes: opts.memoryBytes } : {}),
    ...(opts.pidsLimit ? { pidsLimit: opts.pidsLimit } : {}),
  });
}

/** Start the container; one that does not start is removed, and the error says why. */
async function startContainer(engine: Engine, container: Docker.Container, image: string): Promise<void> {
  try {
    await container.start();
  } catch (error) {
    await container.remove({ force: true }).catch(() => undefined);
    if (engineGone(error)) throw engineError(engine, 'the sandbox container did not start', error);
    // A stopping engine refuses starts (its network store already closed) for a while before it stops answering.
    const gone = await engineGoingAway(engine, 10);
    if (gone) throw engineError(engine, 'the sandbox container did not start', gone);
    throw new IntuticError('E_SANDBOX_FAILED', `the sandbox container did not start: ${(error as Error).message}`, {
      hints: [`is ${image} built FROM intutic/sandbox (it needs the entrypoint /usr/local/bin/intutic-sandbox-entrypoint)?`],
      cause: error,
    });
  }
}
