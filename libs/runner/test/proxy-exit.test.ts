// A repetition's proxy that exits on its own after it was ready: `died` settles with its exit status
// and last words (what it printed last, the end of its log), so the repetition can fail with them.
// One that is stopped does not die: `died` never settles then.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IntuticError } from '@intutic/errors';
import { startProxy, type RunningProxy } from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

// Stands in for `intutic start --standby`: once its order is on stdin, serves /health; GET /crash
// says why on stderr and exits 3.
const FAKE_PROXY = `
const { appendFileSync } = require('node:fs');
let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk;
  if (input.includes('\\n') && !globalThis.started) start(JSON.parse(input.slice(0, input.indexOf('\\n'))).args);
});
function start(args) {
globalThis.started = true;
const log = args[args.indexOf('--log') + 1];
const server = require('node:http').createServer((req, res) => {
  if (req.url !== '/crash') return res.end('{"status":"ok"}');
  appendFileSync(log, 'error upstream went away in a way nobody expected\\n');
  process.stderr.write('fatal: the event loop fell over\\n', () => process.exit(3));
});
server.listen(0, '127.0.0.1', () => {
  appendFileSync(log, 'info proxy listening\\n');
  console.log('intutic proxy listening on http://127.0.0.1:' + server.address().port);
});
}
`;

let dir: string | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  proxy = dir = undefined;
});

async function start(): Promise<RunningProxy> {
  dir = scratchDir('intutic-proxy-death-');
  proxy = await startProxy({
    command: [process.execPath, '-e', FAKE_PROXY, '--'],
    host: '127.0.0.1',
    eventsPath: join(dir, 'events.jsonl'),
    logPath: join(dir, 'proxy.log'),
    caOutPath: join(dir, 'ca.pem'),
    outputPath: join(dir, 'proxy.stdout.txt'),
    env: { PATH: process.env.PATH },
  });
  return proxy;
}

const lines = (error: IntuticError) => [error.message, ...error.hints].join('\n');

describe("the repetition's proxy dying after it was ready", () => {
  it('is reported with its exit code, its last output and the end of its log', async () => {
    const running = await start();
    await fetch(`${running.url}/crash`).catch(() => undefined);
    const death = await running.died;
    expect(death.code).toBe('E_PROXY_FAILED');
    expect(death.message).toBe("the repetition's proxy exited (code 3) while the repetition ran");
    expect(lines(death)).toContain(`its output (${join(dir!, 'proxy.stdout.txt')}) ended with:\n  intutic proxy listening on http://127.0.0.1:`);
    expect(lines(death)).toMatch(/\n {2}fatal: the event loop fell over\n/);
    expect(lines(death)).toContain(
      `its log (${join(dir!, 'proxy.log')}) ended with:\n  info proxy listening\n  error upstream went away in a way nobody expected`,
    );
  });

  it('is reported with the signal that killed it', async () => {
    const running = await start();
    process.kill(running.pid, 'SIGKILL');
    const death = await running.died;
    expect(death.message).toBe("the repetition's proxy exited (signal SIGKILL) while the repetition ran");
    expect(lines(death)).toContain('intutic proxy listening on http://127.0.0.1:');
  });

  it('is not a death when the repetition stopped it', async () => {
    const running = await start();
    let settled = false;
    void running.died.then(() => (settled = true));
    await running.stop();
    // Whatever the exit set off has run by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
  });
});
