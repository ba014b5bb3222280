// Tidy image builds: one build per tag at a time across processes (a second builder waits, says for whom,
// then runs after the first; a lock whose holder was killed is taken over), and build logs pruned.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withBuildLock } from '../src/build-lock.ts';
import { pruneBuildLogs } from '../src/build-logs.ts';

const dirs: string[] = [];
const lockDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'intutic-build-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withBuildLock', () => {
  it('runs a second build of the same tag only after the first, tells the waiting user, and the last to leave removes the lock directory', async () => {
    const dir = join(lockDir(), 'locks');
    const order: string[] = [];
    const said: string[] = [];
    const first = withBuildLock(
      'intutic/sandbox:1',
      'unix:///e',
      () => undefined,
      async () => {
        order.push('first start');
        await sleep(300);
        order.push('first end');
      },
      { dir, pollMs: 20 },
    );
    await sleep(20);
    const second = withBuildLock(
      'intutic/sandbox:1',
      'unix:///e',
      (line) => said.push(line),
      async () => order.push('second'),
      { dir, pollMs: 20 },
    );
    // Another tag is not held up by it.
    await withBuildLock(
      'intutic/sandbox:1-node',
      'unix:///e',
      () => undefined,
      async () => order.push('other tag'),
      { dir, pollMs: 20 },
    );
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'other tag', 'first end', 'second']);
    expect(said).toEqual([`waiting for another build of intutic/sandbox:1 (process ${process.pid}) to finish`]);
    expect(existsSync(dir)).toBe(false);
  });

  it('releases the lock when the build fails', async () => {
    const dir = lockDir();
    await expect(
      withBuildLock(
        't',
        'e',
        () => undefined,
        async () => Promise.reject(new Error('build broke')),
        { dir },
      ),
    ).rejects.toThrow('build broke');
    await expect(
      withBuildLock(
        't',
        'e',
        () => undefined,
        async () => 'built',
        { dir },
      ),
    ).resolves.toBe('built');
  });

  it('takes over the lock of a builder process that was killed while holding it', async () => {
    const dir = lockDir();
    const script = `import { withBuildLock } from ${JSON.stringify(join(import.meta.dirname, '../src/build-lock.ts'))};
await withBuildLock('t', 'e', () => undefined, async () => { console.log('held'); await new Promise(() => setInterval(() => {}, 1000)); }, { dir: ${JSON.stringify(dir)} });`;
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [chunk] = (await once(holder.stdout, 'data')) as [Buffer];
    expect(chunk.toString()).toContain('held');
    const said: string[] = [];
    const waiting = withBuildLock(
      't',
      'e',
      (line) => said.push(line),
      async () => 'built after the holder died',
      { dir, pollMs: 20 },
    );
    await sleep(200);
    expect(said).toEqual([`waiting for another build of t (process ${holder.pid}) to finish`]);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    await expect(waiting).resolves.toBe('built after the holder died');
  });
});

describe('pruneBuildLogs', () => {
  it('keeps the newest build logs up to the limit and none older than the age limit, and touches nothing else', () => {
    const dir = lockDir();
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    const write = (name: string, ageMs: number) => {
      writeFileSync(join(dir, name), 'x');
      utimesSync(join(dir, name), (now - ageMs) / 1000, (now - ageMs) / 1000);
    };
    for (let i = 0; i < 5; i++) write(`image-build-${i}.log`, i * 1000);
    write('image-build-old.log', 20 * day);
    write('notes.txt', 30 * day);
    expect(pruneBuildLogs(dir, { keep: 3, maxAgeMs: 14 * day, now })).toBe(3);
    expect(readdirSync(dir).sort()).toEqual(['image-build-0.log', 'image-build-1.log', 'image-build-2.log', 'notes.txt']);
    expect(pruneBuildLogs(join(dir, 'absent'))).toBe(0);
  });
});
