// `intutic mcp-proxy` in process: run(options, deps) with a fake proxy session; the server command
// and name it is given, and its exit code passed on.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import type { McpProxyDeps, McpProxyOptions } from '@intutic/mcp-proxy-app';
import { runMcpProxyCommand } from '../src/commands/mcp-proxy.ts';

function proxyDeps(code: number) {
  const sessions: { options: McpProxyOptions; io: McpProxyDeps }[] = [];
  const io: McpProxyDeps = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: {}, cwd: '/p' };
  return { sessions, io, deps: { io, proxy: async (options: McpProxyOptions, deps: McpProxyDeps) => (sessions.push({ options, io: deps }), code) } };
}

describe('runMcpProxyCommand', () => {
  it("runs the server behind the proxy, named after the command's file, and exits with the proxy's code", async () => {
    const { sessions, io, deps } = proxyDeps(0);
    expect(await runMcpProxyCommand({ command: ['/usr/local/bin/server-fs', '--root', '.'] }, deps)).toBe(EXIT.ok);
    expect(sessions).toEqual([{ options: { name: 'server-fs', command: '/usr/local/bin/server-fs', args: ['--root', '.'] }, io }]);
  });

  it('uses --name when given, and passes on the server’s exit code', async () => {
    const { sessions, deps } = proxyDeps(7);
    expect(await runMcpProxyCommand({ command: ['npx', 'x'], name: 'fs' }, deps)).toBe(7);
    expect(sessions[0]!.options).toEqual({ name: 'fs', command: 'npx', args: ['x'] });
  });

  it('refuses an empty server command with E_USAGE, starting nothing', async () => {
    const { sessions, deps } = proxyDeps(0);
    await expect(runMcpProxyCommand({ command: [] }, deps)).rejects.toMatchObject({
      code: 'E_USAGE',
      exitCode: EXIT.usage,
      message: expect.stringContaining('needs the MCP server command'),
    });
    expect(sessions).toEqual([]);
  });
});
