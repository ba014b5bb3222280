// `make -f -`, `make -f /dev/stdin`: a makefile read from standard input, whose recipes make hands
// to a shell. The recipes (tab-indented lines, `target: ; recipe`, `$(shell …)`) are scripts.

const STDIN_FILES = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
export const MAKES = /^(make|gmake|bmake|pmake|remake)$/;

/** Whether make reads its makefile from standard input. */
export function makeReadsStdin(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-f' || a === '--file' || a === '--makefile') {
      if (STDIN_FILES.has(args[i + 1] ?? '')) return true;
    } else if (/^-f./.test(a) && STDIN_FILES.has(a.slice(2))) return true;
    else if (/^--(file|makefile)=/.test(a) && STDIN_FILES.has(a.slice(a.indexOf('=') + 1))) return true;
  }
  return false;
}

/** The script of a process substitution make reads as its makefile (`make -f <(echo …)`), or null. */
export function makeSubstitutedFile(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const file =
      a === '-f' || a === '--file' || a === '--makefile'
        ? (args[i + 1] ?? '')
        : /^--(file|makefile)=/.test(a)
          ? a.slice(a.indexOf('=') + 1)
          : /^-f./.test(a)
            ? a.slice(2)
            : '';
    if (file.startsWith('<(') && file.endsWith(')')) return file.slice(2, -1);
  }
  return null;
}

/** The shell command lines a makefile's recipes run. */
export function makeRecipes(text: string): string[] {
  const out: string[] = [];
  const vars = (line: string): string => line.replace(/\$\((RM)\)/g, 'rm -f').replace(/\$\$/g, '$');
  for (const m of text.matchAll(/\$\(shell\s+([^)]*)\)/g)) out.push(vars(m[1]!));
  for (const line of text.split('\n')) {
    if (line.startsWith('\t')) out.push(vars(line.slice(1).replace(/^[@+\-\s]+/, '')));
    else {
      const rule = /^[^\t#=:][^=;]*?::?[^=;]*;(.*)$/.exec(line);
      if (rule) out.push(vars(rule[1]!.replace(/^[\s@+-]+/, '')));
    }
  }
  return out.filter((r) => r.trim() !== '');
}
