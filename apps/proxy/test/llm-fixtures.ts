// Shared by the LLM-side proxy tests: a scripted upstream, a proxy in front of it with an events
// file and an in-memory log, raw HTTP helpers that see exact bytes, and plans with llm.* faults.
import { existsSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { readAllEvents, type ChaosEvent, type EventOf } from '@intutic/events';
import type { Plan, PlanFault } from '@intutic/faults';
import { scratchDir, type ScriptedModel, type ScriptInput, startScriptedModel } from '@intutic/testkit';
import { memoryLogger, policyFrom, startProxy, type ProxyOptions, type RunningProxy } from '../src/index.ts';
import { EMPTY_POLICY } from '@intutic/governance';

export const CANARY = 'E-INTUTIC-c0ffee42';

export function planWith(faults: Array<Partial<PlanFault> & Pick<PlanFault, 'id'>>): Plan {
  return {
    schema_version: 1,
    experiment: 'proxy-test',
    run_id: 'run-proxy-test',
    canary: CANARY,
    faults: faults.map((f, index) => ({ index, match: {}, after_calls: 0, times: null, options: {}, ...f })),
  };
}

export interface Rig {
  model: ScriptedModel;
  proxy: RunningProxy;
  eventsPath: string;
  log: ReturnType<typeof memoryLogger>;
  events(): Promise<ChaosEvent[]>;
  calls(): Promise<EventOf<'llm_call'>[]>;
  injections(): Promise<EventOf<'fault_injected'>[]>;
  close(): Promise<void>;
}

/**
 * What the proxy wrote to its events file so far. A call's events are emitted once its response has
 * ended; a turn of the event loop later they are queued, and flush() waits for them to be written.
 */
export function eventsOf(proxy: RunningProxy, eventsPath: string): () => Promise<ChaosEvent[]> {
  return async () => {
    await new Promise((r) => setTimeout(r, 10));
    await proxy.flush();
    return existsSync(eventsPath) ? (await readAllEvents(eventsPath)).events : [];
  };
}

/** A scripted upstream and a proxy pointed at it for both providers; no local rules unless given. */
export async function startRig(script: ScriptInput, options: Partial<ProxyOptions> = {}): Promise<Rig> {
  const model = await startScriptedModel({ script });
  const eventsPath = join(scratchDir('intutic-proxy-llm-'), 'events.jsonl');
  const log = memoryLogger();
  const proxy = await startProxy({
    upstreamAnthropic: model.url,
    upstreamOpenai: model.url,
    upstreamGemini: model.url,
    eventsPath,
    logger: log,
    policy: policyFrom(EMPTY_POLICY),
    upstreamRetries: 0,
    // These tests drive the faults themselves; where they may apply is placement.test.ts's concern.
    placement: { mutatingAllowed: true, why: 'test' },
    ...options,
  });
  const events = eventsOf(proxy, eventsPath);
  return {
    model,
    proxy,
    eventsPath,
    log,
    events,
    calls: async () => (await events()).filter((e): e is EventOf<'llm_call'> => e.type === 'llm_call'),
    injections: async () => (await events()).filter((e): e is EventOf<'fault_injected'> => e.type === 'fault_injected'),
    close: async () => {
      await proxy.close();
      await model.close();
    },
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The response broke off before its end. */
  aborted: boolean;
}

/** POST a body and read the exact response bytes (no SDK in between). */
export function rawPost(base: string, path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      let aborted = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => (aborted = true));
      res.on('error', () => (aborted = true));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), aborted: aborted || !res.complete }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const anthropicRequest = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'add lodash' }], ...extra });

export const chatRequest = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'add lodash' }], ...extra });

export const responsesRequest = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'gpt-5-codex', input: [{ role: 'user', content: 'add lodash' }], ...extra });
