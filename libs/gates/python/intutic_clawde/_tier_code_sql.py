"""SQL that interpreter code sends to a database (a port of libs/governance/src/tier/code-sql.ts).

A string literal handed to a driver's execute / executescript / exec / query / raw / do / prepare /
run, or a tagged template (sql`…`). A literal that is only printed sends nothing.
"""
from __future__ import annotations

from typing import Optional

from ._jsre import js_re
from ._tier_sql import destructive_sql

_STRING = r"""'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\x60(?:[^\x60\\]|\\.)*\x60"""
_SENDERS = js_re(
    r"(?<![\w$])(execute|executescript|executemany|exec|execSync|query|querySync|raw|do|prepare|run|all|get|each|text|sql|execute_sql|exec_query|exec_update|exec_delete|select_all|\$executeRawUnsafe|\$queryRawUnsafe|\$executeRaw|\$queryRaw|unsafe|batch|command)\s*\(\s*[frbuFRBU]{0,2}",
    "g",
)
_LEADING = js_re("^(?:" + _STRING + ")")
_MAYBE = js_re(r"(drop|truncate|delete|update)", "i")
_TAGGED = js_re(r"\bsql\s*`([^`]*)`", "g")
_NEWLINE = js_re(r"\\n", "g")


def code_sql_hit(code: str) -> Optional[tuple]:
    """The destructive statement interpreter code sends to a database, or None."""
    if not _MAYBE.search(code):
        return None
    for m in _SENDERS.finditer(code):
        lit = _LEADING.search(code[m.end() :])
        if lit is None:
            continue
        t = lit.group(0)
        body = t[3:-3] if t.startswith("'''") or t.startswith('"""') else t[1:-1]
        sql = destructive_sql(_NEWLINE.sub("\n", body))
        if sql:
            return ("destructive.sql_drop", f"code sending {sql} to a database")
    for m in _TAGGED.finditer(code):
        sql = destructive_sql(m.group(1))
        if sql:
            return ("destructive.sql_drop", f"code sending {sql} to a database")
    return None
