// Redis connections for the CLI and the workers. BullMQ needs maxRetriesPerRequest: null on the
// connections its workers block on; the CLI first pings with a short timeout (probe.ts) so a missing
// Redis is reported at once instead of retried forever. Once connected, a lost connection is tried again
// every second at most (reconnect.ts says so once), so a restarted Redis is found again at once.
// A URL names one Redis (redis://, rediss:// for TLS) or a Redis Cluster by its seed nodes
// (redis+cluster://host:port,host:port, rediss+cluster:// for TLS); on a cluster the options go to
// every node, and the key prefix carries a hash tag ({intutic}) so that a queue's keys share a slot.
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { IntuticError } from '@intutic/errors';
import { DEFAULT_PREFIX, DEFAULT_REDIS_URL } from './names.ts';

/** One Redis or a cluster: both take the commands the queue sends. */
export type RedisConnection = Redis | Cluster;

export interface QueueConfig {
  url: string;
  /** BullMQ key prefix; tests use a unique one per file. On a cluster it carries a hash tag ({intutic}). */
  prefix: string;
  /** TLS options over the URL's (a test's own CA). From the environment: none, Node's trust and NODE_EXTRA_CA_CERTS. */
  tls?: ConnectionOptions;
}

export function queueConfigFromEnv(env: NodeJS.ProcessEnv): QueueConfig & { configured: boolean } {
  const url = env.REDIS_URL && env.REDIS_URL.trim() !== '' ? env.REDIS_URL.trim() : DEFAULT_REDIS_URL;
  const prefix = env.INTUTIC_QUEUE_PREFIX && env.INTUTIC_QUEUE_PREFIX.trim() !== '' ? env.INTUTIC_QUEUE_PREFIX.trim() : DEFAULT_PREFIX;
  return { url, prefix: isClusterUrl(url) ? hashTagged(prefix) : prefix, configured: Boolean(env.REDIS_URL && env.REDIS_URL.trim() !== '') };
}

export const RECONNECT_MAX_MS = 1000;

/** ioredis retryStrategy: retry soon after Redis answers again (BullMQ's own default backs off to 20 s). */
export function reconnectDelay(times: number): number {
  return Math.min(times * 200, RECONNECT_MAX_MS);
}

const QUEUE_CONNECTION: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: reconnectDelay };

/** A connection for BullMQ (Queue, Worker, FlowProducer) and our own keys. */
export function connectRedis(url: string, options: RedisOptions = {}): RedisConnection {
  return openRedis(url, { ...QUEUE_CONNECTION, ...options });
}

/** The options a config adds to those of its URL. */
export function configOptions(config: QueueConfig): RedisOptions {
  return config.tls ? { tls: config.tls } : {};
}

/**
 * A connection for one look at the runs (`chaos status`, `chaos inspect`): should Redis go away, a
 * command fails after two reconnects (under a second), where a run's connections wait for Redis to
 * come back.
 */
export function connectRedisForReads(url: string): RedisConnection {
  const retryStrategy = (times: number) => (times > 2 ? null : reconnectDelay(times));
  // One Redis gives up on a command after two retries; a cluster gives up reconnecting after two.
  return openRedis(url, { maxRetriesPerRequest: 2, enableReadyCheck: true, retryStrategy: reconnectDelay }, { clusterRetryStrategy: retryStrategy });
}

/** Whether an ioredis error says the connection to Redis was lost, rather than that a command failed. */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|None of startup nodes is available|Failed to refresh slots cache/.test(error.message)
  );
}

/** ioredis options from a redis:// or rediss:// URL, for a connection BullMQ owns and closes itself. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '');
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelay,
  };
}

/**
 * The connection of a BullMQ Worker. For one Redis its options, so that BullMQ makes the connection
 * and closes it; for a cluster a client, which BullMQ only borrows: close it after the worker.
 */
export function workerConnection(config: QueueConfig): RedisOptions | Cluster {
  if (isClusterUrl(config.url)) return openCluster(config.url, { ...QUEUE_CONNECTION, ...configOptions(config) });
  return { ...redisOptionsFromUrl(config.url), ...configOptions(config) };
}

export function redisUnavailable(url: string, hints: string[] = []): IntuticError {
  return new IntuticError('E_REDIS_UNAVAILABLE', `no Redis answers at ${redactUrl(url)}`, {
    hints: [...hints, 'Start one (redis-server), or set REDIS_URL to a Redis the workers share.'],
  });
}

