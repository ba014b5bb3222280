"""The paths a name in interpreter code holds (a port of libs/governance/src/tier/code-vars.ts).

Where every binding of a name is one the tier can read: an assignment (`d = 'build'`, `const out =
path.join(__dirname, 'dist')`, `my $d = "tmp"`), or a loop over a literal list, a glob or a
directory's listing (`for d in ('build', 'dist')`, a comprehension, `for (const d of ['dist'])`,
`['dist'].forEach(d => …)`, `%w[tmp log].each do |d|`, `foreach my $f (glob "*.bak")`, `foreach
(['a'] as $d)`, `for c in Path('build').iterdir()`, `for n in os.listdir(root)`), each read with the
values the other names hold (`p = Path(d)`). A name is resolved only when each of its other uses is
a plain argument of a call (`rmtree(d)`, `os.path.join(d, 'x')`), a method or attribute that leaves
it as it is (`p.exists()`, `c.name`), or the start of another name's value (`q = p`): as a parameter, a destructuring target, an augmented or walrus assignment,
an alias (`as d`), or in code that reaches names indirectly (eval, globals(), variable variables) it
is not, and its paths stay UNKNOWN, the worst case.
"""
from __future__ import annotations

import re
from typing import Callable, Dict, List, Mapping, Optional, Tuple

from ._jsre import js_re, js_trim
from ._paths import UNKNOWN
from ._tier_code_paths import LITERAL, STRING, path_expression, split_top_level, unquote

_INDIRECT = js_re(
    r"""\b(globals|locals|vars|setattr|exec|eval|extract|parse_str|compact|Function|instance_variable_set|local_variable_set|binding)\s*\(|__dict__|sys\.modules|__main__|__builtins__|globalThis|\bglobal\.|\bwindow\.|\bthis\.|GLOBALS|\$\$|\$\{\s*['"$]|\$(?:main)?::|\*\w+\s*="""
)
_NAME = r"\$?[A-Za-z_]\w*"
_NOT_CALLS = set(
    "def class function sub fn func lambda new my our local if elif while for foreach until unless return catch except with switch case when and or not in of is".split(" ")
)
# Words before a declared function's name (`def f(d)`): its brackets hold parameters, not arguments.
_DECLARES = {"def", "function", "sub", "fn", "func", "class", "new"}
_MAX_VALUES = 16

_STRINGS = js_re(STRING, "g")
_WORDS = js_re(r"^(?:%w|qw)\s*[[(](.*)[\])]$", "s")
_LIST = js_re(r"^(?:array\s*)?[[(](.*)[\])]$", "s")
_SPACES = js_re(r"\s+", "g")
_PLAIN_GLOB = js_re(r"^(?:glob\.i?glob|glob|Dir\.glob|File\.glob)\s*\(?\s*([^,)]*)", "s")
_DIR_INDEX = js_re(r"^Dir\[([^\]]*)\]$")
_ANGLE_GLOB = js_re(r"^<([^<>]*)>$")
_TREE_GLOB = js_re(r"^(.*)\.(r?)glob\(\s*(.*)\)$", "s")
_ASSIGNMENT = js_re(r"(?:^|[;,\n{}])[ \t]*(?:(?:const|let|var|my|our|local)\s+)?(" + _NAME + r")[ \t]*=(?![=~>])", "g")
_PY_FOR = js_re(r"\bfor[ \t]+(" + _NAME + r")[ \t]+in[ \t]", "g")
_JS_FOR = js_re(r"\bfor\s*\(\s*(?:const|let|var)\s+(" + _NAME + r")\s+of\s", "g")
_PERL_FOR = js_re(r"\bfor(?:each)?\s+(?:my\s+)?(\$\w+)\s*\(", "g")
_PERL_GLOB_SOURCE = js_re(r"^\s*(?:glob\b|<)")
_PHP_FOREACH = js_re(r"\bforeach\s*\(", "g")
_PHP_AS = js_re(r"^(.*)\s+as\s+(\$\w+)\s*$", "s")
_ITERATORS = js_re(
    r"\.(?:forEach|map)\(\s*(?:\(\s*(" + _NAME + r")\s*\)|(" + _NAME + r"))\s*=>|\.each\s*(?:do\s*|\{\s*)\|\s*(" + _NAME + r")\s*\|", "g"
)
_RECEIVER_STOP = js_re(r"[\s;=,{]")
_BEFORE_ARGUMENT = js_re(r"(?:[(,]|(?<!\+)\+|\s\.)\s*$")
_AFTER_ARGUMENT = js_re(r"^\s*(?:[),]|\+(?![=+])|\.\s)")
_PREFIXED_STRINGS = js_re(r"[A-Za-z]{0,2}" + STRING, "g")
_PREFIX = js_re(r"^[A-Za-z]+")
_F_STRING = js_re(r"^[rbuRBU]?[fF]")
_INTERPOLATION_GOES_ON = js_re(r"^[\w[{-]")
_CALLEE = js_re(r"(?:(\w+)\s+)?([\w$.]+)\s*$")


