"""The checks added to every simple command since issues 36 and 40 (a port of libs/governance/src/tier/extra-verbs.ts).

Git history, appends to agent settings, databases destroyed by framework tasks, makefiles read from
standard input, what takes the machine or a remote repository down, permissions taken from their
owner (_tier_permissions), the programs a package manager's settings run (_tier_package_config) and
the commands an option carries (_tier_option_commands).
Scripts and code found here are walked by the caller.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Sequence

from ._expand import expand_argv
from ._tier_cron import cron_commands, cron_reads_stdin, cron_wipes
from ._tier_db_tasks import db_task_hit, framework_console_code, framework_sql_shell
from ._tier_disruption import disruption_hit
from ._tier_git_history import history_tool_hit
from ._tier_harness_config import harness_append_hit
from ._tier_make import MAKES, make_reads_stdin, make_recipes, make_substituted_file
from ._tier_option_commands import option_commands
from ._tier_package_config import package_config_commands
from ._tier_permissions import permission_hit
from ._tier_removers import remover_hit
from ._tier_sql_files import sql_file_texts
from ._tier_startup_files import startup_file_writes
from ._tier_streams import script_output, stdin_of
from ._tier_systems import client_text_hit


@dataclass
class ExtraFindings:
    hits: List[tuple] = field(default_factory=list)
    #: Shell command lines the command runs.
    shells: List[str] = field(default_factory=list)
    #: Interpreter code it runs.
    code: List[str] = field(default_factory=list)


def extra_verbs(argv: Sequence[str], cmd: Any, stages: Sequence[Any], k: int, scope: Any) -> ExtraFindings:
    out = ExtraFindings()

    def add(h: Any) -> None:
        if h:
            out.hits.append(h)

    program = argv[0] if argv else ""
    args = list(argv[1:])
    add(history_tool_hit(argv, scope))
    add(harness_append_hit(argv, cmd.redirects, scope))
    add(db_task_hit(argv))
    add(remover_hit(argv, scope))
    add(disruption_hit(argv))
    add(permission_hit(argv, scope))
    startup_hit, startup_shells = startup_file_writes(argv, cmd.redirects, scope)
    add(startup_hit)
    out.shells.extend(startup_shells)
    variants = expand_argv(cmd.argv, scope, cmd.split)
    out.shells.extend(package_config_commands(variants[0] if variants else []))
    out.shells.extend(option_commands(argv))
    # `trap 'CMD' EXIT`: the shell runs CMD when the signal comes.
    if program == "trap" and len(args) >= 2 and not args[0].startswith("-"):
        out.shells.append(args[0])
    console_code = framework_console_code(argv)
    if console_code is not None:
        out.code.append(console_code)
    is_make = MAKES.search(program) is not None
    makefile = make_substituted_file(args) if is_make else None
    if program == "crontab" and cron_wipes(args, stdin_of(stages, k, scope) if cron_reads_stdin(args) else None):
        add(("destructive.protected_file", "crontab installing an empty table over the user's crontab"))
    if program == "crontab" and cron_reads_stdin(args):
        cron = stdin_of(stages, k, scope)
        if cron["kind"] == "remote":
            add(("destructive.remote_script", "a download piped into crontab"))
        elif cron["kind"] == "text":
            out.shells.extend(c for t in cron["texts"] for c in cron_commands(t))
    if framework_sql_shell(argv) or (is_make and make_reads_stdin(args)) or makefile is not None:
        stream = script_output(makefile, scope) if makefile is not None else stdin_of(stages, k, scope)
        kind = stream["kind"]
        if kind == "remote":
            add(("destructive.remote_script", f"a download piped into {program}"))
        elif kind == "unknown":
            add(("destructive.unresolved_script", f"{program} runs what it reads from a command whose output cannot be read"))
        elif kind == "text" and is_make:
            out.shells.extend(r for t in stream["texts"] for r in make_recipes(t))
        elif not is_make:
            add(client_text_hit("psql", [*(stream["texts"] if kind == "text" else []), *sql_file_texts("psql", [], [], stream, scope)]))
    return out
