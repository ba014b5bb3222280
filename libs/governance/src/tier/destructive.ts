// The built-in destructive-command tier. A command line is parsed (shell.ts), its words expanded as
// far as they can be known (expand.ts), wrappers removed (normalize.ts), and every simple command —
// in chains, pipes, subshells, substitutions, scripts handed to shells and interpreters, the standard
// input a shell runs — is checked against the verbs in files.ts, systems.ts, code.ts, windows.ts.
// Every hit names its rule and the command segment it was found in, so a bypass covers one segment.
import { definesWords, expandArgv, expandWord, newScope, type Scope } from '../expand.ts';
import { ASSIGNMENT, effectiveCommand, interpreterOf, programName, SHELLS } from '../normalize.ts';
import { absolutePath, classifyTarget, describePlace, isDevicePath, isProtectedFile, UNKNOWN, workspaceOf, changeDir, type PathContext } from '../paths.ts';
import { parseShell, type ShellScript, type SimpleCommand } from '../shell.ts';
import { agentCopyHit, nestedAgentHit } from './agents.ts';
import { analyzeCode } from './code.ts';
import { codeHits, extraVerbs, hookSwitchHit } from './extra-verbs.ts';
import { fileVerbHit, findDeleteHit, type VerbHit } from './files.ts';
import { isForkBomb } from './fork-bombs.ts';
import { gitAnalysis } from './git.ts';
import { linkHit, noteLink } from './links.ts';
import { expandedRedirects } from './redirects.ts';
import { noteWrittenFiles, reverseShell, runsSubstitutedDownload, writtenFileRun } from './scripts.ts';
import { scriptFileRun, substitutedScripts } from './script-files.ts';
import { sqlClientHit } from './sql-files.ts';
import { packageRemovalHit } from './packages.ts';
import { asXargs, readLoopAt, type ReadLoop } from './read-loops.ts';
import { destroysOperands, stdinAnalysis } from './stdin.ts';
import { outputOf, stdinOf } from './streams.ts';
import { infraHit } from './systems.ts';
import { moreTeardownHit } from './more-teardowns.ts';
import { worstCommands } from './runtime-words.ts';
import { quote, type Walker } from './walker.ts';
import { windowsHits } from './windows.ts';
import { writerHit } from './writers.ts';
import type { DestructiveRuleId } from './rules.ts';

export { DESTRUCTIVE_RULES, type DestructiveRuleId } from './rules.ts';

export interface DestructiveHit {
  rule: DestructiveRuleId;
  /** What matched, for the reason shown to the agent. */
  detail: string;
  /** The command segment it was found in, as written, and normalized: what a bypass is matched against. */
  forms: string[];
}

const MAX_HITS = 32;
const MAX_DEPTH = 8;
/** Simple commands analyzed per call; past it the line is too involved to read, and the gate blocks. */
const MAX_STEPS = 2000;

interface Walk {
  scope: Scope;
  out: DestructiveHit[];
  steps: number;
}

const TOO_INVOLVED = { rule: 'destructive.unresolved_script', detail: 'a command line nested or expanded too deeply to read' } as const;

function push(w: Walk, h: VerbHit | null, forms: string[]): void {
  if (h && w.out.length < MAX_HITS)
    w.out.push({ rule: h.rule as DestructiveRuleId, detail: h.detail.replace(/\u0000/g, '…'), forms: [...new Set(forms.filter((f) => f !== ''))] });
}

const child = (scope: Scope, extra: Partial<Scope> = {}): Scope => ({
  ...scope,
  vars: new Map(scope.vars),
  aliases: new Map(scope.aliases),
  depth: scope.depth + 1,
  ...extra,
});

