// Scripts that reach a shell other than as its arguments: files a line writes or downloads and
// then runs (`curl -o x … && sh x`, `echo 'rm -rf ~' > x.sh && bash x.sh`), downloads substituted
// into a command (`sh -c "$(curl …)"`), and shells wired to the network (`nc -e`, `sh | nc`).
import type { Scope } from '../expand.ts';
import { effectiveCommand, interpreterOf, programName, SHELLS } from '../normalize.ts';
import type { ShellScript, SimpleCommand } from '../shell.ts';
import { DOWNLOADERS, outputOf } from './streams.ts';

const fileKey = (p: string): string => p.replace(/^\.\//, '');

/** The text a file was given earlier in the line (`echo 'DROP TABLE t;' > d.sql`), if the line shows it. */
export function writtenText(word: string, scope: Scope): string | undefined {
  const file = scope.files.get(fileKey(word));
  return file !== undefined && 'text' in file ? file.text : undefined;
}

/** Remember what a command writes to a file: a download, or a script text (`echo 'rm -rf ~' > x.sh`). */
export function noteWrittenFiles(argv: string[], cmd: SimpleCommand, stages: SimpleCommand[], k: number, scope: Scope): void {
  const [program = '', ...args] = argv;
  const remote = { remote: true } as const;
  if (DOWNLOADERS.has(program)) {
    const urls = args.filter((a) => /^[a-z]+:\/\//i.test(a) || /^[\w.-]+\.[a-z]{2,}\//i.test(a));
    const base = (u: string): string =>
      u
        .replace(/[?#].*$/, '')
        .replace(/\/+$/, '')
        .split('/')
        .pop() ?? '';
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      // `-o FILE`, also ending a bundle of curl's short options (`-so FILE`, `-sSLo FILE`).
      if (
        a === '-o' ||
        a === '--output' ||
        (program === 'curl' && /^-[a-zA-Z]+o$/.test(a)) ||
        (program === 'wget' && (a === '-O' || a === '--output-document'))
      )
        scope.files.set(fileKey(args[i + 1] ?? ''), remote);
      else if (/^--output(-document)?=/.test(a)) scope.files.set(fileKey(a.slice(a.indexOf('=') + 1)), remote);
      else if (/^-o./.test(a) && program === 'curl') scope.files.set(fileKey(a.slice(2)), remote);
      else if ((a === '-O' || a === '--remote-name' || /^-[a-zA-Z]*O$/.test(a)) && program === 'curl') urls.forEach((u) => scope.files.set(base(u), remote));
    }
    if (program === 'wget' && !args.some((a) => /^(-O|--output-document)/.test(a))) urls.forEach((u) => scope.files.set(base(u), remote));
  }
  const target = cmd.redirects.find((r) => r.op === '>' || r.op === '>|' || r.op === '>>')?.target;
  if (target === undefined) return;
  const out = outputOf(stages, k, scope, true);
  if (out.kind === 'remote') scope.files.set(fileKey(target), remote);
  else if (out.kind === 'text') scope.files.set(fileKey(target), { text: out.texts.join('\n') });
}

/** The file written earlier in the line that this command runs, if any: its download or its text. */
export function writtenFileRun(argv: string[], scope: Scope): { remote: true } | { text: string; code: boolean } | null {
  if (scope.files.size === 0) return null;
  const [program = '', ...args] = argv;
  const runner = SHELLS.has(program) || interpreterOf(program) !== null || program === 'source' || program === '.';
  const file = runner ? args.find((a) => !a.startsWith('-')) : undefined;
  const known = [...scope.files].find(
    ([f]) => (file !== undefined && f === fileKey(file)) || f === fileKey(program) || (f.includes('/') && f.endsWith(`/${program}`)) || f === program,
  );
  if (!known) return null;
  const [, content] = known;
  return 'remote' in content ? content : { text: content.text, code: runner && interpreterOf(program) !== null };
}

/** `sh -c "$(curl …)"`, `eval "$(wget …)"`, `$(curl …)` as the command itself. */
export function runsSubstitutedDownload(cmd: SimpleCommand, program: string): boolean {
  const runner = SHELLS.has(program) || interpreterOf(program) !== null || ['source', '.', 'eval'].includes(program) || /^(\$\(|`)/.test(cmd.argv[0] ?? '');
  const downloads = (s: ShellScript): boolean =>
    s.pipelines.some((p) => p.commands.some((c) => DOWNLOADERS.has(effectiveCommand(c.argv).argv[0] ?? '') || (c.group ? downloads(c.group) : false)));
  return runner && cmd.substitutions.some(downloads);
}

const NETCATS = /^(nc|ncat|netcat|socat|telnet|openssl)$/;

/** `nc -e /bin/sh …`, `socat exec:bash tcp:…`, `sh -i … | nc …`: a shell driven over the network. */
export function reverseShell(argv: string[], stages: SimpleCommand[]): boolean {
  const [program = '', ...args] = argv;
  if (/^(nc|ncat|netcat)$/.test(program) && args.some((a) => /^(-e|-c|--exec|--sh-exec|--lua-exec)$/.test(a) || /^-[a-zA-Z]*e$/.test(a))) return true;
  if (program === 'socat' && args.some((a) => /^(exec|system):/i.test(a)) && args.some((a) => /^(tcp|udp|ssl|openssl)[\w-]*:/i.test(a))) return true;
  if (stages.length < 2) return false;
  const programs = stages.map((s) => programName(s.argv[0] ?? ''));
  return programs.some((p) => SHELLS.has(p)) && programs.some((p) => NETCATS.test(p));
}
