// `intutic start --standby MARK`, the process a worker keeps loaded ahead of a repetition (the
// proxy's own bundle, and the full bin a worker falls back to): it does nothing until its order is
// on stdin, then serves as `intutic start` with the order's arguments and the order's variables in
// its environment (a key's stand-in here); its stdin ending stops it, served or not; a bad order is
// a usage error with a message, never a stack trace.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, PROXY_BUNDLE, scratchDir, startBuiltCli, startScriptedModel, type ScriptedModel } from '@intutic/testkit';

const REAL_KEY = 'sk-ant-api03-the-real-key-stays-on-the-host';
const STAND_IN = 'sk-ant-api03-intutic-standby-test-stand-in-0123456789abcdef';

let model: ScriptedModel;
let dir: string;
beforeAll(async () => {
  model = await startScriptedModel({ script: { side_requests: 'never', turns: [{ text: 'hi', usage: { input_tokens: 1, output_tokens: 1 } }] } });
  dir = scratchDir('intutic-standby-');
});
afterAll(async () => model.close());

const standby = (bin: string) =>
  startBuiltCli(bin, ['start', '--standby', 'intutic-proxy-test'], { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: REAL_KEY });

const call = (url: string, key: string) =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });

describe.each([
  ["the repetition proxy's bundle", PROXY_BUNDLE],
  ['intutic', CLI_BIN],
])('%s start --standby', (name, bin) => {
  it('serves with the arguments and variables of its order, and stops when its stdin ends', async () => {
    const proc = standby(bin);
    const events = join(dir, `${name.length}-events.jsonl`);
    const order = {
      args: ['--host', '127.0.0.1', '--port', '0', '--events', events, '--upstream-anthropic', model.url],
      env: { INTUTIC_STAND_IN_ANTHROPIC_API_KEY: STAND_IN },
    };
    proc.child.stdin.write(`${JSON.stringify(order)}\n`);
    const url = /^intutic proxy listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(await proc.firstLine)?.[1];
    expect(url).toBeDefined();
    // The stand-in from the order is swapped for the real key; any other key is refused as the provider would.
    expect((await call(url!, STAND_IN)).status).toBe(200);
    expect((await call(url!, 'sk-ant-api03-some-other-key')).status).toBe(401);
    proc.child.stdin.end();
    expect(await proc.exit).toBe(0);
  });

  it('does nothing and exits 0 when its stdin ends before an order', async () => {
    const proc = standby(bin);
    proc.child.stdin.end();
    expect(await proc.exit).toBe(0);
    expect(proc.stdout()).toBe('');
    expect(proc.stderr()).toBe('');
  });

  it.each([
    ['not JSON', 'start the proxy please', 'the order on stdin is not JSON'],
    ['args missing', '{"env":{}}', 'the order needs "args", an array of strings'],
    ['an env value that is not a string', '{"args":[],"env":{"A":1}}', 'the order needs "env", an object of strings'],
  ])('refuses an order that is %s with the usage exit code', async (_what, line, message) => {
    const proc = standby(bin);
    proc.child.stdin.write(`${line}\n`);
    expect(await proc.exit).toBe(64);
    expect(proc.stderr()).toContain(`error[E_USAGE]: start --standby: ${message}`);
    expect(proc.stderr()).not.toMatch(/\n\s+at /);
  });
});