def _word_of(name: str) -> "re.Pattern[str]":
    """A name as a whole word: `d`, not the d of `$d`, `x.d` or `do`."""
    return js_re(r"(?<![\w$.@%])" + name.replace("$", "\\$", 1) + r"(?![\w$])", "g")


def _blank_strings(code: str) -> str:
    """The code with every string's inside blanked, same length: offsets stay those of the code."""

    def blank(m: "re.Match[str]") -> str:
        s = m.group(0)
        q = 3 if s.startswith("'''") or s.startswith('"""') else 1
        return s[:q] + " " * (len(s) - 2 * q) + s[-q:]

    return _STRINGS.sub(blank, code)


def _list_items(expr: str, names: Mapping[str, List[str]]) -> Optional[List[str]]:
    e = js_trim(expr)
    words = _WORDS.search(e)
    if words:
        return [w for w in _SPACES.split(js_trim(words.group(1))) if w]
    lst = _LIST.search(e)
    if not lst:
        return None
    items = [x for x in (js_trim(x) for x in split_top_level(lst.group(1), ",", False)) if x != ""]
    return [p for x in items for p in bound_paths(x, names)]


def _glob_items(expr: str, names: Mapping[str, List[str]]) -> Optional[List[str]]:
    e = js_trim(expr)
    plain = _PLAIN_GLOB.search(e) or _DIR_INDEX.search(e) or _ANGLE_GLOB.search(e)
    if plain:
        lit = LITERAL.search(plain.group(1))
        return [unquote(lit.group(1)) if lit and js_trim(lit.group(0)) == js_trim(plain.group(1)) else UNKNOWN]
    tree = _TREE_GLOB.search(e)
    if not tree:
        return None
    lit = LITERAL.search(tree.group(3))
    if not lit or js_trim(lit.group(0)) != js_trim(tree.group(3)):
        return [UNKNOWN]
    return [base + "/" + ("**/" if tree.group(2) else "") + unquote(lit.group(1)) for base in bound_paths(tree.group(1), names)]


_AWAIT = js_re(r"^await\s+")
_ITERDIR = js_re(r"^(.*)\.iterdir\(\s*\)$", "s")
_LISTDIR = js_re(r"^(?:os\.listdir|os\.scandir|fs\.readdirSync|fs\.readdir|fsp\.readdir|fs\.promises\.readdir|readdirSync|Dir\.children)\s*\(")


def _listing_items(expr: str, names: Mapping[str, List[str]]) -> Optional[List[str]]:
    """What a directory listing yields: `Path(X).iterdir()` the paths in X; `os.listdir(X)`,
    `fs.readdirSync(X)` the names in it, any but `.` and `..`, which `*` stands for (as for ls)."""
    e = _AWAIT.sub("", js_trim(expr), count=1)
    entries = _ITERDIR.search(e)
    if entries:
        return [d + "/*" for d in bound_paths(entries.group(1), names)]
    return ["*"] if _LISTDIR.search(e) else None


def _source_values(expr: str, names: Mapping[str, List[str]]) -> List[str]:
    for items in (_list_items(expr, names), _glob_items(expr, names), _listing_items(expr, names)):
        if items is not None:
            return items
    return [UNKNOWN]


def _statement(code: str, start: int, ends: str = ";|\\n") -> str:
    """The text from `start` to the end of its statement (a top-level `;`, newline, or an unmatched closer)."""
    parts = split_top_level(code[start:], ends, True)
    return parts[0] if parts else ""


