// A package manager's settings whose value is a program it runs later, as git's `core.pager` is
// (systems.ts): `npm config set script-shell X` makes every `npm run` start X, so the value is judged
// now as the command it will be (a script file there is read as `bash f` reads it). npm's, pnpm's
// and yarn's `config set` and `set`, in any location (`-g`, `--location=user`), the same keys given
// as an option (`npm run build --script-shell=X`) or an environment prefix (`npm_config_script_shell=X
// npm test`). Settings that run nothing themselves (`ignore-scripts`) are not judged. A script written
// into package.json from the command line (`npm pkg set scripts.postinstall="…"`, `npm set-script
// prepare "…"`) is a command npm runs later too: judged now.
import { programName } from '../normalize.ts';

const MANAGERS = /^(npm|pnpm|yarn)$/;
/** Keys whose value the manager runs: the shell of every script, npm exec's and explore's shell, the editor, the browser, git, node-gyp. */
const COMMAND_KEYS = /^(script-shell|shell|editor|browser|git|node-gyp)$/;

/** The value of each command-running key set on this command line. */
function settings(program: string, args: readonly string[], line: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of line) {
    const env = /^npm_config_([a-z_]+)=(.*)$/is.exec(w);
    if (env && COMMAND_KEYS.test(env[1]!.toLowerCase().replace(/_/g, '-'))) out.push(env[2]!);
  }
  if (!MANAGERS.test(program)) return out;
  args.forEach((a, i) => {
    const option = /^--([a-z-]+)(?:=(.*))?$/s.exec(a);
    if (option?.[2] !== undefined && COMMAND_KEYS.test(option[1]!)) out.push(option[2]);
    else if (a === '--script-shell' && args[i + 1] !== undefined) out.push(args[i + 1]!);
  });
  const words = args.filter((a, i) => !a.startsWith('-') && !/^(--location|-L|--userconfig|--globalconfig)$/.test(args[i - 1] ?? ''));
  if (words[0] === 'pkg' && words[1] === 'set') out.push(...words.slice(2).flatMap((w) => /^scripts\.[^=]+=(.*)$/s.exec(w)?.[1] ?? []));
  if (words[0] === 'set-script' && words[2] !== undefined) out.push(words[2]);
  const at = words[0] === 'set' ? 1 : /^(config|c)$/.test(words[0] ?? '') && words[1] === 'set' ? 2 : -1;
  const pair = words[at];
  if (pair === undefined) return out;
  const eq = pair.indexOf('=');
  const [key, value] = eq > 0 ? [pair.slice(0, eq), pair.slice(eq + 1)] : [pair, words[at + 1]];
  if (COMMAND_KEYS.test(key) && value !== undefined) out.push(value);
  return out;
}

/** The commands a package manager's settings on this line make it run later, to be judged as command lines. */
export function packageConfigCommands(words: readonly string[]): string[] {
  // The words as written, wrappers included: normalize.ts reads `pnpm config …` as the script `config`.
  const at = words.findIndex((w) => MANAGERS.test(programName(w)));
  return settings(programName(words[at] ?? ''), words.slice(at + 1), words).filter((v) => v.trim() !== '');
}
