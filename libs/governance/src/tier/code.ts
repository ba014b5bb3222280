// What interpreter code handed over on a command line (`python -c`, `node -e`, `perl -e`, `ruby -e`,
// `php -r`, `awk '…'`) would do, read without running it: the shell commands it runs (os.system,
// subprocess, child_process, system(), backticks), the trees it deletes (shutil.rmtree, fs.rmSync,
// FileUtils.rm_rf, rimraf, File::Path rmtree …), the files it overwrites, and whether it runs code it
// downloads. A path it names with an expression that is not a literal is UNKNOWN (code-paths.ts);
// deletes through a glob and permission changes are code-files.ts's.
import { programName } from '../normalize.ts';
import { UNKNOWN } from '../paths.ts';
import { codeFileFindings } from './code-files.ts';
import { boundPaths, codeBindings } from './code-vars.ts';
import { LITERAL, pathExpression, splitArgs, STRING, unquote } from './code-paths.ts';
import { moreFindings, perlQuotes } from './interpreters.ts';

export interface CodeFindings {
  /** Shell command lines the code runs. */
  shells: string[];
  /** Commands it runs without a shell (argv arrays). */
  execs: string[][];
  /** Paths a delete API names; `recursive` when it removes whole trees. */
  deletes: { api: string; path: string; recursive: boolean }[];
  /** Files it deletes or overwrites one by one. */
  fileWrites: string[];
  remote: boolean;
  forkBomb: boolean;
}

