"""Destructive statements for a database or a datastore (a port of libs/governance/src/tier/sql.ts).

DROP of a table, database, schema, role or user; TRUNCATE; DELETE or UPDATE without WHERE, or with one
that holds for every row (`WHERE 1=1`); ALTER TABLE … DROP of a column; comments between keywords and
any case. Quoted literals are data (`SELECT 'drop table x'` drops nothing). Also Redis FLUSHALL/FLUSHDB
and SHUTDOWN NOSAVE, MongoDB's dropDatabase / drop / unconditioned deleteMany.
"""
from __future__ import annotations

from typing import List, Optional

from ._jsre import js_re, js_trim

_BLOCK_COMMENT = js_re(r"\/\*[\s\S]*?(\*\/|$)", "g")
_LINE_COMMENT = js_re(r"--[^\n]*", "g")
_QUOTED = js_re(r"'(?:[^']|'')*'?", "g")
_DOLLAR_QUOTED = js_re(r"\$\$[\s\S]*?\$\$", "g")
_SPACES = js_re(r"\s+", "g")


def _statements(sql: str) -> List[str]:
    """SQL text with comments removed and string literals emptied, statements split on `;`."""
    bare = _BLOCK_COMMENT.sub(" ", sql)
    bare = _LINE_COMMENT.sub(" ", bare)
    bare = _QUOTED.sub("''", bare)
    bare = _DOLLAR_QUOTED.sub("''", bare)
    out = [js_trim(_SPACES.sub(" ", s)).lower() for s in bare.split(";")]
    return [s for s in out if s != ""]


_DROP = js_re(r"\bdrop\s+(table|database|schema|role|user|owned|view|materialized view|keyspace|tablespace|collection)\b")
_TRUNCATE = js_re(r"(^|\s)truncate\s+(table\s+)?(only\s+)?[\w\"`[]")
_DELETE_FROM = js_re(r"(^|[\s(])delete\s+from\s")
_WHERE = js_re(r"\bwhere\b")
# An UPDATE statement's own (an upsert's `ON CONFLICT … DO UPDATE SET` is not one).
_UPDATE = js_re(r"^update\s+\S+(\s+(as\s+)?\w+)?\s+set\s")
# A WHERE that every row meets.
_ALWAYS = js_re(r"\bwhere\s+(1\s*=\s*1|true|1|''\s*=\s*''|not\s+false)$")
# ALTER TABLE … DROP of a column (`DROP COLUMN x`, MySQL's `DROP x`); a constraint, index or default holds no data.
_DROP_COLUMN = js_re(
    r"\balter\s+table\b.*\bdrop\s+(?!(constraint|index|key|default|not|primary|foreign|check|partition|trigger|unique|expression|identity|policy|rule)\b)"
)
_ANY_VERB = js_re(r"(drop|truncate|delete|update)", "i")


#: A DO block's body (`DO $$ … $$`, `DO $tag$ … $tag$`).
_DO_BLOCK = js_re(r"\bdo\s+(?:language\s+\w+\s+)?(\$\w*\$)([\s\S]*?)\1", "gi")
#: A literal run as a statement: `EXECUTE 'DROP TABLE ' || t`, `EXECUTE format('…')`, `EXEC('…')`, `sp_executesql N'…'`, `PREPARE s FROM '…'`.
_EXECUTED_LITERAL = js_re(r"\b(?:execute(?:\s+immediate)?|exec|sp_executesql|prepare\s+\w+\s+from)\s*\(?\s*(?:format\s*\(\s*)?N?'((?:[^']|'')*)'", "gi")
_LITERAL = js_re(r"'((?:[^']|'')*)'", "g")


def _built(literal: str) -> str:
    """A literal that starts a statement the text builds (`'TRUNCATE ' || t`), with a name where the rest is joined on."""
    return literal.replace("''", "'") + " x"


def _executed_text(sql: str) -> List[str]:
    """The parts of an SQL text that run as statements although quoted."""
    return [m.group(2) for m in _DO_BLOCK.finditer(sql)] + [_built(m.group(1)) for m in _EXECUTED_LITERAL.finditer(sql)]


def sql_literals(sql: str) -> List[str]:
    """The string literals of an SQL text: the statements a query writes (`SELECT 'DROP TABLE ' || name …`) when its output is run."""
    return [_built(m.group(1)) for m in _LITERAL.finditer(sql)]


def destructive_sql(sql: str, depth: int = 0) -> Optional[str]:
    """The destructive statement in an SQL text, as written in lower case, or None."""
    if not _ANY_VERB.search(sql):
        return None
    for inner in _executed_text(sql) if depth < 3 else []:
        found = destructive_sql(inner, depth + 1)
        if found:
            return found
    for stmt in _statements(sql):
        drop = _DROP.search(stmt)
        if drop:
            return drop.group(0)
        if _TRUNCATE.search(stmt):
            return "truncate"
        verb = "delete" if _DELETE_FROM.search(stmt) else "update" if _UPDATE.search(stmt) else None
        if verb and not _WHERE.search(stmt):
            return f"{verb} without where"
        if verb and _ALWAYS.search(stmt):
            return f"{verb} where every row matches"
        if _DROP_COLUMN.search(stmt):
            return "alter table drop column"
    return None


_DATASTORE = js_re(r"\b(flushall|flushdb|shutdown\s+nosave)\b|\bdropDatabase\s*\(|\.drop\s*\(\s*\)|\bdeleteMany\s*\(\s*\{\s*\}\s*\)|\.remove\s*\(\s*\{\s*\}\s*\)", "i")


def datastore_wipe(text: str) -> Optional[str]:
    """A datastore wipe (Redis FLUSHALL, MongoDB dropDatabase …) in a command or script text, or None."""
    m = _DATASTORE.search(text)
    return m.group(0) if m else None
