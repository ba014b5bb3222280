// The checks added to every simple command since issues 36 and 40, gathered so the walk in
// destructive.ts calls them in one place: git history (git-history.ts), appends to agent settings
// (harness-config.ts), databases destroyed by framework tasks (db-tasks.ts), makefiles read from
// standard input (make.ts), the machine taken down (disruption.ts), permissions taken from their
// owner (permissions.ts), the programs a package manager's settings run (package-config.ts) and the
// commands an option carries (option-commands.ts).
// Scripts and code found here are walked by the caller.
import { removerHit } from './removers.ts';
import { expandArgv, type Scope } from '../expand.ts';
import type { SimpleCommand } from '../shell.ts';
import { cronCommands, cronReadsStdin, cronWipes } from './cron.ts';
import { dbTaskHit, frameworkConsoleCode, frameworkSqlShell } from './db-tasks.ts';
import { disruptionHit } from './disruption.ts';
import { optionCommands } from './option-commands.ts';
import { packageConfigCommands } from './package-config.ts';
import { permissionHit } from './permissions.ts';
import { startupFileWrites } from './startup-files.ts';
import type { VerbHit } from './files.ts';
import { codeSqlHit } from './code-sql.ts';
import { hiddenCodeHit } from './code-hidden.ts';
import { historyToolHit } from './git-history.ts';
import { hookSwitchInCode } from './hook-switches.ts';
import { harnessAppendHit } from './harness-config.ts';
import { MAKES, makeReadsStdin, makeRecipes, makeSubstitutedFile } from './make.ts';
import { scriptOutput, stdinOf } from './streams.ts';
import { sqlFileTexts } from './sql-files.ts';
import { clientTextHit } from './systems.ts';

export { hookSwitchHit } from './hook-switches.ts';

/** What interpreter code adds: SQL it sends to a database, a hook switch it sets, what it hides (code-hidden.ts). */
export const codeHits = (code: string): VerbHit[] => [codeSqlHit(code), hookSwitchInCode(code), hiddenCodeHit(code)].filter((h): h is VerbHit => h !== null);

export interface ExtraFindings {
  hits: VerbHit[];
  /** Shell command lines the command runs. */
  shells: string[];
  /** Interpreter code it runs. */
  code: string[];
}

export function extraVerbs(argv: string[], cmd: SimpleCommand, stages: SimpleCommand[], k: number, scope: Scope): ExtraFindings {
  const out: ExtraFindings = { hits: [], shells: [], code: [] };
  const add = (h: VerbHit | null): void => {
    if (h) out.hits.push(h);
  };
  const [program = '', ...args] = argv;
  add(historyToolHit(argv, scope));
  add(harnessAppendHit(argv, cmd.redirects, scope));
  add(dbTaskHit(argv));
  add(removerHit(argv, scope));
  add(disruptionHit(argv));
  add(permissionHit(argv, scope));
  const startup = startupFileWrites(argv, cmd.redirects, scope);
  add(startup.hit);
  out.shells.push(...startup.shells);
  out.shells.push(...packageConfigCommands(expandArgv(cmd.argv, scope, cmd.split)[0] ?? []));
  out.shells.push(...optionCommands(argv));
  // `trap 'CMD' EXIT`: the shell runs CMD when the signal comes.
  if (program === 'trap' && args.length >= 2 && !args[0]!.startsWith('-')) out.shells.push(args[0]!);
  const consoleCode = frameworkConsoleCode(argv);
  if (consoleCode !== null) out.code.push(consoleCode);
  const makefile = MAKES.test(program) ? makeSubstitutedFile(args) : null;
  if (program === 'crontab' && cronWipes(args, cronReadsStdin(args) ? stdinOf(stages, k, scope) : null))
    add({ rule: 'destructive.protected_file', detail: "crontab installing an empty table over the user's crontab" });
  if (program === 'crontab' && cronReadsStdin(args)) {
    const stream = stdinOf(stages, k, scope);
    if (stream.kind === 'remote') add({ rule: 'destructive.remote_script', detail: 'a download piped into crontab' });
    else if (stream.kind === 'text') out.shells.push(...stream.texts.flatMap(cronCommands));
  }
  if (frameworkSqlShell(argv) || (MAKES.test(program) && makeReadsStdin(args)) || makefile !== null) {
    const stream = makefile !== null ? scriptOutput(makefile, scope) : stdinOf(stages, k, scope);
    if (stream.kind === 'remote') add({ rule: 'destructive.remote_script', detail: `a download piped into ${program}` });
    else if (stream.kind === 'unknown')
      add({ rule: 'destructive.unresolved_script', detail: `${program} runs what it reads from a command whose output cannot be read` });
    else if (stream.kind === 'text' && MAKES.test(program)) out.shells.push(...stream.texts.flatMap(makeRecipes));
    else if (!MAKES.test(program))
      add(clientTextHit('psql', [...(stream.kind === 'text' ? stream.texts : []), ...sqlFileTexts('psql', [], [], stream, scope)]));
  }
  return out;
}
