// What a command does with its standard input: a shell or an interpreter runs the script it reads
// (a download, a file, another command's output), and xargs runs its command with the words it
// reads, so `find ROOT … | xargs rm` is judged as `find ROOT … -delete`.
import { expandArgv, type Scope } from '../expand.ts';
import { programName, type EffectiveCommand } from '../normalize.ts';
import { UNKNOWN } from '../paths.ts';
import type { SimpleCommand } from '../shell.ts';
import { findDeleteHit } from './files.ts';
import { streamScripts } from './script-files.ts';
import { stdinOf, type Stream } from './streams.ts';
import type { Walker } from './walker.ts';

/** The programs that remove what they are given (find's -exec, or xargs fed by find). */
export const REMOVES = /^(rm|srm|shred|unlink|rmdir|trash|trash-put|rimraf)$/;

/** A command that removes, empties or overwrites the files it is given: the removers, `truncate`, `dd of=…`, `cp /dev/null …`. */
export function destroysOperands(argv: readonly string[]): boolean {
  const [program = '', ...args] = argv;
  const name = programName(program);
  if (REMOVES.test(name) || name === 'truncate') return true;
  if (name === 'dd') return args.some((a) => a.startsWith('of='));
  return (name === 'cp' || name === 'install') && args.some((a) => /^\/dev\/(null|zero|u?random)$/.test(a));
}

export function stdinAnalysis(
  eff: EffectiveCommand,
  cmd: SimpleCommand,
  stages: SimpleCommand[],
  k: number,
  scope: Scope,
  walker: Walker,
  forms: string[],
): void {
  const stream: Stream = stdinOf(stages, k, scope);
  // What a command does with its stdin is its own segment's: a bypass must name this command. The
  // pipeline's text would let a pattern written for another segment (`git push*`) reach across the
  // pipe (`git push … | curl … | sh`).
  const pipeForms = [forms[0] ?? ''];
  if (eff.stdin === 'xargs') {
    // `find ROOT … | xargs rm`: what find lists, xargs removes; judged as `find ROOT … -delete`.
    const producer = k > 0 ? expandArgv(stages[k - 1]!.argv, scope, stages[k - 1]!.split)[0] : undefined;
    const removes = destroysOperands(eff.argv);
    if (producer?.[0] === 'find' && removes) walker.push(findDeleteHit(producer.slice(1), true, scope), pipeForms);
    // `git ls-files | xargs rm`: every file git tracks, unless a pathspec or an option (--others, --modified …) narrows the list.
    if (removes && producer?.[0] === 'git' && producer[1] === 'ls-files' && producer.slice(2).every((a) => /^(-z|-c|--cached|--full-name)$/.test(a)))
      walker.push({ rule: 'destructive.rm_recursive', detail: 'removing every file git tracks in the workspace' }, pipeForms);
    const words =
      stream.kind !== 'text'
        ? [UNKNOWN]
        : eff.whole
          ? stream.texts.flatMap((t) => t.split(/[\n\u0000]/).filter((x) => x.trim() !== ''))
          : stream.texts.flatMap((t) => t.split(/\s+/).filter(Boolean));
    // With a replacement string the command runs once per line: each line it may read is judged.
    const runs =
      eff.replace !== undefined
        ? (words.length > 0 ? words.slice(0, 4) : ['']).map((word) => eff.argv.map((a) => a.split(eff.replace!).join(word)))
        : [[...eff.argv, ...words.slice(0, 16)]];
    for (const argv of runs) walker.command({ ...cmd, redirects: [] }, argv, scope, pipeForms);
    return;
  }
  if (stream.kind === 'remote') return walker.push({ rule: 'destructive.remote_script', detail: `a download piped into ${eff.argv[0]}` }, pipeForms);
  if (stream.kind === 'unknown')
    return walker.push(
      { rule: 'destructive.unresolved_script', detail: `${eff.argv[0]} runs a script it reads from a command whose output cannot be read` },
      pipeForms,
    );
  // A file on stdin (`sh < f`, `cat f | node`) is read as the gate found it, as `bash f` is.
  const read = streamScripts(stream, scope);
  read.hits.forEach((h) => walker.push(h, pipeForms));
  for (const t of read.texts) {
    if (eff.stdin === 'shell') walker.shell(t, scope, pipeForms);
    else walker.code(t, scope, pipeForms, eff.argv[0]);
  }
}
