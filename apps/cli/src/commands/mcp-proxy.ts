// `intutic mcp-proxy [--name server] -- <server command…>`: run an MCP server behind the stdio proxy
// that governs its tools/call and injects the planned MCP faults. The same proxy ships standalone as
// `intutic-mcp-proxy` for the sandbox image.
import type { Command } from 'commander';
import { IntuticError } from '@intutic/errors';
import { defaultServerName, runMcpProxy, type McpProxyDeps, type McpProxyOptions } from '@intutic/mcp-proxy-app';
import type { Registration } from '../program.ts';

export interface McpProxyCommandOptions {
  /** The server command and its arguments. */
  command: readonly string[];
  /** The server name the harness uses; default: the command's file name. */
  name?: string;
}

export interface McpProxyCommandDeps {
  /** The client's protocol stream, the proxy's logs, the server's environment and directory. */
  io: McpProxyDeps;
  /** One proxy session: starts the server, relays until either side ends, resolves to the exit code. */
  proxy: (options: McpProxyOptions, deps: McpProxyDeps) => Promise<number>;
}

export function parseMcpProxyOptions(options: McpProxyCommandOptions): McpProxyOptions {
  const [executable, ...args] = options.command;
  // commander requires one operand (<command...>); this is for callers that are not commander.
  if (!executable)
    throw new IntuticError('E_USAGE', 'mcp-proxy needs the MCP server command after --', {
      hints: ['e.g. intutic mcp-proxy --name fs -- npx @modelcontextprotocol/server-filesystem .'],
    });
  return { name: options.name ?? defaultServerName(executable), command: executable, args };
}

export async function runMcpProxyCommand(options: McpProxyCommandOptions, deps: McpProxyCommandDeps): Promise<number> {
  return deps.proxy(parseMcpProxyOptions(options), deps.io);
}

export function registerMcpProxyCommand(program: Command, reg: Registration): void {
  program
    .command('mcp-proxy')
    .description('run a stdio MCP server behind the proxy that governs tools/call and injects the planned MCP faults')
    .option('--name <server>', 'the server name the harness uses (the key in .mcp.json); default: the command file name')
    .argument('<command...>', 'the server command and its arguments, after --')
    .addHelpText(
      'after',
      '\nExample:\n  intutic mcp-proxy --name fs -- npx @modelcontextprotocol/server-filesystem .\n\nstdout carries MCP messages only; logs go to stderr (or .intutic/events/ when INTUTIC_CHAOS_EVENTS is set).',
    )
    .action(async (command: string[], raw: { name?: string }) => {
      const { ctx } = reg;
      // stdin is the client's half of the protocol stream; CliContext has no stdin, so it is taken here at the edge.
      const io: McpProxyDeps = { stdin: process.stdin, stdout: ctx.stdout, stderr: ctx.stderr, env: ctx.env, cwd: ctx.cwd, signal: ctx.signal };
      reg.setExit(await runMcpProxyCommand({ command, ...(raw.name === undefined ? {} : { name: raw.name }) }, { io, proxy: runMcpProxy }));
    });
}
