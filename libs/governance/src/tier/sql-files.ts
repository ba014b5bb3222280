// What a database client is given to run, files included: its words (`-c`, `-e`, `'.read f.sql'`), a
// heredoc, the pipe, and SQL files written earlier in the line or as the gate found them on disk
// (disk.ts): named by an option
// (`psql -f`, `sqlcmd -i`, `clickhouse-client --queries-file`), fed on stdin (`mysql db < f.sql`,
// `cat f.sql | psql`) or included by a meta-command (`\i`, `\ir`, `source`, `\.`, `.read`, `@`), in
// the words or in a file already read, a few levels deep. sql.ts judges the text as it judges inline
// SQL. A file the gate could not read is left unjudged, as SQL the line does not show (`psql -c "$Q"`)
// is: restoring a large dump from a file is everyday work.
import { fileFacts } from '../disk.ts';
import { expandArgv, type Scope } from '../expand.ts';
import { programName } from '../normalize.ts';
import { absolutePath, UNKNOWN } from '../paths.ts';
import type { SimpleCommand } from '../shell.ts';
import type { VerbHit } from './files.ts';
import { writtenText } from './scripts.ts';
import { stdinOf, type Stream } from './streams.ts';
import { sqlLiterals } from './sql.ts';
import { clientTextHit, SQL_CLIENTS } from './systems.ts';

/** Options naming a file of statements, for every client; `-f` is one too, except where it means something else. */
const FILE_OPTIONS = ['--file', '--filename', '--queries-file', '--input-file', '-init'];
const F_IS_NO_FILE = new Set(['mysql', 'mariadb', 'mycli', 'sqlcmd', 'bq', 'clickhouse', 'clickhouse-client', 'redis-cli', 'valkey-cli', 'keydb-cli']);
/** Each client's meta-commands that run a file, at a statement's start: `\i f`, `source f`, `.read f`, `@f`. */
const INCLUDE_COMMANDS: [RegExp, string][] = [
  [/^(psql|pgcli|usql|cockroach)$/, String.raw`(\\i|\\ir|\\include|\\include_relative)[ \t]+`],
  [/^(mysql|mariadb|mycli)$/, String.raw`(source|\\\.)[ \t]+`],
  [/^(sqlite3?|duckdb|litecli)$/, String.raw`(\.read)[ \t]+`],
  [/^sqlplus$/, String.raw`(@@?|start[ \t]+)`],
];
const MAX_NESTING = 4;

/** The files a client's options name (`-f F`, `-fF`, `--file=F`, `--file F`, `sqlcmd -i F`). */
function optionFiles(program: string, args: readonly string[]): string[] {
  const options = [...FILE_OPTIONS, ...(F_IS_NO_FILE.has(program) ? [] : ['-f']), ...(program === 'sqlcmd' ? ['-i'] : [])];
  const out: string[] = [];
  args.forEach((a, i) => {
    const name = options.find((o) => a === o || a.startsWith(`${o}=`) || (/^-\w$/.test(o) && a.startsWith(o) && a.length > 2));
    if (name === undefined) return;
    const value = a === name ? args[i + 1] : a.slice(name.length).replace(/^=/, '');
    if (value !== undefined && value !== '-') out.push(...(program === 'sqlcmd' ? value.split(',') : [value]));
  });
  return out;
}

/** The files a text includes by the client's meta-commands, each with the directory it is relative to. */
function includedFiles(program: string, text: string, dir: string, fileDir: string): { word: string; dir: string }[] {
  const command = INCLUDE_COMMANDS.find(([clients]) => clients.test(program))?.[1];
  if (command === undefined) return [];
  const includes = new RegExp(String.raw`(?:^|[\n;])[ \t]*${command}(["']?)([^\s"';]+)\2`, 'gi');
  return [...text.matchAll(includes)].map((m) => ({ word: m[3]!, dir: /^\\i(r|nclude_relative)$/.test(m[1]!) ? fileDir : dir }));
}

/** The text of every file, read as the gate found it, and of the files those include in turn. */
function readFiles(program: string, first: { word: string; dir: string }[], scope: Scope): string[] {
  const texts: string[] = [];
  const seen = new Set<string>();
  let todo = first;
  for (let depth = 0; depth < MAX_NESTING && todo.length > 0; depth++) {
    const next: { word: string; dir: string }[] = [];
    for (const { word, dir } of todo) {
      const abs = absolutePath(dir, word, scope.ctx);
      if (word.includes(UNKNOWN) || seen.has(abs)) continue;
      seen.add(abs);
      const facts = fileFacts(abs, scope.ctx);
      // Written earlier in the line, or as the gate found it on disk.
      const text = writtenText(word, scope) ?? (facts?.kind === 'text' ? facts.text : undefined);
      if (text === undefined) continue;
      texts.push(text);
      next.push(...includedFiles(program, text, scope.dir, abs.replace(/\/[^/]*$/, '') || '/'));
    }
    todo = next;
  }
  return texts;
}

/** The SQL in the files a client runs: named by its options, included from its words, or on its stdin. */
export function sqlFileTexts(program: string, args: readonly string[], words: readonly string[], stdin: Stream, scope: Scope): string[] {
  const named = [...optionFiles(program, args), ...(stdin.kind === 'local' ? stdin.files : [])].map((word) => ({ word, dir: scope.dir }));
  const included = words.flatMap((t) => includedFiles(program, t, scope.dir, scope.dir));
  return readFiles(program, [...named, ...included], scope);
}

/** A destructive statement a database client is given to run, in its words, a heredoc, the pipe or a file; null otherwise. */
export function sqlClientHit(program: string, args: readonly string[], cmd: SimpleCommand, stages: SimpleCommand[], k: number, scope: Scope): VerbHit | null {
  if (!SQL_CLIENTS.has(program)) return null;
  const bodies = cmd.redirects.filter((r) => r.op.startsWith('<<')).map((r) => r.target);
  const piped = stdinOf(stages, k, scope);
  const words = [...args, ...bodies, ...(piped.kind === 'text' ? piped.texts : [])];
  // What another client's query writes into this one (`sqlite3 db "SELECT 'DROP TABLE ' || name …" | sqlite3 db`) is its literals.
  const producer = k > 0 ? (expandArgv(stages[k - 1]!.argv, scope, stages[k - 1]!.split)[0] ?? []) : [];
  const generated = piped.kind !== 'text' && SQL_CLIENTS.has(programName(producer[0] ?? '')) ? producer.slice(1).flatMap(sqlLiterals) : [];
  // A command in separate words (`redis-cli SHUTDOWN NOSAVE`) is read whole too.
  return clientTextHit(program, [args.join(' '), ...words, ...generated, ...sqlFileTexts(program, args, words, piped, scope)]);
}
