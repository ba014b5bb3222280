"""The built-in destructive-command tier (a port of libs/governance/src/destructive.ts).

Commands are parsed and normalized first, so quoting, spacing, sudo/env wrappers, `bash -c`,
chains, subshells and substitutions don't hide what would run. A hit names the tier rule.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ._normalize import SHELLS, Dir, change_dir, classify_target, effective_command, initial_dir, program_name
from ._shell import Redirect, ShellScript, SimpleCommand, parse_shell

Hit = Tuple[str, str]  # (rule id, detail)

DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET"}
SQL_CLIENTS = {"psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "clickhouse", "clickhouse-client", "duckdb", "cockroach", "pgcli", "mycli", "litecli", "usql", "sqlplus", "snowsql", "trino", "presto", "spark-sql", "bq", "isql"}
SQL_DROP = re.compile(r"\bdrop\s+(table|database|schema)\b", re.I)
BLOCK_DEVICE = re.compile(r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|mapper/|dm-\d|loop\d|nbd\d)")
FORK_BOMBS = [
    re.compile(r"([A-Za-z_:.][\w:.-]*)\(\)\{[^}]*?\1\|\1&?[^}]*\}"),
    re.compile(r"function([A-Za-z_][\w-]*)(?:\(\))?\{[^}]*\1\|\1"),
    re.compile(r"\bforkwhilefork\b"),
    re.compile(r"while(?:True|1):os\.fork\(\)"),
]
_PLACES = {"root": "the filesystem root", "system": "a system directory", "home": "the home directory", "workspace": "the workspace root", "ancestor": "a directory above the workspace"}


def _is_interpreter(p: str) -> bool:
    return p in SHELLS or re.fullmatch(r"python[\d.]*|perl|ruby|node|php|pwsh|powershell", p) is not None


def _is_flag(a: str) -> bool:
    return a.startswith("-") and a != "-"


def _short_flags(a: str) -> str:
    return a[1:] if re.fullmatch(r"-[A-Za-z0-9]+", a) else ""


def _rm_hit(args: List[str], d: Dir, cwd, home) -> Optional[Hit]:
    recursive = False
    targets = []
    options = True
    for a in args:
        if options and a == "--":
            options = False
        elif options and a.startswith("--"):
            recursive = recursive or a == "--recursive"
        elif options and _is_flag(a):
            recursive = recursive or re.search(r"[rR]", a[1:]) is not None
        else:
            targets.append(a)
    if not recursive:
        return None
    for t in targets:
        place = classify_target(d, t, cwd, home)
        if place:
            return ("destructive.rm_recursive", f"rm -r of {_PLACES[place]} ({t})")
    return None


def _git_hit(args: List[str]) -> Optional[Hit]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env") else 1
    sub = args[i] if i < len(args) else None
    rest = args[i + 1 :]
    if sub == "push":
        force = any(a in ("--force", "--mirror") or a.startswith("--force-with-lease") or "f" in _short_flags(a) for a in rest)
        plus_ref = any(a.startswith("+") for a in rest if not a.startswith("-"))
        if force or plus_ref:
            return ("destructive.git_push_force", "git push rewriting remote history")
    if sub == "reset" and "--hard" in rest:
        return ("destructive.git_reset_hard", "git reset --hard")
    if sub == "clean":
        force = any(a == "--force" or "f" in _short_flags(a) for a in rest)
        dry = any(a == "--dry-run" or "n" in _short_flags(a) for a in rest)
        if force and not dry:
            return ("destructive.git_clean", "git clean -f")
    return None


def _writes_device(redirects: List[Redirect]) -> Optional[str]:
    for r in redirects:
        if r.op in (">", ">>", ">|", "&>", "<>", ">&") and BLOCK_DEVICE.match(r.target):
            return r.target
    return None


def _contains_downloader(script: ShellScript) -> bool:
    return any(_stage_has_downloader(c) for p in script.pipelines for c in p)


def _stage_has_downloader(cmd: SimpleCommand) -> bool:
    if cmd.group is not None and _contains_downloader(cmd.group):
        return True
    argv = effective_command(cmd.argv).argv
    return bool(argv) and argv[0] in DOWNLOADERS


def _command_hit(cmd: SimpleCommand, argv: List[str], d: Dir, cwd, home) -> Optional[Hit]:
    device = _writes_device(cmd.redirects)
    if device:
        return ("destructive.device_write", f"write to {device}")
    program = argv[0] if argv else ""
    args = argv[1:]
    if program == "rm":
        return _rm_hit(args, d, cwd, home)
    if re.fullmatch(r"mkfs(\..+)?|mke2fs|mkswap|wipefs|mkntfs|mkdosfs|mkfs_.+", program) and any(a.startswith("/dev/") for a in args):
        return ("destructive.mkfs", f"{program} on a device")
    if program == "dd":
        of = next((a for a in args if a.startswith("of=") and BLOCK_DEVICE.match(a[3:])), None)
        if of:
            return ("destructive.dd_device", f"dd {of}")
    if program in ("tee", "cp", "shred") and any(BLOCK_DEVICE.match(a) for a in args):
        return ("destructive.device_write", f"{program} to a block device")
    if program in ("chmod", "chown", "chgrp") and any(a == "--recursive" or "R" in _short_flags(a) for a in args):
        target = next((a for a in args if not _is_flag(a) and classify_target(d, a, cwd, home) in ("root", "system")), None)
        if target:
            return ("destructive.chmod_chown_recursive", f"{program} -R {target}")
    if program == "git":
        return _git_hit(args)
    if _is_interpreter(program) and program not in SHELLS:
        code = next((a for i, a in enumerate(args) if i > 0 and re.fullmatch(r"-[ceE]", args[i - 1])), None)
        if code is not None and any(r.search(re.sub(r"\s+", "", code)) for r in FORK_BOMBS):
            return ("destructive.fork_bomb", f"{program} fork bomb")
    if program == "find":
        stop = next((i for i, a in enumerate(args) if a.startswith("-") or a in ("(", "!")), -1)
        roots = args if stop == -1 else args[:stop]
        deletes = "-delete" in args or re.search(r"(^| )-(exec|execdir|ok|okdir) (\S*/)?rm ", " ".join(args)) is not None
        root = next((a for a in roots if classify_target(d, a, cwd, home) in ("root", "system", "home")), None)
        if deletes and root:
            return ("destructive.find_delete", f"find {root} deleting")
    texts = args + [r.target for r in cmd.redirects]
    if program in SQL_CLIENTS and any(SQL_DROP.search(a) for a in texts):
        return ("destructive.sql_drop", f"{program}: {SQL_DROP.search(' '.join(texts)).group(0)}")

    def runs_download(word: str) -> bool:
        return re.match(r"\$\(|`|<\(", word) is not None and any(_contains_downloader(s) for s in cmd.substitutions)

    first = cmd.argv[0] if cmd.argv else ""
    if runs_download(first) or ((_is_interpreter(program) or program in ("source", ".")) and any(runs_download(a) for a in args)):
        return ("destructive.remote_script", "running a downloaded script")
    return None


def _pipeline_hit(pipeline: List[SimpleCommand]) -> Optional[Hit]:
    stages = [effective_command(c.argv).argv for c in pipeline]
    first_download = next((i for i, c in enumerate(pipeline) if _stage_has_downloader(c)), -1)
    if first_download != -1:
        for argv in stages[first_download + 1 :]:
            program = argv[0] if argv else ""
            if _is_interpreter(program) and all(a in ("-", "-s") or (_is_flag(a) and not re.fullmatch(r"-[cmeE]", a) and not re.fullmatch(r"-[A-Za-z]*c", a)) for a in argv[1:]):
                return ("destructive.remote_script", f"download piped into {program}")
    if any(argv and argv[0] in SQL_CLIENTS for argv in stages):
        for c in pipeline:
            for a in c.argv + [r.target for r in c.redirects]:
                m = SQL_DROP.search(a)
                if m:
                    return ("destructive.sql_drop", f"{m.group(0)} piped into a database client")
    return None


_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


def _walk(script: ShellScript, start: Dir, cwd, home, depth: int) -> Optional[Hit]:
    if depth > 8:
        return None
    compact = re.sub(r"\s+", "", _QUOTED.sub("", script.raw))
    if any(r.search(compact) for r in FORK_BOMBS):
        return ("destructive.fork_bomb", "a fork bomb")
    d = start
    for pipeline in script.pipelines:
        hit = _pipeline_hit(pipeline)
        if hit:
            return hit
        for cmd in pipeline:
            for s in ([cmd.group] if cmd.group is not None else []) + cmd.substitutions:
                inner = _walk(s, d, cwd, home, depth + 1)
                if inner:
                    return inner
            eff = effective_command(cmd.argv)
            found = _command_hit(cmd, eff.argv, d, cwd, home)
            for e in eff.execs:
                found = found or _command_hit(SimpleCommand(argv=e), [program_name(e[0]) if e else ""] + e[1:], d, cwd, home)
            if found:
                return found
            for s in eff.scripts:
                nested = _walk(s, d, cwd, home, depth + 1)
                if nested:
                    return nested
            if eff.argv[:1] in (["cd"], ["pushd"]) and len(pipeline) == 1:
                d = change_dir(d, eff.argv[1:])
    return None


def detect_destructive_command(command: str, cwd: Optional[str] = None, home: Optional[str] = None) -> Optional[Hit]:
    return _walk(parse_shell(command), initial_dir(cwd), cwd, home, 0)
