// Switches that make a harness start without the gate: Claude Code's bare mode
// (`CLAUDE_CODE_SIMPLE=1`, `--bare`) and Gemini CLI's restricted mode or an untrusted workspace
// (`GEMINI_RESTRICTED_MODE`, `GEMINI_CLI_TRUST_WORKSPACE` not on), which skip hooks, and the variables and flags that move where
// a harness reads its settings (CLAUDE_CONFIG_DIR, CODEX_HOME, Gemini CLI's system settings path,
// `--setting-sources`), so the settings that register the gate are not read, and `intutic disconnect`,
// which takes the gate out of them. Set for one command,
// exported, declared, written to a start-up or .env file, or set from interpreter code: blocked.
import type { VerbHit } from './files.ts';

/** Variables that turn hooks off when set to anything but an explicit "off" (Gemini CLI's restricted mode skips them). */
const OFF_SWITCHES = new Set(['CLAUDE_CODE_SIMPLE', 'GEMINI_RESTRICTED_MODE']);
/** Variables whose "on" keeps the hooks: anything else turns them off (Gemini CLI runs no hooks in an untrusted folder). */
const ON_REQUIRED = new Set(['GEMINI_CLI_TRUST_WORKSPACE']);
/** Variables that move a harness's settings elsewhere, whatever their value. */
const MOVERS = new Set(['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_SYSTEM_SETTINGS_PATH', 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH', 'GEMINI_CLI_HOME']);
const NAMES = [...OFF_SWITCHES, ...ON_REQUIRED, ...MOVERS].join('|');
const FALSY = /^\s*["']?(|0|false|no|off)["']?\s*$/i;
const TRUTHY = /^\s*["']?(1|true|yes|on)["']?\s*$/i;
/** `NAME=value` anywhere in a word: `export NAME=1` written to a file, an `env` operand. */
const IN_TEXT = new RegExp(`(?:^|[^A-Za-z0-9_])(${NAMES})=([^\\s;&|'"]*)`, 'g');
/** In code: `os.environ['NAME'] = '1'`, `process.env.NAME = "1"`, `{"NAME": "1"}`, `putenv("NAME=1")`, `$ENV{NAME}=1`. */
const IN_CODE = new RegExp(`\\b(${NAMES})\\b['"\\]}]*\\s*(?:=>|[=:,])\\s*['"]?([^'"\\s,)}\\]]*)`, 'g');
const READERS = /^(grep|egrep|fgrep|rg|ag|ack|git|cat|less|more|head|tail|man|printenv|unset|find|fd|jq|diff|wc)$/;
const HARNESSES = /^(claude|claude-code)$/;

const hit = (detail: string): VerbHit => ({ rule: 'destructive.hooks_disabled', detail });

function switchedOn(name: string, value: string): boolean {
  if (ON_REQUIRED.has(name)) return !TRUTHY.test(value);
  return MOVERS.has(name) ? value !== '' : !FALSY.test(value);
}

/** A simple command (expanded, wrappers still on) that sets a hook switch, or starts a harness without its hooks. */
export function hookSwitchHit(argv: readonly string[]): VerbHit | null {
  const program = (argv.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) ?? '').replace(/^.*\//, '');
  if (!READERS.test(program)) {
    for (const word of argv) {
      for (const m of word.matchAll(IN_TEXT)) if (switchedOn(m[1]!, m[2]!)) return hit(`setting ${m[1]}, which turns the gate off`);
    }
  }
  const names = new RegExp(`^(${NAMES})$`);
  if (/^(export|declare|typeset|local|readonly)$/.test(program) && argv.some((a) => names.test(a))) return hit('exporting a switch that turns the gate off');
  if (program === 'setenv' && names.test(argv[argv.indexOf(program) + 1] ?? '')) return hit(`setenv ${argv[argv.indexOf(program) + 1]}`);
  // The harness may sit behind wrappers (`sudo claude --bare`): any word naming it.
  const harness = argv.map((a) => a.replace(/^.*\//, '')).find((a) => HARNESSES.test(a));
  if (harness !== undefined && argv.some((a) => a === '--bare' || a.startsWith('--setting-sources')))
    return hit(`${harness} started without its hooks (--bare, --setting-sources)`);
  // `intutic disconnect` takes the gates out of the project's hook settings.
  const intutic = argv.findIndex((a) => /^intutic(\.mjs)?$/.test(a.replace(/^.*\//, '')));
  if (intutic !== -1 && argv.slice(intutic + 1).find((a) => !a.startsWith('-')) === 'disconnect')
    return hit('intutic disconnect: the gates taken out of the hook settings');
  return null;
}

/** Interpreter code that sets a hook switch in its environment or a file. */
export function hookSwitchInCode(code: string): VerbHit | null {
  for (const m of code.matchAll(IN_CODE)) if (switchedOn(m[1]!, m[2]!)) return hit(`code setting ${m[1]}, which turns the gate off`);
  return null;
}
