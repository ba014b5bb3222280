// Which shipped agent an agent command starts: it picks the run's default image (the image follows
// the agent), so a command word counts and a word inside a prompt or an argument does not.
import { describe, expect, it } from 'vitest';
import { agentKindOf, agentKindsIn } from '../src/index.ts';

describe('agentKindOf', () => {
  it.each([
    ['claude -p "Add lodash" --allowedTools "Bash(npm *),Read"', 'claude-code'],
    ['exec claude -p hi', 'claude-code'],
    ['CLAUDE_CODE_MAX_OUTPUT_TOKENS=800 /usr/local/bin/claude -p hi; echo done', 'claude-code'],
    ['mkdir -p "$HOME/.codex" && cat > "$HOME/.codex/config.toml" <<TOML\nmodel = "x"\nTOML\ncodex exec --skip-git-repo-check "fix it"', 'codex'],
    ['timeout 600 gemini -m gemini-2.5-pro --yolo -p "Work through CHECKLIST.md"', 'gemini-cli'],
    ['(cd app && env DEBUG=1 gemini -p x)', 'gemini-cli'],
  ])('%s → %s', (command, kind) => {
    expect(agentKindOf(command)).toBe(kind);
  });

  it.each([
    ['my-agent --model claude-sonnet-4', 'a model name is no command'],
    ['python run_agent.py "ask claude; then codex"', 'a prompt mentioning agents'],
    ['echo claude', 'an argument'],
    ['npm test', 'no agent at all'],
  ])('%s → none (%s)', (command) => {
    expect(agentKindOf(command)).toBeNull();
  });

  it('names several agents when a command starts several, and then picks none', () => {
    const command = 'claude -p "plan it" > plan.md && codex exec "do plan.md"';
    expect(agentKindsIn(command).sort()).toEqual(['claude-code', 'codex']);
    expect(agentKindOf(command)).toBeNull();
  });
});
