// The MCP servers a task needs (issue 37): an experiment written once as `task:` names them by their
// own command line, and each profile hands them to its agent the way that agent takes MCP servers —
// Claude Code's --mcp-config, Codex's config.toml, Gemini CLI's user settings — each started behind
// intutic-mcp-proxy, so the experiment's MCP faults (inject.tool_result, tool.stale_data, …) fire
// under every agent alike.
import { z } from 'zod';
import { wrapMcpServer } from '@intutic/governance';

/** A server's name: what its tools are prefixed with (`mcp__fs__read_text_file`). */
export const MCP_SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export const mcpServerSchema = z.strictObject({
  command: z.string().min(1).regex(/^\S+$/, 'is one program (its arguments go in args)').describe('the server program, started in the sandbox'),
  args: z.array(z.string()).default([]).describe('its arguments, one word each'),
});
export type McpServer = z.output<typeof mcpServerSchema>;

/** Servers by name, in the order the file gives them. */
export type McpServers = Record<string, McpServer>;

export const mcpServersSchema = z
  .record(z.string(), mcpServerSchema)
  .superRefine((servers, ctx) => {
    for (const name of Object.keys(servers)) {
      if (!MCP_SERVER_NAME_PATTERN.test(name))
        ctx.addIssue({ code: 'custom', path: [name], message: `"${name}": a server name is lowercase letters, digits, - and _ (at most 32)` });
    }
  })
  .describe('with task: the MCP servers the agent gets under every profile, by name, each behind intutic-mcp-proxy');

/** The variables the MCP proxy needs; Codex starts a server with a reduced environment, so they are passed on by name. */
const PROXY_ENV = ['INTUTIC_SANDBOX', 'INTUTIC_CHAOS_PLAN', 'INTUTIC_CHAOS_EVENTS', 'INTUTIC_SNAPSHOT_RULES', 'INTUTIC_APPROVED_BYPASSES'];

function wrapped(name: string, server: McpServer): { command: string; args: string[] } {
  return wrapMcpServer(name, server.command, server.args);
}

/** Claude Code's `--mcp-config` JSON. */
export function claudeMcpConfig(servers: McpServers): string {
  const mcpServers = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, wrapped(name, server)]));
  return JSON.stringify({ mcpServers });
}

/** What Claude Code's --allowedTools needs so every tool of every server runs unattended (the gates still decide). */
export function claudeAllowedServers(servers: McpServers): string[] {
  return Object.keys(servers).map((name) => `mcp__${name}`);
}

/** Gemini CLI's user settings holding the servers, trusted: headless, it cannot ask before a tool runs. */
export function geminiMcpSettings(servers: McpServers): string {
  const mcpServers = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, { ...wrapped(name, server), trust: true }]));
  return JSON.stringify({ mcpServers });
}

/**
 * Codex's `[mcp_servers.<name>]` tables, each required (Codex 0.169 otherwise starts its first turn
 * without a server that is slow to start), for an unquoted heredoc: the values are TOML basic strings
 * (JSON's string syntax is a subset), with `\`, `$` and backquotes escaped from the shell, while the
 * proxy's variables are expanded by it on purpose.
 */
export function codexMcpTables(servers: McpServers): string {
  const str = (text: string): string => JSON.stringify(text).replace(/[\\$`]/g, '\\$&');
  const env = PROXY_ENV.map((name) => `${name} = "\${${name}:-}"`).join(', ');
  return Object.entries(servers)
    .map(([name, server]) => {
      const { command, args } = wrapped(name, server);
      // required: Codex waits for the server before its first model call (otherwise a slow start leaves its tools out of it).
      return [`[mcp_servers.${name}]`, `command = ${str(command)}`, `args = [${args.map(str).join(', ')}]`, 'required = true', `env = { ${env} }`].join('\n');
    })
    .join('\n');
}
