// The proxy's process lifecycle: it ends when either side does and never leaves the server behind;
// the server's stderr reaches ours; stdout carries nothing but protocol messages, even when the
// server misbehaves or the proxy cannot start. The grace periods of a shutdown are checked in
// process, on timers the test moves by hand; the process tests time nothing.
import { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runMcpProxy, SHUTDOWN_GRACE_MS } from '../src/index.ts';
import { alive, childrenOf, connect, FS_SERVER, proxyCommand, RawSession, waitFor, workspace, type Workspace, removeWorkspaces } from './harness.ts';

const INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}';
const sessions: RawSession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) {
    for (const pid of childrenOf(s.child.pid!)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    s.child.kill('SIGKILL');
  }
  removeWorkspaces();
});

function proxied(ws: Workspace, server: string[], env?: NodeJS.ProcessEnv): RawSession {
  const session = new RawSession(ws, 'proxy', {
    command: { command: proxyCommand.command, args: [...proxyCommand.args, '--name', 'fs', '--', ...server] },
    ...(env ? { env } : {}),
  });
  sessions.push(session);
  return session;
}

/** Start the proxy over the filesystem server, initialized; returns the server's pid too. */
async function running(ws = workspace(), server = [process.execPath, FS_SERVER, ws.root]): Promise<{ session: RawSession; serverPid: number }> {
  const session = proxied(ws, server);
  session.send(INIT);
  await session.waitForLines(1);
  const [serverPid] = childrenOf(session.child.pid!);
  expect(serverPid).toBeDefined();
  return { session, serverPid: serverPid! };
}

