// The agents the shipped examples run with: Claude Code (the examples' own commands) and Gemini CLI,
// which gets the same prompt and the same MCP servers. Each runs in its own agent image
// (examples/agent-sandbox): intutic/agent-sandbox:<version>, and its -gemini variant.
import { IntuticError } from '@intutic/errors';
import { cliVersion, ensureAgentImage, ensureGeminiAgentImage, type Engine, type EnsureAgentImageOptions } from '@intutic/sandbox';

export const AGENTS = ['claude', 'gemini'] as const;
export type AgentName = (typeof AGENTS)[number];

export const AGENT_TITLES: Record<AgentName, string> = { claude: 'Claude Code', gemini: 'Gemini CLI' };

/** The agent's image, built on first use (the Gemini CLI image is built on the Claude Code one). */
export function ensureExampleImage(agent: AgentName, engine: Engine, options: Omit<EnsureAgentImageOptions, 'version'>): Promise<string> {
  const build = { version: cliVersion(), ...options };
  return agent === 'gemini' ? ensureGeminiAgentImage(engine, build) : ensureAgentImage(engine, build);
}

/**
 * The model Gemini CLI is told to use. Naming it keeps the CLI from asking a router model first
 * (its `auto` setting does), so every model call is the agent's own.
 */
export const GEMINI_MODEL = 'gemini-2.5-pro';

function quotedArgument(command: string, flag: string, quote: '"' | "'"): string | undefined {
  const at = command.indexOf(`${flag} ${quote}`);
  if (at < 0) return undefined;
  const start = at + flag.length + 2;
  const end = command.indexOf(quote, start);
  return end < 0 ? undefined : command.slice(start, end);
}

function notConvertible(shipped: string, what: string): IntuticError {
  return new IntuticError('E_EXPERIMENT_INVALID', `cannot run this example's agent command with Gemini CLI: ${what}`, {
    hints: [`the command is: ${shipped.slice(0, 200)}`, 'write `claude -p "<prompt>"`, with MCP servers in `--mcp-config \'<json>\'`'],
  });
}

/**
 * Gemini CLI's command for an example written for Claude Code: its `-p "<prompt>"` and its
 * `--mcp-config '<json>'` servers, which Gemini CLI reads from the user's settings
 * (~/.gemini/settings.json; the project's .gemini/settings.json holds the gates intutic connect
 * wrote, and is read-only in the sandbox). `--yolo` because Gemini CLI runs no tool unattended
 * without it; the gates still decide every call. Claude Code's `--allowedTools` has no equivalent
 * and is dropped.
 */
export function geminiCommand(shipped: string): string {
  if (!/^\s*claude\s/.test(shipped)) throw notConvertible(shipped, 'it does not start with `claude`');
  const prompt = quotedArgument(shipped, '-p', '"');
  if (prompt === undefined) throw notConvertible(shipped, 'no `-p "<prompt>"`');
  const run = `gemini -m ${GEMINI_MODEL} --yolo -p "${prompt}"`;
  const mcpConfig = quotedArgument(shipped, '--mcp-config', "'");
  if (mcpConfig === undefined) return run;
  let servers: Record<string, Record<string, unknown>>;
  try {
    servers = (JSON.parse(mcpConfig) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;
  } catch {
    throw notConvertible(shipped, '--mcp-config is not JSON');
  }
  // Trusted, as --yolo: headless, Gemini CLI cannot ask before a tool runs (the gates still decide).
  const trusted = Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, { ...server, trust: true }]));
  const settings = JSON.stringify({ mcpServers: trusted });
  if (settings.includes("'")) throw notConvertible(shipped, "--mcp-config holds a single quote, which the command's quoting cannot carry");
  return `mkdir -p "$HOME/.gemini" && printf '%s\\n' '${settings}' > "$HOME/.gemini/settings.json" && ${run}`;
}

/** The example's agent command for this agent. */
export function agentCommand(agent: AgentName, shipped: string): string {
  return agent === 'gemini' ? geminiCommand(shipped) : shipped;
}
