"""The built-in destructive-command tier (a port of libs/governance/src/tier/destructive.ts).

A command line is parsed (_shell), its words expanded as far as they can be known (_expand),
wrappers removed (_normalize), and every simple command -- in chains, pipes, subshells,
substitutions, scripts handed to shells and interpreters, the standard input a shell runs -- is
checked against the verbs in _tier_files, _tier_systems, _tier_code, _tier_windows. Every hit names
its rule and the command segment it was found in, so a bypass covers one segment.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ._expand import Scope, defines_words, expand_argv, expand_word, new_scope
from ._jsre import js_re, js_replace, js_trim
from ._normalize import ASSIGNMENT, SHELLS, effective_command, interpreter_of, program_name
from ._paths import UNKNOWN, PathContext, absolute_path, change_dir, classify_target, describe_place, is_device_path, is_protected_file, workspace_of
from ._shell import Pipeline, ShellScript, SimpleCommand, parse_shell
from ._tier_agents import agent_copy_hit, nested_agent_hit
from ._tier_code_hidden import hidden_code_hit
from ._tier_code_sql import code_sql_hit
from ._tier_extra_verbs import extra_verbs
from ._tier_git import git_analysis
from ._tier_hook_switches import hook_switch_hit, hook_switch_in_code
from ._tier_runtime_words import worst_commands
from ._tier_code import analyze_code
from ._tier_files import VerbHit, file_verb_hit, find_delete_hit
from ._tier_fork_bombs import is_fork_bomb
from ._tier_links import link_hit, note_link
from ._tier_redirects import expanded_redirects
from ._tier_hits import DESTRUCTIVE_RULES, MAX_DEPTH, MAX_HITS, MAX_STEPS, TOO_INVOLVED, DestructiveHit, Walk, child, push
from ._tier_scripts import note_written_files, reverse_shell, runs_substituted_download, written_file_run
from ._tier_script_files import script_file_run, substituted_scripts
from ._tier_sql_files import sql_client_hit
from ._tier_packages import package_removal_hit
from ._tier_read_loops import ReadLoop, as_xargs, read_loop_at
from ._tier_stdin import destroys_operands, stdin_analysis
from ._tier_streams import output_of, stdin_of
from ._tier_systems import infra_hit
from ._tier_more_teardowns import more_teardown_hit
from ._tier_walker import quote
from ._tier_windows import windows_hits
from ._tier_writers import writer_hit

__all__ = ["DESTRUCTIVE_RULES", "DestructiveHit", "detect_destructive_command", "detect_destructive_hits"]


def _walk_script(script: ShellScript, scope: Scope, w: Walk) -> None:
    if len(w.out) >= MAX_HITS:
        return
    if scope.depth > MAX_DEPTH:
        push(w, TOO_INVOLVED, [script.raw[:200]])
        return
    if is_fork_bomb(script.pipelines):
        push(w, ("destructive.fork_bomb", "a fork bomb"), [js_trim(script.raw)])
    for h in windows_hits(script.raw):
        push(w, (h["rule"], h["detail"]), [h["segment"]])
    loops: List[ReadLoop] = []
    for at, pipeline in enumerate(script.pipelines):
        # A read loop's body, in the scope the line has built so far (`cd /etc && find . | while read f …`).
        loop = read_loop_at(script.pipelines, at)
        if loop is not None:
            loops.append(loop)
        for i in loop.body if loop is not None else []:
            _walk_loop_body(script.pipelines[i], loop, scope, w)
        for k, cmd in enumerate(pipeline.commands):
            if cmd.group is not None:
                _walk_script(cmd.group, child(scope), w)
            for sub in cmd.substitutions:
                _walk_script(sub, child(scope), w)
            switch_variants = expand_argv(cmd.argv, scope, cmd.split)
            push(w, hook_switch_hit(switch_variants[0] if switch_variants else cmd.argv), [cmd.raw, pipeline.raw])
            if _defines(cmd.argv, scope, w):
                continue
            alias = scope.aliases.get(cmd.argv[0] if cmd.argv else "")
            if alias is not None:
                _walk_script(parse_shell(" ".join([alias, *(quote(a) for a in cmd.argv[1:])])), child(scope), w)
                continue
            if not _judged_by_loop(loops, script, at, cmd, scope):
                for argv in expand_argv(cmd.argv, scope, cmd.split, cmd.braces):
                    _analyze(cmd, argv, pipeline.commands, k, scope, w, [cmd.raw, pipeline.raw])
            variants = expand_argv(cmd.argv, scope, cmd.split)
            first = variants[0] if variants else []
            if len(pipeline.commands) == 1 and first[:1] in (["cd"], ["pushd"]):
                scope.dir = change_dir(scope.dir, first[1:], scope.ctx)


def _judged_by_loop(loops: Sequence[ReadLoop], script: ShellScript, at: int, cmd: SimpleCommand, scope: Scope) -> bool:
    """A loop body's command that names the loop's variable, which the line never set to anything but the
    loop's own words: _walk_loop_body judged it with what the loop reads, which the worst-case reading
    of an unknown $f here would only overrule (`find . -name __pycache__ | while read d; do rm -rf "$d"`)."""

    def judged(loop: ReadLoop) -> bool:
        # Set in the body (`d=/`, `read d`, `printf -v d`), its value is no longer only the loop's words;
        # after a `cd` in the body, its relative paths name other places than the loop was judged in.
        words = [word for i in loop.body for c in script.pipelines[i].commands for word in c.argv]
        if any(word in ("cd", "pushd", "popd") for word in words):
            return False

        def unset(name: str) -> bool:
            if not all(v == UNKNOWN for v in scope.vars.get(name, [UNKNOWN])):
                return False
            return not any(word == name or word.startswith(f"{name}=") or word.startswith(f"{name}+=") for word in words)

        # A command piped to or from another in the body is judged in its own pipeline (`sqlite3 "$db" … | sqlite3 "$db"`).
        alone = len(script.pipelines[at].commands) == 1
        return at in loop.body and alone and all(unset(n) for n in loop.vars) and as_xargs(cmd, loop.vars) is not None

    return any(judged(loop) for loop in loops)


def _walk_loop_body(pipeline: Pipeline, loop: ReadLoop, scope: Scope, w: Walk) -> None:
    """A read loop's body command that names the line read: judged as the xargs command it amounts to."""
    for cmd in pipeline.commands:
        xargs = as_xargs(cmd, loop.vars)
        if xargs is None:
            continue
        stages = [loop.producer, xargs] if loop.producer is not None else [xargs]
        for argv in expand_argv(xargs.argv, scope):
            _analyze(xargs, argv, stages, len(stages) - 1, scope, w, [cmd.raw, pipeline.raw])


