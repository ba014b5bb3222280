"""What a database client is given to run, files included (a port of libs/governance/src/tier/sql-files.ts).

Its words (`-c`, `-e`, `'.read f.sql'`), a heredoc, the pipe, and SQL files as the gate found them
on disk (_disk): named by an option (`psql -f`, `sqlcmd -i`, `clickhouse-client --queries-file`), fed
on stdin (`mysql db < f.sql`, `cat f.sql | psql`) or included by a meta-command (`\\i`, `\\ir`,
`source`, `\\.`, `.read`, `@`), in the words or in a file already read, a few levels deep. _tier_sql
judges the text as it judges inline SQL. A file the gate could not read is left unjudged, as SQL the
line does not show (`psql -c "$Q"`) is: restoring a large dump from a file is everyday work.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ._disk import file_facts
from ._jsre import js_re
from ._paths import UNKNOWN, absolute_path
from ._expand import expand_argv
from ._normalize import program_name
from ._tier_scripts import written_text
from ._tier_sql import sql_literals
from ._tier_streams import stdin_of
from ._tier_systems import SQL_CLIENTS, client_text_hit

#: Options naming a file of statements, for every client; `-f` is one too, except where it means something else.
_FILE_OPTIONS = ["--file", "--filename", "--queries-file", "--input-file", "-init"]
_F_IS_NO_FILE = {"mysql", "mariadb", "mycli", "sqlcmd", "bq", "clickhouse", "clickhouse-client", "redis-cli", "valkey-cli", "keydb-cli"}
#: Each client's meta-commands that run a file, at a statement's start: `\i f`, `source f`, `.read f`, `@f`.
_INCLUDE_COMMANDS = [
    (js_re(r"^(psql|pgcli|usql|cockroach)$"), r"(\\i|\\ir|\\include|\\include_relative)[ \t]+"),
    (js_re(r"^(mysql|mariadb|mycli)$"), r"(source|\\\.)[ \t]+"),
    (js_re(r"^(sqlite3?|duckdb|litecli)$"), r"(\.read)[ \t]+"),
    (js_re(r"^sqlplus$"), r"(@@?|start[ \t]+)"),
]
_SHORT_OPTION = js_re(r"^-\w$")
_RELATIVE_INCLUDE = js_re(r"^\\i(r|nclude_relative)$")
_LAST_SEGMENT = js_re(r"\/[^/]*$")
_MAX_NESTING = 4


def _option_files(program: str, args: Sequence[str]) -> List[str]:
    """The files a client's options name (`-f F`, `-fF`, `--file=F`, `--file F`, `sqlcmd -i F`)."""
    options = [*_FILE_OPTIONS, *([] if program in _F_IS_NO_FILE else ["-f"]), *(["-i"] if program == "sqlcmd" else [])]
    out: List[str] = []
    for i, a in enumerate(args):
        name = next((o for o in options if a == o or a.startswith(f"{o}=") or (_SHORT_OPTION.search(o) and a.startswith(o) and len(a) > 2)), None)
        if name is None:
            continue
        value = (args[i + 1] if i + 1 < len(args) else None) if a == name else a[len(name) :].removeprefix("=")
        if value is not None and value != "-":
            out.extend(value.split(",") if program == "sqlcmd" else [value])
    return out


def _included_files(program: str, text: str, dir: str, file_dir: str) -> List[Dict[str, str]]:
    """The files a text includes by the client's meta-commands, each with the directory it is relative to."""
    command = next((c for clients, c in _INCLUDE_COMMANDS if clients.search(program)), None)
    if command is None:
        return []
    includes = js_re(r"(?:^|[\n;])[ \t]*" + command + r"([\"']?)([^\s\"';]+)\2", "gi")
    return [{"word": m.group(3), "dir": file_dir if _RELATIVE_INCLUDE.search(m.group(1)) else dir} for m in includes.finditer(text)]


def _read_files(program: str, first: List[Dict[str, str]], scope: Any) -> List[str]:
    """The text of every file, read as the gate found it, and of the files those include in turn."""
    texts: List[str] = []
    seen = set()
    todo = first
    depth = 0
    while depth < _MAX_NESTING and todo:
        nxt: List[Dict[str, str]] = []
        for item in todo:
            path = absolute_path(item["dir"], item["word"], scope.ctx)
            if UNKNOWN in item["word"] or path in seen:
                continue
            seen.add(path)
            facts = file_facts(path, scope.ctx)
            # Written earlier in the line, or as the gate found it on disk.
            text = written_text(item["word"], scope)
            if text is None and facts and facts.get("kind") == "text":
                text = facts.get("text")
            if text is None:
                continue
            texts.append(text)
            nxt.extend(_included_files(program, text, scope.dir, _LAST_SEGMENT.sub("", path, count=1) or "/"))
        todo = nxt
        depth += 1
    return texts


def sql_file_texts(program: str, args: Sequence[str], words: Sequence[str], stdin: Dict[str, Any], scope: Any) -> List[str]:
    """The SQL in the files a client runs: named by its options, included from its words, or on its stdin."""
    named = [{"word": w, "dir": scope.dir} for w in [*_option_files(program, args), *(stdin.get("files", []) if stdin["kind"] == "local" else [])]]
    included = [x for t in words for x in _included_files(program, t, scope.dir, scope.dir)]
    return _read_files(program, [*named, *included], scope)


def sql_client_hit(program: str, args: Sequence[str], cmd: Any, stages: Sequence[Any], k: int, scope: Any) -> Optional[tuple]:
    """A destructive statement a database client is given to run, in its words, a heredoc, the pipe or a file; None otherwise."""
    if program not in SQL_CLIENTS:
        return None
    bodies = [r.target for r in cmd.redirects if r.op.startswith("<<")]
    piped = stdin_of(stages, k, scope)
    words = [*args, *bodies, *(piped["texts"] if piped["kind"] == "text" else [])]
    # What another client's query writes into this one (`sqlite3 db "SELECT 'DROP TABLE ' || name …" | sqlite3 db`) is its literals.
    variants = expand_argv(stages[k - 1].argv, scope, stages[k - 1].split) if k > 0 else []
    producer = variants[0] if variants else []
    feeds = piped["kind"] != "text" and program_name(producer[0] if producer else "") in SQL_CLIENTS
    generated = [lit for word in producer[1:] for lit in sql_literals(word)] if feeds else []
    # A command in separate words (`redis-cli SHUTDOWN NOSAVE`) is read whole too.
    return client_text_hit(program, [" ".join(args), *words, *generated, *sql_file_texts(program, args, words, piped, scope)])
