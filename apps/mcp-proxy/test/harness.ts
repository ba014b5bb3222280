// Test harness: the real filesystem MCP server from the registry, run with node from node_modules,
// either directly or through the proxy (from source, via tsx), with the SDK's own Client on the
// other side. Also raw stdio access for byte-level comparisons, and temp plans, policies and events.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ChaosEvent } from '@intutic/events';
import type { Plan, PlanFault } from '@intutic/faults';
import { scratchDir } from '@intutic/testkit';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const FS_SERVER = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const PROXY_MAIN = join(REPO, 'apps/mcp-proxy/src/main.ts');
export const PROXY_BUNDLE = join(REPO, 'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs');
/** tsx's loader by absolute URL: `--import tsx` would resolve from the working directory (a temp dir). */
const TSX_LOADER = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
export const CANARY = 'E-INTUTIC-5eed1e55';

/** The proxy run from source. */
/** The proxy from source as it runs in a repetition's sandbox (mutating faults apply; see fixtures/sandboxed-main.ts). */
export const SANDBOXED_MAIN = join(REPO, 'apps/mcp-proxy/test/fixtures/sandboxed-main.ts');
export const proxyCommand = { command: process.execPath, args: ['--import', TSX_LOADER, SANDBOXED_MAIN] };
/** The real bin from source, deciding from the sandbox's marker like the shipped one: on this host, outside. */
export const hostProxyCommand = { command: process.execPath, args: ['--import', TSX_LOADER, PROXY_MAIN] };

export interface Workspace {
  dir: string;
  /** The directory the filesystem server may read and write. */
  root: string;
  events: string;
  env: NodeJS.ProcessEnv;
}

const created: string[] = [];

/** Remove the temp dirs workspace() made (call after the sessions using them are closed). */
export function removeWorkspaces(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A temp dir with a root for the server holding notes.txt, and an env naming nothing yet. */
export function workspace(): Workspace {
  const dir = scratchDir('mcp-proxy-test-');
  created.push(dir);
  const root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(join(root, 'notes.txt'), 'the real notes\n');
  // An empty policy by default, so the developer's own ~/.intutic never decides a test.
  writeFileSync(join(dir, 'empty-policy.json'), JSON.stringify({ rules: [] }));
  return {
    dir,
    root,
    events: join(dir, 'events.jsonl'),
    env: { ...process.env, INTUTIC_SNAPSHOT_RULES: join(dir, 'empty-policy.json'), INTUTIC_APPROVED_BYPASSES: join(dir, 'no-bypasses.json') },
  };
}

export function writePlan(ws: Workspace, faults: Partial<PlanFault>[]): void {
  const plan: Plan = {
    schema_version: 1,
    experiment: 'mcp-proxy-test',
    run_id: 'run-mcp-test',
    canary: CANARY,
    faults: faults.map((f, index) => ({ index, id: 'tool.error', match: {}, after_calls: 0, times: null, options: {}, ...f })),
  };
  writeFileSync(join(ws.dir, 'plan.json'), JSON.stringify(plan));
  ws.env.INTUTIC_CHAOS_PLAN = join(ws.dir, 'plan.json');
  ws.env.INTUTIC_CHAOS_EVENTS = ws.events;
}

export function writePolicy(ws: Workspace, policy: unknown): void {
  writeFileSync(join(ws.dir, 'policy.json'), JSON.stringify(policy));
  ws.env.INTUTIC_SNAPSHOT_RULES = join(ws.dir, 'policy.json');
  ws.env.INTUTIC_CHAOS_EVENTS = ws.events;
}

export function readEvents(ws: Workspace): ChaosEvent[] {
  if (!existsSync(ws.events)) return [];
  return readFileSync(ws.events, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChaosEvent);
}

/** direct: the server alone; proxy: through the proxy as in a sandbox; host: the real bin on this host; bundle: the built bundle. */
export type Via = 'direct' | 'proxy' | 'bundle' | 'host';

/** The command line that starts the filesystem server, directly or through the proxy. */
export function serverCommand(ws: Workspace, via: Via, name = 'fs'): { command: string; args: string[] } {
  const server = [FS_SERVER, ws.root];
  if (via === 'direct') return { command: process.execPath, args: server };
  const proxy = via === 'bundle' ? [PROXY_BUNDLE] : via === 'host' ? hostProxyCommand.args : proxyCommand.args;
  return { command: process.execPath, args: [...proxy, '--name', name, '--', process.execPath, ...server] };
}

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  /** Every message the client received, as the SDK transport parsed it. */
  received: JSONRPCMessage[];
  stderr: () => string;
}

/** Connect the SDK's own Client, recording every message it receives. */
export async function connect(ws: Workspace, via: Via, options: { name?: string; capabilities?: Record<string, unknown> } = {}): Promise<Connected> {
  const transport = new StdioClientTransport({ ...serverCommand(ws, via, options.name), env: ws.env as Record<string, string>, cwd: ws.dir, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const received: JSONRPCMessage[] = [];
  let handler: ((message: JSONRPCMessage) => void) | undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (handler ? (message: JSONRPCMessage) => (received.push(message), handler!(message)) : undefined),
    set: (next: (message: JSONRPCMessage) => void) => (handler = next),
  });
  const client = new Client({ name: 'mcp-proxy-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return { client, transport, received, stderr: () => stderr };
}

/** A raw stdio session: write lines, collect the lines that come back, byte for byte. */
export class RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffer = '';
  private waiters: (() => void)[] = [];

  constructor(ws: Workspace, via: 'direct' | 'proxy' | 'bundle', options: { env?: NodeJS.ProcessEnv; command?: { command: string; args: string[] } } = {}) {
    const { command, args } = options.command ?? serverCommand(ws, via);
    this.child = spawn(command, args, { cwd: ws.dir, env: options.env ?? ws.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline;
      while ((newline = this.buffer.indexOf('\n')) !== -1) {
        this.lines.push(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  send(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  /** Wait until `count` lines in total have arrived. */
  async waitForLines(count: number, timeoutMs = 15_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} lines; got ${JSON.stringify(this.lines)}\nstderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.lines.slice(0, count);
  }
}

/** Whether a process is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of a process's direct children (Linux /proc). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export async function waitFor(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
