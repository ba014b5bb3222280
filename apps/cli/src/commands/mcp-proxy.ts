// `intutic mcp-proxy [--name server] -- <server command…>`: run an MCP server behind the stdio proxy
// that governs its tools/call and injects the planned MCP faults. The same proxy ships standalone as
// `intutic-mcp-proxy` for the sandbox image.
import type { Command } from 'commander';
import { defaultServerName, runMcpProxy, type McpProxyOptions } from '@intutic/mcp-proxy-app';
import type { Registration } from '../cli.ts';

interface RawOptions {
  name?: string;
}

export function parseMcpProxyOptions(command: readonly string[], raw: RawOptions): McpProxyOptions {
  const [executable, ...args] = command;
  // commander guarantees one operand (<command...> is required).
  return { name: raw.name ?? defaultServerName(executable!), command: executable!, args };
}

export function registerMcpProxyCommand(program: Command, reg: Registration): void {
  program
    .command('mcp-proxy')
    .description('run a stdio MCP server behind the proxy that governs tools/call and injects the planned MCP faults')
    .option('--name <server>', 'the server name the harness uses (the key in .mcp.json); default: the command file name')
    .argument('<command...>', 'the server command and its arguments, after --')
    .addHelpText('after', '\nExample:\n  intutic mcp-proxy --name fs -- npx @modelcontextprotocol/server-filesystem .\n\nstdout carries MCP messages only; logs go to stderr (or .intutic/events/ when INTUTIC_CHAOS_EVENTS is set).')
    .action(async (command: string[], raw: RawOptions) => {
      const options = parseMcpProxyOptions(command, raw);
      const { ctx } = reg;
      // stdin is the client's half of the protocol stream; CliContext has no stdin, so it is taken here at the edge.
      const code = await runMcpProxy(options, { stdin: process.stdin, stdout: ctx.stdout, stderr: ctx.stderr, env: ctx.env, cwd: ctx.cwd, signal: ctx.signal });
      reg.setExit(code);
    });
}
