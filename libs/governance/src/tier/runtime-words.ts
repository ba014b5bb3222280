// A command word built at run time (`$x`, `$(printf …)`, `` `echo …` ``, `eval "$y" …`) cannot be
// read; its arguments can. It is judged as the worst command those arguments would make
// destructive: `$x -rf ~` as rm, `$x push --force` as git, `$x if=… of=/dev/sda` as dd. Everyday
// uses (`$PYTHON x.py`, `"$EDITOR" file`, `$CC -o main main.c`) make none of them destructive.

/** The commands an unreadable command word is tried as. */
export const WORST_PROGRAMS = ['rm', 'git', 'dd', 'chmod', 'chown', 'mkfs', 'find', 'shred', 'truncate', 'terraform', 'kubectl', 'psql', 'redis-cli'];

/** The argv an unreadable program word with these arguments is judged as. */
export function worstCommands(args: readonly string[]): string[][] {
  return WORST_PROGRAMS.map((p) => [p, ...args]);
}
