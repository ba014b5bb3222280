"""A small, forgiving shell parser (a port of libs/governance/src/shell.ts).

It turns a command line into pipelines of simple commands -- argv words with quotes removed,
redirections, command/process substitutions, subshell groups and heredoc bodies -- so the
destructive tier matches what would run, not how it was spelled. It never raises.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional

MAX_DEPTH = 8


@dataclass
class Redirect:
    op: str
    target: str


@dataclass
class SimpleCommand:
    argv: List[str] = field(default_factory=list)
    redirects: List[Redirect] = field(default_factory=list)
    substitutions: List["ShellScript"] = field(default_factory=list)
    group: Optional["ShellScript"] = None


@dataclass
class ShellScript:
    raw: str
    pipelines: List[List[SimpleCommand]]


def _match_paren(src: str, start: int) -> int:
    depth = 1
    i = start
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 1
        elif c == "'":
            end = src.find("'", i + 1)
            i = n if end == -1 else end
        elif c == '"':
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\x07", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"'}


def _ansi_c(body: str) -> str:
    def repl(m: "re.Match[str]") -> str:
        esc = m.group(1)
        if esc[0] == "x":
            return chr(int(esc[1:], 16))
        if re.fullmatch(r"[0-7]+", esc):
            return chr(int(esc, 8))
        return _ANSI.get(esc, esc)

    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", repl, body, flags=re.S)


_REDIRECT = re.compile(r"(<<<|<<-|<<|<>|<&|>>|>&|>\||&>|<|>)")


class _Parser:
    def __init__(self, src: str, depth: int) -> None:
        self.src = src
        self.depth = depth
        self.i = 0
        self.pipelines: List[List[SimpleCommand]] = []
        self.pipeline: List[SimpleCommand] = []
        self.cmd = SimpleCommand()
        self.word: Optional[str] = None
        self.pending_redirect: Optional[str] = None
        self.heredocs: List[tuple] = []

    def parse(self) -> ShellScript:
        src = self.src
        while self.i < len(src):
            c = src[self.i]
            nxt = src[self.i + 1] if self.i + 1 < len(src) else ""
            if c in " \t\r":
                self.end_word()
                self.i += 1
            elif c == "\n":
                self.end_word()
                self.i += 1
                self.read_heredoc_bodies()
                self.end_pipeline()
            elif c == "#" and self.word is None:
                while self.i < len(src) and src[self.i] != "\n":
                    self.i += 1
            elif c in ";&|":
                self.operator(c)
            elif c in "<>" and nxt == "(":
                self.substitution(self.i + 2, c + "(")
            elif c in "<>":
                self.redirect()
            elif c == "(" and self.word is None and not self.cmd.argv:
                end = _match_paren(src, self.i + 1)
                self.cmd.group = self.child(src[self.i + 1 : end])
                self.i = end + 1
            elif c in "()":
                self.end_word()
                self.i += 1
            else:
                self.word_char(c)
        self.end_word()
        self.read_heredoc_bodies()
        self.end_pipeline()
        return ShellScript(src, self.pipelines)

    def child(self, text: str) -> ShellScript:
        return ShellScript(text, []) if self.depth >= MAX_DEPTH else _Parser(text, self.depth + 1).parse()

    def append(self, text: str) -> None:
        self.word = (self.word or "") + text

    def word_char(self, c: str) -> None:
        src = self.src
        nxt = src[self.i + 1] if self.i + 1 < len(src) else ""
        if c == "\\":
            if nxt == "\n":
                self.i += 2
            else:
                self.append(nxt)
                self.i += 2
        elif c == "'":
            end = src.find("'", self.i + 1)
            stop = len(src) if end == -1 else end
            self.append(src[self.i + 1 : stop])
            self.i = stop + 1
        elif c == '"':
            self.double_quoted()
        elif c == "$" and nxt == "'":
            j = self.i + 2
            while j < len(src) and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            self.append(_ansi_c(src[self.i + 2 : j]))
            self.i = j + 1
        elif c == "$" and nxt == "(" and src[self.i + 2 : self.i + 3] != "(":
            self.substitution(self.i + 2, "$(")
        elif c == "`":
            self.backtick()
        elif c == "$" and nxt == "{":
            end = src.find("}", self.i + 2)
            stop = len(src) if end == -1 else end
            self.append(src[self.i : stop + 1])
            self.i = stop + 1
        else:
            self.append(c)
            self.i += 1

    def double_quoted(self) -> None:
        src = self.src
        self.append("")
        self.i += 1
        while self.i < len(src) and src[self.i] != '"':
            c = src[self.i]
            nxt = src[self.i + 1] if self.i + 1 < len(src) else ""
            if c == "\\" and nxt != "" and nxt in '"\\$`\n':
                if nxt != "\n":
                    self.append(nxt)
                self.i += 2
            elif c == "$" and nxt == "(" and src[self.i + 2 : self.i + 3] != "(":
                self.substitution(self.i + 2, "$(")
            elif c == "`":
                self.backtick()
            else:
                self.append(c)
                self.i += 1
        self.i += 1

    def substitution(self, inner_start: int, opener: str) -> None:
        end = _match_paren(self.src, inner_start)
        inner = self.src[inner_start:end]
        self.cmd.substitutions.append(self.child(inner))
        self.append(opener + inner + ")")
        self.i = end + 1

    def backtick(self) -> None:
        j = self.i + 1
        while j < len(self.src) and self.src[j] != "`":
            j += 2 if self.src[j] == "\\" else 1
        inner = self.src[self.i + 1 : j]
        self.cmd.substitutions.append(self.child(inner))
        self.append("`" + inner + "`")
        self.i = j + 1

    def redirect(self) -> None:
        if self.word is not None and re.fullmatch(r"\d+", self.word):
            self.word = None
        self.end_word()
        m = _REDIRECT.match(self.src, self.i)
        assert m is not None
        self.i += len(m.group(1))
        self.pending_redirect = m.group(1)

    def operator(self, c: str) -> None:
        src = self.src
        two = src[self.i : self.i + 2]
        if c == "&" and src[self.i + 1 : self.i + 2] == ">":
            self.end_word()
            self.i += 3 if src[self.i + 2 : self.i + 3] == ">" else 2
            self.pending_redirect = "&>"
            return
        self.end_word()
        if two in ("&&", "||", ";;"):
            self.i += 2
            self.end_pipeline()
        elif c == "|":
            self.i += 2 if src[self.i + 1 : self.i + 2] == "&" else 1
            self.end_command()
        else:
            self.i += 1
            self.end_pipeline()

    def end_word(self) -> None:
        if self.word is None:
            return
        word = self.word
        self.word = None
        if self.pending_redirect is not None:
            op = self.pending_redirect
            self.pending_redirect = None
            redirect = Redirect(op, word)
            self.cmd.redirects.append(redirect)
            if op in ("<<", "<<-"):
                self.heredocs.append((redirect, word, op == "<<-"))
            return
        self.cmd.argv.append(word)

    def read_heredoc_bodies(self) -> None:
        while self.heredocs:
            redirect, delimiter, strip_tabs = self.heredocs.pop(0)
            lines = []
            while self.i < len(self.src):
                nl = self.src.find("\n", self.i)
                stop = len(self.src) if nl == -1 else nl
                line = self.src[self.i : stop]
                self.i = stop + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                lines.append(line)
            redirect.target = "\n".join(lines)

    def end_command(self) -> None:
        self.end_word()
        c = self.cmd
        if c.argv or c.redirects or c.substitutions or c.group is not None:
            self.pipeline.append(c)
        self.cmd = SimpleCommand()

    def end_pipeline(self) -> None:
        self.end_command()
        if self.pipeline:
            self.pipelines.append(self.pipeline)
        self.pipeline = []


def parse_shell(src: str) -> ShellScript:
    return _Parser(src, 0).parse()
