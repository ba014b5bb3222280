// Where the real agent binaries the scripted model drives are installed (scripts/setup/agents.sh
// puts them in ${INTUTIC_AGENTS_DIR:-~/.cache/intutic-agents}), and the environment and config files
// that point each (Claude Code, Codex, the Gemini CLI) at a scripted model or a proxy so it runs offline.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Requirement } from '../requirements.ts';

export type AgentName = 'claude' | 'codex' | 'gemini';

export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.INTUTIC_AGENTS_DIR || join(env.HOME || homedir(), '.cache', 'intutic-agents');
}

export function agentBin(name: AgentName, env: NodeJS.ProcessEnv = process.env): string {
  return join(agentsDir(env), 'node_modules', '.bin', name);
}

/** For requireOrSkip: the agent is installed (locally a missing one skips; in CI it fails). */
export function agentRequirement(name: AgentName, env: NodeJS.ProcessEnv = process.env): Requirement {
  const ok = existsSync(agentBin(name, env));
  return { ok, reason: ok ? '' : `${name} is not installed in ${agentsDir(env)} (run: bash scripts/setup/agents.sh)` };
}

/** Claude Code talking only to `baseUrl` (`POST /v1/messages?beta=true` and count_tokens). */
export function claudeEnv(baseUrl: string, home: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-model',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    HOME: home,
  };
}

/** CODEX_HOME/config.toml naming a Responses-API provider at `baseUrl` (…/v1), with no websockets. */
export function codexConfig(baseUrl: string, model = 'gpt-5-codex'): string {
  return [
    `model = "${model}"`,
    'model_provider = "intutic"',
    '',
    '[model_providers.intutic]',
    'name = "intutic"',
    `base_url = "${baseUrl.replace(/\/+$/, '')}/v1"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    'supports_websockets = false',
    '',
  ].join('\n');
}

/**
 * The Gemini CLI talking only to `baseUrl` (`POST /v1beta/models/<model>:generateContent` for its
 * router, `:streamGenerateContent?alt=sse` for the turns). It needs <home>/.gemini/settings.json as
 * well (writeGeminiSettings): without the auth type chosen there it exits 41, "Invalid auth method
 * selected.", before any request.
 */
export function geminiEnv(baseUrl: string, home: string): Record<string, string> {
  return {
    GOOGLE_GEMINI_BASE_URL: baseUrl.replace(/\/+$/, ''),
    GEMINI_API_KEY: 'gemini-scripted-model',
    GEMINI_CLI_TRUST_WORKSPACE: 'true', // else an untrusted folder is asked about, or runs restricted
    HOME: home,
  };
}

/**
 * The Gemini CLI's user settings: the API key as the auth type, and no usage statistics (they go to
 * play.googleapis.com on every run) nor update checks (registry.npmjs.org, interactive runs).
 */
export function geminiSettings(): string {
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  return `${JSON.stringify(settings, null, 2)}\n`;
}

/** Write geminiSettings() where the CLI run with HOME=`home` reads them; returns the file's path. */
export function writeGeminiSettings(home: string): string {
  const path = join(home, '.gemini', 'settings.json');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(path, geminiSettings());
  return path;
}