_SUBSCRIPT = js_re(r"\[.*$|\+$", "g")


def _defines(argv: List[str], scope: Scope, w: Walk) -> bool:
    """Assignments, `export`, `alias`, `for … in`, `set -- …`: what later words expand to. True when nothing runs."""
    first = argv[0] if argv else ""
    rest = argv[1:]

    def assign(word: str) -> None:
        eq = word.find("=")
        name = _SUBSCRIPT.sub("", word[:eq])
        scope.vars[name] = expand_word(word[eq + 1 :], scope)
        # bash runs PROMPT_COMMAND before every prompt: judged now, as the command it will be.
        if name == "PROMPT_COMMAND":
            _walk_text(" ".join(scope.vars[name]), child(scope), w, [word])

    if argv and all(ASSIGNMENT.search(a) for a in argv):
        for a in argv:
            assign(a)
        return True
    if first in ("export", "declare", "local", "readonly", "typeset"):
        for a in rest:
            if ASSIGNMENT.search(a):
                assign(a)
        return True
    if first == "alias":
        for a in rest:
            if "=" in a:
                value = a[a.index("=") + 1 :]
                scope.aliases[a[: a.index("=")]] = value
                _walk_script(parse_shell(value), child(scope), w)
        return True
    return defines_words(argv, scope)


_NET_DEVICE = js_re(r"^\/dev\/(tcp|udp)\/")
_FIND_DELETERS = js_re(r"^(rm|shred|unlink|rmdir|sh|bash|dash|zsh|xargs)$")
_BRACES = js_re(r"\{\}", "g")


