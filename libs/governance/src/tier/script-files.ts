// A file a command runs is judged by what it holds at that moment, as the gate found it on disk
// (disk.ts): a shell script (`bash f`, `sh -x f`, `zsh f`, `source f`, `. f`, `./f`, a script on
// PATH outside the system's program trees) is read as if its lines were typed, and so is a file a
// shell or an interpreter reads as its script on standard input (`sh < f`, `cat f | bash`, `node <
// f.js`); a file the gate could not read within bounds, or did not get to, is the worst case:
// unresolved_script. Any file a command runs — a binary, an interpreter's script — that is a coding
// agent by its installed package or its content hash is ungoverned_agent, whatever it is called.
// Without a gate (the tier alone) nothing here applies: the words are all there is.
import { commandPath, fileFacts, pathForms, type FileFacts } from '../disk.ts';
import type { Scope } from '../expand.ts';
import { interpreterOf, programName, SHELLS } from '../normalize.ts';
import { absolutePath, UNKNOWN } from '../paths.ts';
import { agentFileHit, agentPackageOf } from './agents.ts';
import type { VerbHit } from './files.ts';
import { scriptOutput, type Stream } from './streams.ts';

export type ScriptRun = { kind: 'shell'; text: string; args: string[] } | { kind: 'hit'; hit: VerbHit } | null;

type Via = 'shell' | 'exec' | 'path' | 'interpreter';

/** Builtins and keywords: never a file on PATH worth a look. */
const BUILTINS = new Set(
  'echo printf cd pwd test [ [[ true false : export set unset read local return exit shift eval exec source . alias unalias type command builtin declare typeset readonly let wait trap ulimit umask pushd popd dirs hash times getopts break continue if then else elif fi for while until do done case esac function time'.split(
    ' ',
  ),
);
/** Trees of installed programs: a script found there on PATH is the system's, not the agent's. */
const PROGRAM_TREES = /^\/(usr|bin|sbin|lib|lib32|lib64|libx32|opt|etc)(\/|$)/;
const STDIN_FILES = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
/** An empty script: `sh < /dev/null`. */
const EMPTY = '/dev/null';

/** The script file a shell runs (`sh [options] FILE args…`), or null for -c, -s and standard input. */
function shellScriptArg(args: readonly string[]): { file: string; rest: string[] } | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (['-o', '+o', '-O', '+O', '--rcfile', '--init-file'].includes(a)) i++;
    else if (a === '-' || (/^-[A-Za-z]+$/.test(a) && (a.includes('s') || a.includes('c')))) return null;
    else if (a === '--' || a.startsWith('-') || a.startsWith('+')) continue;
    else return { file: a, rest: args.slice(i + 1) };
  }
  return null;
}

/** The script an interpreter runs (`node f.js`, `python3 -u f.py`); null for inline code or a module. */
function interpreterScriptArg(args: readonly string[], codeOptions: readonly string[]): string | null {
  for (const a of args) {
    if (codeOptions.includes(a) || a === '-m') return null;
    if (!a.startsWith('-')) return a;
  }
  return null;
}

/** What runs the file: its shebang's program (`#!/usr/bin/env bash` → bash); none: a shell (ENOEXEC). */
function shebangProgram(text: string): string {
  const m = /^#!\s*(\S+)(?:[ \t]+([^\n]*))?/.exec(text);
  if (!m) return 'sh';
  const program = programName(m[1]!);
  if (program !== 'env') return program;
  const words = (m[2] ?? '').split(/\s+/).filter((w) => w !== '' && !w.startsWith('-') && !w.includes('='));
  return programName(words[0] ?? '');
}

function fileRun(argv: readonly string[], effArgv: readonly string[], scope: Scope): { word: string; rest: string[]; via: Via } | null {
  const [program = '', ...args] = effArgv;
  if (SHELLS.has(program)) {
    const s = shellScriptArg(args);
    return s && { word: s.file, rest: s.rest, via: 'shell' };
  }
  if (program === 'source' || program === '.') return args[0] === undefined ? null : { word: args[0], rest: args.slice(1), via: 'shell' };
  const codeOptions = interpreterOf(program);
  if (codeOptions) {
    const file = interpreterScriptArg(args, codeOptions);
    return file === null ? null : { word: file, rest: [], via: 'interpreter' };
  }
  const written = argv.find((w) => w.includes('/') && programName(w) === program);
  if (written !== undefined) return { word: written, rest: args, via: 'exec' };
  if (BUILTINS.has(program)) return null;
  const found = commandPath(program, scope.ctx);
  return found ? { word: found, rest: args, via: 'path' } : null;
}