def _receiver(code: str, blank: str, end: int) -> str:
    """The expression a method is called on, ending just before `end`."""
    depth = 0
    for i in range(end - 1, -1, -1):
        c = blank[i]
        if c in (")", "]"):
            depth += 1
        elif c in ("(", "["):
            depth -= 1
            if depth < 0:
                return code[i + 1 : end]
        elif depth == 0 and _RECEIVER_STOP.search(c):
            return code[i + 1 : end]
    return code[:end]


#: What a binding gives its name, read with the values the code's other names hold there.
Reader = Callable[[Mapping[str, List[str]]], List[str]]


def _binding_sites(code: str, blank: str) -> Dict[str, List[Tuple[int, Reader]]]:
    sites: Dict[str, List[Tuple[int, Reader]]] = {}

    def add(name: str, at: int, read: Reader) -> None:
        sites.setdefault(name, []).append((at, read))

    def loop(source: str) -> Reader:
        return lambda names: _source_values(source, names)

    def assigned(value: str) -> Reader:
        return lambda names: bound_paths(value, names)

    def name_at(m: "re.Match[str]", name: str) -> int:
        # Its first occurrence as a whole word in the match (`for n in`: not the n of `in`).
        return m.start() + _word_of(name).search(m.group(0)).start()

    for m in _ASSIGNMENT.finditer(blank):
        add(m.group(1), name_at(m, m.group(1)), assigned(_statement(code, m.end())))
    # Python's for statement and comprehension clause.
    for m in _PY_FOR.finditer(blank):
        add(m.group(1), name_at(m, m.group(1)), loop(_statement(code, m.end(), ":|\\bif\\b|\\bfor\\b|;|\\n")))
    for m in _JS_FOR.finditer(blank):
        add(m.group(1), name_at(m, m.group(1)), loop(_statement(code, m.end())))
    for m in _PERL_FOR.finditer(blank):
        source = _statement(code, m.end())
        add(m.group(1), name_at(m, m.group(1)), loop(source if _PERL_GLOB_SOURCE.search(source) else "(" + source + ")"))
    for m in _PHP_FOREACH.finditer(blank):
        inner = _statement(code, m.end())
        as_ = _PHP_AS.search(inner)
        if as_:
            add(as_.group(2), m.end() + inner.rfind(as_.group(2)), loop(as_.group(1)))
    # `LIST.forEach(d => …)`, `.map((d) => …)`, `LIST.each do |d|`, `LIST.each { |d| … }`.
    for m in _ITERATORS.finditer(blank):
        name = m.group(1) or m.group(2) or m.group(3)
        add(name, name_at(m, name), loop(_receiver(code, blank, m.start())))
    return sites


def _plain_argument(blank: str, at: int, length: int) -> bool:
    """Whether a use of a name is a plain argument of a call: `f(d)`, `join(d, 'x')`, `f(d + '/x')`."""
    if not _BEFORE_ARGUMENT.search(blank[:at]):
        return False
    if not _AFTER_ARGUMENT.search(blank[at + length :]):
        return False
    # The bracket it stands in must open a call: a name before `(` that is not a declaration keyword.
    depth = 0
    for i in range(at - 1, -1, -1):
        c = blank[i]
        if c in (")", "]", "}"):
            depth += 1
        elif c in ("(", "[", "{"):
            depth -= 1
            if depth >= 0:
                continue
            # `def f(d)`, `function f(d)`, `sub f(d)`: the word before the name is a keyword too.
            callee = _CALLEE.search(blank[:i]) if c == "(" else None
            return callee is not None and callee.group(2).split(".")[-1] not in _NOT_CALLS and (callee.group(1) or "") not in _DECLARES
    return False


#: Methods that change the value they are called on (Ruby's strings are mutable; `!` methods too), or reach names by their own.
_MUTATORS = js_re(r"^(replace|concat|insert|prepend|clear|push|append|extend|pop|shift|unshift|splice|update|setdefault|chop|chomp|squeeze|send|instance_eval|_\w*)$")
_METHOD = js_re(r"^\s*\.\s*([A-Za-z_]\w*)(!|\s*=(?!=))?")
#: A use that is the whole start of another name's value (`q = p`, `const out = dir + '/x'`).
_ASSIGNED_FROM = js_re(r"(?:^|[;\n{}])[ \t]*(?:(?:const|let|var|my|our|local)\s+)?" + _NAME + r"[ \t]*=[ \t]*$")