def _analyze(cmd: SimpleCommand, argv: List[str], stages: Sequence[SimpleCommand], k: int, scope: Scope, w: Walk, forms: Sequence[str]) -> None:
    """One simple command, expanded: its verbs, what it runs inside, and what it runs from its stdin."""
    # A command run from another (find -exec, xargs, interpreter code) is a pipeline of its own.
    if len(stages) == 0:
        stages, k = [cmd], 0
    w.steps += 1
    if w.steps > MAX_STEPS:
        if not any(h.detail == TOO_INVOLVED[1] for h in w.out):
            push(w, TOO_INVOLVED, forms)
        return
    eff = effective_command(argv)
    seg_forms = [forms[0] if forms else "", " ".join(eff.argv)]

    def add(h: Optional[VerbHit], f: Sequence[str] = seg_forms) -> None:
        push(w, h, f)

    program = eff.argv[0] if eff.argv else ""
    args = eff.argv[1:]
    if UNKNOWN in program:
        # An unresolvable program is judged as the worst verb it could be.
        if not args:
            add(("destructive.unresolved_script", "a command that cannot be resolved"))
        else:
            for worst in worst_commands(args):
                _analyze(cmd, worst, stages, k, scope, w, forms)
    add(file_verb_hit(eff.argv, expanded_redirects(cmd.redirects, scope), scope))
    add(infra_hit(eff.argv, [*cmd.argv, *eff.argv]))
    add(more_teardown_hit(eff.argv) or more_teardown_hit(argv))
    add(package_removal_hit(eff.argv))
    add(nested_agent_hit(eff.argv))
    add(agent_copy_hit(eff.argv))
    add(link_hit(eff.argv, scope))
    note_link(eff.argv, scope)
    add(writer_hit(eff.argv, scope))
    extra = extra_verbs(eff.argv, cmd, stages, k, scope)
    for h in extra.hits:
        add(h)
    for t in extra.shells:
        _walk_text(t, child(scope), w, seg_forms)
    for c in extra.code:
        _code_analysis(c, scope, w, seg_forms)
    if program == "git":
        git_analysis(args, scope, _BoundWalker(w), seg_forms)
    ran = written_file_run(eff.argv, scope)
    if ran is not None and "remote" in ran:
        add(("destructive.remote_script", "running a downloaded script"))
    elif ran is not None and ran["code"]:
        _code_analysis(ran["text"], scope, w, seg_forms, program)
    elif ran is not None:
        _walk_text(ran["text"], child(scope), w, seg_forms)
    else:
        # A script file run by a shell, or a program that is an agent: as the gate found it on disk.
        run = script_file_run(argv, eff.argv, scope)
        if run is not None and run["kind"] == "hit":
            add(run["hit"])
        elif run is not None:
            _walk_text(run["text"], child(scope, positional=run["args"]), w, seg_forms)
    note_written_files(eff.argv, cmd, stages, k, scope)
    if runs_substituted_download(cmd, program):
        add(("destructive.remote_script", "running a downloaded script"))
    if reverse_shell(eff.argv, stages):
        add(("destructive.remote_script", "a shell wired to a network connection"))
    if any(_NET_DEVICE.search(r.target) for r in cmd.redirects) and (program in SHELLS or interpreter_of(program)):
        add(("destructive.remote_script", "a shell wired to a network socket"))
    # The client's segment alone describes the hit, whether the SQL is in its words, came through the
    # pipe or from a file: a bypass must name this client (as in destructive.ts).
    add(sql_client_hit(program, args, cmd, stages, k, scope))
    if program == "find":
        execs = [i for i in eff.inner if i.kind == "exec"]
        deletes = "-delete" in args or any(
            _FIND_DELETERS.search(program_name(e.args[0] if e.args else "")) or destroys_operands(e.args or []) for e in execs
        )
        add(find_delete_hit(args, deletes, scope))
        outputs = output_of([SimpleCommand(argv=eff.argv, redirects=[], substitutions=[], raw="")], 0, scope)
        found = outputs["texts"][0].split("\n") if outputs["kind"] == "text" else [UNKNOWN]
        for e in execs:
            for f in found[:4]:
                exec_argv = [js_replace(_BRACES, a, f, True) for a in (e.args or [])]
                _analyze(SimpleCommand(argv=exec_argv, redirects=[], substitutions=[], raw=""), exec_argv, [], 0, scope, w, forms)
    for i in eff.inner:
        if i.kind == "shell":
            # The script's own standard input is the command's: `echo … | sh -c 'cat | sh'`.
            positional = i.args if i.args is not None else scope.positional
            _walk_text(i.text or "", child(scope, positional=positional, arg0=i.arg0, stdin=stdin_of(stages, k, scope)), w, forms)
        elif i.kind == "code":
            _code_analysis(i.text or "", scope, w, seg_forms, i.program or "")
    if eff.stdin is not None:
        stdin_analysis(eff, cmd, stages, k, scope, _BoundWalker(w), forms)
    # `bash <(curl …)`, `source <(echo …)`, `python3 <(…)`: a process substitution as the script file.
    sub_hits, sub_shells, sub_code = substituted_scripts(cmd.argv, program, scope)
    for h in sub_hits:
        add(h)
    for t in sub_shells:
        _walk_text(t, child(scope), w, seg_forms)
    for c in sub_code:
        _code_analysis(c, scope, w, seg_forms)


