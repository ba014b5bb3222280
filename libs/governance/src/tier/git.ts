// Which git verb a `git …` command runs, through its aliases (`-c alias.x=…`, `git config alias.x
// …`), and the command lines git hands to a shell (`!` aliases, `submodule foreach`, a configured
// pager or ssh command): those are walked, the verb judged by systems.ts and git-history.ts.
import type { Scope } from '../expand.ts';
import { parseShell } from '../shell.ts';
import { gitHistoryHit, gitRestoreHit } from './git-history.ts';
import { gitCommand, gitConfigCommands, gitHit } from './systems.ts';
import { quote, type Walker } from './walker.ts';

export function gitAnalysis(args: string[], scope: Scope, walker: Walker, forms: string[]): void {
  const { sub, rest, aliases } = gitCommand(args);
  for (const text of gitConfigCommands(args)) walker.shell(text, scope, forms);
  if (sub === 'submodule' && rest.includes('foreach')) {
    const cmd = rest.slice(rest.indexOf('foreach') + 1).filter((a) => a !== '--recursive' && a !== '-q' && a !== '--quiet');
    return walker.shell(cmd.length === 1 ? cmd[0]! : cmd.map(quote).join(' '), scope, forms);
  }
  if (sub === 'config') {
    const key = rest.find((a) => a.startsWith('alias.'));
    const value = key ? rest[rest.indexOf(key) + 1] : undefined;
    if (key && value !== undefined) aliases.set(key.slice(6), value);
    // `git config --global core.pager CMD`: a command git runs from then on, judged now.
    const [name, setting] = rest.filter((a) => !a.startsWith('-'));
    if (name !== undefined && setting !== undefined) for (const text of gitConfigCommands(['-c', `${name}=${setting}`])) walker.shell(text, scope, forms);
  }
  for (const [name, value] of aliases) {
    scope.aliases.set(`git:${name}`, value);
    if (value.startsWith('!')) walker.shell(value.slice(1), scope, forms);
  }
  const alias = sub === undefined ? undefined : scope.aliases.get(`git:${sub}`);
  if (alias !== undefined && alias.startsWith('!')) return walker.shell(alias.slice(1), scope, forms, { positional: rest });
  const words = alias !== undefined ? [...parseShell(alias).pipelines.flatMap((p) => p.commands[0]?.argv ?? []), ...rest] : [sub ?? '', ...rest];
  walker.push(gitHit(words[0], words.slice(1)) ?? gitHistoryHit(words[0], words.slice(1)) ?? gitRestoreHit(words[0], words.slice(1), scope), forms);
}
