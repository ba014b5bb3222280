// A fork bomb: a function that starts itself twice through a pipe (`:(){ :|:& };:`), or a loop that
// never ends and starts a process in the background every round without waiting for it (`while
// true; do bash & done`) or a script that starts itself again in the background (`$0 & $0 &`), which
// fill the process table as surely. Read from the script's pipelines
// (heredoc bodies are text, not code), each with the `&` that sent it to the background.
import type { Pipeline } from '../shell.ts';

const compact = (raw: string): string => raw.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '').replace(/\s+/g, ' ');
const RECURSIVE = [/(?<![\w:.-])([A-Za-z_:.][\w:.-]*) ?\( ?\) ?\{[^}]*?\1 ?\| ?\1 ?&?[^}]*\}/, /function ([A-Za-z_][\w-]*) ?(?:\( ?\))? ?\{[^}]*\1 ?\| ?\1/];
/** A loop whose condition is always true (`while true`, `while :`, `until false`, `for ((;;))`, whose `;;` ends the first pipeline), and its body. */
const ENDLESS_LOOP =
  /(?:^|[;&|({\s])(?:while (?:true|:|\[ 1 \]|\(\( ?1 ?\)\)|\/bin\/true|\/usr\/bin\/true)|until (?:false|\/bin\/false|\/usr\/bin\/false)|for ?\(\(;) ?;? ?do ((?:(?!\bdone\b).)*)\bdone\b/g;
/** A lone `&` (not `&&`, `>&`, `&>`, `|&`): what precedes it runs in the background. */
const BACKGROUND = /(?<![&>|])&(?![&>])/;

/** `$0`, `"${0}"`: the script itself, as its command or as a shell's script (`bash "$0"`). */
const SELF = /^"?\$(0|\{0\})"?$/;
const startsItself = (argv: readonly string[]): boolean => SELF.test(argv[0] ?? '') || (/^(ba|da|z|k)?sh$/.test(argv[0] ?? '') && SELF.test(argv[1] ?? ''));

/** Whether a script's pipelines are a fork bomb. */
export function isForkBomb(pipelines: readonly Pipeline[]): boolean {
  if (pipelines.some((p) => (p.background || p.commands.length > 1) && p.commands.some((c) => startsItself(c.argv)))) return true;
  const code = compact(pipelines.map((p) => (p.background ? `${p.raw} &` : p.raw)).join(';'));
  if (RECURSIVE.some((re) => re.test(code))) return true;
  return [...code.matchAll(ENDLESS_LOOP)].some((m) => BACKGROUND.test(m[1]!) && !/\bwait\b/.test(m[1]!));
}
