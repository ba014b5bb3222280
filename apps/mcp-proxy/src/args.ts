// Command-line parsing for the standalone `intutic-mcp-proxy` bin, which ships without commander:
// `[--name <server>] [--] <server command…>`. `intutic mcp-proxy` parses the same shape with commander.
import { basename, extname } from 'node:path';
import { IntuticError } from '@intutic/errors';
import type { McpProxyOptions } from './proxy.ts';

export const USAGE = `Usage: intutic-mcp-proxy [--name <server>] -- <server command…>

A stdio MCP proxy: governs tools/call with your policy, injects the planned MCP faults
(INTUTIC_CHAOS_PLAN), records events (INTUTIC_CHAOS_EVENTS), and passes everything else through.

Options:
  --name <server>  the server's name as the harness knows it (the key in .mcp.json);
                   default: the command's file name
  -v, --version    print the version
  -h, --help       show this help
`;

export type ParsedArgs = { kind: 'run'; options: McpProxyOptions } | { kind: 'help' } | { kind: 'version' };

/** The name used when --name is absent: `mcp-server-filesystem` for `/usr/bin/mcp-server-filesystem.js`. */
export function defaultServerName(command: string): string {
  const base = basename(command);
  return base.slice(0, base.length - extname(base).length) || base;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  let name: string | undefined;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (arg === '-v' || arg === '--version') return { kind: 'version' };
    if (arg === '--name' || arg.startsWith('--name=')) {
      const value = arg === '--name' ? argv[++i] : arg.slice('--name='.length);
      if (value === undefined || value === '') throw new IntuticError('E_USAGE', '--name needs a value', { hints: [USAGE.split('\n')[0]!] });
      name = value;
      continue;
    }
    if (arg.startsWith('-'))
      throw new IntuticError('E_USAGE', `unknown option ${arg}`, { hints: ['put the server command after `--`', USAGE.split('\n')[0]!] });
    break;
  }
  const [command, ...args] = argv.slice(i);
  if (command === undefined) throw new IntuticError('E_USAGE', 'no MCP server command given', { hints: [USAGE.split('\n')[0]!] });
  return { kind: 'run', options: { name: name ?? defaultServerName(command), command, args } };
}
