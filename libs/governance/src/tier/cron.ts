// A crontab installed from standard input (`echo '* * * * * rm -rf ~' | crontab -`): each entry's
// command runs later, unattended, so it is judged now as if run. An empty table installed over the
// user's (`echo -n | crontab -`, `crontab /dev/null`) removes every entry, as `crontab -r` does.
import type { Stream } from './streams.ts';

/** `crontab -` or `crontab` with no file reads the new table from standard input (not -l/-r/-e, which list, remove, edit). */
export function cronReadsStdin(args: readonly string[]): boolean {
  if (args.some((a) => /^-[a-zA-Z]*[lre]/.test(a))) return false;
  const files = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '-u');
  return files.length === 0 || files.includes('-') || args.includes('-') || files.some((f) => ['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'].includes(f));
}

/** The commands of a crontab's entries: after five time fields or an @keyword; variables and comments skipped. */
export function cronCommands(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const entry = /^\s*(?:@\w+|(?:\S+\s+){4}\S+)\s+(.+)$/.exec(line);
    if (!entry || /^\s*#/.test(line) || /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue;
    out.push(entry[1]!.replace(/%.*$/, ''));
  }
  return out;
}

/** Whether the table crontab installs is empty: blank text on its stdin, or /dev/null. */
export function cronWipes(args: readonly string[], stdin: Stream | null): boolean {
  if (args.some((a) => /^-[a-zA-Z]*[lre]/.test(a))) return false;
  if (args.includes('/dev/null')) return true;
  if (stdin?.kind === 'text') return stdin.texts.every((t) => t.trim() === '');
  return stdin?.kind === 'local' && stdin.files.includes('/dev/null');
}
