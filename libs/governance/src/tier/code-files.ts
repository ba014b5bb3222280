// What interpreter code does to files that code.ts's call patterns do not read: deleting what a glob
// matches (`unlink glob("~/.ssh/*")`, `unlink <~/.*>`, `for p in glob.glob(…): os.remove(p)`,
// `Dir["#{Dir.home}/.*"].each { |f| File.delete(f) }`), Perl's deletes without parentheses
// (`rmtree "$ENV{HOME}"`), and changing permissions (`os.chmod(p, 0)`, `fs.chmodSync`, `File.chmod`,
// `FileUtils.chmod_R`, Perl's and PHP's `chmod`), returned as the chmod command that does the same.
// A glob is judged as the paths it names; one a loop iterates is tied to the delete in the same code
// when it lies in home or lists a whole directory (`/etc/*`), as code-hidden.ts ties a listing of
// home to a delete: `glob('/etc/*.conf')` read beside an unrelated delete is not one.
import { UNKNOWN } from '../paths.ts';
import { LITERAL, pathExpression, splitArgs, unquote } from './code-paths.ts';

export interface FileFindings {
  deletes: { api: string; path: string; recursive: boolean }[];
  execs: string[][];
}

const GLOB_CALL = /^(?:glob\.i?glob|glob\.sync|globSync|fg\.sync|fastGlob\.sync|Dir\.glob|expandGlobSync|glob)\s*\(/;
const GLOBS = /\b(?:glob\.i?glob|glob\.sync|globSync|fg\.sync|fastGlob\.sync|Dir\.glob|expandGlobSync|glob)\s*\(|\bDir\[|<[^<>\s]*[/*~][^<>\s]*>/g;
const PATH_GLOB = /((?:pathlib\.)?Path(?:\.home)?\([^()]*\)(?:\.expanduser\(\))?)\.(r?)glob\(/g;
const RECURSIVE = new Set(['rmtree', 'rm_rf', 'rm_r', 'remove_tree', 'rimraf', 'rimrafSync', 'removeSync']);
/** A delete call, a delete handed over by name (`map(os.remove, …)`, `forEach(fs.unlinkSync)`), or Perl's without parentheses. */
const DELETES =
  /\b(unlink|unlinkSync|remove|delete|rmtree|rm_rf|rm_r|rmSync|rmdir|rmdirSync|removeSync|rimraf|rimrafSync|remove_tree)\b(?:\s*[(!),;}]|\s+(?=glob\b|<|["'$@]|for(?:each)?\b))|['"](unlink)['"]|:(delete|unlink)\b/g;
const CHMODS = /(?:\b(os|fs|fsp|promises|File|FileUtils)\.)?\b(l?chmod(?:Sync|_R)?)\b\s*(\(|\s(?=\d))/g;

/** The expression at the start of `text`: up to a top-level comma, `;`, newline or closing bracket. */
const firstExpression = (text: string): string => (splitArgs(text.split(/[;\n]/)[0] ?? '')[0] ?? '').trim();

/** The pattern a glob expression names (`glob("~/.ssh/*")`, `Dir[…]`, Perl's `<…>`), or null when it is none. */
export function globPattern(expr: string): string | null {
  const e = expr.trim();
  if (GLOB_CALL.test(e)) return pathExpression(splitArgs(e.replace(GLOB_CALL, ''))[0] ?? '');
  if (e.startsWith('Dir[')) return pathExpression(splitArgs(e.slice(4))[0] ?? '');
  const angle = /^<([^<>\s]*[/*~][^<>\s]*)>$/.exec(e);
  return angle ? pathExpression(JSON.stringify(angle[1]!)) : null;
}

/** Every pattern the code globs, a path object's (`Path('~/.ssh').expanduser().glob('*')`) included. */
function globs(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(GLOBS)) {
    const pattern = globPattern(m[0].startsWith('<') ? m[0] : m[0] + code.slice(m.index + m[0].length));
    if (pattern !== null) out.push(pattern);
  }
  for (const m of code.matchAll(PATH_GLOB)) {
    const lit = LITERAL.exec(code.slice(m.index + m[0].length));
    const base = pathExpression(m[1]!);
    if (lit) out.push(`${base}/${m[2] === 'r' ? '**/' : ''}${unquote(lit[1]!)}`);
  }
  return out.filter((p) => p !== UNKNOWN);
}

function deletesThroughGlobs(code: string): FileFindings['deletes'] {
  const out: FileFindings['deletes'] = [];
  const found = [...code.matchAll(DELETES)];
  if (found.length === 0) return out;
  const names = found.map((m) => m[1] ?? m[2] ?? m[3]!);
  const recursive = names.some((n) => RECURSIVE.has(n)) || /recursive\s*[:=]\s*(true|True)|recursive\s*=>\s*1/.test(code);
  const api = names.find((n) => RECURSIVE.has(n)) ?? names[0]!;
  // The delete's own argument: `unlink glob(…)`, `rmtree "$ENV{HOME}"`, `FileUtils.rm_rf(Dir[…])`.
  for (const m of found) {
    if (m[1] === undefined) continue;
    const after = code.slice(m.index + m[0].length);
    const arg = firstExpression(after.replace(/^\s*\(?/, ''));
    const globbed = globPattern(arg);
    // A literal in parentheses is code.ts's; Perl's `rmtree "…"` without them is not.
    const path = globbed ?? (/^\s*["']/.test(after) && /^['"]/.test(arg) ? pathExpression(arg) : null);
    if (path !== null && path !== UNKNOWN) out.push({ api: globbed === null ? m[1] : `${m[1]} glob`, path, recursive: RECURSIVE.has(m[1]) });
  }
  // A loop over a glob in home or over a whole directory, with a delete in the same code.
  for (const pattern of globs(code))
    if (pattern.startsWith('~') || /^\/(.*\/)?[*.?]+$/.test(pattern)) out.push({ api: `${api} over a glob`, path: pattern, recursive });
  return out;
}

/** A numeric or string mode literal as chmod's mode word (`0o700` → `700`, `448` → `700`); UNKNOWN for anything else. */
function modeWord(expr: string): string {
  const e = expr.trim();
  const lit = LITERAL.exec(e);
  if (lit && lit[0].trim().length === e.length) return unquote(lit[1]!);
  const octal = /^0[oO]?([0-7]+)$/.exec(e);
  if (octal || e === '0') return octal?.[1] ?? '0';
  return /^[1-9]\d{0,4}$/.test(e) ? Number(e).toString(8) : UNKNOWN;
}

/** The chmod commands code runs through its languages' calls: mode first for Ruby and Perl, path first elsewhere. */
function chmodCommands(code: string): string[][] {
  const out: string[][] = [];
  for (const m of code.matchAll(CHMODS)) {
    const after = code.slice(m.index + m[0].length);
    const args = m[3] === '(' ? splitArgs(after) : (after.split(/[;\n]/)[0] ?? '').split(',');
    const modeFirst = m[1] === 'File' || m[1] === 'FileUtils' || (m[1] === undefined && /^\s*\d/.test(args[0] ?? ''));
    const [mode = '', ...paths] = modeFirst ? args : [args[1] ?? '', args[0] ?? ''];
    for (const p of paths) out.push(['chmod', ...(m[2]!.endsWith('_R') ? ['-R'] : []), modeWord(mode), globPattern(p) ?? pathExpression(p)]);
  }
  for (const m of code.matchAll(/((?:pathlib\.)?Path(?:\.home)?\([^()]*\)(?:\.expanduser\(\))?)\.chmod\(\s*([^)]*)\)/g))
    out.push(['chmod', modeWord(m[2]!), pathExpression(m[1]!)]);
  return out;
}

export function codeFileFindings(code: string): FileFindings {
  return { deletes: deletesThroughGlobs(code), execs: chmodCommands(code) };
}
