"""The gate's look at the disk before it decides (a port of libs/gates/src/resolve.ts).

So that a call is judged by what its words point at now rather than by how they are spelled: the
real path of every path the tier checks (links followed, `..` folded), the content of every script
a shell runs, what a bare command name is on PATH, and whether a program run by path is a coding
agent by its content. The tier asks (disk_questions), this answers, and the answers raise new
questions (a script that runs another) for a few rounds; whatever is left unanswered the tier judges
as the worst case. Nothing here follows a FIFO or reads past a bound.
"""
from __future__ import annotations

import hashlib
import os
import posixpath
import re
import stat
from typing import Any, Dict, List, Optional

from ._decide import disk_questions

#: A script longer than this is not read: the tier blocks it as one it cannot check.
MAX_SCRIPT_BYTES = 256 * 1024
_MAX_TOTAL_BYTES = 2 * 1024 * 1024
_MAX_ROUNDS = 6
_MAX_QUESTIONS = 512
_MAX_LINK_HOPS = 40
_SNIFF_BYTES = 4096
#: Agents' files are megabytes; anything smaller is not hashed.
_MIN_AGENT_BYTES = 1024 * 1024
#: Programs the agent user cannot write: an agent copied or linked under another name is never there.
_PROGRAM_TREES = re.compile(r"^/(usr|bin|sbin|lib|lib32|lib64|libx32|opt|etc)(/|$)")
#: Commands of the coding agents installed in our images: their files are the reference for hashes.
_AGENT_NAMES = ["claude", "codex", "gemini", "cursor-agent", "aider", "opencode", "qwen", "copilot", "amp", "crush"]
_PACKAGE_ROOT = re.compile(r"^(.*/node_modules/(?:@[^/]+/)?[^/]+)/")


def real_path(path: str) -> str:
    """`realpath -m`: links followed in every component that exists, the rest folded as written."""
    # /proc/self is the gate's own process, not the command's: its links say nothing about the call.
    if re.match(r"^/proc(/|$)", path):
        return posixpath.normpath(path)
    todo = [s for s in path.split("/") if s not in ("", ".")]
    done = "/"
    hops = 0
    while todo:
        seg = todo.pop(0)
        if seg == "..":
            done = posixpath.dirname(done)
            continue
        nxt = posixpath.join(done, seg)
        try:
            st = os.lstat(nxt)
        except OSError:
            return posixpath.normpath(posixpath.join(nxt, *todo))
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            if hops <= _MAX_LINK_HOPS:
                target = os.readlink(nxt)
                todo = [s for s in target.split("/") if s not in ("", ".")] + todo
                if target.startswith("/"):
                    done = "/"
                continue
        done = nxt
    return done


def _which(name: str, path_var: Optional[str]) -> Optional[str]:
    for d in (path_var or "").split(":"):
        if not d.startswith("/"):
            continue
        candidate = posixpath.join(d, name)
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
            return candidate
    return None


def _list_dir(d: str) -> List[str]:
    try:
        return sorted(os.listdir(d))[:500]
    except OSError:
        return []


def _collect_files(d: str, depth: int, out: List[str]) -> None:
    if depth > 6 or len(out) > 2000:
        return
    for name in _list_dir(d):
        p = posixpath.join(d, name)
        if os.path.isdir(p) and not os.path.islink(p):
            if name != "node_modules":
                _collect_files(p, depth + 1, out)
        elif os.path.isfile(p):
            out.append(p)


def _agent_references(path_var: Optional[str]) -> List[Dict[str, Any]]:
    """The installed agents' large files (entry scripts, bundles, native binaries), found from their commands on PATH."""
    out: List[Dict[str, Any]] = []
    for name in _AGENT_NAMES:
        found = _which(name, path_var)
        if not found:
            continue
        real = real_path(found)
        files = [real]
        m = _PACKAGE_ROOT.match(real)
        if m:
            pkg = m.group(1)
            # The package's own tree, and its platform packages (`claude-code-linux-x64`) beside or inside it.
            roots = [pkg, posixpath.join(pkg, "node_modules", posixpath.basename(posixpath.dirname(pkg)))]
            for scope in (posixpath.dirname(pkg), roots[1]):
                roots.extend(posixpath.join(scope, e) for e in _list_dir(scope) if e.startswith(posixpath.basename(pkg)))
            for root in dict.fromkeys(roots):
                _collect_files(root, 0, files)
        for f in dict.fromkeys(files):
            try:
                st = os.stat(f)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size >= _MIN_AGENT_BYTES:
                out.append({"agent": name, "size": st.st_size, "path": f})
    return out


