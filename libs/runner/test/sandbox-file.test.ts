// The host's reads of what the sandbox could have written (issue 40, item 2): a symbolic link (to a
// host file, to /proc/self/environ), a FIFO, a socket, a directory, a second name (hard link), a link
// among the directories above the file, a file over the limit: each is refused before a byte is read,
// nothing blocks, and nothing of the target reaches what the runner keeps (the events mirror's
// artifact, the abort monitor's events, an appended line).
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventWriter, formatEvent } from '@intutic/events';
import { scratchDir } from '@intutic/testkit';
import { AbortMonitor, type MonitorClock } from '../src/abort-monitor.ts';
import { EventsMirror } from '../src/events-mirror.ts';
import { copySandboxFile, openSandboxFile, readSandboxFile, SandboxFileRefused } from '../src/sandbox-file.ts';

const root = scratchDir('intutic-sandbox-file-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SECRET = 'host-secret-7f3a91c2';
let n = 0;
/** A fresh worktree-like directory and, outside it, a host file holding the secret. */
function world(): { worktree: string; chaos: string; file: string; hostFile: string } {
  const base = join(root, `w${++n}`);
  const worktree = join(base, 'worktree');
  const chaos = join(worktree, '.intutic-chaos');
  mkdirSync(chaos, { recursive: true });
  const hostFile = join(base, 'host-secret.txt');
  writeFileSync(hostFile, `${SECRET}\n`);
  return { worktree, chaos, file: join(chaos, 'events.jsonl'), hostFile };
}

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxFileRefused);
  return (error as SandboxFileRefused).reason;
}