function walkScript(script: ShellScript, scope: Scope, w: Walk): void {
  if (w.out.length >= MAX_HITS) return;
  if (scope.depth > MAX_DEPTH) return push(w, TOO_INVOLVED, [script.raw.slice(0, 200)]);
  if (isForkBomb(script.pipelines)) push(w, { rule: 'destructive.fork_bomb', detail: 'a fork bomb' }, [script.raw.trim()]);
  for (const h of windowsHits(script.raw)) push(w, h, [h.segment]);
  const loops: ReadLoop[] = [];
  script.pipelines.forEach((pipeline, at) => {
    // A read loop's body, in the scope the line has built so far (`cd /etc && find . | while read f …`).
    const loop = readLoopAt(script.pipelines, at);
    if (loop) loops.push(loop);
    for (const i of loop?.body ?? []) walkLoopBody(script.pipelines[i]!, loop!, scope, w);
    pipeline.commands.forEach((cmd, k) => {
      if (cmd.group) walkScript(cmd.group, child(scope), w);
      for (const sub of cmd.substitutions) walkScript(sub, child(scope), w);
      push(w, hookSwitchHit(expandArgv(cmd.argv, scope, cmd.split)[0] ?? cmd.argv), [cmd.raw, pipeline.raw]);
      if (defines(cmd.argv, scope, w)) return;
      const alias = scope.aliases.get(cmd.argv[0] ?? '');
      if (alias !== undefined) return walkScript(parseShell([alias, ...cmd.argv.slice(1).map(quote)].join(' ')), child(scope), w);
      if (!judgedByLoop(loops, script, at, cmd, scope))
        for (const argv of expandArgv(cmd.argv, scope, cmd.split, cmd.braces)) analyze(cmd, argv, pipeline.commands, k, scope, w, [cmd.raw, pipeline.raw]);
      const first = expandArgv(cmd.argv, scope, cmd.split)[0] ?? [];
      if (pipeline.commands.length === 1 && (first[0] === 'cd' || first[0] === 'pushd')) scope.dir = changeDir(scope.dir, first.slice(1), scope.ctx);
    });
  });
}

/** A read loop's body command that names the line read: judged as the xargs command it amounts to. */
function walkLoopBody(pipeline: ShellScript['pipelines'][number], loop: ReadLoop, scope: Scope, w: Walk): void {
  for (const cmd of pipeline.commands) {
    const xargs = asXargs(cmd, loop.vars);
    if (xargs === null) continue;
    const stages = loop.producer ? [loop.producer, xargs] : [xargs];
    for (const argv of expandArgv(xargs.argv, scope)) analyze(xargs, argv, stages, stages.length - 1, scope, w, [cmd.raw, pipeline.raw]);
  }
}

/**
 * A loop body's command that names the loop's variable, which the line never set to anything but the
 * loop's own words: walkLoopBody judged it with what the loop reads, which the worst-case reading of
 * an unknown $f here would only overrule (`find . -name __pycache__ | while read d; do rm -rf "$d"`).
 */
function judgedByLoop(loops: ReadLoop[], script: ShellScript, at: number, cmd: SimpleCommand, scope: Scope): boolean {
  return loops.some((loop) => {
    // Set in the body (`d=/`, `read d`, `printf -v d`), its value is no longer only the loop's words;
    // after a `cd` in the body, its relative paths name other places than the loop was judged in.
    const words = loop.body.flatMap((i) => script.pipelines[i]!.commands.flatMap((c) => c.argv));
    if (words.some((word) => word === 'cd' || word === 'pushd' || word === 'popd')) return false;
    const unset = (name: string): boolean =>
      (scope.vars.get(name) ?? [UNKNOWN]).every((v) => v === UNKNOWN) &&
      !words.some((word) => word === name || word.startsWith(`${name}=`) || word.startsWith(`${name}+=`));
    // A command piped to or from another in the body is judged in its own pipeline (`sqlite3 "$db" … | sqlite3 "$db"`).
    const alone = script.pipelines[at]!.commands.length === 1;
    return loop.body.includes(at) && alone && loop.vars.every(unset) && asXargs(cmd, loop.vars) !== null;
  });
}

