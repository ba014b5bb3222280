// The proxy where it really runs: `intutic-mcp-proxy` on PATH in the -node sandbox image, on that
// image's Node (Debian's, 18) with no node_modules of its own, wrapping the filesystem server, with
// the SDK's own Client on the host side of `docker run -i`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { checkEngine, ensureSandboxImage } from '@intutic/sandbox';
import { dockerRequirement, requireOrSkip, sandboxBuildEnv } from '@intutic/testkit';
import { CANARY, readEvents, REPO, workspace, writePlan, removeWorkspaces } from './harness.ts';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'apps/cli/package.json'), 'utf8')) as { version: string }).version;
const canRun = requireOrSkip('mcp-proxy in the sandbox image', dockerRequirement());

describe.runIf(canRun)('intutic-mcp-proxy in the -node sandbox image', () => {
  let image = '';
  const clients: Client[] = [];
  beforeAll(async () => {
    const engine = await checkEngine();
    image = await ensureSandboxImage(engine, {
      version: VERSION,
      variant: 'node',
      env: sandboxBuildEnv(),
      onProgress: (line) => process.stderr.write(`[image] ${line}\n`),
    });
  }, 900_000);
  afterAll(async () => {
    for (const c of clients) await c.close();
    removeWorkspaces();
  });

  it('runs on the image’s Node with the bundle alone, proxies the server and injects the planned fault', async () => {
    const ws = workspace();
    writePlan(ws, [{ id: 'tool.error', match: { tool: 'read_file' }, after_calls: 1, options: { message: 'in the sandbox' } }]);
    const args = [
      'run',
      '--rm',
      '-i',
      '--network',
      'none',
      '--entrypoint',
      'sh',
      '-v',
      `${join(REPO, 'node_modules')}:/app/node_modules:ro`,
      '-v',
      `${ws.dir}:/ws`,
      '-e',
      'INTUTIC_CHAOS_PLAN=/ws/plan.json',
      '-e',
      'INTUTIC_CHAOS_EVENTS=/ws/events.jsonl',
      '-e',
      'INTUTIC_SNAPSHOT_RULES=/ws/empty-policy.json',
      image,
      '-c',
      'node --version >&2 && exec intutic-mcp-proxy --name fs -- node /app/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js /ws/root',
    ];
    const transport = new StdioClientTransport({ command: 'docker', args, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    const read = () => client.callTool({ name: 'read_file', arguments: { path: '/ws/root/notes.txt' } }) as Promise<CallToolResult>;
    expect((await read()).content).toEqual([{ type: 'text', text: 'the real notes\n' }]);
    expect(await read()).toEqual({ content: [{ type: 'text', text: `in the sandbox [${CANARY}]` }], isError: true });
    // Debian bookworm's Node is 18: the oldest the bundle must run on.
    expect(Number(/^v(\d+)\./m.exec(stderr)?.[1])).toBeGreaterThanOrEqual(18);
    const types = readEvents(ws).map((e) => e.type);
    expect(types).toEqual(['plan_loaded', 'gate_decision', 'tool_call', 'gate_decision', 'fault_injected', 'tool_call']);
  });
});
