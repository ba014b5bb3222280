// The run queue as the CLI and the workers use it: enqueue a run's flow, publish and follow its
// progress, cancel it, and read its jobs back. One instance per process; close() when done. Every
// connection it opens is watched (reconnect.ts): a Redis restart is said once and waited out.
import { FlowProducer, Job, Queue, type FlowChildJob, type ParentOptions } from 'bullmq';
import { Cluster } from 'ioredis';
import { IntuticError } from '@intutic/errors';
import { checkQueueConfig, configOptions, connectRedis, type QueueConfig, type RedisConnection } from './connection.ts';
import { buildRunFlow } from './flow.ts';
import { priorityCounterKey, QUEUE_NAME, runJobIds, runKeys, scoringJobId } from './names.ts';
import { runPayloadSchema, runStopSchema, type RunPayload, type RunStop } from './payload.ts';
import { parseProgressMessage, type ProgressMessage } from './progress.ts';
import { ConnectionWatch } from './reconnect.ts';
import { buildSuiteFlow, suiteJobId, type SuitePayload } from './suite-flow.ts';

/** BullMQ's largest priority is 2^21 - 1; 0 would mean "before every prioritized job". */
const MAX_PRIORITY = 2_097_151;

// On a cluster PUBLISH goes to any node, and each node passes messages on to the others at its own
// pace: a run's progress would arrive out of order (a run_finished before the last log line). Sent
// from the node that holds the channel's slot (a script is routed by its key), it takes one way.
const PUBLISH_FROM_SLOT = "return redis.call('PUBLISH', KEYS[1], ARGV[1])";

export interface RunQueueOptions {
  redis?: RedisConnection;
  /** Says when Redis is lost and back; without one, connection errors are taken silently. */
  watch?: ConnectionWatch;
}

export class RunQueue {
  readonly config: QueueConfig;
  readonly redis: RedisConnection;
  readonly queue: Queue;
  readonly watch: ConnectionWatch;
  private readonly flow: FlowProducer;
  private readonly subscribers = new Set<RedisConnection>();

  constructor(config: QueueConfig, options: RunQueueOptions = {}) {
    checkQueueConfig(config);
    this.config = config;
    this.watch = options.watch ?? new ConnectionWatch(config.url, () => undefined);
    this.redis = options.redis ?? connectRedis(config.url, configOptions(config));
    this.watch.watch(this.redis);
    this.queue = new Queue(QUEUE_NAME, { connection: this.redis, prefix: config.prefix });
    this.flow = new FlowProducer({ connection: this.redis, prefix: config.prefix });
    // BullMQ passes its connection's errors on; one nobody listens to is printed with its stack. Both
    // share this.redis, so the queue alone says them.
    this.queue.on('error', (error) => this.watch.error(error, 'queue error: '));
    this.flow.on('error', () => undefined);
  }

  /** Enqueue a run. The payload is validated here, so nothing malformed ever reaches a worker. */
  async enqueue(payload: RunPayload): Promise<{ runId: string; priority: number; jobIds: string[] }> {
    const valid = runPayloadSchema.parse(payload);
    if (await this.queue.getJob(scoringJobId(valid.run_id))) {
      throw new IntuticError('E_USAGE', `a run with id ${valid.run_id} already exists`);
    }
    const sequence = await this.redis.incr(priorityCounterKey(this.config.prefix));
    const priority = ((sequence - 1) % MAX_PRIORITY) + 1;
    await this.flow.add(buildRunFlow(valid, { priority }));
    return { runId: valid.run_id, priority, jobIds: runJobIds(valid.run_id, valid.experiment.repeat, { parallel: valid.parallel }).map((j) => j.id) };
  }

  /** Enqueue a suite: ONE flow, the suite job over every cell's run flow (suite-flow.ts), all validated first. */
  async enqueueSuite(suite: SuitePayload, cells: RunPayload[]): Promise<{ suiteId: string; priority: number }> {
    const valid = cells.map((cell) => runPayloadSchema.parse(cell));
    if (await this.queue.getJob(suiteJobId(suite.suite_id))) throw new IntuticError('E_USAGE', `a suite with id ${suite.suite_id} already exists`);
    // A priority per cell, taken from the runs' sequence in one step: each cell is ordered like a run of its own.
    const last = await this.redis.incrby(priorityCounterKey(this.config.prefix), Math.max(1, valid.length));
    const priorities = valid.map((_, index) => ((last - valid.length + index) % MAX_PRIORITY) + 1);
    await this.flow.add(buildSuiteFlow(suite, valid, { priorities }));
    return { suiteId: suite.suite_id, priority: priorities[0] ?? ((last - 1) % MAX_PRIORITY) + 1 };
  }

