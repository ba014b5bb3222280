// Options whose value a program runs as a shell command: tar's `--checkpoint-action=exec=CMD`,
// `--to-command`, `--use-compress-program` (`-I`), `--info-script` (`-F`) and
// `--new-volume-script`; zip's `-TT`/`--unzip-command`; rsync's `-e`/`--rsh` and `--rsync-path`;
// ansible's `-a` when its module runs commands (`command`, the default, `shell`, `raw`). Each value is
// judged now, as the command line it will be.

/** The long options (`--name=V` or `--name V`) and short ones (`-X V`) of each program that carry a command. */
const COMMAND_OPTIONS: Record<string, { long: string[]; short: string[] }> = {
  tar: { long: ['to-command', 'use-compress-program', 'info-script', 'new-volume-script'], short: ['-I', '-F'] },
  zip: { long: ['unzip-command'], short: ['-TT'] },
  rsync: { long: ['rsh', 'rsync-path'], short: ['-e'] },
};

/** The shell commands this command's options make it run. */
export function optionCommands(argv: readonly string[]): string[] {
  const [program = '', ...args] = argv;
  if (program === 'ansible') {
    const module = args.find((a, i) => /^(-m|--module-name)$/.test(args[i - 1] ?? '')) ?? 'command';
    const command = args.find((a, i) => /^(-a|--args)$/.test(args[i - 1] ?? ''));
    return command !== undefined && /^(ansible\.builtin\.)?(command|shell|raw)$/.test(module) ? [command] : [];
  }
  const options = Object.hasOwn(COMMAND_OPTIONS, program) ? COMMAND_OPTIONS[program]! : null;
  if (options === null) return [];
  const out: string[] = [];
  args.forEach((a, i) => {
    const long = /^--([a-z-]+)(?:=(.*))?$/s.exec(a);
    if (long && options.long.includes(long[1]!)) out.push(long[2] ?? args[i + 1] ?? '');
    else if (options.short.includes(a)) out.push(args[i + 1] ?? '');
    const action = program === 'tar' ? /^--checkpoint-action=(?:exec|e)=(.*)$/s.exec(a) : null;
    if (action) out.push(action[1]!);
  });
  return out.filter((c) => c.trim() !== '');
}