describe('proxy lifecycle', () => {
  it('exits 0 when the client closes stdin, and the server is gone', async () => {
    const { session, serverPid } = await running();
    session.child.stdin.end();
    expect(await session.exited).toEqual({ code: 0, signal: null });
    expect(alive(serverPid)).toBe(false);
    expect(session.stderr).toContain('the client closed stdin');
  });

  it('still relays the answers to requests sent just before the client closed stdin', async () => {
    const ws = workspace();
    const session = proxied(ws, [process.execPath, FS_SERVER, ws.root]);
    session.send(INIT);
    session.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    session.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"${join(ws.root, 'notes.txt')}"}}}`);
    session.child.stdin.end();
    expect((await session.exited).code).toBe(0);
    expect(session.lines).toHaveLength(2);
    expect(session.lines[1]).toContain('the real notes');
  });

  it('exits with the server when the server dies, and the SDK client sees the connection close', async () => {
    const ws = workspace();
    const client = await connect(ws, 'proxy');
    const closed = new Promise<void>((resolve) => (client.transport.onclose = () => resolve()));
    const [serverPid] = childrenOf(client.transport.pid!);
    process.kill(serverPid!, 'SIGKILL');
    await closed;
    await waitFor(() => !alive(client.transport.pid!), 10_000, 'the proxy to exit');
    expect(client.stderr()).toMatch(/the server exited \(signal SIGKILL\)/);
  });

  it('reports the server’s exit code as its own', async () => {
    const { session, serverPid } = await running();
    process.kill(serverPid, 'SIGTERM');
    expect((await session.exited).code).toBe(128 + 15);
  });

  it('stops a server that ignores its closed stdin and SIGTERM (SIGKILL after the grace periods)', async () => {
    const stubborn = [
      process.execPath,
      '-e',
      "process.on('SIGTERM', () => {}); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000)",
    ];
    const session = proxied(workspace(), stubborn);
    await waitFor(() => childrenOf(session.child.pid!).length === 1, 10_000, 'the server to start');
    const [serverPid] = childrenOf(session.child.pid!);
    session.child.stdin.end();
    expect((await session.exited).code).toBe(0);
    expect(alive(serverPid!)).toBe(false);
  });

  it('stops the server and exits when it is told to (SIGTERM)', async () => {
    const { session, serverPid } = await running();
    session.child.kill('SIGTERM');
    expect((await session.exited).code).toBe(130);
    expect(alive(serverPid)).toBe(false);
  });

  it('stops a server that ignores its closed stdin when it is told to (SIGTERM)', async () => {
    const deaf = [process.execPath, '-e', "process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000)"];
    const session = proxied(workspace(), deaf);
    await waitFor(() => childrenOf(session.child.pid!).length === 1, 10_000, 'the server to start');
    const [serverPid] = childrenOf(session.child.pid!);
    session.child.kill('SIGTERM');
    expect((await session.exited).code).toBe(130);
    expect(alive(serverPid!)).toBe(false);
  });

  it('forwards the server’s stderr and keeps stdout to protocol messages, dropping junk the server prints', async () => {
    const ws = workspace();
    const noisy = ['sh', '-c', 'echo "starting up, not JSON"; echo; exec "$0" "$1" "$2"', process.execPath, FS_SERVER, ws.root];
    const { session } = await running(ws, noisy);
    session.send('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    await session.waitForLines(2);
    session.child.stdin.end();
    await session.exited;
    expect(session.lines).toHaveLength(2);
    for (const line of session.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(session.stderr).toContain('Secure MCP Filesystem Server running on stdio');
    expect(session.stderr).toContain('dropped a line from the server that is not JSON: starting up, not JSON');
  });

  it('fails with E_MCP_SERVER_FAILED, writing nothing to stdout, when the server cannot start', async () => {
    const session = proxied(workspace(), ['/nonexistent/mcp-server', '--stdio']);
    const { code } = await session.exited;
    expect(code).toBe(3);
    expect(session.stderr).toContain('E_MCP_SERVER_FAILED');
    expect(session.stderr).toContain('/nonexistent/mcp-server');
    expect(session.lines).toEqual([]);
  });

  it('refuses to start with an unreadable plan (E_PLAN_INVALID) rather than run the repetition without its faults', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'plan.json'), '{"schema_version": 1, "faults": "nope"}');
    const session = proxied(ws, [process.execPath, FS_SERVER, ws.root], { ...ws.env, INTUTIC_CHAOS_PLAN: join(ws.dir, 'plan.json') });
    expect((await session.exited).code).toBe(3);
    expect(session.stderr).toContain('E_PLAN_INVALID');
    expect(session.lines).toEqual([]);
  });
});

/** A server that ignores its closed stdin (and SIGTERM, when `ignoresSigterm`), saying so on stderr. */
const reportingServer = (ignoresSigterm: boolean) =>
  [
    'process.stdin.resume()',
    "process.stdin.on('end', () => {})",
    ignoresSigterm ? "process.on('SIGTERM', () => process.stderr.write('SIGTERM ignored\\n'))" : '',
    'setInterval(() => {}, 1000)',
    // Last: once it says ready, its handlers are in place.
    "process.stderr.write('ready ' + process.pid + '\\n')",
  ]
    .filter(Boolean)
    .join('; ');

/** Servers started in process, killed after each test whatever it left them in. */
const servers: number[] = [];

/** The proxy in this process over a real server, its stdio in memory. */
function inProcess(server: string, signal?: AbortSignal) {
  const ws = workspace();
  const [stdin, stdout, stderr] = [new PassThrough(), new PassThrough(), new PassThrough()];
  stdout.resume();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exit = runMcpProxy({ name: 'fs', command: process.execPath, args: ['-e', server] }, { stdin, stdout, stderr, env: ws.env, cwd: ws.root, signal });
  /** Resolves once stderr holds `part`: it waits on output, not on a timer, so it works with timers faked. */
  const printed = (part: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!text.includes(part)) return;
        stderr.off('data', check);
        resolve();
      };
      stderr.on('data', check);
      check();
    });
  /** The server's pid, once it is up. */
  const started = printed('ready').then(() => {
    const pid = Number(/^ready (\d+)$/m.exec(text)![1]);
    servers.push(pid);
    return pid;
  });
  return { stdin, exit, printed, started };
}

describe('stopping the server, on timers the test moves', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    for (const pid of servers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('gives a server that ignores its closed stdin SIGTERM only after the grace period, and SIGKILL only after another', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const kill = vi.spyOn(ChildProcess.prototype, 'kill');
    const proxy = inProcess(reportingServer(true));
    const serverPid = await proxy.started;
    proxy.stdin.end();
    await proxy.printed('the client closed stdin; stopping the server');
    vi.advanceTimersByTime(SHUTDOWN_GRACE_MS - 1);
    expect(kill, 'no signal within the grace period').not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(kill.mock.calls).toEqual([['SIGTERM']]);
    await proxy.printed('SIGTERM ignored');
    vi.advanceTimersByTime(SHUTDOWN_GRACE_MS - 1);
    expect(kill.mock.calls, 'no SIGKILL within the second grace period').toEqual([['SIGTERM']]);
    vi.advanceTimersByTime(1);
    expect(kill.mock.calls).toEqual([['SIGTERM'], ['SIGKILL']]);
    expect(await proxy.exit).toBe(0);
    expect(alive(serverPid)).toBe(false);
  });

  it('passes its own SIGTERM on to the server at once, without the grace period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const kill = vi.spyOn(ChildProcess.prototype, 'kill');
    const stop = new AbortController();
    const proxy = inProcess(reportingServer(false), stop.signal);
    const serverPid = await proxy.started;
    stop.abort();
    expect(kill.mock.calls).toEqual([['SIGTERM']]);
    expect(await proxy.exit).toBe(130);
    expect(alive(serverPid)).toBe(false);
  });
});
