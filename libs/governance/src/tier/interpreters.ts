// Ways to run a command from interpreter code that code.ts's call patterns do not read: Perl's quote
// operators (`system q(rm -rf ~)`, `qx{…}`, `qw(…)`), Tcl's `exec rm -rf ~` and `file delete -force`,
// awk's `print … | "sh"` and `"cmd" | getline`, Groovy's `"…".execute()`, Deno's `new Deno.Command`
// and `Deno.run({cmd})`, Ruby's Open3. Perl quotes are rewritten to plain literals before the call
// patterns run; the rest are returned as findings of their own.

export interface MoreFindings {
  shells: string[];
  execs: string[][];
  deletes: { api: string; path: string; recursive: boolean }[];
}

const PAIRS: Record<string, string> = { '(': ')', '{': '}', '[': ']', '<': '>' };
const jsonString = (s: string): string => JSON.stringify(s);

/** Perl's q(), qq(), qx(), qw() with any delimiter, as the literals code.ts reads. */
export function perlQuotes(code: string): string {
  if (!/\bq[qxw]?\s*[^\w\s]/.test(code)) return code;
  let out = '';
  let i = 0;
  const re = /(?<![\w$@%&>-])(qq|qx|qw|q)\s*([^\w\s;,])/g;
  for (let m = re.exec(code); m !== null; m = re.exec(code)) {
    const open = m[2]!;
    const close = PAIRS[open] ?? open;
    let depth = 1;
    let j = m.index + m[0].length;
    for (; j < code.length; j++) {
      if (code[j] === '\\') j++;
      else if (code[j] === open && close !== open) depth++;
      else if (code[j] === close && --depth === 0) break;
    }
    if (j >= code.length) break;
    const body = code.slice(m.index + m[0].length, j);
    const lit = m[1] === 'qx' ? `\`${body}\`` : m[1] === 'qw' ? `(${body.trim().split(/\s+/).map(jsonString).join(', ')})` : jsonString(body);
    out += code.slice(i, m.index) + lit;
    i = j + 1;
    re.lastIndex = i;
  }
  return out + code.slice(i);
}

const STR = String.raw`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`;
const unq = (lit: string): string => lit.slice(1, -1).replace(/\\(.)/g, '$1');
function strings(list: string): string[] {
  return [...list.matchAll(new RegExp(STR, 'g'))].map((m) => unq(m[0]));
}

export function moreFindings(code: string): MoreFindings {
  const f: MoreFindings = { shells: [], execs: [], deletes: [] };
  // Tcl: `exec rm -rf ~` (bare words up to the end of the command), `file delete -force PATH`.
  for (const m of code.matchAll(/(?:^|[\n;[{])\s*exec\s+(?![('"[{$])([^\n;\]}]+)/g)) f.shells.push(m[1]!.replace(/\s*&\s*$/, ''));
  for (const m of code.matchAll(/\bfile\s+delete\s+((?:-\w+\s+)*)(?:--\s+)?("[^"]*"|\S+)/g))
    f.deletes.push({ api: 'file delete', path: m[2]!.replace(/^"|"$/g, ''), recursive: /-force/.test(m[1]!) });
  // awk: output piped to a command, a command piped into getline.
  for (const m of code.matchAll(new RegExp(`(?:print|printf)\\b[^|;}]*\\|\\s*(${STR})`, 'g'))) {
    const printed = /(?:print|printf)\s*\(?\s*("(?:[^"\\]|\\.)*")/.exec(m[0])?.[1];
    const cmd = unq(m[1]!);
    if (/^(sh|bash|dash|zsh|ksh|\/bin\/(ba)?sh)$/.test(cmd.trim()) && printed) f.shells.push(unq(printed));
    else f.shells.push(cmd);
  }
  for (const m of code.matchAll(new RegExp(`(${STR})\\s*\\|\\s*getline`, 'g'))) f.shells.push(unq(m[1]!));
  // Groovy / Kotlin scripts: "cmd".execute(); ["rm", "-rf", "/"].execute().
  for (const m of code.matchAll(new RegExp(`(${STR})\\s*\\.execute\\(`, 'g'))) f.shells.push(unq(m[1]!));
  for (const m of code.matchAll(/\[([^\]]*)\]\s*\.execute\(/g)) f.execs.push(strings(m[1]!));
  // Deno: new Deno.Command("rm", { args: [...] }); Deno.run({ cmd: [...] }).
  for (const m of code.matchAll(new RegExp(`Deno\\.Command\\(\\s*(${STR})\\s*(?:,\\s*\\{[^}]*?\\bargs\\s*:\\s*\\[([^\\]]*)\\])?`, 'g')))
    f.execs.push([unq(m[1]!), ...strings(m[2] ?? '')]);
  for (const m of code.matchAll(/Deno\.run\(\s*\{[^}]*?\bcmd\s*:\s*\[([^\]]*)\]/g)) f.execs.push(strings(m[1]!));
  // Ruby Open3 and Java ProcessBuilder.
  for (const m of code.matchAll(new RegExp(`\\bOpen3\\.\\w+\\(\\s*(${STR})`, 'g'))) f.shells.push(unq(m[1]!));
  for (const m of code.matchAll(/\bnew\s+ProcessBuilder\(([^)]*)\)/g)) f.execs.push(strings(m[1]!));
  // Perl / Ruby list form, parentheses optional: `exec "rm", "-rf", "/etc"`, `system 'rm', '-rf', '~'`.
  for (const m of code.matchAll(new RegExp(`\\b(?:system|exec|spawn)\\s*\\(?\\s*((?:${STR})(?:\\s*,\\s*(?:${STR}))+)`, 'g'))) f.execs.push(strings(m[1]!));
  return f;
}
