// The worker's proxy starter keeps one proxy process loaded for the next repetition: a repetition's
// proxy is that process (each process still serves one repetition), the next one is started as soon
// as it is up, one that died meanwhile is replaced by a fresh process, and closing the starter stops
// the one it keeps. The pid a repetition records is the process that serves it, and its command
// line carries the mark the clean-up knows it by.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scratchDir } from '@intutic/testkit';
import { isJobProcess, proxyStarter, type ProxyStarter, type RunningProxy } from '../src/index.ts';

// Stands in for `intutic start --standby MARK`: says it is loaded (a file named by its pid), serves
// /health once its order is on stdin, and exits when stdin ends, as the CLI does.
const FAKE_PROXY = `
const { writeFileSync } = require('node:fs');
writeFileSync(require('node:path').join(process.env.LOADED_DIR, String(process.pid)), process.argv.slice(1).join(' '));
let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk;
  if (!input.includes('\\n') || globalThis.serving) return;
  globalThis.serving = true;
  const server = require('node:http').createServer((req, res) => res.end('{"status":"ok"}'));
  server.listen(0, '127.0.0.1', () => console.log('intutic proxy listening on http://127.0.0.1:' + server.address().port));
});
process.stdin.on('end', () => process.exit(0));
`;

let dir: string;
let starter: ProxyStarter | undefined;
const running: RunningProxy[] = [];
afterEach(async () => {
  for (const proxy of running.splice(0)) await proxy.stop();
  await starter?.close?.();
  rmSync(dir, { recursive: true, force: true });
  starter = undefined;
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const loaded = () => readdirSync(join(dir, 'loaded')).map(Number);
/** This process's children now, read from /proc. */
const children = (): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid ? [Number(pid)] : [];
      } catch {
        return []; // gone meanwhile
      }
    })
    .sort((a, b) => a - b);
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`never: ${what}`);
}

function setUp() {
  dir = scratchDir('intutic-proxy-standby-');
  const loadedDir = join(dir, 'loaded');
  mkdirSync(loadedDir);
  const env = { PATH: process.env.PATH, LOADED_DIR: loadedDir };
  starter = proxyStarter([process.execPath, '-e', FAKE_PROXY, '--']);
  let n = 0;
  const start = async (withEnv: NodeJS.ProcessEnv = env) => {
    const spawned: Array<{ pid: number; mark: string }> = [];
    const i = n++;
    const proxy = await starter!({
      host: '127.0.0.1',
      eventsPath: join(dir, `events-${i}.jsonl`),
      logPath: join(dir, `proxy-${i}.log`),
      caOutPath: join(dir, `ca-${i}.pem`),
      outputPath: join(dir, `proxy-${i}.stdout.txt`),
      env: withEnv,
      onSpawn: async (p) => void spawned.push(p),
    });
    running.push(proxy);
    return { proxy, recorded: spawned[0]! };
  };
  return { env, start };
}

describe("a worker's proxy starter", () => {
  it('gives a repetition the process it loaded ahead, and loads the next one as soon as that is up', async () => {
    const { env, start } = setUp();
    starter!.warm!(env);
    await until('the warmed process is loaded', () => loaded().length === 1);
    const [warmed] = loaded();
    const { proxy, recorded } = await start();
    expect(recorded.pid).toBe(warmed);
    expect(proxy.pid).toBe(warmed);
    expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    // Its command line carries the mark the clean-up knows it by; the output file has its ready line.
    expect(await isJobProcess(recorded.pid, recorded.mark)).toBe(true);
    expect(readFileSync(join(dir, 'loaded', String(warmed)), 'utf8')).toBe(`start --standby ${recorded.mark}`);
    expect(readFileSync(join(dir, 'proxy-0.stdout.txt'), 'utf8')).toMatch(/^intutic proxy listening on /);
    await until('the next one is loading', () => loaded().length === 2);
    const next = loaded().find((pid) => pid !== warmed)!;
    const second = await start();
    expect(second.proxy.pid).toBe(next);
    expect(second.recorded.mark).not.toBe(recorded.mark);
  });

  it('replaces a loaded process that died with a fresh one', async () => {
    const { env, start } = setUp();
    starter!.warm!(env);
    await until('the warmed process is loaded', () => loaded().length === 1);
    const [warmed] = loaded();
    process.kill(warmed!, 'SIGKILL');
    await until('it is gone', () => !alive(warmed!));
    const { proxy } = await start();
    expect(proxy.pid).not.toBe(warmed);
    expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
  });

  it('gives a loaded process to a repetition with an equal environment, and replaces it for another', async () => {
    const { env, start } = setUp();
    starter!.warm!(env);
    await until('the warmed process is loaded', () => loaded().length === 1);
    const [warmed] = loaded();
    expect((await start({ ...env })).proxy.pid).toBe(warmed);
    await until('the next one is loading', () => loaded().length === 2);
    const next = loaded().find((pid) => pid !== warmed)!;
    const other = await start({ ...env, INTUTIC_OTHER: 'another run' });
    expect(other.proxy.pid).not.toBe(next);
    expect((await fetch(`${other.proxy.url}/health`)).status).toBe(200);
    await until('the one loaded for the first environment is stopped', () => !alive(next));
  });

  it('stops the process it keeps when it is closed, and loads no more', async () => {
    const { env, start } = setUp();
    const { proxy } = await start();
    await until('the next one is loading', () => loaded().length === 2);
    const kept = loaded().find((pid) => pid !== proxy.pid)!;
    await starter!.close!();
    expect(alive(kept)).toBe(false);
    await proxy.stop();
    const before = children();
    starter!.warm!(env);
    // Spawning is synchronous: a process warm() started would be a child of this one already.
    expect(children()).toEqual(before);
    expect(loaded()).toHaveLength(2);
    expect(existsSync(join(dir, 'loaded', String(kept)))).toBe(true);
  });
});