const EXEC_CALLS =
  /\b(system|pcntl_exec|exec|execv|execvp|execve|execvpe|execl|execlp|execle|execlpe|spawnl|spawnlp|spawnv|spawnvp|posix_spawn|posix_spawnp|capture2|capture2e|capture3|popen2|popen3|execSync|execFile|execFileSync|spawn|spawnSync|popen|Popen|call|check_call|check_output|run|getoutput|getstatusoutput|execute|shell_exec|passthru|proc_open|startfile|shell|execa|execaSync|sh|qx|exec_command|do shell script)\s*(\(|\s(?=['"]))/g;
const DELETE_CALLS =
  /\b(rmtree|rmSync|rmdirSync|rm_rf|rm_r|rm|rmdir|remove_dir|remove_entry|remove_entry_secure|remove_tree|removeSync|remove|emptyDirSync|emptyDir|deleteSync|RemoveAll|rimraf|rimrafSync|(?:(?<=rimraf\.)|(?<=del\.)|(?<=rimraf'\)\.)|(?<=rimraf"\)\.)|(?<=del'\)\.)|(?<=del"\)\.))sync|unlink|unlinkSync|delete|rmdir_p)\s*\(/g;
const RECURSIVE_APIS = new Set([
  'rmtree',
  'rm_rf',
  'rm_r',
  'remove_dir',
  'remove_entry',
  'remove_entry_secure',
  'remove_tree',
  'removeSync',
  'emptyDirSync',
  'emptyDir',
  'deleteSync',
  'RemoveAll',
  'rimraf',
  'rimrafSync',
  'sync',
]);
const WRITE_CALLS = /\b(open|writeFileSync|writeFile|write_text|write_bytes|truncate|truncateSync|file_put_contents|(?:File|IO)\.(?:bin)?write)\s*\(/g;
/** Perl's write modes, in `open(FH, '>', path)` (the path is the third argument). */
const PERL_WRITE_MODE = /^\+?>{1,2}(:\S*)?$/;
const FORK_BOMBS = [
  /(?<![\w:.-])([A-Za-z_:.][\w:.-]*)\(\)\{[^}]*?\1\|\1&?[^}]*\}/,
  /function([A-Za-z_][\w-]*)(?:\(\))?\{[^}]*\1\|\1/,
  /\bforkwhilefork\b/,
  /while(?:True|1|true)[:{]?os\.fork\(\)/,
  /(?:while|for)\(?(?:True|1|;;|true)\)?[:{]?(?:os\.)?fork\(\)/,
  /fork\(\)while(?:True|1|true)|fork\s*while\s*fork/,
];

function stringsOfArray(expr: string): string[] | null {
  const m = /^\s*\[(.*)\]\s*$/s.exec(expr);
  if (!m) return null;
  const items = splitArgs(m[1]! + ')')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const values = items.map((x) => LITERAL.exec(x)?.[1]);
  return values.map((v) => (v === undefined ? UNKNOWN : unquote(v)));
}

function callsOf(code: string, re: RegExp): { name: string; args: string[] }[] {
  const out: { name: string; args: string[] }[] = [];
  for (const m of code.matchAll(re)) {
    const after = code.slice(m.index + m[0].length);
    out.push({ name: m[1]!, args: m[2] === '(' || m[0].endsWith('(') ? splitArgs(after) : [LITERAL.exec(after)?.[0] ?? ''] });
  }
  return out;
}

const stripStrings = (code: string): string => code.replace(new RegExp(STRING, 'g'), "''");

/** Code that can run a command, by whatever name it reaches the runner. */
const RUNNER = /\b(os|subprocess|child_process|system|exec\w*|spawn\w*|popen|Popen|shell_exec|passthru|proc_open|Kernel|Open3|IO\.popen|pty)\b/;
/** A literal that reads as a command line: a program word, then an argument. */
const COMMAND_LIKE = /^\s*[\w./-]+\s+\S/;
/** Literals read as commands, at most: a script's many strings are not each a command line. */
const MAX_LITERALS = 64;

/** Interpreters whose backticks run no shell: JavaScript's are template literals, Python 3 has none. */
const NO_SHELL_BACKTICKS = /^(node(js)?|deno|bun|tsx|ts-node|python[\d.]*|pypy3?)$/;

/** What the code does; `program` is its interpreter when the line names it (unknown: any language's reading). */
export function analyzeCode(source: string, program = ''): CodeFindings {
  const code = perlQuotes(source);
  const f: CodeFindings = { shells: [], execs: [], deletes: [], fileWrites: [], remote: false, forkBomb: false };
  const compact = stripStrings(code).replace(/\s+/g, '');
  f.forkBomb =
    FORK_BOMBS.some((re) => re.test(compact)) || /\bfork\b[^;]*\b(while|until|for|iter|loop)\b|\b(while|until|loop)\b[^;]*\bfork\b/.test(stripStrings(code));
  for (const { name, args } of callsOf(code, EXEC_CALLS)) {
    const first = args[0] ?? '';
    const lit = LITERAL.exec(first);
    const array = stringsOfArray(first);
    const whole = lit !== null && lit[0].trim().length === first.trim().length;
    if (array) f.execs.push(array);
    else if (lit && !whole) f.shells.push(unquote(lit[1]!) + UNKNOWN);
    else if (lit && args.length > 1 && !/execFile|execa|popen/.test(name) && args.slice(1).every((a) => LITERAL.test(a) || pathExpression(a) !== UNKNOWN)) {
      f.execs.push(args.map((a) => (LITERAL.exec(a) ? unquote(LITERAL.exec(a)![1]!) : pathExpression(a))));
    } else if (lit) {
      const rest = stringsOfArray(args[1] ?? '');
      if (rest && /spawn|execFile|execa|^exec[lv]|pcntl_exec/.test(name)) f.execs.push([unquote(lit[1]!), ...rest]);
      else f.shells.push(unquote(lit[1]!));
    } else if (first.trim() !== '' && !['run', 'call', 'exec', 'sh', 'shell'].includes(name)) f.shells.push(UNKNOWN);
  }
  const more = moreFindings(code);
  const files = codeFileFindings(code);
  f.shells.push(...more.shells);
  f.execs.push(...more.execs, ...files.execs);
  f.deletes.push(...more.deletes, ...files.deletes);
  // Backticks and %x() run a shell in Perl, Ruby, PHP; in JavaScript a template tagged `$` does
  // (Bun's `Bun.$`, zx's and execa's `$`, `$.sync`).
  const shellQuotes = NO_SHELL_BACKTICKS.test(programName(program)) ? /\$(?:\.\w+)?\s*`([^`]*)`/g : /`([^`]*)`|%x\(([^)]*)\)|%x\{([^}]*)\}/g;
  for (const m of code.matchAll(shellQuotes)) f.shells.push(m[1] ?? m[2] ?? m[3] ?? '');
  const bindings = codeBindings(code);
  for (const { name, args } of callsOf(code, DELETE_CALLS)) {
    const recursive = RECURSIVE_APIS.has(name) || /recursive\s*[:=]\s*(true|True)|recursive\s*=>\s*1|-r/.test(args.slice(1).join(','));
    for (const path of boundPaths(args[0] ?? '', bindings)) if (recursive || path !== UNKNOWN) f.deletes.push({ api: name, path, recursive });
  }
  for (const { name, args } of callsOf(code, WRITE_CALLS)) {
    const mode = LITERAL.exec(args[1] ?? '')?.[1];
    const perl = name === 'open' && mode !== undefined && PERL_WRITE_MODE.test(unquote(mode).trim());
    if (name === 'open' && !perl && (mode === undefined || !/[wx]/.test(unquote(mode)))) continue;
    f.fileWrites.push(...boundPaths(args[perl ? 2 : 0] ?? '', bindings).filter((path) => path !== UNKNOWN));
  }
  // Code that can run a command and holds a literal that is one may run it through a name the calls
  // above do not read (`getattr(os, 'system')('rm -rf ~')`, `const {execSync: x} = …; x('rm -rf /')`):
  // the literal is judged as the command it may be.
  if (RUNNER.test(code))
    for (const m of [...code.matchAll(new RegExp(STRING, 'g'))].slice(0, MAX_LITERALS)) {
      const text = unquote(m[0]);
      if (COMMAND_LIKE.test(text) && !f.shells.includes(text)) f.shells.push(text);
    }
  const socket =
    /(fsockopen|socket\.socket|TCPSocket|IO::Socket|net\.connect|new\s+net\.Socket|socket\.create_connection)/.test(code) &&
    /(exec|system|spawn|\/bin\/(ba)?sh|pty\.spawn|dup2|popen)/.test(code);
  f.remote =
    socket ||
    // Running code (a call, or eval handed over as the callback: `.then(eval)`) it downloads.
    (/\b(exec|eval|iex|Invoke-Expression|instance_eval|runInThisContext|Function)\s*\(|\.then\(\s*eval\s*\)/.test(code) &&
      /(urlopen|urllib|requests\.get|https?\.get|require\(['"]https?['"]\)\.get|fetch\s*\(|open-uri|URI\.open|Net::HTTP|LWP|HTTP::Tiny|file_get_contents\s*\(\s*['"]https?:|DownloadString|curl|wget)/.test(
        code,
      ));
  return f;
}
