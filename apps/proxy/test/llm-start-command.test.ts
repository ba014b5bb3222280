// `intutic start` as a user runs it (the built bin), and as a worker runs it for every repetition
// (the proxy's own bundle, apps/cli/dist/intutic-proxy.mjs): one line on stdout once it serves,
// /health, model calls recorded with the plan's run id, a graceful exit on SIGTERM and SIGINT, and
// clear errors for bad input.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, PROXY_BUNDLE, runBuiltCli, scratchDir, startBuiltCli, type ScriptedModel, startScriptedModel } from '@intutic/testkit';
import { anthropicRequest, planWith, rawPost } from './llm-fixtures.ts';

let model: ScriptedModel;
let dir: string;
beforeAll(async () => {
  model = await startScriptedModel({ script: { side_requests: 'never', turns: [{ text: 'hi', usage: { input_tokens: 10, output_tokens: 10 } }] } });
  dir = scratchDir('intutic-start-');
});
afterAll(async () => model.close());

const start = (bin: string, args: string[], env: NodeJS.ProcessEnv = {}) => startBuiltCli(bin, ['start', ...args], { ...process.env, HOME: dir, ...env });

describe.each([
  ['intutic start', CLI_BIN],
  ["the repetition proxy's bundle", PROXY_BUNDLE],
])('%s', (_name, bin) => {
  // Each bin its own files: the events of one must not be read as the other's.
  const file = (name: string) => join(dir, `${basename(bin, '.mjs')}-${name}`);
  it('serves on loopback, records calls under the plan, and stops cleanly on SIGTERM', async () => {
    const plan = file('plan.json');
    const events = file('events.jsonl');
    const log = file('proxy.log');
    writeFileSync(plan, JSON.stringify(planWith([{ id: 'llm.rate_limit', after_calls: 1, times: 1 }])));
    const proc = start(bin, ['--plan', plan, '--events', events, '--log', log, '--upstream-anthropic', model.url]);
    const line = await proc.firstLine;
    const match = /^intutic proxy listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
    expect(match).not.toBeNull();
    const url = match![1]!;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await rawPost(url, '/v1/messages', anthropicRequest(), { 'x-api-key': 'sk-ant-never-logged' })).status).toBe(200);
    expect((await rawPost(url, '/v1/messages', anthropicRequest())).status).toBe(429);
    proc.child.kill('SIGTERM');
    expect(await proc.exit).toBe(0);
    const lines = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((e) => e.type)).toEqual(['plan_loaded', 'llm_call', 'fault_injected', 'llm_call']);
    for (const e of lines) expect(e.run_id).toBe('run-proxy-test');
    const logText = readFileSync(log, 'utf8');
    expect(logText).toContain('proxy listening');
    expect(logText).toContain('proxy stopped');
    expect(logText + readFileSync(events, 'utf8')).not.toContain('sk-ant-never-logged');
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('takes a fixed --port and stops on SIGINT too', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const proc = start(bin, ['--port', String(port), '--upstream-anthropic', model.url]);
    expect(await proc.firstLine).toBe(`intutic proxy listening on http://127.0.0.1:${port}`);
    proc.child.kill('SIGINT');
    expect(await proc.exit).toBe(0);
    expect(proc.stderr()).toContain('proxy listening'); // no --log: the log goes to stderr
  });

  it('sends Gemini calls to --upstream-gemini, the key in the query swapped for the real one', async () => {
    const seen: string[] = [];
    const gemini = createHttpServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume().on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 }, modelVersion: 'gemini-2.5-flash' }));
      });
    });
    await new Promise<void>((r) => gemini.listen(0, '127.0.0.1', r));
    const events = file('gemini-events.jsonl');
    const env = { GEMINI_API_KEY: 'AIza-real-gemini-key', INTUTIC_STAND_IN_GEMINI_API_KEY: 'AIzaSy-intutic-stand-in' };
    const proc = start(bin, ['--events', events, '--upstream-gemini', `http://127.0.0.1:${(gemini.address() as AddressInfo).port}`], env);
    try {
      const url = (await proc.firstLine).split(' ').at(-1)!;
      const res = await rawPost(url, '/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaSy-intutic-stand-in', '{"contents":[]}');
      expect(res.status).toBe(200);
      expect(seen).toEqual(['/v1beta/models/gemini-2.5-flash:generateContent?key=AIza-real-gemini-key']);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exit;
      gemini.close();
    }
    expect(JSON.parse(readFileSync(events, 'utf8'))).toMatchObject({ type: 'llm_call', provider: 'gemini', model: 'gemini-2.5-flash', input_tokens: 3 });
  });

  it('fails with a clear error (no stack trace) for a bad plan, a taken port or a bad --resolve', async () => {
    const badPlan = file('bad-plan.json');
    writeFileSync(badPlan, JSON.stringify({ schema_version: 1, faults: 'nope' }));
    const plan = await runBuiltCli(['start', '--plan', badPlan], { env: { ...process.env, HOME: dir }, bin });
    expect(plan.code).toBe(3);
    expect(plan.stderr).toMatch(/error\[E_PLAN_INVALID\]: the plan .*bad-plan\.json is not valid/);
    expect(plan.stderr).not.toMatch(/\n\s+at /);

    const holder = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const taken = await runBuiltCli(['start', '--port', String(port)], { env: { ...process.env, HOME: dir }, bin });
      expect(taken.code).toBe(3);
      expect(taken.stderr).toContain('error[E_PROXY_FAILED]: cannot listen on 127.0.0.1:');
    } finally {
      holder.close();
    }

    const resolve = await runBuiltCli(['start', '--resolve', 'api.github.test'], { env: { ...process.env, HOME: dir }, bin });
    expect(resolve.code).toBe(64);
    expect(resolve.stderr).toContain('--resolve expects host=addr:port');
  });
});
