// The check that a repetition never runs ungoverned: once the project has gates (intutic connect ran),
// every hook settings file connect writes that the repetition has must register a gate, and no
// settings file it has may switch all hooks off. Run on the plan at enqueue (chaos run refuses) and
// on the worktree before the sandbox starts (a worker refuses).
import { IntuticError } from '@intutic/errors';
import { hasGateRegistration, hooksTurnedOff } from '@intutic/governance';
import { HOOK_SETTINGS_FILES } from './schema.ts';

/** The settings files `intutic connect` registers the gates in (settings.local.json is the user's own). */
export const CONNECT_SETTINGS_FILES = ['.claude/settings.json', '.codex/hooks.json', '.cursor/hooks.json', '.gemini/settings.json'] as const;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `settings`: each hook settings file the repetition has, by worktree path, as text. */
export function assertGoverned(settings: ReadonlyMap<string, string>): void {
  const problems: string[] = [];
  for (const file of HOOK_SETTINGS_FILES) {
    const text = settings.get(file);
    if (text === undefined) continue;
    const value = parse(text);
    const off = hooksTurnedOff(value);
    if (off) problems.push(`${file}: ${off}`);
    else if ((CONNECT_SETTINGS_FILES as readonly string[]).includes(file) && !hasGateRegistration(value))
      problems.push(`${file}: ${value === undefined ? 'not valid JSON' : 'registers no intutic gate'}`);
  }
  if (problems.length === 0) return;
  throw new IntuticError(
    'E_UNGOVERNED',
    `the repetition's hook settings would run a harness without intutic's gates, so it does not start:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    {
      hints: [
        'Run `intutic connect` in the project root (again): it registers the gates in every harness settings file, merged into the ones you commit.',
        'A settings file the commit holds gets the gates from your working copy; edits that remove them or turn hooks off are not carried.',
      ],
    },
  );
}