/** Assignments, `export`, `alias`, `for … in`, `set -- …`: what later words expand to. True when nothing runs. */
function defines(argv: string[], scope: Scope, w: Walk): boolean {
  const [first = '', ...rest] = argv;
  const assign = (word: string): void => {
    const eq = word.indexOf('=');
    const name = word.slice(0, eq).replace(/\[.*$|\+$/g, '');
    scope.vars.set(name, expandWord(word.slice(eq + 1), scope));
    // bash runs PROMPT_COMMAND before every prompt: judged now, as the command it will be.
    if (name === 'PROMPT_COMMAND') walkText(scope.vars.get(name)!.join(' '), child(scope), w, [word]);
  };
  if (argv.length > 0 && argv.every((a) => ASSIGNMENT.test(a))) {
    argv.forEach(assign);
    return true;
  }
  if (['export', 'declare', 'local', 'readonly', 'typeset'].includes(first)) {
    rest.filter((a) => ASSIGNMENT.test(a)).forEach(assign);
    return true;
  }
  if (first === 'alias') {
    for (const a of rest.filter((x) => x.includes('='))) {
      const value = a.slice(a.indexOf('=') + 1);
      scope.aliases.set(a.slice(0, a.indexOf('=')), value);
      walkScript(parseShell(value), child(scope), w);
    }
    return true;
  }
  return definesWords(argv, scope);
}

/** One simple command, expanded: its verbs, what it runs inside, and what it runs from its stdin. */
function analyze(cmd: SimpleCommand, argv: string[], pipeline: SimpleCommand[], at: number, scope: Scope, w: Walk, forms: string[]): void {
  // A command run from another (find -exec, xargs, interpreter code) is a pipeline of its own.
  const [stages, k] = pipeline.length === 0 ? [[cmd], 0] : [pipeline, at];
  if (++w.steps > MAX_STEPS) {
    if (!w.out.some((h) => h.detail === TOO_INVOLVED.detail)) push(w, TOO_INVOLVED, forms);
    return;
  }
  const eff = effectiveCommand(argv);
  const segForms = [forms[0] ?? '', eff.argv.join(' ')];
  const add = (h: VerbHit | null, f = segForms): void => push(w, h, f);
  const [program = '', ...args] = eff.argv;
  if (program.includes(UNKNOWN)) {
    // An unresolvable program is judged as the worst verb it could be.
    if (args.length === 0) add({ rule: 'destructive.unresolved_script', detail: 'a command that cannot be resolved' });
    else for (const worst of worstCommands(args)) analyze(cmd, worst, pipeline, at, scope, w, forms);
  }
  add(fileVerbHit(eff.argv, expandedRedirects(cmd.redirects, scope), scope));
  add(infraHit(eff.argv, [...cmd.argv, ...eff.argv]));
  add(moreTeardownHit(eff.argv) ?? moreTeardownHit(argv));
  add(packageRemovalHit(eff.argv));
  add(nestedAgentHit(eff.argv));
  add(agentCopyHit(eff.argv));
  add(linkHit(eff.argv, scope));
  noteLink(eff.argv, scope);
  add(writerHit(eff.argv, scope));
  const extra = extraVerbs(eff.argv, cmd, stages, k, scope);
  extra.hits.forEach((h) => add(h));
  for (const t of extra.shells) walkText(t, child(scope), w, segForms);
  for (const c of extra.code) codeAnalysis(c, scope, w, segForms);
  if (program === 'git') gitAnalysis(args, scope, walkerOf(w), segForms);
  const ran = writtenFileRun(eff.argv, scope);
  if (ran && 'remote' in ran) add({ rule: 'destructive.remote_script', detail: 'running a downloaded script' });
  else if (ran?.code) codeAnalysis(ran.text, scope, w, segForms, program);
  else if (ran) walkText(ran.text, child(scope), w, segForms);
  else {
    // A script file run by a shell, or a program that is an agent: as the gate found it on disk.
    const file = scriptFileRun(argv, eff.argv, scope);
    if (file?.kind === 'hit') add(file.hit);
    else if (file) walkText(file.text, child(scope, { positional: file.args }), w, segForms);
  }
  noteWrittenFiles(eff.argv, cmd, stages, k, scope);
  if (runsSubstitutedDownload(cmd, program)) add({ rule: 'destructive.remote_script', detail: 'running a downloaded script' });
  if (reverseShell(eff.argv, stages)) add({ rule: 'destructive.remote_script', detail: 'a shell wired to a network connection' });
  if (cmd.redirects.some((r) => /^\/dev\/(tcp|udp)\//.test(r.target)) && (SHELLS.has(program) || interpreterOf(program)))
    add({ rule: 'destructive.remote_script', detail: 'a shell wired to a network socket' });
  // The client's segment alone describes the hit, whether the SQL is in its words, came through the
  // pipe or from a file: a bypass must name this client, not a pattern matching the pipeline's text.
  add(sqlClientHit(program, args, cmd, stages, k, scope));
  if (program === 'find') {
    const execs = eff.inner.filter((i) => i.kind === 'exec');
    const deletes =
      args.includes('-delete') || execs.some((e) => destroysOperands(e.args ?? []) || /^(sh|bash|dash|zsh|xargs)$/.test(programName(e.args?.[0] ?? '')));
    add(findDeleteHit(args, deletes, scope));
    const outputs = outputOf([{ argv: eff.argv, redirects: [], substitutions: [], raw: '' }], 0, scope);
    const found = outputs.kind === 'text' ? outputs.texts[0]!.split('\n') : [UNKNOWN];
    for (const e of execs) {
      for (const f of found.slice(0, 4)) {
        const argv = (e.args ?? []).map((a) => a.replace(/\{\}/g, f));
        analyze({ argv, redirects: [], substitutions: [], raw: '' }, argv, [], 0, scope, w, forms);
      }
    }
  }
  for (const i of eff.inner) {
    // The script's own standard input is the command's: `echo … | sh -c 'cat | sh'`.
    if (i.kind === 'shell')
      walkText(i.text ?? '', child(scope, { positional: i.args ?? scope.positional, arg0: i.arg0, stdin: stdinOf(stages, k, scope) }), w, forms);
    else if (i.kind === 'code') codeAnalysis(i.text ?? '', scope, w, segForms, i.program);
  }
  if (eff.stdin !== null) stdinAnalysis(eff, cmd, stages, k, scope, walkerOf(w), forms);
  // `bash <(curl …)`, `source <(echo …)`, `python3 <(…)`: a process substitution as the script file.
  const substituted = substitutedScripts(cmd.argv, program, scope);
  substituted.hits.forEach((h) => add(h));
  for (const t of substituted.shells) walkText(t, child(scope), w, segForms);
  for (const c of substituted.code) codeAnalysis(c, scope, w, segForms);
}

function walkText(text: string, scope: Scope, w: Walk, forms: string[]): void {
  if (text.replace(/\s/g, '') === UNKNOWN) push(w, { rule: 'destructive.unresolved_script', detail: 'a script that cannot be resolved' }, forms);
  else walkScript(parseShell(text), scope, w);
}

/** This walk as the modules it hands a command to see it (walker.ts). */
function walkerOf(w: Walk): Walker {
  return {
    push: (h, forms) => push(w, h, forms),
    shell: (text, scope, forms, extra) => walkText(text, child(scope, extra), w, forms),
    code: (code, scope, forms, program) => codeAnalysis(code, scope, w, forms, program),
    command: (cmd, argv, scope, forms) => analyze(cmd, argv, [], 0, scope, w, forms),
  };
}

function codeAnalysis(code: string, scope: Scope, w: Walk, forms: string[], program?: string): void {
  const f = analyzeCode(code, program);
  const add = (h: VerbHit): void => push(w, h, forms);
  if (f.forkBomb) add({ rule: 'destructive.fork_bomb', detail: 'a fork bomb' });
  codeHits(code).forEach(add);
  if (f.remote) add({ rule: 'destructive.remote_script', detail: 'code that runs what it downloads' });
  for (const s of f.shells) walkText(s, child(scope), w, forms);
  for (const argv of f.execs) analyze({ argv, redirects: [], substitutions: [], raw: '' }, argv, [], 0, child(scope), w, forms);
  for (const d of f.deletes) {
    const place = classifyTarget(scope.dir, d.path, scope.ctx);
    if (place && (d.recursive || ['root', 'system', 'home'].includes(place)))
      add({ rule: 'destructive.rm_recursive', detail: `${d.api} of ${describePlace(place)}` });
    else if (isProtectedFile(scope.dir, d.path, scope.ctx)) add({ rule: 'destructive.protected_file', detail: `${d.api} ${d.path}` });
  }
  for (const p of f.fileWrites) {
    if (isDevicePath(absolutePath(scope.dir, p, scope.ctx))) add({ rule: 'destructive.device_write', detail: `code writing to ${p}` });
    else if (isProtectedFile(scope.dir, p, scope.ctx)) add({ rule: 'destructive.protected_file', detail: `overwriting ${p}` });
  }
}

/** Every destructive-tier hit in a shell command line. */
export function detectDestructiveHits(command: string, ctx: PathContext = {}): DestructiveHit[] {
  const w: Walk = { scope: newScope({ ...ctx, links: new Map() }, workspaceOf(ctx)), out: [], steps: 0 };
  walkScript(parseShell(command), w.scope, w);
  return w.out;
}

/** The first destructive-tier rule a shell command line hits, or null. */
export function detectDestructiveCommand(command: string, ctx: PathContext = {}): DestructiveHit | null {
  return detectDestructiveHits(command, ctx)[0] ?? null;
}
