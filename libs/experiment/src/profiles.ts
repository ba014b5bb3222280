// Profiles (issue 37): how an agent is started with an experiment's task. An experiment that gives
// its prompt as `task:` is written once and run under any profile; the profile turns the task into
// the `agent` command the sandbox runs. The shipped agents' profiles are built in; a suite file adds
// its own (another model, other flags, or `agent: command` for any other agent CLI).
import { agentKindOf, type AgentKind } from './agent-kind.ts';

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
  'claude-code': 'claude -p {task} --allowedTools "Bash,Read,Edit,Write"',
  codex: 'codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust {task}',
  'gemini-cli': 'gemini --yolo -p {task}',
};

/**
 * What runs before an agent in the sandbox. Codex reads its provider from its own configuration,
 * not from OPENAI_BASE_URL alone: the repetition's proxy as a Responses provider without websockets,
 * /work trusted (so its hooks run), and no update check, analytics or plugin catalog, which would
 * otherwise go out through the egress proxy. Its gates come from the image's admin requirements.
 */
const PRELUDES: Partial<Record<AgentKind, string>> = {
  codex: [
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
    'TOML',
    '',
  ].join('\n'),
};

/** Where each built-in agent takes its model. */
const MODEL_FLAGS: Record<AgentKind, string> = { 'claude-code': '--model', codex: '--model', 'gemini-cli': '-m' };

export const BUILT_IN_PROFILES: readonly Profile[] = (['claude-code', 'codex', 'gemini-cli'] as const).map((agent) => ({
  id: agent,
  agent,
  model: null,
  args: null,
  image: null,
}));

export function builtInProfile(id: string): Profile | undefined {
  return BUILT_IN_PROFILES.find((p) => p.id === id);
}

function fill(template: string, task: string, model: string | null): string {
  return template.replace(/\{task\}|\{model\}/g, (word) => (word === '{task}' ? shellQuote(task) : shellQuote(model ?? '')));
}

/** The `agent` command that starts the profile's agent on `task` (each value one quoted shell word). */
export function agentCommandFor(profile: Profile, task: string): string {
  if (profile.agent === 'command') return fill(profile.args ?? '', task, profile.model);
  const [word, ...rest] = BUILT_IN_TEMPLATES[profile.agent].split(' ');
  const model = profile.model === null ? '' : ` ${MODEL_FLAGS[profile.agent]} ${shellQuote(profile.model)}`;
  const extra = profile.args ? ` ${fill(profile.args, task, profile.model)}` : '';
  return `${PRELUDES[profile.agent] ?? ''}${word}${model} ${fill(rest.join(' '), task, profile.model)}${extra}`;
}

/** The shipped agent a profile starts, or null for a `command` profile that starts none of them. */
export function profileAgentKind(profile: Profile): AgentKind | null {
  return profile.agent === 'command' ? agentKindOf(profile.args ?? '') : profile.agent;
}

/** The profile an experiment with only `task:` runs under outside a suite (`chaos run`). */
export const DEFAULT_PROFILE_ID = 'claude-code';
