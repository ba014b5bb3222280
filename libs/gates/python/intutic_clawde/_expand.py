"""Word expansion as far as a command line can be read statically (a port of libs/governance/src/expand.ts).

Variables the line assigned (`X=/; rm -rf $X`), `${…}` forms, `$IFS`, braces, positional
parameters, and command substitutions whose output is plain (`$(echo rm)`, `$(pwd)`, `$(mktemp -d)`).
Everything else becomes UNKNOWN, which the path checks read as the worst place it could be. Each
word yields a few candidates.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from ._disk import command_path
from ._jsre import js_re
from ._paths import UNKNOWN, PathContext
from ._shell import parse_shell, restore_literals
from ._tier_printf import printf_escapes, printf_output
from ._tier_processes import EVERY_PID, lists_every_process

MAX_CANDIDATES = 16


@dataclass
class Scope:
    """What the analysis knows at a point of a command line."""

    ctx: PathContext
    #: The current directory, absolute (may hold UNKNOWN).
    dir: str
    vars: Dict[str, List[str]] = field(default_factory=dict)
    aliases: Dict[str, str] = field(default_factory=dict)
    #: `$1`…; None when the script's arguments are not known.
    positional: Optional[List[str]] = None
    #: `$0`, when the line gives one (`sh -c '$0 -rf ~' rm`).
    arg0: Optional[str] = None
    #: Files written earlier in the line whose content is known: {"remote": True} or {"text": …}.
    files: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    depth: int = 0
    #: What the script's own standard input carries (a `sh -c` script reads its command's).
    stdin: Optional[Dict[str, Any]] = None


def new_scope(ctx: PathContext, dir: str) -> Scope:
    return Scope(ctx=ctx, dir=dir, vars={}, aliases={}, positional=None, files={}, depth=0)


def cap(xs: Sequence[str]) -> List[str]:
    return list(dict.fromkeys(xs))[:MAX_CANDIDATES]


def _product(parts: List[List[str]]) -> List[str]:
    out = [""]
    for p in parts:
        out = cap([prefix + x for prefix in out for x in p])
    return out


def expand_braces(word: str, depth: int = 0) -> List[str]:
    """`{a,b}` lists (nested ones too); ranges and single items stay as written."""
    if depth > 4:
        return [word]
    open_at = -1
    level = 0
    for i, ch in enumerate(word):
        if ch == "{" and (i == 0 or word[i - 1] != "$"):
            if level == 0:
                open_at = i
            level += 1
        elif ch == "}" and level > 0:
            level -= 1
            if level != 0:
                continue
            items: List[str] = []
            start = open_at + 1
            inner = 0
            for j in range(open_at + 1, i):
                if word[j] == "{":
                    inner += 1
                elif word[j] == "}":
                    inner -= 1
                elif word[j] == "," and inner == 0:
                    items.append(word[start:j])
                    start = j + 1
            if not items:
                continue
            items.append(word[start:i])
            head = word[:open_at]
            return cap([x for it in items for x in expand_braces(head + it + word[i + 1 :], depth + 1)])
    return [word]


_DIGITS = js_re(r"^\d+$")


def _variable(name: str, scope: Scope) -> List[str]:
    # A HOME the command line set itself (`HOME=/; rm -rf $HOME/etc`) is what it set.
    if name == "HOME":
        home = scope.vars.get("HOME")
        return home if home is not None else ["~"]
    if name == "PWD":
        return [scope.dir]
    if name == "IFS":
        return [" "]
    if name == "0":
        return [scope.arg0 if scope.arg0 is not None else "sh"]
    if _DIGITS.search(name):
        k = int(name) - 1
        pos = scope.positional
        return [pos[k] if pos is not None and 0 <= k < len(pos) else UNKNOWN]
    if name in ("@", "*"):
        # The agent's own command line is run with no arguments: its `$@` is empty.
        if scope.positional is not None:
            return [" ".join(scope.positional)]
        return [""] if scope.depth == 0 else [UNKNOWN]
    return scope.vars.get(name, [UNKNOWN])


_BRACED = js_re(r"^([A-Za-z_][A-Za-z0-9_]*|\d+|[@*])(?:(:?[-=?+])(.*))?$", "s")


def _braced(body: str, scope: Scope) -> List[str]:
    """The candidates of a `${…}` body."""
    # `${#X}`, `${#arr[@]}`, `${#}`: a length or a count, always a number.
    if body.startswith("#"):
        return ["0"]
    m = _BRACED.search(body)
    if not m:
        return [UNKNOWN]  # ${X#pat}, ${!X}, ${X/a/b}: not followed
    name, op, word = m.group(1), m.group(2), m.group(3) or ""
    known = name in ("HOME", "PWD", "IFS") or name in scope.vars or (_DIGITS.search(name) is not None and scope.positional is not None)
    value = _variable(name, scope)
    if op is None or op.endswith("?"):
        return value
    alt = expand_word(word, scope)
    if op.endswith("+"):
        return alt if known else ["", *alt]
    return value if known else cap([*alt, UNKNOWN])


_ECHO_FLAGS = js_re(r"^-[neE]+$")
_DIRNAME = js_re(r"\/+[^/]*\/*$")


_LOOKUP_FLAG = js_re(r"^-[vpP]$")
_PLAIN_PROGRAM = js_re(r"^[\w+-][\w.+-]*$")


def _program_lookup(name: Optional[str], scope: Scope) -> List[str]:
    """`$(which python3)`, `$(command -v node)`: where PATH finds a program of that plain name.

    As the gate found it; without a gate, a system program directory, the worst place a program of
    that name can be.
    """
    if name is None or not _PLAIN_PROGRAM.search(name):
        return [UNKNOWN]
    found = command_path(name, scope.ctx)
    if found is False:
        return ["/usr/bin/" + name]
    return [UNKNOWN] if found is None else [found]


def _substitution_output(text: str, scope: Scope) -> List[str]:
    """The output of a command substitution, when it is plain enough to know."""
    if scope.depth > 6:
        return [UNKNOWN]
    script = parse_shell(text)
    if len(script.pipelines) != 1 or len(script.pipelines[0].commands) != 1:
        return [UNKNOWN]
    argv = script.pipelines[0].commands[0].argv
    inner = dataclasses.replace(scope, depth=scope.depth + 1)
    args = [a for a in argv[1:] if not _ECHO_FLAGS.search(a)]

    def words(xs: List[str]) -> List[str]:
        parts: List[List[str]] = []
        for i, a in enumerate(xs):
            if i > 0:
                parts.append([" "])
            parts.append(expand_word(a, inner))
        return _product(parts)

    program = argv[0] if argv else None
    if program == "echo":
        return [printf_escapes(x) for x in words(args)] if any(_ECHO_E.search(a) for a in argv[1:]) else words(args)
    if program == "printf":
        expanded = [expand_word(a, inner) for a in argv[1:]]
        if not expanded or len(expanded[0]) != 1 or any(len(r) != 1 for r in expanded[1:]):
            return words(args)
        return [printf_output(expanded[0][0], [r[0] for r in expanded[1:]])]
    if program == "pwd":
        return [scope.dir]
    if program in ("realpath", "readlink"):
        return expand_word(args[-1], inner) if args else [scope.dir]
    if program == "dirname":
        if not args:
            return [UNKNOWN]
        return [(_DIRNAME.sub("", p, count=1) or "/") if "/" in p else "." for p in expand_word(args[-1], inner)]
    if program == "mktemp":
        return ["/tmp/tmp.intutic"]
    if program == "ps":
        return [EVERY_PID if lists_every_process(argv[1:]) else UNKNOWN]
    if program in ("which", "command", "type"):
        if program == "which":
            name = next((a for a in args if not a.startswith("-")), None)
        else:
            name = args[1] if args and _LOOKUP_FLAG.search(args[0]) and len(args) > 1 else None
        return _program_lookup(name, scope)
    return [UNKNOWN]


_ECHO_E = js_re(r"^-[nE]*e[neE]*$")
_EXPANSION = js_re(r"\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])|\$\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)|`([^`]*)`", "g")
_SPECIAL = js_re(r"^[#?$!-]$")


def expand_word(word: str, scope: Scope, braces: bool = True) -> List[str]:
    """A word's candidate values: expansions resolved where known, UNKNOWN where not."""
    parts: List[List[str]] = []
    last = 0
    for m in _EXPANSION.finditer(word):
        parts.append([word[last : m.start()]])
        if m.group(1) is not None:
            parts.append(_braced(m.group(1), scope))
        elif m.group(2) is not None:
            parts.append(["0"] if _SPECIAL.search(m.group(2)) else _variable(m.group(2), scope))
        else:
            g3, g4 = m.group(3), m.group(4)
            parts.append(_substitution_output(g3 if g3 is not None else (g4 if g4 is not None else ""), scope))
        last = m.end()
    parts.append([word[last:]])
    return cap([restore_literals(x) for w in _product(parts) for x in (expand_braces(w) if braces else [w])])


