"""Destroying a database through a framework's own tasks (a port of libs/governance/src/tier/db-tasks.ts).

`rails db:drop`, `manage.py flush`, `prisma migrate reset`, `artisan migrate:fresh`, `mix ecto.drop`,
`flyway clean`, `liquibase dropAll`, `flask db downgrade base` …;
and the places a framework hands code or SQL on: its console (`rails runner CODE`, `manage.py shell -c CODE`,
`artisan tinker --execute=CODE`), `manage.py dbshell`, `rails dbconsole`.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ._jsre import js_re

_RAKE_TASKS = js_re(r"^db:(drop|reset|purge|truncate_all|schema:load|migrate:reset|structure:load)(\[|:|$)")
_ARTISAN = js_re(r"^(migrate:fresh|migrate:reset|migrate:refresh|db:wipe)$")
_RUNNERS = js_re(r"^(python[\d.]*|php[\d.]*)$")
_DIR = js_re(r"^.*\/")

_DROP_ALL = js_re(r"^drop-?all$", "i")

def _hit(detail: str) -> tuple:
    return ("destructive.sql_drop", detail)


def _task(argv: Sequence[str]) -> List[str]:
    a = list(argv)
    if a[:2] == ["bundle", "exec"]:
        a = a[2:]
    if _RUNNERS.search(a[0] if a else ""):
        a = a[1:]
    return [_DIR.sub("", a[0] if a else "", count=1)] + a[1:]


def db_task_hit(argv: Sequence[str]) -> Optional[tuple]:
    t = _task(argv)
    program, args = t[0], t[1:]
    words = [a for a in args if not a.startswith("-")]
    w = lambda i: words[i] if i < len(words) else ""  # noqa: E731
    if program in ("rails", "rake"):
        task = next((x for x in words if _RAKE_TASKS.search(x)), None)
        if task is not None:
            return _hit(f"{program} {task}")
    if program in ("manage.py", "django-admin") and w(0) in ("flush", "reset_db", "sqlflush_and_run"):
        return _hit(f"{program} {w(0)}")
    if program == "flyway" and "clean" in words:
        return _hit("flyway clean")
    if program == "liquibase" and any(_DROP_ALL.search(x) for x in words):
        return _hit("liquibase dropAll")
    if program == "flask" and w(0) == "db" and w(1) == "downgrade" and w(2) == "base":
        return _hit("flask db downgrade base")
    if program == "artisan" and _ARTISAN.search(w(0)):
        return _hit(f"artisan {w(0)}")
    if program == "prisma" and ((w(0) == "migrate" and w(1) == "reset") or (w(0) == "db" and "--force-reset" in args)):
        return _hit(f"prisma {' '.join(words[:2])}")
    if program in ("sequelize", "sequelize-cli") and w(0) in ("db:drop", "db:migrate:undo:all"):
        return _hit(f"{program} {w(0)}")
    if program == "knex" and w(0) == "migrate:rollback" and "--all" in args:
        return _hit("knex migrate:rollback --all")
    if program == "typeorm" and w(0) == "schema:drop":
        return _hit("typeorm schema:drop")
    if program == "mix" and w(0) in ("ecto.drop", "ecto.reset"):
        return _hit(f"mix {w(0)}")
    # `alembic -x env=prod downgrade base`: -x and -c take a value.
    alembic = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] not in ("-x", "-c", "--config", "--name", "-n"))] if program == "alembic" else []
    if alembic[:2] == ["downgrade", "base"]:
        return _hit("alembic downgrade base")
    if program == "dotnet" and w(0) == "ef" and w(1) == "database" and w(2) == "drop":
        return _hit("dotnet ef database drop")
    if program == "supabase" and w(0) == "db" and w(1) == "reset":
        return _hit("supabase db reset")
    return None


def framework_console_code(argv: Sequence[str]) -> Optional[str]:
    """Code a framework's console runs: `rails runner CODE` (Ruby), `manage.py shell -c CODE` (Python), `artisan tinker --execute=CODE` (PHP)."""
    t = _task(argv)
    if t[0] == "artisan" and t[1:2] == ["tinker"]:
        at = next((i for i, a in enumerate(t) if a == "--execute" or a.startswith("--execute=")), -1)
        if at == -1:
            return None
        return t[at][10:] if t[at].startswith("--execute=") else (t[at + 1] if at + 1 < len(t) else None)
    # Django's `manage.py shell -c CODE` runs Python the same way.
    if t[0] == "manage.py" and t[1:2] == ["shell"]:
        c = next((i for i, a in enumerate(t) if a in ("-c", "--command")), -1)
        return t[c + 1] if c != -1 and c + 1 < len(t) else None
    if t[0] != "rails" or (t[1] if len(t) > 1 else "") not in ("runner", "r"):
        return None
    return next((a for a in t[2:] if not a.startswith("-")), None)


def framework_sql_shell(argv: Sequence[str]) -> bool:
    """A framework command that opens an SQL client on its standard input."""
    t = _task(argv)
    first = t[1] if len(t) > 1 else ""
    return (t[0] == "manage.py" and first == "dbshell") or (t[0] == "rails" and first in ("dbconsole", "db"))
