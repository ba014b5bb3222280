// Profiles (issue 37): how an agent is started with an experiment's task. An experiment that gives
// its prompt as `task:` is written once and run under any profile; the profile turns the task into
// the `agent` command the sandbox runs. The shipped agents' profiles are built in; a suite file adds
// its own (another model, other flags, or `agent: command` for any other agent CLI).
import { agentKindOf, type AgentKind } from './agent-kind.ts';
import { claudeAllowedServers, claudeMcpConfig, codexMcpTables, geminiMcpSettings, type McpServers } from './mcp-servers.ts';

export const PROFILE_AGENTS = ['claude-code', 'codex', 'gemini-cli', 'command'] as const;
export type ProfileAgent = (typeof PROFILE_AGENTS)[number];

export interface Profile {
  /** How the suite names it: `claude-code`, `codex-mini`, a user's own. */
  id: string;
  agent: ProfileAgent;
  /** The model the agent is asked for; null: the agent's own default. */
  model: string | null;
  /** Extra words after the agent's own flags (built-ins), or the whole template (`command`), with {task} and {model}. */
  args: string | null;
  /** The sandbox image; null: the shipped agent's image (a `command` profile must name one). */
  image: string | null;
  /** MCP servers this profile's agent always gets, besides the ones an experiment's task needs. */
  mcp_servers: McpServers;
}

/** Each placeholder a template may hold; {task} is mandatory in a `command` profile. */
export const TEMPLATE_PLACEHOLDERS = ['{task}', '{model}'] as const;

/** One shell word, whatever the text holds: single-quoted, each ' written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// The built-in agents' start lines. Each runs the agent headless in /work with its tools allowed:
// the sandbox and the gates are the boundary, not the agent's own prompts, which nobody answers.
// Codex's hook trust flag makes it run the PreToolUse hook gate `intutic connect` wrote.
const BUILT_IN_TEMPLATES: Record<AgentKind, string> = {
  'claude-code': 'claude -p {task} --allowedTools {allowed}',
  codex: 'codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust {task}',
  'gemini-cli': 'gemini --yolo -p {task}',
};

/** Claude Code's own tools a task may use; each MCP server's tools are added by server. */
const CLAUDE_TOOLS = ['Bash', 'Read', 'Edit', 'Write'];

/**
 * Codex reads its provider from its own configuration, not from OPENAI_BASE_URL alone: the
 * repetition's proxy as a Responses provider without websockets, /work trusted (so its hooks run),
 * no update check, analytics or plugin catalog (they would go out through the egress proxy), and the
 * MCP servers. Its gates come from the image's admin requirements.
 */
function codexPrelude(servers: McpServers): string {
  const tables = Object.keys(servers).length > 0 ? [codexMcpTables(servers)] : [];
  return [
    'export CODEX_HOME="$HOME/.codex"',
    'mkdir -p "$CODEX_HOME"',
    'cat > "$CODEX_HOME/config.toml" <<TOML',
    'model_provider = "intutic"',
    'check_for_update_on_startup = false',
    '[analytics]',
    'enabled = false',
    '[features]',
    'hooks = true',
    'plugins = false',
    '[model_providers.intutic]',
    'name = "intutic"',
    'base_url = "$OPENAI_BASE_URL"',
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    'supports_websockets = false',
    '[projects."/work"]',
    'trust_level = "trusted"',
    ...tables,
    'TOML',
    '',
  ].join('\n');
}

/** Gemini CLI takes MCP servers from the user's settings (the project's hold the gates and are read-only in the sandbox). */
function geminiPrelude(servers: McpServers): string {
  if (Object.keys(servers).length === 0) return '';
  return `mkdir -p "$HOME/.gemini" && printf '%s\\n' ${shellQuote(geminiMcpSettings(servers))} > "$HOME/.gemini/settings.json"\n`;
}

/** What runs before an agent in the sandbox, and the MCP servers on its own command line. */
function prelude(agent: AgentKind, servers: McpServers): string {
  if (agent === 'codex') return codexPrelude(servers);
  if (agent === 'gemini-cli') return geminiPrelude(servers);
  return '';
}

/** Where each built-in agent takes its model. */
const MODEL_FLAGS: Record<AgentKind, string> = { 'claude-code': '--model', codex: '--model', 'gemini-cli': '-m' };

export const BUILT_IN_PROFILES: readonly Profile[] = (['claude-code', 'codex', 'gemini-cli'] as const).map((agent) => ({
  id: agent,
  agent,
  model: null,
  args: null,
  image: null,
  mcp_servers: {},
}));

export function builtInProfile(id: string): Profile | undefined {
  return BUILT_IN_PROFILES.find((p) => p.id === id);
}

/** Each {name} of `values` in the template, as one quoted shell word; other braces stay as they are. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (word, name: string) => (name in values ? shellQuote(values[name]!) : word));
}

/**
 * The `agent` command that starts the profile's agent on `task` (each value one quoted shell word),
 * with the profile's MCP servers and the task's own (`servers`, the experiment's mcp_servers).
 */
export function agentCommandFor(profile: Profile, task: string, servers: McpServers = {}): string {
  const all = { ...profile.mcp_servers, ...servers };
  const values = { task, model: profile.model ?? '' };
  if (profile.agent === 'command') return fill(profile.args ?? '', values);
  const own = { ...values, allowed: [...CLAUDE_TOOLS, ...claudeAllowedServers(all)].join(',') };
  const [word, ...rest] = BUILT_IN_TEMPLATES[profile.agent].split(' ');
  const model = profile.model === null ? '' : ` ${MODEL_FLAGS[profile.agent]} ${shellQuote(profile.model)}`;
  const mcp = profile.agent === 'claude-code' && Object.keys(all).length > 0 ? ` --mcp-config ${shellQuote(claudeMcpConfig(all))}` : '';
  const extra = profile.args ? ` ${fill(profile.args, values)}` : '';
  return `${prelude(profile.agent, all)}${word}${model}${mcp} ${fill(rest.join(' '), own)}${extra}`;
}

/** The shipped agent a profile starts, or null for a `command` profile that starts none of them. */
export function profileAgentKind(profile: Profile): AgentKind | null {
  return profile.agent === 'command' ? agentKindOf(profile.args ?? '') : profile.agent;
}

/** The profile an experiment with only `task:` runs under outside a suite (`chaos run`). */
export const DEFAULT_PROFILE_ID = 'claude-code';