const hitOrNull = (hit: VerbHit | null): ScriptRun => hit && { kind: 'hit', hit };

/** What running the file a command names amounts to, as the gate found it; null when nothing applies. */
export function scriptFileRun(argv: readonly string[], effArgv: readonly string[], scope: Scope): ScriptRun {
  const run = fileRun(argv, effArgv, scope);
  if (!run || run.word.includes(UNKNOWN) || STDIN_FILES.has(run.word) || run.word.startsWith('<(')) return null;
  const abs = absolutePath(scope.dir, run.word, scope.ctx);
  const forms = pathForms(abs, scope.ctx);
  // An agent's installed package in the path is known from the words (and real paths) alone.
  const packaged = forms.map(agentPackageOf).find((a) => a !== null);
  if (packaged) return hitOrNull(agentFileHit(packaged, run.rest));
  // A program PATH finds among the installed ones is the system's: its name is what the tier knows.
  if (run.via === 'path' && forms.some((p) => PROGRAM_TREES.test(p))) return null;
  const facts = fileFacts(abs, scope.ctx);
  if (facts === undefined) return null;
  if (facts?.agent) return hitOrNull(agentFileHit(facts.agent, run.rest));
  if (run.via === 'interpreter' || facts?.kind === 'missing' || facts?.kind === 'binary') return null;
  if (facts === null || facts.kind === 'unreadable') return { kind: 'hit', hit: uncheckable(run.word, facts) };
  const text = facts.text ?? '';
  if (run.via !== 'shell' && !SHELLS.has(shebangProgram(text))) return null;
  return { kind: 'shell', text, args: run.rest };
}

const uncheckable = (word: string, facts: FileFacts | null): VerbHit => ({
  rule: 'destructive.unresolved_script',
  detail: `a script whose content cannot be checked (${word.replace(/\u0000/g, '…')}: ${facts?.why ?? 'not read before the decision'})`,
});

/** The script texts a stream holds (a local file's as the gate found it), and the hits of the files it could not read. */
export function streamScripts(stream: Stream, scope: Scope): { texts: string[]; hits: VerbHit[] } {
  const out: { texts: string[]; hits: VerbHit[] } = { texts: stream.kind === 'text' ? [...stream.texts] : [], hits: [] };
  for (const word of stream.kind === 'local' ? stream.files : []) {
    if (word.includes(UNKNOWN) || STDIN_FILES.has(word) || word === EMPTY) continue;
    const facts = fileFacts(absolutePath(scope.dir, word, scope.ctx), scope.ctx);
    const agent = facts?.agent ? agentFileHit(facts.agent, []) : null;
    if (agent) out.hits.push(agent);
    else if (facts === null || facts?.kind === 'unreadable') out.hits.push(uncheckable(word, facts));
    else if (facts?.kind === 'text') out.texts.push(facts.text ?? '');
  }
  return out;
}

/** `bash <(curl …)`, `source <(echo …)`, `python3 <(…)`: what a process substitution given as the script file runs, for the caller to walk. */
export function substitutedScripts(words: readonly string[], program: string, scope: Scope): { hits: VerbHit[]; shells: string[]; code: string[] } {
  const sourced = SHELLS.has(program) || program === 'source' || program === '.';
  const word = sourced || interpreterOf(program) ? words.slice(1).find((a) => a.startsWith('<(')) : undefined;
  if (word === undefined) return { hits: [], shells: [], code: [] };
  const out = scriptOutput(word.slice(2, -1), scope);
  const read = streamScripts(out, scope);
  if (out.kind === 'remote') read.hits.unshift({ rule: 'destructive.remote_script', detail: `${program} runs a downloaded script` });
  else if (out.kind === 'unknown') read.hits.unshift({ rule: 'destructive.unresolved_script', detail: `${program} runs a script that cannot be read` });
  return { hits: read.hits, shells: sourced ? read.texts : [], code: sourced ? [] : read.texts };
}
