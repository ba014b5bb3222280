"""A small, forgiving shell parser (a port of libs/governance/src/shell.ts).

It turns a command line into pipelines of simple commands -- argv words with quotes removed,
redirections, command/process substitutions, subshell groups and heredoc bodies -- so the
destructive tier matches what would run, not how it was spelled. It never raises: unbalanced
quotes or parentheses simply end at the end of the input.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ._jsre import js_re, js_trim
from ._shell_text import ansi_c, is_space, literal, match_paren, restore_literals
from ._shell_types import Pipeline, Redirect, ShellScript, SimpleCommand

__all__ = ["Redirect", "SimpleCommand", "Pipeline", "ShellScript", "parse_shell", "all_commands", "restore_literals"]

MAX_DEPTH = 8


def _at(s: str, i: int) -> str:
    """s[i] in JavaScript, with '' for undefined."""
    return s[i] if 0 <= i < len(s) else ""


_NAME = js_re(r"^[A-Za-z_][\w.:-]*$")
_EMPTY_PARENS = js_re(r"^\(\s*\)")
_DIGITS = js_re(r"^\d+$")
_REDIRECT_OP = js_re(r"^(<<<|<<-|<<|<>|<&|>>|>&|>\||&>|<|>)")


def _new_command() -> SimpleCommand:
    return SimpleCommand(argv=[], redirects=[], substitutions=[], raw="", split=[], braces=[])


class _Parser:
    def __init__(self, src: str, depth: int) -> None:
        self.src = src
        self.depth = depth
        self.i = 0
        self.pipelines: List[Pipeline] = []
        self.pipeline: List[SimpleCommand] = []
        self.cmd = _new_command()
        self.word_splits = False
        self.word_braces = False
        self.cmd_start = -1
        self.pipeline_start = -1
        #: Just past the last character of command text (operators and heredoc bodies excluded).
        self.text_end = 0
        self.word: Optional[str] = None
        self.pending_redirect: Optional[str] = None
        self.heredocs: List[Tuple[Redirect, str, bool]] = []

    def parse(self) -> ShellScript:
        src = self.src
        while self.i < len(src):
            c = src[self.i]
            if is_space(c):
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
            elif c in (";", "&", "|"):
                self.operator(c)
            elif c == "(" and self.is_function_parens():
                # `name()` / `name ()` of a function definition: the body that follows is parsed as commands.
                self.word = None
                if len(self.cmd.argv) == 1:
                    self.cmd.argv.pop()
                self.i = src.find(")", self.i) + 1
            else:
                self.mark_start()
                self.command_char(c)
                self.text_end = self.i
        self.end_word()
        self.read_heredoc_bodies()
        self.end_pipeline()
        return ShellScript(raw=src, pipelines=self.pipelines)

    def command_char(self, c: str) -> None:
        src = self.src
        if c in ("<", ">") and _at(src, self.i + 1) == "(":
            self.substitution(self.i + 2, c + "(")
        elif c in ("<", ">"):
            self.redirect()
        elif c == "(" and self.word is None and len(self.cmd.argv) == 0:
            end = match_paren(src, self.i + 1)
            self.cmd.group = self.child(src[self.i + 1 : end])
            self.i = end + 1
        elif c in (")", "("):
            # A stray parenthesis: a word boundary, nothing more.
            self.end_word()
            self.i += 1
        else:
            self.word_char(c)

    def mark_start(self) -> None:
        if self.cmd_start == -1:
            self.cmd_start = self.i
        if self.pipeline_start == -1:
            self.pipeline_start = self.i

    def is_function_parens(self) -> bool:
        argv = self.cmd.argv
        named = (self.word is not None and _NAME.search(self.word) is not None and len(argv) == 0) or (self.word is None and len(argv) == 1 and _NAME.search(argv[0]) is not None)
        return named and _EMPTY_PARENS.search(self.src[self.i :]) is not None

    def child(self, text: str) -> ShellScript:
        return ShellScript(raw=text, pipelines=[]) if self.depth >= MAX_DEPTH else _Parser(text, self.depth + 1).parse()

    def append(self, text: str) -> None:
        self.word = (self.word or "") + text

    def word_char(self, c: str) -> None:
        src = self.src
        i = self.i
        if c == "\\":
            if _at(src, i + 1) == "\n":
                self.i += 2
            else:
                self.append(literal(_at(src, i + 1)))
                self.i += 2
        elif c == "'":
            end = src.find("'", i + 1)
            stop = len(src) if end == -1 else end
            self.append(literal(src[i + 1 : stop]))
            self.i = stop + 1
        elif c == '"':
            self.double_quoted()
        elif c == "$" and _at(src, i + 1) == '"':
            # `$"…"`: bash's translated string, a double-quoted one when no catalog translates it.
            self.i = i + 1
            self.double_quoted()
        elif c == "$" and _at(src, i + 1) == "'":
            j = i + 2
            while j < len(src) and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            self.append(literal(ansi_c(src[i + 2 : j])))
            self.i = j + 1
        elif c == "$" and _at(src, i + 1) == "(" and _at(src, i + 2) != "(":
            self.word_splits = True
            self.substitution(i + 2, "$(")
        elif c == "`":
            self.word_splits = True
            self.backtick()
        elif c == "$" and _at(src, i + 1) == "{":
            self.word_splits = True
            end = src.find("}", i + 2)
            stop = len(src) if end == -1 else end
            self.append(src[i : stop + 1])
            self.i = stop + 1
        else:
            if c == "$":
                self.word_splits = True
            if c == "{":
                self.word_braces = True
            self.append(c)
            self.i += 1

    def double_quoted(self) -> None:
        src = self.src
        self.append("")
        self.i += 1
        while self.i < len(src) and src[self.i] != '"':
            c = src[self.i]
            nxt = _at(src, self.i + 1)
            if c == "\\" and nxt != "" and nxt in '"\\$`\n':
                if nxt != "\n":
                    self.append(literal(nxt))
                self.i += 2
            elif c == "$" and nxt == "(" and _at(src, self.i + 2) != "(":
                self.substitution(self.i + 2, "$(")
            elif c == "`":
                self.backtick()
            else:
                self.append(c)
                self.i += 1
        self.i += 1

    def substitution(self, inner_start: int, opener: str) -> None:
        end = match_paren(self.src, inner_start)
        inner = self.src[inner_start:end]
        self.cmd.substitutions.append(self.child(inner))
        self.append(f"{opener}{inner})")
        self.i = end + 1

    def backtick(self) -> None:
        src = self.src
        j = self.i + 1
        while j < len(src) and src[j] != "`":
            j += 2 if src[j] == "\\" else 1
        inner = src[self.i + 1 : j]
        self.cmd.substitutions.append(self.child(inner))
        self.append(f"`{inner}`")
        self.i = j + 1

    def redirect(self) -> None:
        # A word made only of digits right before the operator is a file descriptor (`2>`), not an arg.
        if self.word is not None and _DIGITS.search(self.word):
            self.word = None
        self.end_word()
        m = _REDIRECT_OP.search(self.src[self.i :])
        assert m is not None
        self.i += len(m.group(1))
        self.pending_redirect = m.group(1)

    def operator(self, c: str) -> None:
        src = self.src
        two = src[self.i : self.i + 2]
        if c == "&" and _at(src, self.i + 1) == ">":
            self.end_word()
            self.i += 3 if _at(src, self.i + 2) == ">" else 2
            self.pending_redirect = "&>"
            return
        self.end_word()
        if two in ("&&", "||", ";;"):
            self.i += 2
            self.end_pipeline()
        elif c == "|":
            self.i += 2 if _at(src, self.i + 1) == "&" else 1
            self.end_command()
        else:
            self.i += 1
            self.end_pipeline(c == "&")

    def end_word(self) -> None:
        if self.word is None:
            return
        word = self.word
        splits = self.word_splits
        braces = self.word_braces
        self.word = None
        self.word_splits = False
        self.word_braces = False
        if self.pending_redirect is not None:
            op = self.pending_redirect
            self.pending_redirect = None
            redirect = Redirect(op=op, target=word)
            self.cmd.redirects.append(redirect)
            if op in ("<<", "<<-"):
                self.heredocs.append((redirect, word, op == "<<-"))
            return
        self.cmd.argv.append(word)
        assert self.cmd.split is not None
        self.cmd.split.append(splits)
        assert self.cmd.braces is not None
        self.cmd.braces.append(braces)

    def read_heredoc_bodies(self) -> None:
        src = self.src
        while self.heredocs:
            redirect, delimiter, strip_tabs = self.heredocs.pop(0)
            lines: List[str] = []
            while self.i < len(src):
                nl = src.find("\n", self.i)
                stop = len(src) if nl == -1 else nl
                line = src[self.i : stop]
                self.i = stop + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                lines.append(line)
            redirect.target = "\n".join(lines)

    def end_command(self) -> None:
        self.end_word()
        cmd = self.cmd
        cmd.raw = "" if self.cmd_start == -1 else js_trim(self.src[self.cmd_start : max(self.cmd_start, self.text_end)])
        self.cmd_start = -1
        if cmd.argv or cmd.redirects or cmd.substitutions or cmd.group is not None:
            self.pipeline.append(cmd)
        self.cmd = _new_command()

    def end_pipeline(self, background: bool = False) -> None:
        self.end_command()
        raw = "" if self.pipeline_start == -1 else js_trim(self.src[self.pipeline_start : max(self.pipeline_start, self.text_end)])
        self.pipeline_start = -1
        if self.pipeline:
            self.pipelines.append(Pipeline(commands=self.pipeline, raw=raw, background=background))
        self.pipeline = []


def parse_shell(src: str) -> ShellScript:
    return _Parser(src, 0).parse()


def all_commands(script: ShellScript) -> List[SimpleCommand]:
    """Every simple command in a script, substitutions and groups included, in order of appearance."""
    out: List[SimpleCommand] = []

    def visit(s: ShellScript) -> None:
        for p in s.pipelines:
            for c in p.commands:
                out.append(c)
                if c.group is not None:
                    visit(c.group)
                for sub in c.substitutions:
                    visit(sub)

    visit(script)
    return out