def _method_read(blank: str, at: int, length: int) -> bool:
    """Whether a use of a name reads it through a method or attribute that leaves it as it is: `p.exists()`, `child.name`."""
    m = _METHOD.search(blank[at + length :])
    return m is not None and m.group(2) is None and not _MUTATORS.search(m.group(1))


def _assigned_from(blank: str, at: int) -> bool:
    return _ASSIGNED_FROM.search(blank[max(0, at - 200) : at]) is not None


def _text_mention(strings: List["re.Match[str]"], at: int) -> bool:
    """Whether the mention at `at` is text in a one-line string, outside any `{…}` an interpolating string evaluates."""
    string = next((m for m in strings if m.start() < at < m.end()), None)
    if string is None or "\n" in string.group(0):
        return False
    before = string.group(0)[: at - string.start()]
    return before.count("{") == before.count("}")


def _interpolation(code: str, strings: List["re.Match[str]"], at: int, name: str) -> bool:
    """Whether the mention of `name` at `at` is an interpolation of it alone in a string that interpolates."""
    string = next((m for m in strings if m.start() < at < m.end()), None)
    if string is None:
        return False
    quote = _PREFIX.sub("", string.group(0), count=1)[:1]
    before = code[at - 1] if at >= 1 else ""
    before2 = code[at - 2] if at >= 2 else ""
    braced = before == "{" and code[at + len(name) : at + len(name) + 1] == "}"
    if _F_STRING.search(string.group(0)):
        return braced and before2 != "{"
    if quote == "`":
        return braced and before2 == "$"
    if quote != '"':
        return False
    return (braced and before2 in ("#", "$")) or (name.startswith("$") and not _INTERPOLATION_GOES_ON.search(code[at + len(name) :]))


def code_bindings(code: str) -> Dict[str, List[str]]:
    """The values of every name the code binds in ways the tier reads, and uses only as a call's argument."""
    if _INDIRECT.search(code):
        return {}
    blank = _blank_strings(code)
    # Every string with its prefix (`f'...'`), read once: mentions inside them are looked up here.
    strings = list(_PREFIXED_STRINGS.finditer(code))
    found: List[Tuple[str, List[Tuple[int, Reader]]]] = []
    for name, sites in _binding_sites(code, blank).items():
        at = {s[0] for s in sites}
        uses = [m.start() for m in _word_of(name).finditer(blank)]
        # Inside a string, an interpolation of the name alone is a read and a mention in the text of a
        # one-line string is no use; any other mention (in an interpolated expression, or in what the
        # string reader took for a string: an apostrophe in a comment) is a use of unknown kind.
        in_strings = [m.start() for m in _word_of(name).finditer(code) if m.start() not in uses]
        if not all(_interpolation(code, strings, u, name) or _text_mention(strings, u) for u in in_strings):
            continue
        reads = (_plain_argument(blank, u, len(name)) or _method_read(blank, u, len(name)) or _assigned_from(blank, u) for u in uses if u not in at)
        if not all(reads):
            continue
        found.append((name, sites))

    # Each name's values read with the others' (`p = Path(d)` in a loop over a list of `d`), a few rounds deep.
    def read(sites: List[Tuple[int, Reader]], names: Mapping[str, List[str]]) -> List[str]:
        values = list(dict.fromkeys(v for s in sites for v in s[1](names)))
        return [UNKNOWN] if len(values) > _MAX_VALUES else values

    resolved = {name: read(sites, {}) for name, sites in found}
    for _ in range(3):
        resolved = {name: read(sites, {n: v for n, v in resolved.items() if n != name}) for name, sites in found}
    return resolved


def bound_paths(expr: str, bindings: Mapping[str, List[str]]) -> List[str]:
    """The paths an argument expression names with the code's bindings: one per combination of its names' values."""
    names = [n for n in bindings if _word_of(n).search(expr)]
    combos: List[Dict[str, str]] = [{}]
    for n in names:
        combos = [{**c, n: v} for c in combos for v in bindings[n]]
        if len(combos) > _MAX_VALUES:
            return [UNKNOWN]
    return list(dict.fromkeys(path_expression(expr, c) for c in combos))
