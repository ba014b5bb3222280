// PowerShell and cmd.exe, read from the command's own text (a backslash is a path separator there,
// not an escape): Remove-Item / rd / del of a drive root, a system folder, the user profile or the
// workspace's .git; format / Format-Volume / Clear-Disk; `iwr … | iex` and other downloaded scripts;
// what takes the machine down (windows-system.ts); and scripts handed to `powershell -Command`,
// `-EncodedCommand` (UTF-16LE base64), `cmd /c`, `Invoke-Expression "…"` and `Start-Process cmd
// -ArgumentList …`.
import { dotnetHits, windowsSystemHit, type SystemHit } from './windows-system.ts';

export interface WindowsHit {
  rule: 'destructive.rm_recursive' | 'destructive.disk_tool' | 'destructive.remote_script' | SystemHit['rule'];
  detail: string;
  segment: string;
}

interface Statement {
  text: string;
  stages: string[][];
}

function tokenize(text: string): Statement[] {
  const statements: Statement[] = [];
  let stages: string[][] = [[]];
  let word: string | null = null;
  let start = 0;
  const endWord = (): void => {
    if (word !== null) stages[stages.length - 1]!.push(word);
    word = null;
  };
  const endStatement = (at: number): void => {
    endWord();
    const kept = stages.filter((s) => s.length > 0);
    if (kept.length > 0) statements.push({ text: text.slice(start, at).trim(), stages: kept });
    stages = [[]];
    start = at + 1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end === -1 ? text.length : end;
      word = (word ?? '') + text.slice(i + 1, stop);
      i = stop;
    } else if (c === ' ' || c === '\t') endWord();
    else if (c === ';' || c === '\n' || (c === '&' && text[i + 1] === '&') || (c === '|' && text[i + 1] === '|')) {
      endStatement(i);
      if (text[i + 1] === c && (c === '&' || c === '|')) i++;
    } else if (c === '|') {
      endWord();
      stages.push([]);
    } else word = (word ?? '') + c;
  }
  endStatement(text.length);
  return statements;
}

const ROOTS = /^([a-z]:)?[\\/]?(\*(\.\*)?)?$/i;
const SYSTEM =
  /^([a-z]:)?[\\/](windows|users|program files( \(x86\))?|programdata|windows[\\/]system32|boot|recovery|system volume information)[\\/]?(\*(\.\*)?)?$/i;
const PROFILE =
  /^([a-z]:[\\/]users[\\/][^\\/]+|~|\$home|\$env:(userprofile|homepath|home)|%(userprofile|homepath)%|\(?\[(system\.)?environment\]::getfolderpath\(userprofile\)\)?)[\\/]?(\*(\.\*)?)?$/i;
const SYSTEM_VARS =
  /^(\$env:(systemroot|windir|programfiles|programdata|systemdrive|allusersprofile)|%(systemroot|windir|programfiles|programdata|systemdrive|allusersprofile)%)[\\/]?(\*(\.\*)?)?$/i;
const WORKSPACE = /^(\.|\.\.|[.\\/]*\*|\.[\\/]\*|\.\.[\\/].*|\$pwd|\$\(get-location\)|%cd%)[\\/]?$/i;

function windowsPlace(target: string): string | null {
  const t = target.trim().replace(/^\\\\\?\\/, '');
  if (t === '') return null;
  if (/^(\.[\\/])?\.git[\\/]?$/i.test(t)) return "the workspace's git history";
  // The parent of a place the line cannot name could be any place.
  if (/^(\$[\w:]+|%\w+%)[\\/].*\.\.([\\/]|$)/.test(t)) return 'a path that cannot be resolved';
  if (/^[a-z]:$/i.test(t) || ROOTS.test(t)) return 'a drive root';
  if (SYSTEM.test(t) || SYSTEM_VARS.test(t)) return 'a system folder';
  if (PROFILE.test(t)) return 'the user profile';
  if (WORKSPACE.test(t) && !/^\.\.[\\/][^*]/.test(t)) return 'the workspace or above it';
  if (/^(\$[\w:]+|%\w+%)[\\/]?(\*(\.\*)?)?$/.test(t) && !/^(\$env:(temp|tmp)|%(temp|tmp)%)/i.test(t)) return 'a path that cannot be resolved';
  return null;
}

const REMOVERS = new Set(['remove-item', 'ri', 'rm', 'del', 'erase', 'rd', 'rmdir', 'rm.exe']);
const LISTERS = new Set(['get-childitem', 'gci', 'ls', 'dir']);
const DOWNLOAD = /\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|net\.webclient|start-bitstransfer|curl|wget)\b/i;
const DISK = /^(format|format-volume|clear-disk|initialize-disk|remove-partition|diskpart|cipher)$/i;

const isWindowsPath = (w: string): boolean => /^[a-z]:|\\|^\$env:|^%\w+%|^\$home$/i.test(w);