def _sha256(path: str) -> Optional[str]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        h = hashlib.sha256()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return h.hexdigest()
            h.update(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


class DiskInspector:
    def __init__(self, path_var: Optional[str]) -> None:
        self.path_var = path_var
        self._references: Optional[List[Dict[str, Any]]] = None
        self._bytes_left = _MAX_TOTAL_BYTES

    def _agent_by_content(self, path: str, size: int) -> Optional[str]:
        """The agent a file outside the program trees is, by content: same size and hash as an installed agent's file."""
        if size < _MIN_AGENT_BYTES or _PROGRAM_TREES.match(real_path(path)):
            return None
        if self._references is None:
            self._references = _agent_references(self.path_var)
        same = [r for r in self._references if r["size"] == size]
        if not same:
            return None
        digest = _sha256(path)
        for r in same:
            if "hash" not in r:
                r["hash"] = _sha256(r["path"]) or ""
            if digest is not None and r["hash"] == digest:
                return r["agent"]
        return None

    def file_facts(self, path: str) -> Dict[str, Any]:
        """What is at a path a command runs: never blocking on a FIFO or a device, never reading past the bound."""
        if re.match(r"^/(proc|dev|sys)(/|$)", path):
            return {"kind": "unreadable", "why": "not a regular file"}
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            return {"kind": "missing"}
        except NotADirectoryError:
            return {"kind": "missing"}
        except OSError as e:
            return {"kind": "unreadable", "why": e.strerror or "cannot be opened"}
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return {"kind": "missing"} if stat.S_ISDIR(st.st_mode) else {"kind": "unreadable", "why": "not a regular file"}
            head = os.pread(fd, min(st.st_size, _SNIFF_BYTES), 0) if st.st_size > 0 else b""
            agent = self._agent_by_content(path, st.st_size)
            if b"\0" in head:
                return {"kind": "binary", **({"agent": agent} if agent else {})}
            if agent:
                return {"kind": "text", "agent": agent}
            if st.st_size > MAX_SCRIPT_BYTES:
                return {"kind": "unreadable", "why": f"larger than {MAX_SCRIPT_BYTES // 1024} KiB"}
            if st.st_size > self._bytes_left:
                return {"kind": "unreadable", "why": "more script text than one call may read"}
            self._bytes_left -= st.st_size
            body = os.pread(fd, st.st_size, 0) if st.st_size > 0 else b""
            return {"kind": "text", "text": body.decode("utf-8", "replace")}
        except OSError as e:
            return {"kind": "unreadable", "why": e.strerror or "cannot be read"}
        finally:
            os.close(fd)

    def inspect(self, call: Dict[str, Any]) -> Dict[str, Any]:
        """Answer what deciding `call` depends on, round after round, within the bounds."""
        disk: Dict[str, Dict[str, Any]] = {"real": {}, "files": {}, "commands": {}}
        seen: Dict[str, set] = {"paths": set(), "files": set(), "commands": set()}
        budget = _MAX_QUESTIONS
        for _ in range(_MAX_ROUNDS):
            if budget <= 0:
                break
            q = disk_questions({**call, "disk": disk})
            fresh = {k: [x for x in q[k] if x not in seen[k]] for k in ("paths", "files", "commands")}
            if not any(fresh.values()):
                break
            for p in fresh["paths"]:
                if budget <= 0:
                    break
                budget -= 1
                seen["paths"].add(p)
                real = real_path(p)
                if real != p:
                    disk["real"][p] = real
            for f in fresh["files"]:
                if budget <= 0:
                    break
                budget -= 1
                seen["files"].add(f)
                disk["files"][f] = self.file_facts(f)
            for c in fresh["commands"]:
                if budget <= 0:
                    break
                budget -= 1
                seen["commands"].add(c)
                found = _which(c, self.path_var)
                if found:
                    disk["commands"][c] = found
        return disk
