// Where coding-agent harnesses read their settings, hooks among them: a write there can switch the
// gate off for the next agent started (`{"disableAllHooks": true}`), so every such write is a
// protected one, whichever command makes it, appends included. Home: `~/.claude*`, `~/.codex`,
// `~/.gemini`, `~/.cursor` … and their `~/.config/<name>`; system: `/etc/claude-code`, `/etc/codex`,
// `/etc/gemini-cli`; any project: `.claude/settings*.json`, `.codex/*.toml` and `.codex/hooks.json`,
// `.gemini/*.json`, `.cursor/hooks.json`, `.mcp.json` (whose servers connect wraps in the MCP proxy),
// `.intutic/` (the gates those settings run), and those directories themselves. Also: every dotfile and dot-directory
// directly in home is itself a protected target of a recursive delete, caches included.
import type { Scope } from '../expand.ts';
import { absolutePath, homeOf } from '../paths.ts';
import type { Redirect } from '../shell.ts';
import type { VerbHit } from './files.ts';

const HOME_HARNESS =
  /^(\.claude[^/]*|\.codex|\.gemini|\.cursor|\.qwen|\.copilot|\.opencode|\.aider[^/]*|\.crush|\.amp|\.config\/(claude[^/]*|codex|gemini[^/]*|cursor|qwen[^/]*|opencode|crush|amp|github-copilot))(\/|$)/;
const SYSTEM_HARNESS = /^\/(etc|Library\/Application Support)\/(claude-code|ClaudeCode|codex|gemini-cli)(\/|$)/;
const PROJECT_HARNESS =
  /\/(\.claude|\.codex|\.gemini|\.cursor|\.qwen)$|\/\.intutic(\/|$)|\/\.claude\/settings[^/]*\.json$|\/\.codex\/[^/]*\.(toml|json)$|\/\.mcp\.json$|\/\.(gemini|qwen)\/[^/]*\.json$|\/\.cursor\/(hooks|cli)[^/]*\.json$/;

/** Whether an absolute path (from absolutePath) is a harness's settings, or the directory holding them. */
export function isHarnessConfigAbs(path: string, home: string): boolean {
  if (SYSTEM_HARNESS.test(path) || PROJECT_HARNESS.test(path.replace(/\/+$/, ''))) return true;
  return path.startsWith(home + '/') && HOME_HARNESS.test(path.slice(home.length + 1));
}

/** `~/.ssh`, `~/.profile`, `~/.cache`: an entry directly in home whose name starts with a dot. */
export function isHomeDotEntry(dir: string, word: string, scope: Scope): boolean {
  const path = absolutePath(dir, word, scope.ctx).replace(/\/+$/, '');
  const home = homeOf(scope.ctx);
  return path.startsWith(home + '/') && /^\.[^/]+$/.test(path.slice(home.length + 1)) && !/^\.\.?$/.test(path.slice(home.length + 1));
}

/** An append (`>>`, `tee -a`) to a harness's settings: the writes files.ts leaves to everyday work. */
export function harnessAppendHit(argv: readonly string[], redirects: readonly Redirect[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  const appended = redirects.filter((r) => r.op === '>>').map((r) => r.target);
  if (program === 'tee' && args.some((a) => /^-[a-zA-Z]*a|^--append$/.test(a))) appended.push(...args.filter((a) => !a.startsWith('-')));
  const home = homeOf(scope.ctx);
  const t = appended.find((x) => isHarnessConfigAbs(absolutePath(scope.dir, x, scope.ctx), home));
  return t === undefined ? null : { rule: 'destructive.protected_file', detail: `appending to the agent settings ${t}` };
}