describe('openSandboxFile and readSandboxFile', () => {
  it('read a plain file, bounded', async () => {
    const { file, worktree } = world();
    writeFileSync(file, 'line\n');
    expect((await readSandboxFile(file, 100, { root: worktree })).toString()).toBe('line\n');
  });

  it('refuse a symbolic link to a host file, and to /proc/self/environ', async () => {
    const { file, hostFile } = world();
    symlinkSync(hostFile, file);
    expect(await refusal(readSandboxFile(file, 1 << 20))).toBe('a symbolic link');
    rmSync(file);
    symlinkSync('/proc/self/environ', file);
    expect(await refusal(readSandboxFile(file, 1 << 20))).toBe('a symbolic link');
  });

  it('refuse a FIFO at once (no writer needed, none waited for)', async () => {
    const { file } = world();
    mkfifo(file);
    expect(await refusal(readSandboxFile(file, 1 << 20))).toBe('a named pipe (FIFO)');
    expect(await refusal(openSandboxFile(file))).toBe('a named pipe (FIFO)');
  });

  it('refuse a socket, a directory, a device', async () => {
    const { chaos, file } = world();
    const socket = join(chaos, 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      expect(await refusal(readSandboxFile(socket, 1 << 20))).toBe('a socket');
    } finally {
      server.close();
    }
    mkdirSync(file);
    expect(await refusal(readSandboxFile(file, 1 << 20))).toBe('a directory');
    expect(await refusal(readSandboxFile('/dev/zero', 1 << 20))).toBe('a device');
  });

  it('refuse a file with a second name (a hard link), whichever name is read', async () => {
    const { chaos, file } = world();
    const other = join(chaos, 'planted.txt');
    writeFileSync(other, `${SECRET}\n`);
    linkSync(other, file);
    expect(await refusal(readSandboxFile(file, 1 << 20))).toBe('a file with 2 names (a hard link)');
  });

  it('refuse a file reached through a link among its directories (given the root)', async () => {
    const { worktree, hostFile } = world();
    // .intutic-chaos replaced by a link to the directory holding a host file of the same name.
    rmSync(join(worktree, '.intutic-chaos'), { recursive: true });
    const elsewhere = join(hostFile, '..', 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'events.jsonl'), `${SECRET}\n`);
    symlinkSync(elsewhere, join(worktree, '.intutic-chaos'));
    const reason = await refusal(readSandboxFile(join(worktree, '.intutic-chaos', 'events.jsonl'), 1 << 20, { root: worktree }));
    expect(reason).toBe('under a symbolic link (.intutic-chaos)');
  });

  it('refuse a file over the limit without reading it', async () => {
    const { file } = world();
    writeFileSync(file, 'x'.repeat(101));
    expect(await refusal(readSandboxFile(file, 100))).toBe('101 bytes, over the 100-byte limit');
  });

  it('a missing file is ENOENT, not a refusal', async () => {
    const { file } = world();
    await expect(readSandboxFile(file, 100)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('copySandboxFile, and the events writer', () => {
  it('copy a plain file; write nothing for a link or a FIFO', async () => {
    const { chaos, file, hostFile } = world();
    const to = join(chaos, '..', '..', 'copy.txt');
    writeFileSync(file, 'a\nb\n');
    expect(await copySandboxFile(file, to, 100)).toBe(4);
    expect(readFileSync(to, 'utf8')).toBe('a\nb\n');
    rmSync(to);
    rmSync(file);
    symlinkSync(hostFile, file);
    await refusal(copySandboxFile(file, to, 100));
    expect(existsSync(to)).toBe(false);
    rmSync(file);
    mkfifo(file);
    await refusal(copySandboxFile(file, to, 100));
    expect(existsSync(to)).toBe(false);
  });

  it('the events writer appends to a plain file (made when missing); never through a link, never blocking on a FIFO', async () => {
    const { file, hostFile } = world();
    const writer = new EventWriter(file);
    const event = { type: 'warning', source: 'runner', code: 'x', detail: '$(touch /tmp/pwned)' } as const;
    await writer.append(event);
    await writer.append(event);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
    rmSync(file);
    symlinkSync(hostFile, file);
    await expect(writer.append(event)).rejects.toMatchObject({ code: 'ELOOP' });
    expect(readFileSync(hostFile, 'utf8')).toBe(`${SECRET}\n`);
    rmSync(file);
    mkfifo(file);
    await expect(writer.append(event)).rejects.toMatchObject({ code: 'ENXIO' });
    rmSync(file);
    writeFileSync(hostFile.replace('host-secret', 'other'), '');
    linkSync(hostFile.replace('host-secret', 'other'), file);
    await expect(writer.append(event)).rejects.toMatchObject({ code: 'E_NOT_A_FILE' });
  });
});

describe('the events mirror and the abort monitor on a planted events file', () => {
  const line = (i: number) => `{"v":1,"ts":${i},"type":"plan_loaded","source":"gate","run_id":"r1"}\n`;

  for (const [plant, expected] of [
    ['a link to a host file', 'the events file was replaced by a symbolic link (not read)'],
    ['a link to /proc/self/environ', 'the events file was replaced by a symbolic link (not read)'],
    ['a FIFO', 'the events file was replaced by a named pipe (FIFO) (not read)'],
    ['a hard link', 'the events file was replaced by a file with 2 names (a hard link) (not read)'],
  ] as const) {
    it(`${plant}: tampering, the run goes on, and the kept events are the mirror's alone`, async () => {
      const { worktree, chaos, file, hostFile } = world();
      writeFileSync(file, line(1));
      const mirror = new EventsMirror(file, join(chaos, '..', '..', 'mirror.jsonl'), worktree);
      await mirror.start();
      rmSync(file);
      if (plant === 'a link to a host file') symlinkSync(hostFile, file);
      else if (plant === 'a link to /proc/self/environ') symlinkSync('/proc/self/environ', file);
      else if (plant === 'a FIFO') mkfifo(file);
      else {
        writeFileSync(join(chaos, 'planted.txt'), `${line(2)}${SECRET}\n`);
        linkSync(join(chaos, 'planted.txt'), file);
      }
      await mirror.poll();
      const artifact = join(chaos, '..', '..', 'kept.jsonl');
      const result = await mirror.finish(artifact, 'r1');
      expect(result.tampering).toEqual([expected]);
      const kept = readFileSync(artifact, 'utf8');
      expect(kept).toBe(line(1));
      expect(kept).not.toContain(SECRET);
      expect(kept).not.toContain('PATH=');
    });
  }

  it('planted after the last poll: the final open refuses it', async () => {
    const { worktree, chaos, file } = world();
    writeFileSync(file, line(1));
    const mirror = new EventsMirror(file, join(chaos, '..', '..', 'mirror.jsonl'), worktree);
    await mirror.start();
    rmSync(file);
    symlinkSync('/proc/self/environ', file);
    const artifact = join(chaos, '..', '..', 'kept.jsonl');
    expect((await mirror.finish(artifact, 'r1')).tampering).toEqual(['the events file was replaced by a symbolic link (not read)']);
    expect(readFileSync(artifact, 'utf8')).toBe(line(1));
  });

  it('deleted when a poll looked, a link planted after: both are said, and the link is not read', async () => {
    const { worktree, chaos, file } = world();
    writeFileSync(file, line(1));
    const mirror = new EventsMirror(file, join(chaos, '..', '..', 'mirror.jsonl'), worktree);
    await mirror.start();
    rmSync(file);
    await mirror.poll();
    symlinkSync('/proc/self/environ', file);
    const artifact = join(chaos, '..', '..', 'kept.jsonl');
    expect((await mirror.finish(artifact, 'r1')).tampering).toEqual([
      'the events file was deleted',
      'the events file was replaced by a symbolic link (not read)',
    ]);
    expect(readFileSync(artifact, 'utf8')).toBe(line(1));
  });

  it('the abort monitor neither reads events from a link nor blocks on a FIFO, and writes its abort line nowhere else', async () => {
    const { worktree, file, hostFile } = world();
    // A host file that holds a destructive attempt: read through the link, it would abort the run.
    writeFileSync(
      hostFile,
      formatEvent({
        type: 'gate_decision',
        source: 'gate',
        tool: 'Bash',
        decision: 'block',
        destructive: true,
        rule: 'x',
        mode: 'enforce',
        harness: 'claude-code',
      }),
    );
    const before = readFileSync(hostFile, 'utf8');
    symlinkSync(hostFile, file);
    let now = 0;
    const ticks: Array<() => Promise<void>> = [];
    const clock: MonitorClock = {
      now: () => now,
      every: (_ms, task) => {
        ticks.push(task);
        return () => undefined;
      },
      after: () => () => undefined,
    };
    const monitor = new AbortMonitor({
      eventsPath: file,
      worktree,
      settings: { destructive_attempt: true, cost_usd_above: 100, wall_clock_s_above: 1 },
      runId: 'r1',
      agentStartedAt: 0,
      onTrigger: () => undefined,
      clock,
    });
    monitor.start();
    await ticks[0]!();
    expect(monitor.trigger).toBeNull();
    // Past the wall clock: the abort line is not appended through the link.
    now = 5_000;
    await ticks[0]!();
    expect(monitor.trigger).toMatchObject({ kind: 'abort', abort: { condition: 'wall_clock_s_above' } });
    expect(readFileSync(hostFile, 'utf8')).toBe(before);
    rmSync(file);
    mkfifo(file);
    await monitor.stop();
    expect(statSync(file).isFIFO()).toBe(true);
  });

  it('the abort monitor on a FIFO: a tick returns at once', async () => {
    const { worktree, file } = world();
    mkfifo(file);
    const ticks: Array<() => Promise<void>> = [];
    const monitor = new AbortMonitor({
      eventsPath: file,
      worktree,
      settings: { destructive_attempt: true, cost_usd_above: 100, wall_clock_s_above: null },
      runId: 'r1',
      agentStartedAt: 0,
      onTrigger: () => undefined,
      clock: {
        now: () => 0,
        every: (_ms, task) => {
          ticks.push(task);
          return () => undefined;
        },
        after: () => () => undefined,
      },
    });
    monitor.start();
    await ticks[0]!();
    expect(await monitor.stop()).toBeNull();
  });
});