_WHITESPACE = js_re(r"\s", "g")


def _walk_text(text: str, scope: Scope, w: Walk, forms: Sequence[str]) -> None:
    if _WHITESPACE.sub("", text) == UNKNOWN:
        push(w, ("destructive.unresolved_script", "a script that cannot be resolved"), forms)
    else:
        _walk_script(parse_shell(text), scope, w)


class _BoundWalker:
    """This walk as the modules it hands a command to see it (_tier_walker; walkerOf in destructive.ts)."""

    def __init__(self, w: Walk) -> None:
        self._w = w

    def push(self, h: Optional[VerbHit], forms: Sequence[str]) -> None:
        push(self._w, h, forms)

    def shell(self, text: str, scope: Scope, forms: Sequence[str], **extra: Any) -> None:
        _walk_text(text, child(scope, **extra), self._w, forms)

    def code(self, code: str, scope: Scope, forms: Sequence[str], program: str = "") -> None:
        _code_analysis(code, scope, self._w, forms, program)

    def command(self, cmd: SimpleCommand, argv: List[str], scope: Scope, forms: Sequence[str]) -> None:
        _analyze(cmd, argv, [], 0, scope, self._w, forms)


def _code_analysis(code: str, scope: Scope, w: Walk, forms: Sequence[str], program: str = "") -> None:
    f = analyze_code(code, program)
    if f.fork_bomb:
        push(w, ("destructive.fork_bomb", "a fork bomb"), forms)
    for h in (code_sql_hit(code), hook_switch_in_code(code), hidden_code_hit(code)):
        if h:
            push(w, h, forms)
    if f.remote:
        push(w, ("destructive.remote_script", "code that runs what it downloads"), forms)
    for s in f.shells:
        _walk_text(s, child(scope), w, forms)
    for argv in f.execs:
        _analyze(SimpleCommand(argv=argv, redirects=[], substitutions=[], raw=""), argv, [], 0, child(scope), w, forms)
    for d in f.deletes:
        place = classify_target(scope.dir, d["path"], scope.ctx)
        if place and (d["recursive"] or place in ("root", "system", "home")):
            push(w, ("destructive.rm_recursive", f"{d['api']} of {describe_place(place)}"), forms)
        elif is_protected_file(scope.dir, d["path"], scope.ctx):
            push(w, ("destructive.protected_file", f"{d['api']} {d['path']}"), forms)
    for p in f.file_writes:
        if is_device_path(absolute_path(scope.dir, p, scope.ctx)):
            push(w, ("destructive.device_write", f"code writing to {p}"), forms)
        elif is_protected_file(scope.dir, p, scope.ctx):
            push(w, ("destructive.protected_file", f"overwriting {p}"), forms)


def detect_destructive_hits(command: str, cwd: Any = None, home: Any = None, disk: Any = None, asks: Any = None) -> List[DestructiveHit]:
    """Every destructive-tier hit in a shell command line; `disk`: what a gate found on disk (_disk)."""
    ctx = PathContext(cwd=cwd, home=home, disk=disk, asks=asks, links={})
    w = Walk(scope=new_scope(ctx, workspace_of(ctx)), out=[])
    _walk_script(parse_shell(command), w.scope, w)
    return w.out


def detect_destructive_command(command: str, cwd: Any = None, home: Any = None, disk: Any = None) -> Optional[Tuple[str, str]]:
    """The first destructive-tier rule a shell command line hits, as (rule, detail), or None."""
    hits = detect_destructive_hits(command, cwd, home, disk)
    return (hits[0].rule, hits[0].detail) if hits else None
