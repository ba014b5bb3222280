import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import type { Plan, PlanFault } from '@intutic/faults';
import { FaultPlanner, loadPlan } from '../src/faults.ts';
import { Toolset } from '../src/toolset.ts';
import { scratchDir } from '@intutic/testkit';

const dirs: string[] = [];
const temp = (): string => {
  const dir = scratchDir('mcp-plan-');
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const CANARY = 'E-INTUTIC-0badcafe';
const fault = (index: number, id: PlanFault['id'], rest: Partial<PlanFault> = {}): PlanFault => ({
  index,
  id,
  match: {},
  after_calls: 0,
  times: null,
  options: {},
  ...rest,
});
const plan = (faults: PlanFault[]): Plan => ({ schema_version: 1, experiment: 'x', run_id: 'run-1', canary: CANARY, faults });
const planner = (faults: PlanFault[], server = 'fs') => new FaultPlanner(plan(faults), server, new Toolset(server));

describe('FaultPlanner', () => {
  it('keeps only the faults the MCP proxy injects, and not those aimed at another server', () => {
    const p = planner([
      fault(0, 'egress.dns_fail', { match: { host: 'x.test' } }),
      fault(1, 'tool.error', { match: { tool: 'mcp__fs__read_file' } }),
      fault(2, 'tool.error', { match: { tool: 'mcp__github__read_file' } }),
      fault(3, 'inject.tool_result', { options: { payload: 'p' } }),
      fault(4, 'permission.deny_or_delay'),
    ]);
    expect(p.faults.map((f) => f.index)).toEqual([1, 3]);
  });

  it('matches read_file and mcp__fs__read_file alike, skips after_calls and stops after times', () => {
    for (const tool of ['read_file', 'mcp__fs__read_file', '*_file']) {
      const p = planner([fault(0, 'tool.error', { match: { tool }, after_calls: 1, times: 2 })]);
      const hits = ['read_file', 'write_file', 'read_file', 'read_file', 'read_file'].map((t) => p.planCall(t).terminal?.kind ?? null);
      expect(hits, tool).toEqual(tool === '*_file' ? [null, 'tool.error', 'tool.error', null, null] : [null, null, 'tool.error', 'tool.error', null]);
    }
  });

  it('fills in option defaults from the catalog', () => {
    const p = planner([fault(0, 'tool.error')]);
    expect(p.planCall('read_file').terminal).toMatchObject({ kind: 'tool.error', message: 'the tool call failed' });
  });

  it('rejects a plan whose options the catalog does not accept', () => {
    expect(() => planner([fault(0, 'tool.stale_data', { options: {} })])).toThrow(IntuticError);
  });

  it('lets the first terminal fault answer; a later one does not spend an injection', () => {
    const p = planner([fault(0, 'tool.stale_data', { options: { result: 'old' }, times: 1 }), fault(1, 'tool.error', { times: 1 })]);
    expect(p.planCall('read_file').terminal?.fault.index).toBe(0);
    expect(p.planCall('read_file').terminal?.fault.index).toBe(1);
    expect(p.planCall('read_file').terminal).toBeUndefined();
  });

  it('carries payloads of every injecting inject.tool_result, but none once a terminal fault answers', () => {
    const p = planner([fault(0, 'inject.tool_result', { options: { payload: 'one' } }), fault(1, 'inject.tool_result', { options: { payload: 'two' } })]);
    expect(p.planCall('read_file').injects.map((i) => i.payload)).toEqual(['one', 'two']);
    const q = planner([fault(0, 'tool.error', { times: 1 }), fault(1, 'inject.tool_result', { options: { payload: 'p' }, times: 1 })]);
    expect(q.planCall('read_file')).toMatchObject({ terminal: { kind: 'tool.error' }, injects: [] });
    const second = q.planCall('read_file');
    expect(second.terminal).toBeUndefined();
    expect(second.injects.map((i) => i.payload)).toEqual(['p']);
  });

  it('gives back an injection that could not be delivered', () => {
    const p = planner([fault(0, 'inject.tool_result', { options: { payload: 'p' }, times: 1 })]);
    const first = p.planCall('read_file');
    expect(first.injects).toHaveLength(1);
    p.release(first.injects[0]!.fault);
    expect(p.planCall('read_file').injects).toHaveLength(1);
    expect(p.planCall('read_file').injects).toHaveLength(0);
  });

  it('fires a toolset change once, on the first matching call past after_calls, before that call is handled', () => {
    const p = planner([fault(0, 'mcp.toolset_change', { match: { tool: 'read_file' }, after_calls: 1, options: { remove: ['read_file'] } })]);
    expect(p.hasToolsetChange).toBe(true);
    expect(p.planCall('list_directory')).toMatchObject({ toolsetChanges: [], removed: false });
    expect(p.planCall('read_file')).toMatchObject({ toolsetChanges: [], removed: false });
    const trigger = p.planCall('read_file');
    expect(trigger.toolsetChanges.map((f) => f.index)).toEqual([0]);
    expect(trigger.removed).toBe(true);
    expect(p.planCall('read_file')).toMatchObject({ toolsetChanges: [], removed: true });
    expect(p.planCall('list_directory').removed).toBe(false);
  });

  it('does not count a call to a removed tool against the other faults', () => {
    const p = planner([fault(0, 'mcp.toolset_change', { options: { remove: ['read_file'] } }), fault(1, 'tool.error', { times: 1 })]);
    const removed = p.planCall('read_file');
    expect(removed.removed).toBe(true);
    expect(removed.terminal).toBeUndefined();
    expect(p.planCall('write_file').terminal?.kind).toBe('tool.error');
  });
});

describe('loadPlan', () => {
  it('is null without INTUTIC_CHAOS_PLAN and reads a valid plan file', () => {
    expect(loadPlan({})).toBeNull();
    const dir = temp();
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan([fault(0, 'tool.error')])));
    expect(loadPlan({ INTUTIC_CHAOS_PLAN: join(dir, 'plan.json') })?.canary).toBe(CANARY);
  });

  it('fails with E_PLAN_INVALID on a missing or malformed plan', () => {
    const dir = temp();
    writeFileSync(join(dir, 'bad.json'), '{"schema_version":1}');
    for (const path of [join(dir, 'missing.json'), join(dir, 'bad.json')]) {
      expect(() => loadPlan({ INTUTIC_CHAOS_PLAN: path })).toThrow(expect.objectContaining({ code: 'E_PLAN_INVALID' }));
    }
  });
});
