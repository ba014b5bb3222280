// Another coding agent started from a tool call. Its own tool calls run where no gate may see them:
// from a directory whose hook settings do not register the gates, or with settings of its own
// (HOME=…, --settings, CODEX_HOME, GEMINI_CLI_SYSTEM_SETTINGS_PATH). What it will do cannot be read
// from its prompt, so the tier blocks it, as it blocks a script it cannot read. Asking one for its
// version or its help goes through.
import { interpreterOf } from '../invocations.ts';
import { programName } from '../normalize.ts';
import type { VerbHit } from './files.ts';

/** Coding agents' commands, and the names `npx <package>` runs them under. */
const AGENT_COMMANDS = new Set([
  'claude',
  'claude-code',
  'codex',
  'gemini',
  'gemini-cli',
  'cursor-agent',
  'aider',
  'opencode',
  'opencode-ai',
  'amp',
  'qwen',
  'qwen-code',
  'copilot',
  'crush',
]);
/** Their installed packages, in a script path an interpreter runs (`node …/node_modules/@google/gemini-cli/bundle/gemini.js`). */
const AGENT_PACKAGES =
  /(?:node_modules|site-packages|dist-packages)\/(@anthropic-ai\/claude-code|@google\/gemini-cli|@openai\/codex|opencode-ai|@qwen-code\/qwen-code|@github\/copilot|@sourcegraph\/amp|aider)(?:-(?:linux|darwin|win32)[\w-]*)?\//;
/**
 * Flags only coding agents take: a program started with one is an agent under another name
 * (`~/helper -p … --dangerously-skip-permissions`). `--settings` alone is Maven's too, so it counts
 * only beside `-p`/`--print`.
 */
const AGENT_FLAGS =
  /^--(mcp-config|strict-mcp-config|dangerously-skip-permissions|allowedTools|allowed-tools|disallowedTools|disallowed-tools|permission-mode|permission-prompt-tool|append-system-prompt|dangerously-bypass-approvals-and-sandbox|dangerously-bypass-hook-trust|skip-git-repo-check|full-auto|yolo|approval-mode|ask-for-approval|allowed-mcp-server-names)(=|$)/;
/** Their modules, as `python -m <module>` runs them. */
const AGENT_MODULES = new Set(['aider']);
const ONLY_ASKS = new Set(['--version', '-v', '-V', '--help', '-h']);

/** The agent an interpreter runs as its script or module; null for code given inline (the code tier reads that). */
function interpretedAgent(args: readonly string[], codeOptions: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (codeOptions.includes(a)) return null;
    if (a === '-m') return AGENT_MODULES.has(args[i + 1] ?? '') ? args[i + 1]! : null;
    if (!a.startsWith('-')) return AGENT_PACKAGES.exec(a)?.[1] ?? null;
  }
  return null;
}

function agentOf(program: string, args: readonly string[]): string | null {
  if (AGENT_COMMANDS.has(program)) return program;
  const flag = args.find((a) => AGENT_FLAGS.test(a) || (a.startsWith('--settings') && args.some((x) => x === '-p' || x === '--print')));
  if (flag !== undefined) return `${program} (started with ${flag.split('=')[0]!})`;
  const codeOptions = interpreterOf(program);
  return codeOptions ? interpretedAgent(args, codeOptions) : null;
}

/** A normalized simple command that starts a coding agent, or null. */
export function nestedAgentHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  const agent = agentOf(program, args);
  if (agent === null) return null;
  if (AGENT_COMMANDS.has(program) && args.length > 0 && args.every((a) => ONLY_ASKS.has(a))) return null;
  return agentRunHit(agent);
}

const agentRunHit = (agent: string): VerbHit => ({
  rule: 'destructive.ungoverned_agent',
  detail: `starting the coding agent ${agent}, whose own tool calls no gate would see`,
});

/** The agent package a file belongs to, from its path (a link's real path included). */
export const agentPackageOf = (path: string): string | null => AGENT_PACKAGES.exec(path)?.[1] ?? null;

/** A file the gate found to be a coding agent (by its package or its content hash), run with `args`. */
export function agentFileHit(agent: string, args: readonly string[]): VerbHit | null {
  return args.length > 0 && args.every((a) => ONLY_ASKS.has(a)) ? null : agentRunHit(agent);
}

/** Commands that make a file available under another name. */
const COPIERS = new Set(['cp', 'ln', 'link', 'install', 'rsync', 'mv']);

/**
 * A coding agent's program copied or linked under another name in the same command line (`cp
 * "$(which claude)" /tmp/h && /tmp/h -p …`; the lookup is expanded to the program's path like any
 * other word): the gate looks at a program's content only once it is on disk, before this command has
 * made it, so the copy itself is the ungoverned start.
 */
export function agentCopyHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  if (!COPIERS.has(program)) return null;
  const operands = args.filter((w) => !w.startsWith('-'));
  for (const word of operands.length > 1 ? operands.slice(0, -1) : operands) {
    const agent = (word.includes('/') && AGENT_COMMANDS.has(programName(word)) ? programName(word) : null) ?? agentPackageOf(word);
    if (agent !== null) return { rule: 'destructive.ungoverned_agent', detail: `${program} of the coding agent ${agent} under another name` };
  }
  return null;
}
