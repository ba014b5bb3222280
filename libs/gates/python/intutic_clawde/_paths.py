"""Where a path argument points (a port of libs/governance/src/paths.ts).

The filesystem root, a system directory, the home directory, the workspace root or one of its
ancestors -- the places whose recursive removal the destructive tier refuses -- and whether a file
is one whose overwrite it refuses. Paths are resolved to absolute strings that may hold UNKNOWN
(text the gate cannot know: an unset variable, a command's output) and globs; such a path is judged
by the worst place it could name. `cd` is tracked by the caller so `cd / && rm -rf *` is seen.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from ._disk import path_forms
from ._jsre import js_re
from ._tier_harness_config import is_harness_config_abs
from ._tier_proc_aliases import resolve_proc_aliases

#: Stands for text that cannot be resolved statically; it may be empty, `..`, or contain `/`.
UNKNOWN = "\u0000"
_MAX_UNKNOWN_PARTS = 8


@dataclass
class PathContext:
    #: The workspace root (the call's cwd) when known.
    cwd: Any = None
    home: Any = None
    #: What the gate found on disk (real paths, scripts), as _disk describes: a path check holds for the path or its real path.
    disk: Any = None
    #: Collects what the tier would have liked to know from disk (disk_questions).
    asks: Any = None
    #: Symbolic links the command line made earlier ({link: target}, absolute): a path through one reaches its target.
    links: Any = None


_SYSTEM_TOP = "bin boot dev etc home lib lib32 lib64 libx32 opt proc root sbin srv sys usr var mnt media snap System Users Applications Library private Volumes".split(" ")
_SYSTEM_SECOND = "usr/bin usr/lib usr/lib64 usr/local usr/local/bin usr/local/lib usr/local/sbin usr/sbin usr/share var/lib System/Library private/etc private/var".split(" ")
#: Trees whose files an agent has no business overwriting or deleting.
_TFSTATE = js_re(r"\.tfstate(\.backup)?$")
_SYSTEM_FILE_TREES = js_re(r"^\/(swapfile|swap\.img|vmlinuz(\.old)?|initrd\.img(\.old)?)$|^\/(etc|bin|sbin|boot|lib|lib32|lib64|libx32|proc|sys|root|System|private\/etc|usr\/(?!local(\/|$))[^/]+|var\/(?!tmp(\/|$))[^/]+)(\/|$)")
# A path that ends in a directory or file every home keeps its keys or shell start-up in, after unknown text.
_HOME_SECRETS = re.compile(
    r"\u0000[^/]*\/(?:\.ssh|\.gnupg|\.aws|\.azure|\.kube|\.docker|\.netrc|\.git-credentials|\.pypirc|\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zprofile|\.zshenv|\.gitconfig)(?:\/[^\u0000]*)?$"
)
#: First-level entries of home that are caches or tool stores, not configuration.
_HOME_SCRATCH = {".cache", ".npm", ".local", ".cargo", ".rustup", ".yarn", ".pnpm-store", ".m2", ".gradle", ".nvm", ".bun", ".deno", ".node-gyp", "tmp"}
#: Placeholders for a home or workspace whose absolute path is not known.
_HOME_PLACEHOLDER = "/\u0001home"
_WS_PLACEHOLDER = "/\u0001workspace"


def _absolute_setting(v: Any) -> bool:
    return isinstance(v, str) and v.startswith("/")


def home_of(ctx: PathContext) -> str:
    return normalize_abs(ctx.home) if _absolute_setting(ctx.home) else _HOME_PLACEHOLDER


def workspace_of(ctx: PathContext) -> str:
    return normalize_abs(ctx.cwd) if _absolute_setting(ctx.cwd) else _WS_PLACEHOLDER


def normalize_abs(path: str) -> str:
    """Resolve `.` and `..` segments of an absolute path; a segment holding UNKNOWN stops `..` from climbing past it."""
    segs: List[str] = []
    for s in path.split("/"):
        if s == "" or s == ".":
            continue
        if s == ".." and segs and UNKNOWN not in segs[-1] and segs[-1] != "..":
            segs.pop()
        elif s != ".." or segs:
            segs.append(s)
    return "/" + "/".join(segs)


_HOME_PREFIX = js_re(r"^(~[A-Za-z0-9_.-]*)(?=\/|$)")
_LEADING_UNKNOWN = js_re(r"^\u0000+")


def _through_links(path: str, ctx: PathContext) -> str:
    """A path under a link the line made (`g/objects` after `ln -s .git g`), as the path it reaches; the link itself stays."""
    if not ctx.links:
        return path
    # The longest first: a link inside another (`x` and `x/.git`) is the one the path goes through.
    through = sorted(((link, target) for link, target in (ctx.links or {}).items() if path.startswith(f"{link}/")), key=lambda lt: -len(lt[0]))
    return path if not through else normalize_abs(through[0][1] + path[len(through[0][0]) :])


def absolute_path(dir: str, word: str, ctx: PathContext) -> str:
    """A path word as an absolute path (possibly holding UNKNOWN or globs), from directory `dir`."""

    def resolved(path: str) -> str:
        return _through_links(normalize_abs(resolve_proc_aliases(path, dir)), ctx)

    if word.startswith("/"):
        return resolved(word)
    home = _HOME_PREFIX.search(word)
    if home:
        return resolved(home_of(ctx) + word[len(home.group(0)) :])
    if word.startswith(UNKNOWN):
        return normalize_abs(_LEADING_UNKNOWN.sub(lambda _: "/" + UNKNOWN, word, count=1))
    return resolved(f"{dir}/{word}")


def _protected_places(ctx: PathContext) -> List[Tuple[str, str]]:
    """The places a destructive verb must not reach, as absolute paths."""
    ws = workspace_of(ctx)
    places = [("/", "root"), (home_of(ctx), "home"), (ws, "workspace")]
    segs = [s for s in ws.split("/") if s]
    for n in range(len(segs) - 1, 0, -1):
        places.append(("/" + "/".join(segs[:n]), "ancestor"))
    for s in _SYSTEM_TOP:
        places.append((f"/{s}", "system"))
    for s in _SYSTEM_SECOND:
        places.append((f"/{s}", "system"))
    return places


_GLOB_CHAR = js_re(r"[*?[]")
_ESCAPED = js_re(r"[.+^${}()|\\]", "g")


def _has_wildcard(p: str) -> bool:
    return UNKNOWN in p or _GLOB_CHAR.search(p) is not None


def _pattern_regex(path: str) -> "re.Pattern[str]":
    """A glob (and UNKNOWN, which may hold `/`) as an anchored regular expression over a whole path."""
    out = ""
    i = 0
    while i < len(path):
        c = path[i]
        if c == "/" and path[i + 1 : i + 2] == UNKNOWN:
            # A path that starts with unknown text (`$X/y`) is below some directory; elsewhere `/` +
            # unknown text may be nothing at all, or any path below.
            out += "/.+" if i == 0 else "(?:/.*)?"
            i += 1
        elif c == UNKNOWN:
            out += ".*"
        elif c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = path.find("]", i + 2)
            if end == -1:
                out += "\\["
            else:
                body = path[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += "[" + body.replace("\\", "\\\\") + "]"
                i = end
        else:
            out += _ESCAPED.sub(lambda m: "\\" + m.group(0), c)
        i += 1
    return js_re(f"^{out}/?$")


# A directory of its own at the top of the filesystem (`/data`, `/backup`, `/host`), a volume mounted
# for data (`/mnt/data`, `/srv/www`), a user's home or an application (`/Users/alice`, `/home/bob`,
# `/Applications/Xcode.app`): not the workspace and not a temp directory, so whole trees of something
# the machine keeps.
_DATA_DIRS = js_re(r"^\/(?!tmp$)[^/]{2,}$|^\/(?:mnt|media|srv|opt|Volumes|Users|home|Applications|Library|System)\/[^/]+$")
# A user's own files in home: documents, projects, the desktop (`rm -rf ~/Documents`, `~/Projects`, `~/Library`).
_USER_DIRS = js_re(
    r"^(Documents|Desktop|Downloads|Pictures|Music|Movies|Videos|Library|Applications|Public|Templates|Dropbox|OneDrive|Google Drive|iCloud Drive|Projects|projects|Code|code|src|dev|Developer|work|workspace|repos|git|go|Sites)$"
)


def _exact_place(path: str, ctx: PathContext) -> Optional[str]:
    found = next((place for p, place in _protected_places(ctx) if p == path), None)
    home = home_of(ctx)
    in_home = path.startswith(home + "/") and _USER_DIRS.search(path[len(home) + 1 :]) is not None
    return found if found is not None or not (_DATA_DIRS.search(path) or in_home) else "data"


_CLIMB = js_re(r"(?<=.)\/\u0000(?=\/|$)")
# A last segment naming everything in a directory: `*`, `.*`, `{*,.*}`, and the dotfile idioms `.??*`, `.[!.]*`, `.[^.]*`, `..?*`.
_EVERYTHING_IN = js_re(r"^(\*|\.\*|\{\*,\.\*\}|\{\.\*,\*\}|\.\?\?\*|\.\[[!^]\.\]\*|\.\.\?\*)$")
# `..` after an unknown segment (`"$(git rev-parse --show-toplevel)/.."`): the parent of a place the line cannot name.
_ABOVE_UNKNOWN = js_re(r"\u0000[^/]*\/\.\.(\/|$)")


def classify_abs(path: str, ctx: PathContext) -> Optional[str]:
    """Which protected place an absolute path (from absolute_path) is, or could be.

    A last segment of `*` or `.*` (everything in a directory) counts as the directory itself; another
    glob or UNKNOWN counts as every place it could match, and UNKNOWN alone in a segment could also be `..`.
    """
    # A loop rather than the TypeScript's recursion: a path of many unknown segments climbs once per segment.
    while True:
        last_slash = path.rfind("/")
        last = path[last_slash + 1 :]
        if _EVERYTHING_IN.search(last):
            path = path[:last_slash] or "/"
            continue
        if not _has_wildcard(path):
            return _exact_place(path, ctx)
        # More unknown parts than a real path has, or the parent of an unknown place: no telling where it points, so the worst place.
        if path.count(UNKNOWN) > _MAX_UNKNOWN_PARTS or _ABOVE_UNKNOWN.search(path):
            return "root"
        rx = _pattern_regex(path)
        found = next((place for p, place in _protected_places(ctx) if rx.search(p)), None)
        if found is not None:
            return found
        # An unknown segment may be `..`: try it as one.
        climbed = _CLIMB.sub("/..", path, count=1)
        if climbed == path:
            return None
        path = normalize_abs(climbed)


def classify_target(dir: str, word: str, ctx: PathContext) -> Optional[str]:
    for path in path_forms(absolute_path(dir, word, ctx), ctx):
        place = classify_abs(path, ctx)
        if place:
            return place
    return None


_GLOB_TAIL = js_re(r"[*?[].*$")


def is_protected_file(dir: str, word: str, ctx: PathContext) -> bool:
    """Whether overwriting, truncating or deleting this file damages the machine rather than the task.

    A file in a system tree, or configuration directly under home (dotfiles, ~/.ssh …; not caches).
    An unresolvable path is not assumed to be one: plain writes are everyday work.
    """
    return any(_is_protected_abs(path, ctx) for path in path_forms(absolute_path(dir, word, ctx), ctx))


def _is_protected_abs(path: str, ctx: PathContext) -> bool:
    if is_harness_config_abs(path, home_of(ctx)):
        return True
    # `"$X/.ssh"`: whatever the unknown part is, a credential or shell-start file of that name is home's.
    if UNKNOWN in path:
        return _HOME_SECRETS.search(path) is not None
    prefix = _GLOB_TAIL.sub("", path, count=1)
    # Terraform's record of what it manages: overwritten or lost, the infrastructure is unmanaged.
    if _TFSTATE.search(path):
        return True
    if _SYSTEM_FILE_TREES.search(prefix) and not prefix.startswith(home_of(ctx) + "/"):
        return True
    home = home_of(ctx)
    if not path.startswith(home + "/"):
        return False
    first = path[len(home) + 1 :].split("/")[0]
    return first.startswith(".") and first not in _HOME_SCRATCH


#: Device paths a write to is harmless.
_SAFE_DEVICES = js_re(r"^\/dev\/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|ptmx|console|fd\/\d+|pts\/\d+|shm(\/.*)?)$")
_NET_DEVICE = js_re(r"^\/dev\/(tcp|udp)\/")


def is_device_path(word: str) -> bool:
    """A write target that is a device (a disk, a partition, memory) rather than a harmless sink."""
    return word.startswith("/dev/") and not _NET_DEVICE.search(word) and not _SAFE_DEVICES.search(normalize_abs(word))


def change_dir(dir: str, args: List[str], ctx: PathContext) -> str:
    """The directory after `cd <args>` (no argument: home; `-` or anything unresolvable: unknown)."""
    target = next((a for a in args if not a.startswith("-") or a == "-"), None)
    if target is None:
        return home_of(ctx)
    if target == "-":
        return f"/{UNKNOWN}"
    return absolute_path(dir, target, ctx)


def describe_place(place: str) -> str:
    return {"root": "the filesystem root", "system": "a system directory", "data": "a data directory", "home": "the home directory", "workspace": "the workspace root", "ancestor": "a directory above the workspace"}[place]
