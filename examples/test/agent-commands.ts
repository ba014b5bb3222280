// How the e2e tests that run one scripted task through each shipped agent start it, and the agent's
// image (built, or reused when its inputs are unchanged). The prompt goes in double quotes: it may
// hold no double quote, $ or backtick. The image without its managed registrations is the project
// gate's world (a user's own agent image).
import { execFileSync } from 'node:child_process';
import { checkEngine, cliVersion, ensureCodexAgentImage, ensureGeminiAgentImage } from '@intutic/sandbox';
import { sandboxBuildEnv } from '@intutic/testkit';
import { agentImage } from './support.ts';

export const AGENTS = ['claude-code', 'codex', 'gemini'] as const;
export type Agent = (typeof AGENTS)[number];

export const AGENT_TITLES: Record<Agent, string> = { 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI' };

/**
 * Codex's configuration names the repetition's proxy, so the command writes it (as in
 * examples/scripts/fault-matrix/codex.yaml, without the MCP server). No --skip-git-repo-check:
 * /work is a git repository, and Codex checks that itself.
 */
const codexCommand = (prompt: string) => `export CODEX_HOME="$HOME/.codex"
mkdir -p "$CODEX_HOME"
cat > "$CODEX_HOME/config.toml" <<TOML
model = "gpt-5-codex"
model_provider = "intutic"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
hooks = true
plugins = false

[model_providers.intutic]
name = "intutic"
base_url = "$OPENAI_BASE_URL"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
supports_websockets = false

[projects."/work"]
trust_level = "trusted"
TOML
codex exec --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust "${prompt}"`;

/** The experiment's `agent:` command that gives `prompt` to the agent, with its shell tool allowed. */
export function agentCommand(agent: Agent, prompt: string): string {
  if (/["$`]/.test(prompt)) throw new Error(`the prompt cannot go in double quotes: ${prompt}`);
  if (agent === 'claude-code') return `claude -p "${prompt}" --allowedTools "Bash"`;
  // As examples/scripts/fault-matrix/gemini.yaml: the model named, so no router call comes first.
  if (agent === 'gemini') return `gemini -m gemini-2.5-pro --yolo -p "${prompt}"`;
  return codexCommand(prompt);
}

/** The agent's image: intutic/agent-sandbox:<version>, or its -codex or -gemini variant. */
export async function imageFor(agent: Agent): Promise<string> {
  if (agent === 'claude-code') return agentImage();
  const engine = await checkEngine({ env: process.env });
  const ensure = agent === 'codex' ? ensureCodexAgentImage : ensureGeminiAgentImage;
  return ensure(engine, { version: cliVersion(), env: sandboxBuildEnv(process.env), onProgress: (line) => process.stderr.write(`[${agent} image] ${line}\n`) });
}

/**
 * The agent's image with the managed registrations taken out (a user's own agent image, as
 * --sandbox-image allows): the project's gate, merged in by connect, decides alone.
 */
export async function unmanagedImageFor(agent: Agent): Promise<string> {
  const base = await imageFor(agent);
  const tag = base.replace(/:/, '-unmanaged:');
  const dockerfile = `FROM ${base}
RUN rm -f /etc/claude-code/managed-settings.json /etc/codex/requirements.toml; \\
    if [ -f /etc/gemini-cli/settings.json ]; then \\
      node -e 'const f="/etc/gemini-cli/settings.json", fs=require("fs"), s=JSON.parse(fs.readFileSync(f,"utf8")); delete s.hooks; fs.writeFileSync(f, JSON.stringify(s))'; \\
    fi
`;
  execFileSync('docker', ['build', '-q', '-t', tag, '-'], { input: dockerfile, stdio: ['pipe', 'ignore', 'inherit'] });
  return tag;
}
