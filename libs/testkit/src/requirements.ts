// Integration tests need real services. Locally a missing one skips the suite with a visible reason;
// in CI (CI=true) it fails instead, so a skipped suite can never pass as green there.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { createConnection } from 'node:net';

export interface Requirement {
  ok: boolean;
  reason: string;
}

function tcpReachable(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function redisRequirement(url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<Requirement> {
  const u = new URL(url);
  const ok = await tcpReachable(u.hostname, Number(u.port || 6379));
  return { ok, reason: ok ? '' : `no Redis answers at ${url} (start one: redis-server --port 6379)` };
}

export function dockerRequirement(): Requirement {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 10_000 });
    return { ok: true, reason: '' };
  } catch {
    return { ok: false, reason: 'no container engine answers (run: bash scripts/setup/engine.sh)' };
  }
}

/** Where scripts/setup/podman.sh starts Podman's Docker-compatible API service (rootful), beside dockerd; not
 * Podman's default socket, which the engine check would try whenever Docker does not answer. */
export const PODMAN_SOCKET = '/run/intutic-podman/podman.sock';

/** Podman's Docker-compatible API answers its ping on `socketPath`. */
export function podmanRequirement(socketPath = PODMAN_SOCKET): Promise<Requirement> {
  return new Promise((resolve) => {
    const done = (ok: boolean) =>
      resolve({ ok, reason: ok ? '' : `Podman's Docker-compatible API does not answer at unix://${socketPath} (run: bash scripts/setup/podman.sh)` });
    const ping = request({ socketPath, path: '/_ping', timeout: 3_000 }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    ping.on('timeout', () => ping.destroy(new Error('timeout')));
    ping.on('error', () => done(false));
    ping.end();
  });
}

/**
 * Resolve to true when the suite can run. Locally, print why it is skipped and resolve false;
 * in CI, throw so the run fails loudly.
 */
export function requireOrSkip(suite: string, requirement: Requirement): boolean {
  if (requirement.ok) return true;
  const message = `[${suite}] ${requirement.reason}`;
  if (process.env.CI) throw new Error(`${message} — required in CI`);
  process.stderr.write(`SKIPPED ${message}\n`);
  return false;
}
