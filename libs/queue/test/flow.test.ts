import { describe, expect, it } from 'vitest';
import type { FlowChildJob, FlowJob } from 'bullmq';
import { buildRunFlow, repetitionJobId, runPayloadSchema, scoringJobId } from '../src/index.ts';
import { testPayload } from './fixtures/payload.ts';

/** The chain from the root down to the deepest leaf. */
function chain(flow: FlowJob): (FlowJob | FlowChildJob)[] {
  const nodes: (FlowJob | FlowChildJob)[] = [];
  let node: FlowJob | FlowChildJob | undefined = flow;
  while (node) {
    nodes.push(node);
    expect(node.children?.length ?? 0).toBeLessThanOrEqual(1);
    node = node.children?.[0];
  }
  return nodes;
}

describe('the run flow', () => {
  it('runs every baseline before any faulted repetition, one at a time, and scoring last', () => {
    const payload = testPayload(3, 'run-1');
    const order = chain(buildRunFlow(payload, { priority: 7 })).reverse();
    expect(order.map((n) => n.opts?.jobId)).toEqual([
      repetitionJobId('run-1', 'baseline', 1),
      repetitionJobId('run-1', 'baseline', 2),
      repetitionJobId('run-1', 'baseline', 3),
      repetitionJobId('run-1', 'faulted', 1),
      repetitionJobId('run-1', 'faulted', 2),
      repetitionJobId('run-1', 'faulted', 3),
      scoringJobId('run-1'),
    ]);
    expect(order.map((n) => n.name)).toEqual([...Array(6).fill('repetition'), 'score']);
  });

  it('never retries, releases every parent when a child fails, and gives each job a unique id', () => {
    const nodes = chain(buildRunFlow(testPayload(20, 'run-2'), { priority: 1 }));
    const ids = nodes.map((n) => n.opts?.jobId);
    expect(new Set(ids).size).toBe(41);
    for (const id of ids) expect(id).not.toContain(':');
    for (const node of nodes) {
      expect(node.opts?.attempts).toBe(1);
      expect(node.opts?.priority).toBe(1);
    }
    // Every job except the root is some job's child and must not leave its parent waiting forever.
    for (const child of nodes.slice(1)) expect(child.opts).toMatchObject({ ignoreDependencyOnFailure: true });
  });

  it('carries the whole run once, in the root, and only coordinates in the repetitions', () => {
    const payload = testPayload(1, 'run-3');
    const [root, faulted, baseline] = chain(buildRunFlow(payload, { priority: 1 }));
    expect(runPayloadSchema.parse(root!.data)).toEqual(payload);
    expect(faulted!.data).toEqual({ run_id: 'run-3', kind: 'faulted', index: 1, repeat: 1 });
    expect(baseline!.data).toEqual({ run_id: 'run-3', kind: 'baseline', index: 1, repeat: 1 });
  });

  it('refuses a payload that names an env value instead of a name', () => {
    const payload = { ...testPayload(1), env_names: ['ANTHROPIC_API_KEY=sk-secret'] };
    expect(runPayloadSchema.safeParse(payload).success).toBe(false);
  });
});
