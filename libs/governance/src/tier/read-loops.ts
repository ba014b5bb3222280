// A `while read NAME` loop runs its body once for every line of its input, so a body command that
// names $NAME does to every line what xargs would: `git ls-files | while read f; do rm "$f"; done` is
// judged as `git ls-files | xargs -I{} rm {}`, and `find ~ -type f | while read f; do rm "$f"; done`
// as `find ~ -type f -delete`. The loop's input is the stage before it in its pipeline, or what the
// `done` reads (`done < <(git ls-files)`, `done < list.txt`). A `for NAME in $(…)` loop does the same
// with the words of the command it substitutes: `for d in $(find . -name x); do rm -rf "$d"; done`.
import { ASSIGNMENT } from '../normalize.ts';
import { parseShell, type Pipeline, type ShellScript, type SimpleCommand } from '../shell.ts';

export interface ReadLoop {
  /** The pipelines of the loop's body, by index into the script's pipelines. */
  body: number[];
  /** The command whose output the loop reads (undefined: nothing the line shows). */
  producer: SimpleCommand | undefined;
  vars: string[];
}

const command = (argv: string[]): SimpleCommand => ({ argv, redirects: [], substitutions: [], raw: argv.join(' ') });

/** The names `read` sets, from `read [-r] [-d D] [-p P] [-a] NAME…` (its options' values skipped). */
function readNames(args: string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^-[A-Za-z]*[dpntuN]$/.test(a)) i++;
    else if (!a.startsWith('-')) names.push(a);
  }
  return names.filter((n) => /^[A-Za-z_]\w*$/.test(n));
}

/** What a `done < X` redirect feeds the loop: a process substitution's last command, or a file read by cat. */
function doneInput(done: SimpleCommand): SimpleCommand | undefined {
  const input = done.redirects.find((r) => r.op === '<');
  if (input === undefined) return undefined;
  if (input.target.startsWith('<(')) {
    const script: ShellScript = done.substitutions[0] ?? parseShell(input.target.slice(2, -1));
    return script.pipelines.at(-1)?.commands.at(-1);
  }
  return command(['cat', input.target]);
}

/** The loop body's end: the first `done` after pipeline `at`. */
const doneAfter = (pipelines: Pipeline[], at: number): number => pipelines.findIndex((p, j) => j > at && p.commands[0]?.argv[0] === 'done');

/** `for NAME in $(PRODUCER)`: the loop over the words one command prints. */
function forLoopAt(pipelines: Pipeline[], at: number): ReadLoop | null {
  const [cmd] = pipelines[at]!.commands;
  const [word, name, inWord, list, ...rest] = cmd?.argv ?? [];
  if (word !== 'for' || inWord !== 'in' || rest.length > 0 || !/^[A-Za-z_]\w*$/.test(name ?? '') || !/^(\$\(.*\)|`.*`)$/s.test(list ?? '')) return null;
  const producer = cmd!.substitutions[0]?.pipelines.at(-1)?.commands.at(-1);
  const end = doneAfter(pipelines, at);
  if (producer === undefined || end < 0) return null;
  return { body: Array.from({ length: end - at - 1 }, (_, j) => at + 1 + j), producer, vars: [name!] };
}

/** The loop that pipeline `at` opens (`… | while read f`, `while IFS= read -r f`, `for f in $(…)`), or null. */
export function readLoopAt(pipelines: Pipeline[], at: number): ReadLoop | null {
  const stages = pipelines[at]!.commands;
  const last = stages.at(-1)!.argv;
  if (last[0] === 'for') return forLoopAt(pipelines, at);
  if (last[0] !== 'while' && last[0] !== 'until') return null;
  let i = 1;
  while (i < last.length && ASSIGNMENT.test(last[i]!)) i++;
  if (last[i] !== 'read') return null;
  const vars = readNames(last.slice(i + 1));
  const end = doneAfter(pipelines, at);
  if (vars.length === 0 || end < 0) return null;
  const producer = stages.length > 1 ? stages.at(-2) : doneInput(pipelines[end]!.commands[0]!);
  return { body: Array.from({ length: end - at - 1 }, (_, j) => at + 1 + j), producer, vars };
}

/** A body command as the xargs command it amounts to: its words with $NAME as `{}`; null when it names none. */
export function asXargs(cmd: SimpleCommand, vars: string[]): SimpleCommand | null {
  const source = `\\$(?:${vars.join('|')})\\b|\\$\\{(?:${vars.join('|')})\\}`;
  const names = new RegExp(source, 'g');
  let argv = cmd.argv;
  while (argv[0] === 'do' || argv[0] === 'then' || argv[0] === 'else') argv = argv.slice(1);
  if (!argv.some((a) => new RegExp(source).test(a))) return null;
  return command(['xargs', '-I', '{}', ...argv.map((a) => a.replace(names, '{}'))]);
}
