// The two ways users start the proxy, built as they ship: `intutic mcp-proxy` (the CLI bundle) and
// the standalone `intutic-mcp-proxy` bundle, copied somewhere with no node_modules at all (as in the
// sandbox image). Needs `npm run build` (CI builds in `npm ci`).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CANARY, FS_SERVER, PROXY_BUNDLE, readEvents, REPO, workspace, writePlan, type Workspace, removeWorkspaces } from './harness.ts';

const CLI_BIN = join(REPO, 'apps/cli/bin/intutic.mjs');
const SHIM_BIN = join(REPO, 'apps/cli/bin/intutic-mcp-proxy.mjs');
const run = promisify(execFile);

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  removeWorkspaces();
});

beforeAll(() => {
  for (const file of [PROXY_BUNDLE, join(REPO, 'apps/cli/dist/intutic.mjs')]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  }
});

async function callThrough(ws: Workspace, command: string, args: string[]): Promise<CallToolResult> {
  const transport = new StdioClientTransport({ command, args, env: ws.env as Record<string, string>, cwd: ws.dir, stderr: 'pipe' });
  const client = new Client({ name: 'bins-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return (await client.callTool({ name: 'read_file', arguments: { path: join(ws.root, 'notes.txt') } })) as CallToolResult;
}

describe('shipped bins', () => {
  it('`intutic mcp-proxy --name fs -- <server>` proxies and injects', async () => {
    const ws = workspace();
    writePlan(ws, [{ id: 'tool.error', match: { tool: 'mcp__fs__read_file' }, options: { message: 'via the CLI' } }]);
    const result = await callThrough(ws, process.execPath, [CLI_BIN, 'mcp-proxy', '--name', 'fs', '--', process.execPath, FS_SERVER, ws.root]);
    expect(result).toEqual({ content: [{ type: 'text', text: `via the CLI [${CANARY}]` }], isError: true });
    expect(readEvents(ws).find((e) => e.type === 'plan_loaded')).toMatchObject({ detail: 'fs' });
  });

  it('the standalone bundle runs from a directory with no node_modules', async () => {
    const ws = workspace();
    const alone = mkdtempSync(join(ws.dir, 'alone-'));
    copyFileSync(PROXY_BUNDLE, join(alone, 'intutic-mcp-proxy.mjs'));
    writePlan(ws, [{ id: 'inject.tool_result', match: { tool: 'read_file' }, options: { payload: 'carried along' } }]);
    const result = await callThrough(ws, process.execPath, [join(alone, 'intutic-mcp-proxy.mjs'), '--name', 'fs', '--', process.execPath, FS_SERVER, ws.root]);
    // On this host (no sandbox marker) the shipped bundle leaves the mutating fault out: the real result, nothing injected.
    expect(result.content).toEqual([{ type: 'text', text: 'the real notes\n' }]);
  });

  it('the intutic-mcp-proxy bin shim loads the bundle; help and version go to stdout, usage errors exit 64', async () => {
    const version = await run(process.execPath, [SHIM_BIN, '--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect((await run(process.execPath, [SHIM_BIN, '--help'])).stdout).toContain('--name <server>');
    const bad = await run(process.execPath, [SHIM_BIN, '--name', 'fs']).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 64, stdout: '' });
    expect((bad as { stderr: string }).stderr).toContain('no MCP server command given');
    const cli = await run(process.execPath, [CLI_BIN, 'mcp-proxy']).catch((error: { code: number; stderr: string }) => error);
    expect(cli).toMatchObject({ code: 64 });
  });
});
