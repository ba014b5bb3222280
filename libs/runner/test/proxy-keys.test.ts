// How a repetition's proxy learns the provider keys: through its environment only — the real key
// under its own name from the worker's, the sandbox's stand-in as INTUTIC_STAND_IN_<name> added by
// its order on stdin (a standby's) — never its command line, which the process list shows; a
// stand-in the worker itself inherited is not passed on.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

// Stands in for `intutic start --standby`: takes its order from stdin as the CLI does (its env
// added to the process's), records what it ran with, then serves /health.
const FAKE_PROXY = `
const { writeFileSync } = require('node:fs');
let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk;
  if (!input.includes('\\n') || process.env.DUMP_DONE) return;
  const order = JSON.parse(input.slice(0, input.indexOf('\\n')));
  Object.assign(process.env, order.env, { DUMP_DONE: '1' });
  writeFileSync(process.env.DUMP_TO, JSON.stringify({ argv: process.argv, args: order.args, env: process.env }));
  const server = require('node:http').createServer((req, res) => res.end('{"status":"ok"}'));
  server.listen(0, '127.0.0.1', () => console.log('intutic proxy listening on http://127.0.0.1:' + server.address().port));
});
`;

let dir: string | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  proxy = dir = undefined;
});

describe("the repetition's proxy process", () => {
  it('gets the real keys and the stand-ins in its environment, none of them on its command line', async () => {
    dir = scratchDir('intutic-proxy-keys-');
    const dump = join(dir, 'started-with.json');
    const real = 'sk-ant-api03-real-key-for-this-test-only';
    const standIn = 'sk-ant-api03-intutic-00112233445566778899aabbccddeeff0011223344556677';
    proxy = await startProxy({
      command: [process.execPath, '-e', FAKE_PROXY],
      host: '127.0.0.1',
      eventsPath: join(dir, 'events.jsonl'),
      logPath: join(dir, 'proxy.log'),
      caOutPath: join(dir, 'ca.pem'),
      outputPath: join(dir, 'proxy.stdout.txt'),
      env: { PATH: process.env.PATH, DUMP_TO: dump, ANTHROPIC_API_KEY: real, INTUTIC_STAND_IN_OPENAI_API_KEY: 'inherited-from-elsewhere' },
      standIns: { ANTHROPIC_API_KEY: standIn },
    });
    const started = JSON.parse(readFileSync(dump, 'utf8')) as { argv: string[]; args: string[]; env: Record<string, string> };
    expect(started.argv.slice(1, 3)).toEqual(['start', '--standby']);
    expect(started.args).toEqual(expect.arrayContaining(['--events', join(dir, 'events.jsonl')]));
    expect(started.argv.join(' ')).not.toMatch(/sk-ant/);
    expect(started.args.join(' ')).not.toMatch(/sk-ant/);
    expect(started.env.ANTHROPIC_API_KEY).toBe(real);
    expect(started.env.INTUTIC_STAND_IN_ANTHROPIC_API_KEY).toBe(standIn);
    expect(started.env).not.toHaveProperty('INTUTIC_STAND_IN_OPENAI_API_KEY');
  });
});