function removeTargets(words: string[]): { targets: string[]; recursive: boolean } {
  const targets: string[] = [];
  let recursive = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const lower = w.toLowerCase();
    if (/^-(r|re|rec|recu|recur|recurs|recurse)$/.test(lower) || /^\/s$/.test(lower)) recursive = true;
    else if (/^-(path|literalpath|lp|pspath)$/.test(lower)) targets.push(words[++i] ?? '');
    else if (/^-(include|exclude|filter)$/.test(lower)) i++;
    else if (!w.startsWith('-') && !/^\/[a-z]$/i.test(w)) targets.push(...w.split(','));
  }
  return { targets, recursive };
}

function decodeEncoded(b64: string): string {
  try {
    const bytes = Buffer.from(b64, 'base64');
    let out = '';
    for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes[i]! | (bytes[i + 1]! << 8));
    return out;
  } catch {
    return '';
  }
}

/** Scripts this statement hands to powershell or cmd. */
function nestedScripts(words: string[]): string[] {
  const program = words[0]!
    .toLowerCase()
    .replace(/\.exe$/, '')
    .replace(/^.*[\\/]/, '');
  if (program === 'cmd') {
    const at = words.findIndex((w) => /^\/[ck]$/i.test(w));
    return at === -1 ? [] : [words.slice(at + 1).join(' ')];
  }
  if (program === 'iex' || program === 'invoke-expression') return words.length > 1 ? [words.slice(1).join(' ')] : [];
  if (/^(start-process|start|saps)$/.test(program) && words[1] !== undefined) {
    // `Start-Process cmd -ArgumentList '/c rd /s /q C:\'`: the program with its arguments.
    const at = words.findIndex((w) => /^-(argumentlist|args)$/i.test(w));
    return [[words[1], ...(at === -1 ? [] : [words[at + 1] ?? ''])].join(' ')];
  }
  if (program !== 'powershell' && program !== 'pwsh') return [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.toLowerCase();
    if (/^-(e|ec|en|enc|enco|encod|encode|encoded|encodedc\w*)$/.test(w)) return [decodeEncoded(words[i + 1] ?? '')];
    if (/^-(c|co|com|comm|comma|comman|command)$/.test(w)) return [words.slice(i + 1).join(' ')];
    if (/^-(executionpolicy|ep|windowstyle|w|file|f|version|v|configurationname|outputformat|of|inputformat|if)$/.test(w)) i++;
    else if (!w.startsWith('-')) return [words.slice(i).join(' ')];
  }
  return [];
}

/** Destructive PowerShell / cmd statements in a command text. */
export function windowsHits(text: string, depth = 0): WindowsHit[] {
  // A nested script is read whatever it says: it was handed to PowerShell or cmd.
  if (
    depth > 4 ||
    (depth === 0 &&
      !/[\\:$%]|remove-item|\bri\b|\brd\b|\bdel\b|format|iex|invoke-|clear-disk|diskpart|powershell|pwsh|cmd|vssadmin|wmic|bcdedit|\breg\b|taskkill|-process|-computer|\bnet\b|localuser|appx|winget|choco|-package|netadapter|netsh|netfirewall|-content|out-file|new-item/i.test(
        text,
      ))
  )
    return [];
  const hits: WindowsHit[] = [];
  for (const st of tokenize(text)) {
    const hit = (rule: WindowsHit['rule'], detail: string): void => void hits.push({ rule, detail, segment: st.text });
    if (/\b(iex|invoke-expression)\b/i.test(st.text) && DOWNLOAD.test(st.text))
      hit('destructive.remote_script', 'a downloaded PowerShell script run with Invoke-Expression');
    for (const h of dotnetHits(st.text, windowsPlace)) hit(h.rule, h.detail);
    st.stages.forEach((words, k) => {
      const program = words[0]!.toLowerCase().replace(/\.exe$/, '');
      for (const script of nestedScripts(words)) hits.push(...windowsHits(script, depth + 1));
      const system = windowsSystemHit(words, k > 0 ? st.stages[k - 1]! : null);
      if (system) hit(system.rule, system.detail);
      if (DISK.test(program) && (program !== 'cipher' || words.some((w) => /^\/w/i.test(w)))) hit('destructive.disk_tool', `${words[0]} on a disk`);
      if (!REMOVERS.has(program)) return;
      const { targets, recursive } = removeTargets(words);
      const windowsStyle = program !== 'rm' && program !== 'rmdir' ? true : targets.some(isWindowsPath) || words.some((w) => /^-(fo|force|recurse)$/i.test(w));
      if (!windowsStyle) return;
      const lister = k > 0 ? st.stages[k - 1]! : null;
      const listsAll = lister !== null && LISTERS.has(lister[0]!.toLowerCase()) && !lister.some((w) => /^-(include|filter|exclude|name|file)$/i.test(w));
      const piped = listsAll ? (removeTargets(lister).targets.length > 0 ? removeTargets(lister).targets : ['.']) : [];
      for (const t of [...targets, ...piped]) {
        const place = windowsPlace(t);
        if (place && (recursive || program === 'del' || program === 'erase' || piped.length > 0))
          hit('destructive.rm_recursive', `${words[0]} of ${place} (${t})`);
      }
    });
  }
  return hits;
}