/**
 * A Redis URL without its password, for messages. All between the scheme and the last @ but the user
 * goes, so that a password with an unencoded @ or / (which no URL parser reads right) is not shown either.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  const at = url.lastIndexOf('@');
  const credentials = start >= 3 && at > start ? url.slice(start, at) : '';
  const redacted = credentials.includes(':') ? `${url.slice(0, start)}${credentials.slice(0, credentials.indexOf(':'))}:***${url.slice(at)}` : url;
  if (isClusterUrl(redacted)) return redacted;
  try {
    return new URL(redacted).toString().replace(/\/$/, '');
  } catch {
    return redacted;
  }
}

export function isClusterUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url);
}

/**
 * A prefix whose keys all hash to one slot: `intutic` becomes `{intutic}`; one with a hash tag stays
 * as it is. One with braces that make no hash tag is refused rather than guessed at.
 */
export function hashTagged(prefix: string): string {
  if (hasHashTag(prefix)) return prefix;
  if (/[{}]/.test(prefix)) throw untaggedPrefix(prefix);
  return `{${prefix}}`;
}

/** A queue on a cluster needs its keys in one slot (BullMQ's scripts touch several at once). */
export function checkQueueConfig(config: QueueConfig): void {
  if (isClusterUrl(config.url) && !hasHashTag(config.prefix)) throw untaggedPrefix(config.prefix);
}

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;

/** Redis hashes only what is between the first { and the first } after it, when that is not empty. */
function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open >= 0 && prefix.indexOf('}', open + 1) > open + 1;
}

function untaggedPrefix(prefix: string): IntuticError {
  return new IntuticError('E_CONFIG_INVALID', `the queue prefix ${JSON.stringify(prefix)} has no hash tag, so its keys would be spread over the cluster`, {
    hints: ['On a Redis Cluster the prefix must hold a hash tag: INTUTIC_QUEUE_PREFIX={name} (a name without braces is wrapped in them).'],
  });
}

/** One Redis or a cluster, as the URL names it. */
export function openRedis(url: string, options: RedisOptions, cluster: ClusterOptions = {}): RedisConnection {
  return isClusterUrl(url) ? openCluster(url, options, cluster) : new Redis(url, options);
}

/** A cluster client: one Redis's options go to each node; reconnecting is the cluster's (a lost node is found through the others). */
function openCluster(url: string, options: RedisOptions, cluster: ClusterOptions = {}): Cluster {
  const { nodes, node } = parseClusterUrl(url);
  const { retryStrategy, enableReadyCheck, enableOfflineQueue, lazyConnect, ...perNode } = options;
  const tls = node.tls || perNode.tls ? { ...node.tls, ...perNode.tls } : undefined;
  return new Cluster(nodes, {
    clusterRetryStrategy: retryStrategy,
    enableReadyCheck,
    enableOfflineQueue,
    lazyConnect,
    redisOptions: { ...node, ...perNode, tls },
    ...(tls ? { dnsLookup: keepHostName } : {}),
    ...cluster,
  });
}

/** Over TLS a node is reached by the name its certificate carries, not the address that name resolves to. */
const keepHostName: ClusterOptions['dnsLookup'] = (hostname, callback) => callback(null, hostname);

/** The seed nodes of a cluster URL, and what every node gets from it: the user, the password, TLS. */
function parseClusterUrl(url: string): { nodes: ClusterNode[]; node: RedisOptions } {
  const rest = url.replace(CLUSTER_SCHEME, '');
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const at = authority.lastIndexOf('@');
  if (end >= 0 && !/^\/0?$/.test(rest.slice(end))) {
    throw invalidUrl(url, 'A cluster has database 0 only, and takes no options in its URL: redis+cluster://host:port,host:port.');
  }
  try {
    // The credentials and each seed are read as a one-Redis URL would be (percent-decoded, [IPv6]).
    const credentials = new URL(`redis://${authority.slice(0, at + 1)}seed`);
    const nodes = authority
      .slice(at + 1)
      .split(',')
      .map((seed) => new URL(`redis://${seed}`))
      .map((u) => ({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) }));
    if (nodes.some((n) => n.host === '')) throw new TypeError('a seed node without a host');
    const node: RedisOptions = {
      ...(credentials.username ? { username: decodeURIComponent(credentials.username) } : {}),
      ...(credentials.password ? { password: decodeURIComponent(credentials.password) } : {}),
      ...(/^rediss\+/i.test(url) ? { tls: {} } : {}),
    };
    return { nodes, node };
  } catch (error) {
    throw invalidUrl(url, `${(error as Error).message}: name the seed nodes as redis+cluster://host:port,host:port.`);
  }
}

function invalidUrl(url: string, hint: string): IntuticError {
  return new IntuticError('E_CONFIG_INVALID', `REDIS_URL is not a Redis Cluster URL: ${redactUrl(url)}`, { hints: [hint] });
}
