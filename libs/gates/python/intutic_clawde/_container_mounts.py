"""What a container's command does to the host through its bind mounts: `docker run -v /:/host alpine
rm -rf /host/etc` removes the host's /etc. A `run`'s command words (a script word's paths too) that
lie under a read-write bind mount's target are read as the host paths mounted there, so the tier
judges them as it judges the host's own, and a working directory (`-w /host/etc`) under one is
where the command's relative paths lie. Named volumes and read-only mounts are left as they are.
Mirrors libs/governance/src/container-mounts.ts."""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

Bind = Tuple[str, str]  # (source, target)


def _volume_bind(spec: str) -> Optional[Bind]:
    parts = spec.split(":")
    source = parts[0] if len(parts) > 0 else ""
    target = parts[1] if len(parts) > 1 else ""
    options = parts[2] if len(parts) > 2 else ""
    if not source.startswith("/") or not target.startswith("/") or "ro" in options.split(","):
        return None
    return (source, target)


def _mount_bind(spec: str) -> Optional[Bind]:
    fields = {}
    for f in spec.split(","):
        if "=" in f:
            fields[f[: f.index("=")]] = f[f.index("=") + 1 :]
        else:
            fields[f] = "true"
    source = fields.get("source", fields.get("src", ""))
    target = fields.get("target", fields.get("destination", fields.get("dst", "")))
    read_only = any(k in fields and fields[k] != "false" for k in ("readonly", "ro"))
    if fields.get("type") != "bind" or not source.startswith("/") or not target.startswith("/") or read_only:
        return None
    return (source, target)


#: `-v`, after any of run's flags that take no value (`-d`, `-i`, `-t`, `-P`), and its value when attached.
_BUNDLED_VOLUME = re.compile(r"^-[ditP]*v(.*)$", re.S)
_BUNDLED_WORKDIR_ATTACHED = re.compile(r"^-[ditP]*w.", re.S)
_BUNDLED_WORKDIR = re.compile(r"^-[ditP]*w$")


def bind_mounts(options: Sequence[str]) -> List[Bind]:
    """The read-write bind mounts among a `run`'s options: `-v`/`--volume SRC:DST[:opts]`, `--mount type=bind,…`."""
    binds: List[Optional[Bind]] = []
    i = 0
    while i < len(options):
        a = options[i]
        if a in ("-v", "--volume"):
            i += 1
            binds.append(_volume_bind(options[i] if i < len(options) else ""))
        elif a.startswith("--volume="):
            binds.append(_volume_bind(a[len("--volume=") :]))
        elif _BUNDLED_VOLUME.search(a):
            # `-itv SRC:DST`, `-itv/:/host`: run's flags bundled before the -v that ends them.
            attached = _BUNDLED_VOLUME.search(a).group(1)  # type: ignore[union-attr]
            if attached == "":
                i += 1
                attached = options[i] if i < len(options) else ""
            binds.append(_volume_bind(attached))
        elif a == "--mount":
            i += 1
            binds.append(_mount_bind(options[i] if i < len(options) else ""))
        elif a.startswith("--mount="):
            binds.append(_mount_bind(a[len("--mount=") :]))
        i += 1
    return [b for b in binds if b is not None]


def _trim(path: str) -> str:
    return re.sub(r"(.)/+$", r"\1", path)


def as_host_paths(command: List[str], binds: Sequence[Bind]) -> List[str]:
    """The command's words with every path under a bind's target (in a script word too) as the host's."""
    if not binds:
        return command
    targets = {_trim(target): _trim(source) for source, target in binds}
    # Longest first, so /host/etc is read before /host.
    names = [re.escape(t) for t in sorted(targets, key=len, reverse=True)]
    path = re.compile(r"(^|[\s'\"=:;(])(" + "|".join(names) + r")(?=(/|$|[\s'\";)*]))")

    def host(m: "re.Match[str]") -> str:
        source = targets[m.group(2)]
        return m.group(1) + ("" if source == "/" and m.group(3) == "/" else source)

    return [path.sub(host, word) for word in command]


def _workdir_of(options: Sequence[str]) -> Optional[str]:
    """The working directory `-w`/`--workdir` gives the container, or None."""
    workdir: Optional[str] = None
    i = 0
    while i < len(options):
        a = options[i]
        if a in ("-w", "--workdir") or _BUNDLED_WORKDIR.search(a):
            i += 1
            workdir = options[i] if i < len(options) else None
        elif a.startswith("--workdir="):
            workdir = a[len("--workdir=") :]
        elif _BUNDLED_WORKDIR_ATTACHED.search(a):
            workdir = a[a.index("w") + 1 :]
        i += 1
    return workdir


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def host_command(command: List[str], options: Sequence[str]) -> List[str]:
    """A `run`'s command as it acts on the host: its paths under read-write bind mounts as the host's, and
    run in the host directory a mounted working directory is (`sh -c 'cd /etc && rm -rf ssh'`)."""
    binds = bind_mounts(options)
    host = as_host_paths(command, binds)
    workdir = _workdir_of(options)
    host_dir = None if workdir is None else as_host_paths([workdir], binds)[0]
    if host_dir is None or host_dir == workdir or not host:
        return host
    return ["sh", "-c", f"cd {_quote(host_dir)} && " + " ".join(_quote(w) for w in host)]
