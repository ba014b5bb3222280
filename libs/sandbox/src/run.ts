// Run one command in a sandbox container: create it, attach, start, send the env block over stdin,
// stream stdout/stderr as they come, and return the exit code and timings. An abort or timeout stops
// it within a second (SIGTERM to the entrypoint, SIGKILL shortly after); the container is always removed.
import { PassThrough } from 'node:stream';
import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type Docker from 'dockerode';
import { IntuticError } from '@intutic/errors';
import type { Engine } from './engine.ts';
import { sandboxContainerSpec } from './container-spec.ts';
import { encodeEnvBlock } from './env-block.ts';
import { describeEntrypointFailure } from './entrypoint-codes.ts';
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

/** Between SIGTERM (the entrypoint kills everything and gives the workspace back) and SIGKILL. */
const STOP_GRACE_MS = 600;
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

/** The engine's socket refused, vanished or hung up: the engine stopped or restarted. */
function engineGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE'].includes(code) || /socket hang up|connection (is )?closed/i.test((error as Error).message ?? '');
}

/**
 * A stopping engine first stops its containers (SIGTERM, then SIGKILL: exit 143 or 137), then goes
 * away. When a sandbox exits so without being told to, the engine is asked for a moment whether it
 * is still there: if not, the exit was the engine's doing, not the command's, and is said so.
 */
