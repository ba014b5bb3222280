// Make a Redis answer for the user when none is configured: when REDIS_URL is unset and nothing
// answers on the default address, start one with AOF persistence under ~/.intutic/redis/ —
// redis-server from PATH if there is one, else a container of the official image through the same
// engine the sandbox uses — and say so. A configured REDIS_URL that does not answer is an error, and
// so is a Redis that answers but refuses the password or whose certificate is not trusted.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type Dockerode from 'dockerode';
import { isClusterUrl, redactUrl, redisUnavailable } from './connection.ts';
import { pingRedis, redisAnswers } from './probe.ts';

const run = promisify(execFile);

export const REDIS_CONTAINER_NAME = 'intutic-redis';
export const REDIS_IMAGE = 'redis:7-alpine';

export interface EnsureRedisOptions {
  url: string;
  /** REDIS_URL was set by the user: never start anything in its place. */
  configured: boolean;
  /** ~/.intutic (or INTUTIC_HOME); the data goes to <home>/redis. */
  home: string;
  /** redis-server to start; default: found on PATH. null: do not try. */
  redisServer?: string | null;
  /** The engine for the container fallback; null: no engine. */
  docker?: Dockerode | null;
  env?: NodeJS.ProcessEnv;
  log: (line: string) => void;
  readyTimeoutMs?: number;
}

export type RedisStart = null | { how: 'redis-server' | 'container'; detail: string };

export function findOnPath(binary: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, binary))) return join(dir, binary);
  }
  return null;
}

async function waitForRedis(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pingRedis(url, 500)) return true;
    await new Promise((r) => setTimeout(r, 150));
  }
  return false;
}

function localPort(url: string): number | null {
  if (isClusterUrl(url)) return null;
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return null;
  return Number(u.port || 6379);
}

async function startRedisServer(binary: string, port: number, dataDir: string): Promise<string> {
  await run(binary, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--protected-mode',
    'yes',
    '--dir',
    dataDir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--save',
    '',
    '--daemonize',
    'yes',
    '--pidfile',
    join(dataDir, `redis-${port}.pid`),
    '--logfile',
    join(dataDir, `redis-${port}.log`),
  ]);
  return `${binary} on 127.0.0.1:${port}, appendonly data in ${dataDir} (log: ${join(dataDir, `redis-${port}.log`)})`;
}

async function startRedisContainer(docker: Dockerode, port: number, dataDir: string, log: (l: string) => void): Promise<string> {
  const existing = docker.getContainer(REDIS_CONTAINER_NAME);
  const info = await existing.inspect().catch(() => null);
  if (info) {
    if (!info.State.Running) await existing.start();
    return `container ${REDIS_CONTAINER_NAME} (${info.Config.Image}) restarted`;
  }
  const hasImage = await docker
    .getImage(REDIS_IMAGE)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (!hasImage) {
    log(`pulling ${REDIS_IMAGE} …`);
    const stream = await docker.pull(REDIS_IMAGE);
    await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve())));
  }
  const container = await docker.createContainer({
    name: REDIS_CONTAINER_NAME,
    Image: REDIS_IMAGE,
    Cmd: ['redis-server', '--appendonly', 'yes', '--appendfsync', 'everysec'],
    Labels: { 'intutic.role': 'redis' },
    HostConfig: {
      PortBindings: { '6379/tcp': [{ HostIp: '127.0.0.1', HostPort: String(port) }] },
      Binds: [`${dataDir}:/data`],
      RestartPolicy: { Name: 'unless-stopped' },
    },
    ExposedPorts: { '6379/tcp': {} },
  });
  await container.start();
  return `container ${REDIS_CONTAINER_NAME} (${REDIS_IMAGE}) on 127.0.0.1:${port}, appendonly data in ${dataDir}`;
}

/** Resolve once a Redis answers at `url`; starts one only when allowed (see the module comment). */
export async function ensureRedis(options: EnsureRedisOptions): Promise<RedisStart> {
  const { url, configured, home, log } = options;
  if (await redisAnswers(url)) return null;
  if (configured) throw redisUnavailable(url, ['REDIS_URL is set, so intutic does not start a Redis in its place.']);
  const port = localPort(url);
  if (port === null) throw redisUnavailable(url);
  const dataDir = join(home, 'redis');
  await mkdir(dataDir, { recursive: true });
  const timeout = options.readyTimeoutMs ?? 10_000;
  const tried: string[] = [];

  const binary = options.redisServer === undefined ? findOnPath('redis-server', options.env) : options.redisServer;
  if (binary) {
    try {
      const detail = await startRedisServer(binary, port, dataDir);
      if (await waitForRedis(url, timeout)) {
        log(`no Redis was running: started ${detail}`);
        return { how: 'redis-server', detail };
      }
      tried.push(`started ${binary}, but it did not answer within ${timeout} ms (see ${join(dataDir, `redis-${port}.log`)})`);
    } catch (error) {
      tried.push(`${binary} failed to start: ${String((error as { stderr?: string }).stderr || (error as Error).message).trim()}`);
    }
  } else {
    tried.push('no redis-server on PATH');
  }
  if (options.docker) {
    try {
      const detail = await startRedisContainer(options.docker, port, dataDir, log);
      if (await waitForRedis(url, timeout)) {
        log(`no Redis was running: started ${detail}`);
        return { how: 'container', detail };
      }
      tried.push(`started the ${REDIS_CONTAINER_NAME} container, but it did not answer within ${timeout} ms`);
    } catch (error) {
      tried.push(`could not start a ${REDIS_IMAGE} container: ${(error as Error).message}`);
    }
  } else {
    tried.push('no container engine to start one in');
  }
  throw redisUnavailable(url, [`Tried to start one at ${redactUrl(url)}:`, ...tried.map((t) => `  - ${t}`)]);
}
