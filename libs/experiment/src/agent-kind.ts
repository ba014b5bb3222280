// Which shipped coding agent an experiment's `agent` command starts, so the run can default to the
// sandbox image that has it (issue 41: "the image follows the agent"). This only picks a default
// image; it is no security decision (the gates recognise agents on their own, by what they are).
// A command that starts none of them, or more than one, picks no agent image.

export const AGENT_KINDS = ['claude-code', 'codex', 'gemini-cli'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/** The command word each agent is started by. */
const COMMAND_WORDS: Record<string, AgentKind> = { claude: 'claude-code', codex: 'codex', gemini: 'gemini-cli' };

/** Words that run the next word as the command: `exec claude …`, `env X=1 codex …`, `timeout 600 gemini …`. */
const PREFIXES = new Set(['exec', 'env', 'command', 'nohup', 'time', 'timeout', 'nice', 'stdbuf']);

/** The words a command segment starts with, past variable assignments and prefixes like `exec`. */
function commandWord(segment: string): string | undefined {
  const words = segment.trim().split(/\s+/);
  for (const word of words) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || PREFIXES.has(word) || /^-/.test(word) || /^\d+[smhd]?$/.test(word)) continue;
    return word
      .replace(/^["']|["']$/g, '')
      .split('/')
      .pop();
  }
  return undefined;
}

/**
 * The shipped agents `command` starts: the first word of each of its simple commands (split at
 * newlines, `;`, `&&`, `||`, `|`, `(` and `)`), by name or path (`/usr/local/bin/claude`). Quoted
 * text is not split, so a prompt that mentions another agent does not count.
 */
export function agentKindsIn(command: string): AgentKind[] {
  const unquoted = command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, (q) => q.replace(/[;&|()\n]/g, ' '));
  const kinds = new Set<AgentKind>();
  for (const segment of unquoted.split(/\n|;|&&|\|\||\||\(|\)/)) {
    const word = commandWord(segment);
    const kind = word === undefined ? undefined : COMMAND_WORDS[word];
    if (kind) kinds.add(kind);
  }
  return [...kinds];
}

/** The one shipped agent the command starts, or null (none, or several). */
export function agentKindOf(command: string): AgentKind | null {
  const kinds = agentKindsIn(command);
  return kinds.length === 1 ? kinds[0]! : null;
}