  /** Add jobs under an existing parent still waiting for its children, all or none (one transaction). */
  async addChildren(parent: ParentOptions, children: FlowChildJob[]): Promise<void> {
    await this.flow.addBulk(children.map((child) => ({ ...child, opts: { ...child.opts, parent } })));
  }

  async getJob(jobId: string): Promise<Job | undefined> {
    return this.queue.getJob(jobId);
  }

  /** The run's payload, as the scoring job (the flow's root) holds it. */
  async getRunPayload(runId: string): Promise<RunPayload> {
    const job = await this.queue.getJob(scoringJobId(runId));
    if (!job) throw new IntuticError('E_RUN_NOT_FOUND', `no run ${runId} in the queue`);
    return runPayloadSchema.parse(job.data);
  }

  /** Ask the run to stop: the running repetition is stopped and every later job skips. */
  async cancel(runId: string, reason = 'cancelled by the user'): Promise<void> {
    await this.redis.set(runKeys(this.config.prefix, runId).cancel, reason, 'EX', 30 * 24 * 3600);
  }

  /** The cancel reason, or null while the run may go on. */
  async cancelReason(runId: string): Promise<string | null> {
    return this.redis.get(runKeys(this.config.prefix, runId).cancel);
  }

  /** --parallel: record the first stop of the run (later ones keep it); true when this one was first. */
  async recordStop(runId: string, stop: RunStop): Promise<boolean> {
    return (await this.redis.set(runKeys(this.config.prefix, runId).stop, JSON.stringify(stop), 'EX', 30 * 24 * 3600, 'NX')) === 'OK';
  }

  /** The stop a repetition of this run recorded, or null. */
  async recordedStop(runId: string): Promise<RunStop | null> {
    const raw = await this.redis.get(runKeys(this.config.prefix, runId).stop);
    if (raw === null) return null;
    try {
      return runStopSchema.parse(JSON.parse(raw));
    } catch {
      return null;
    }
  }

  async publish(runId: string, message: ProgressMessage): Promise<void> {
    const channel = runKeys(this.config.prefix, runId).progress;
    if (this.redis instanceof Cluster) await this.redis.eval(PUBLISH_FROM_SLOT, 1, channel, JSON.stringify(message));
    else await this.redis.publish(channel, JSON.stringify(message));
  }

  /** Subscribe to a run's progress; resolves once subscribed. Call the returned function to stop. */
  async subscribe(runId: string, onMessage: (message: ProgressMessage) => void): Promise<() => Promise<void>> {
    const sub = this.redis.duplicate();
    // Messages published while this connection was away are gone (pub/sub keeps nothing).
    this.watch.watch(sub, () => this.watch.say("live progress sent while Redis was away is not shown here; the run's artifacts have all of it"));
    this.subscribers.add(sub);
    const channel = runKeys(this.config.prefix, runId).progress;
    sub.on('message', (ch: string, raw: string) => {
      if (ch !== channel) return;
      const message = parseProgressMessage(raw);
      if (message) onMessage(message);
    });
    await sub.subscribe(channel);
    return async () => {
      this.subscribers.delete(sub);
      await closeClient(sub);
    };
  }

  /** Workers connected to the queue right now (BullMQ names its worker connections). */
  async workersOnline(): Promise<number> {
    return (await this.queue.getWorkers()).length;
  }

  async close(): Promise<void> {
    for (const sub of this.subscribers) await closeClient(sub);
    this.subscribers.clear();
    if (this.redis.status !== 'ready') this.redis.disconnect();
    await this.flow.close();
    await this.queue.close();
    await closeClient(this.redis);
  }
}

/** QUIT when connected; while Redis is away QUIT would wait for it, so just drop the connection. */
async function closeClient(client: RedisConnection): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') return client.disconnect();
  await client.quit().catch(() => client.disconnect());
}
