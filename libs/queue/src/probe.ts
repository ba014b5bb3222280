// Is there a Redis at a URL, and if not, why: a PING with one try and a short timeout, so a missing
// Redis is reported at once. A Redis that answers but refuses us (a password, a certificate Node does
// not trust, protected mode) is said as such, never taken for a missing one, and a password never
// appears in what is said.
import { createConnection } from 'node:net';
import type { RedisOptions } from 'ioredis';
import { IntuticError } from '@intutic/errors';
import { openRedis, redactUrl, redisUnavailable } from './connection.ts';

/** What a PING found: a Redis, none, or one that is there but refuses us. */
export type RedisProbe = { state: 'answers' } | { state: 'no-answer' | 'refused-password' | 'untrusted-certificate' | 'protected-mode'; reason: string };

/** PING what `url` names within `timeoutMs`. Never throws but for a URL that names no Redis. */
export async function probeRedis(url: string, timeoutMs = 1500, options: RedisOptions = {}): Promise<RedisProbe> {
  const oneTry = { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false };
  const client = openRedis(url, { ...oneTry, ...options }, { slotsRefreshTimeout: timeoutMs });
  const errors: unknown[] = [];
  client.on('error', (error) => errors.push(error));
  try {
    await client.connect();
    if ((await client.ping()) === 'PONG') return { state: 'answers' };
  } catch (error) {
    errors.push(error);
  } finally {
    client.disconnect();
  }
  const failure = probeFailure(url, errors);
  if (failure.state !== 'no-answer' || !url.startsWith('redis://')) return failure;
  const said = await greeting(url, timeoutMs);
  return said.startsWith('-DENIED') ? { state: 'protected-mode', reason: said.slice(1).trim() } : failure;
}

/**
 * What a Redis says unasked as a connection opens: only protected mode's `-DENIED …` before it hangs
 * up, which ioredis drops (it reports "Connection is closed"). Nothing, for any other server.
 */
function greeting(url: string, timeoutMs: number): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) });
    let said = '';
    const done = () => {
      socket.destroy();
      resolve(said);
    };
    socket.setTimeout(timeoutMs, done);
    socket.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('\r\n')) done();
    });
    socket.on('error', done);
    socket.on('close', done);
  });
}

/** Whether a Redis answers PING at `url` within `timeoutMs`. Never throws. */
export async function pingRedis(url: string, timeoutMs = 1500): Promise<boolean> {
  return (await probeRedis(url, timeoutMs).catch(() => null))?.state === 'answers';
}

/** Whether a Redis answers at `url`. One that is there but refuses us (password, certificate) is an error, never a missing Redis. */
export async function redisAnswers(url: string, options: RedisOptions = {}): Promise<boolean> {
  const probe = await probeRedis(url, 1500, options);
  if (probe.state === 'refused-password') {
    throw new IntuticError('E_CONFIG_INVALID', `the Redis at ${redactUrl(url)} refused the credentials: ${probe.reason}`, {
      hints: ['Give the user and password in REDIS_URL: rediss://user:password@host:port (with requirepass alone the user is default).'],
    });
  }
  if (probe.state === 'untrusted-certificate') {
    throw redisUnavailable(url, [`Its TLS certificate is not trusted (${probe.reason}): name its CA in NODE_EXTRA_CA_CERTS=/path/to/ca.pem.`]);
  }
  if (probe.state === 'protected-mode') {
    throw redisUnavailable(url, [
      'It answers, but in protected mode: with no password it takes connections from its own loopback only.',
      'Give it a password (requirepass) and put it in REDIS_URL, or start it with --protected-mode no where only trusted hosts reach it.',
    ]);
  }
  return probe.state === 'answers';
}

const PASSWORD_REFUSED = /WRONGPASS|NOAUTH|invalid password|invalid username-password/i;
// Node's codes for a certificate it does not trust: SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ERR_TLS_CERT_ALTNAME_INVALID…
const CERTIFICATE_UNTRUSTED = /CERT|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

/** Why a PING failed, from every error the client saw (a cluster wraps its nodes' in lastNodeError). */
function probeFailure(url: string, errors: unknown[]): RedisProbe {
  const seen = errors.flatMap((e) => [e, (e as { lastNodeError?: unknown }).lastNodeError]).filter((e): e is Error => e instanceof Error);
  const refused = seen.find((e) => PASSWORD_REFUSED.test(e.message));
  if (refused) return { state: 'refused-password', reason: withoutPassword(refused.message, url) };
  const untrusted = seen.find((e) => CERTIFICATE_UNTRUSTED.test(String((e as Error & { code?: unknown }).code ?? '')));
  if (untrusted) return { state: 'untrusted-certificate', reason: withoutPassword(untrusted.message, url) };
  return { state: 'no-answer', reason: withoutPassword(seen[0]?.message ?? 'no answer', url) };
}

/** A server's words never hold the password; should one ever, it is not passed on. */
function withoutPassword(text: string, url: string): string {
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':', url.indexOf('://') + 3);
  if (at < 0 || colon < 0 || colon > at) return text;
  const password = url.slice(colon + 1, at);
  let plain = password;
  try {
    plain = decodeURIComponent(password);
  } catch {
    // Not percent-encoded: as it is.
  }
  return [password, plain].filter((p) => p !== '').reduce((said, p) => said.split(p).join('***'), text);
}