async function engineStillThere(engine: Engine, exitCode: number): Promise<void> {
  for (let i = 0; i < 5; i++) {
    try {
      await engine.docker.ping();
    } catch (error) {
      throw engineError(engine, `the sandbox was stopped (exit ${exitCode}) as the engine went away`, error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What went wrong, said so that "the engine went away" is never mistaken for a bad image or command. */
function engineError(engine: Engine, what: string, error: unknown): IntuticError {
  if (engineGone(error)) {
    return new IntuticError('E_SANDBOX_UNAVAILABLE', `${what}: the container engine at ${engine.endpoint} stopped answering (${(error as Error).message})`, {
      hints: ['the engine was stopped or restarted; once it answers again (docker info), run the experiment again'],
      cause: error,
    });
  }
  return new IntuticError('E_SANDBOX_FAILED', `${what}: ${(error as Error).message}`, { cause: error });
}

/**
 * The hijacked attach, its request with an empty body (`Content-Length: 0`, as the docker CLI sends it).
 * Podman passes whatever body the request carries on to the container's stdin, where Docker drops it;
 * dockerode's own attach sends its options as a JSON body (or, without one, an empty chunked body, whose
 * end marker Podman passes on too), which would reach the entrypoint before the env block.
 */
function attachRequest(engine: Engine, container: Docker.Container): Promise<NodeJS.ReadWriteStream> {
  return new Promise((resolve, reject) => {
    engine.docker.modem.dial(
      {
        path: `/containers/${container.id}/attach?`,
        method: 'POST',
        options: { stream: true, stdin: true, stdout: true, stderr: true },
        // docker-modem's raw body: an empty Buffer goes out as `Content-Length: 0`, and the request ends.
        file: Buffer.alloc(0),
        hijack: true,
        isStream: true,
        statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
      },
      (error, stream) => (error ? reject(error) : resolve(stream as NodeJS.ReadWriteStream)),
    );
  });
}

/** Attach before start so no output is missed; stdin carries the env block, output goes to the callbacks. */
async function attachStreams(engine: Engine, container: Docker.Container, opts: SandboxRunOptions) {
  const stream = await attachRequest(engine, container);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let entrypointMessage = '';
  stdout.on('data', (chunk: Buffer) => opts.onStdout?.(chunk));
  stderr.on('data', (chunk: Buffer) => {
    // The entrypoint's own failures are one line with this prefix, written before the command starts.
    if (!entrypointMessage && chunk.includes('intutic-sandbox: ')) entrypointMessage = /intutic-sandbox: [^\n]*/.exec(chunk.toString('utf8'))?.[0] ?? '';
    opts.onStderr?.(chunk);
  });
  engine.docker.modem.demuxStream(stream, stdout, stderr);
  const ended = new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  return { stdin: stream, ended, entrypointMessage: () => entrypointMessage };
}

export async function runInSandbox(engine: Engine, opts: SandboxRunOptions): Promise<SandboxRunResult> {
  await checkWorkspace(opts);
  const envBlock = encodeEnvBlock(opts.envNames, opts.env);
  const proxy = opts.proxy ? await resolveProxy(opts.proxy) : undefined;
  const workspaceOwner = (await stat(opts.workspace)).uid;
  const startedAt = Date.now();
  const done = (partial: Pick<SandboxRunResult, 'exitCode' | 'timedOut' | 'aborted'> & { error?: string }): SandboxRunResult => {
    const endedAt = Date.now();
    return { ...partial, startedAt, endedAt, durationMs: endedAt - startedAt, ...(envBlock.missing.length ? { missingEnv: envBlock.missing } : {}) };
  };
  if (opts.signal?.aborted) return done({ exitCode: 130, timedOut: false, aborted: true });

  const container = await createContainer(engine, containerSpec(engine, opts, proxy), opts.image);
  const control = new RunControl(container);
  try {
    const io = await attachStreams(engine, container, opts);
    const exited = container.wait({ condition: engine.kind === 'docker' ? 'removed' : 'next-exit' }) as Promise<{ StatusCode: number }>;
    exited.catch(() => undefined);
    await startContainer(engine, container, opts.image);
    io.stdin.end(envBlock.block);
    opts.signal?.addEventListener('abort', control.onAbort, { once: true });
    if (opts.signal?.aborted) control.onAbort();
    if (opts.timeoutMs !== undefined) control.stopAfter(opts.timeoutMs);
    const { StatusCode } = await exited.catch((error: unknown) => {
      throw engineError(engine, 'lost the sandbox while it ran', error);
    });
    if (!control.stopping && (StatusCode === 137 || StatusCode === 143)) await engineStillThere(engine, StatusCode);
    await Promise.race([io.ended, control.delay(OUTPUT_DRAIN_MS)]);
    if (engine.kind !== 'docker') await container.remove({ force: true }).catch(() => undefined);
    // A SIGKILL can cut the entrypoint's give-back short; finish it from the host when we may.
    if (control.stopping && workspaceOwner === 0) await giveBackWorkspace(opts.workspace);
    const error = control.stopping ? undefined : describeEntrypointFailure(StatusCode, io.entrypointMessage());
    return done({ exitCode: StatusCode, timedOut: control.timedOut, aborted: control.aborted, ...(error ? { error } : {}) });
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
    throw new IntuticError('E_SANDBOX_FAILED', `the sandbox container did not start: ${(error as Error).message}`, {
      hints: [`is ${image} built FROM intutic/sandbox (it needs the entrypoint /usr/local/bin/intutic-sandbox-entrypoint)?`],
      cause: error,
    });
  }
}

/**
 * Stopping a running sandbox, once, and why it was stopped: SIGTERM to the entrypoint, SIGKILL
 * STOP_GRACE_MS later. Its timers are cleared when the run is over.
 */
class RunControl {
  timedOut = false;
  aborted = false;
  stopping = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly container: Docker.Container;

  constructor(container: Docker.Container) {
    this.container = container;
  }

  /** For the caller's abort signal (one function, so that it can be removed again). */
  readonly onAbort = (): void => {
    this.aborted = true;
    this.stop();
  };

  stopAfter(timeoutMs: number): void {
    this.timers.push(
      setTimeout(() => {
        this.timedOut = true;
        this.stop();
      }, timeoutMs),
    );
  }

  /** Resolves after `ms`, unless the timers are cleared first. */
  delay(ms: number): Promise<unknown> {
    return new Promise((resolve) => this.timers.push(setTimeout(resolve, ms)));
  }

  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.container.kill({ signal: 'SIGTERM' }).catch(() => undefined);
    this.timers.push(setTimeout(() => void this.container.kill({ signal: 'SIGKILL' }).catch(() => undefined), STOP_GRACE_MS));
  }
}