_SPLIT = js_re(r"[ \t\n]+")


_ALL_PARAMS = js_re(r"^\$(@|\{@\})$")


def _field_separators(scope: Scope) -> Any:
    """Default whitespace plus the characters of an $IFS the line set to a known value."""
    ifs = "".join(v for v in scope.vars.get("IFS", []) if UNKNOWN not in v)
    return re.compile("[ \\t\\n" + re.sub(r"[\\\]^-]", lambda m: "\\" + m.group(0), ifs) + "]+") if ifs else _SPLIT


def expand_argv(argv: Sequence[str], scope: Scope, split: Optional[Sequence[bool]] = None, braces: Optional[Sequence[bool]] = None) -> List[List[str]]:
    """The argv variants a command line's words expand to (each a full argv), split where unquoted expansions split."""
    flags = split or []
    bare = braces or []
    variants: List[List[str]] = [[]]
    for i, word in enumerate(argv):
        splits = i < len(flags) and flags[i]
        # Braces in quotes are text (`node -e '…{a, b}…'`); the parser marks the words with bare ones.
        has_braces = i < len(bare) and bare[i]
        values = expand_word(word, scope, len(bare) == 0 or has_braces)
        # `"$@"` is one word per parameter even in quotes; an unquoted expansion splits on $IFS too (`IFS=,`).
        splits = splits or _ALL_PARAMS.search(word) is not None
        separators = _field_separators(scope)
        candidates = [[x for x in separators.split(c) if x != ""] if splits else [c] for c in values]
        # An unquoted brace list is several words (`{rm,-rf,~}` is `rm -rf ~`); its items one at a time
        # stay candidates too, for a list whose items are alternatives of one word.
        if has_braces and len(values) > 1:
            candidates.insert(0, list(values))
        variants = [v + c for v in variants for c in candidates][:MAX_CANDIDATES]
    return variants


def defines_words(argv: Sequence[str], scope: Scope) -> bool:
    """`for NAME in …` and `set -- a b c` (or `set a b c`, which a later `"$@"` runs): what later words
    expand to. True when the command is one of them (nothing runs)."""
    first = argv[0] if argv else ""
    rest = list(argv[1:])
    if first == "for" and len(rest) > 1 and rest[1] == "in":
        scope.vars[rest[0]] = [x for word in rest[2:] for x in expand_word(word, scope)][:16]
        return True
    if first == "set" and rest and (rest[0] == "--" or not rest[0].startswith(("-", "+"))):
        scope.positional = [(expand_word(x, scope) or [UNKNOWN])[0] for x in rest[1 if rest[0] == "--" else 0 :]]
        return True
    return False
