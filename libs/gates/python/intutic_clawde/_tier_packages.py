"""Removing what the machine runs on through its package manager (a port of libs/governance/src/tier/packages.ts).

A package every other program or the machine's logins rest on (`apt-get remove --purge python3`,
`rpm -e --nodeps glibc`, `yum remove kernel`, `apt purge openssh-server`), any package with its
dependents' checks switched off (`--nodeps`, `--force-depends`, `pacman -Rdd`), and every installed
package at once (`pip freeze | xargs pip uninstall -y`, `brew uninstall $(brew list)`, `npm uninstall
-g $(npm ls -g …)`). A package the line cannot name is the worst one, and pip's
`--break-system-packages` takes them from the system's own Python. Removing one of the project's
own dependencies (`npm uninstall left-pad`, `pip uninstall -y requests`, `apt-get remove nano`) stays
allowed.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ._jsre import js_re
from ._paths import UNKNOWN
from ._tier_files import VerbHit

#: Packages the machine, its shells, its package manager or its logins cannot run without.
_CRITICAL = js_re(
    r"^(libc6|libc-bin|glibc(-common)?|musl|coreutils|bash|dash|busybox|systemd(-sysv)?|init|sysvinit-core|sudo|apt|dpkg|rpm|yum|dnf|apk-tools|pacman|openssh(-server)?|ssh|python3?(-minimal)?|perl(-base)?|linux(-image.*)?|kernel(-core|-modules(-core)?)?|grub.*|util-linux|login|passwd|shadow(-utils)?|base-files|base-passwd|libpam0g|libpam-modules(-bin)?|libpam-runtime|pam|tar|gzip|sed|grep|findutils|mount|e2fsprogs|libstdc\+\+6|libgcc-s1|zlib1g|ca-certificates|openssl|libssl\d[\d.]*)$"
)
#: Options that remove a package whatever depends on it.
_NO_DEPENDENCY_CHECK = js_re(r"^(--nodeps|--force-depends|--force-all|--force-remove-essential|--allow-remove-essential|-R[a-z]*d[a-z]*d[a-z]*)$")
_APT = js_re(r"^(apt|apt-get|aptitude)$")
_APT_REMOVE = js_re(r"^(remove|purge)$")
_YUM = js_re(r"^(yum|dnf|microdnf|tdnf)$")
_YUM_REMOVE = js_re(r"^(remove|erase)$")
_ZYPPER_REMOVE = js_re(r"^(remove|rm)$")
_DPKG_REMOVE = js_re(r"^(-[a-zA-Z]*[rP][a-zA-Z]*|--remove|--purge)$")
_RPM_ERASE = js_re(r"^(-[a-zA-Z]*e[a-zA-Z]*|--erase)$")
_PACMAN_REMOVE = js_re(r"^(-R[a-zA-Z]*|--remove)$")
_PIP = js_re(r"^pip3?(\.\d+)?$")
_REQUIREMENT = js_re(r"^(-r|--requirement)$")
_NPM = js_re(r"^(npm|pnpm)$")
_NPM_REMOVE = js_re(r"^(uninstall|remove|rm|r|un|unlink)$")
_BREW_REMOVE = js_re(r"^(uninstall|remove|rm)$")
_PYTHON = js_re(r"^python[\d.]*$")
_PIP_MODULE = js_re(r"^pip3?$")
_VERSION = js_re(r"[:=].*$")
_GLOB = js_re(r"[*?]")
#: The packages the machine runs on that a glob's fixed start is checked against.
_GLOB_CRITICAL = (
    "libc6",
    "glibc",
    "coreutils",
    "bash",
    "systemd",
    "sudo",
    "apt",
    "dpkg",
    "rpm",
    "openssh-server",
    "python3",
    "perl-base",
    "linux-image",
    "kernel",
)


def _removed(program: str, args: Sequence[str]) -> Optional[List[str]]:
    """The package names a removal names, or None when the command removes nothing."""
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    if _APT.search(program):
        return words[1:] if _APT_REMOVE.search(sub) else None
    if _YUM.search(program):
        return words[1:] if _YUM_REMOVE.search(sub) else None
    if program == "zypper":
        return words[1:] if _ZYPPER_REMOVE.search(sub) else None
    if program in ("apk", "snap"):
        return words[1:] if sub == ("del" if program == "apk" else "remove") else None
    if program == "dpkg":
        return words if any(_DPKG_REMOVE.search(a) for a in args) else None
    if program == "rpm":
        return words if any(_RPM_ERASE.search(a) for a in args) else None
    if program == "pacman":
        return words if any(_PACMAN_REMOVE.search(a) for a in args) else None
    return None


def _removed_globally(program: str, args: Sequence[str]) -> Optional[List[str]]:
    """The packages a language's or a user's package manager removes from the whole machine, or None."""
    words = [a for a in args if not a.startswith("-")]
    first = words[0] if words else ""
    if _PIP.search(program) and first == "uninstall":
        # `-r FILE`: a listing the line cannot show (`-r <(pip freeze)`) is every package.
        lists = [a for i, a in enumerate(args) if i > 0 and _REQUIREMENT.search(args[i - 1])]
        return [*(w for w in words[1:] if w not in lists), *(l for l in lists if l.startswith("<(") or UNKNOWN in l)]
    global_ = any(a in ("-g", "--global", "--location=global") for a in args)
    if _NPM.search(program) and global_ and _NPM_REMOVE.search(first):
        return words[1:]
    if program == "brew" and _BREW_REMOVE.search(first):
        return words[1:]
    if program == "gem" and first == "uninstall":
        return [UNKNOWN] if any(a in ("-a", "--all") for a in args) and len(words) == 1 else words[1:]
    return None


_VERSION_TAIL = js_re(r"(?<=.)@.*$")


def package_removal_hit(argv: Sequence[str]) -> Optional[VerbHit]:
    """A package removal that takes the machine's own programs, or all of them; None otherwise."""
    name = argv[0] if argv else ""
    rest = list(argv[1:])
    # `python3 -m pip uninstall …` is pip.
    if _PYTHON.search(name) and rest[:1] == ["-m"] and _PIP_MODULE.search(rest[1] if len(rest) > 1 else ""):
        program, args = "pip", rest[2:]
    else:
        program, args = name, rest
    system = _removed(program, args)
    packages = system if system is not None else _removed_globally(program, args)
    if packages is None:
        return None

    def hit(detail: str) -> VerbHit:
        return ("destructive.system_disruption", f"{program}: {detail}")

    if system is not None and packages and any(_NO_DEPENDENCY_CHECK.search(a) for a in args):
        return hit("removing a package whatever depends on it")
    # pip's override of the system's own guard: the packages go from the Python the machine's programs import.
    if system is None and "--break-system-packages" in args:
        return hit("removing packages of the system's Python (--break-system-packages)")
    # npm taking itself away (`npm uninstall -g npm`); pip reinstalls itself (`python -m ensurepip`).
    itself = next((p for p in packages if _VERSION_TAIL.sub("", p, count=1) == program), None) if program in ("npm", "pnpm") else None
    if itself is not None:
        return hit(f"removing {itself}, the package manager itself")
    worst = next((p for p in packages if UNKNOWN in p or p.startswith("<(")), None)
    if worst is not None:
        return hit("removing packages the command line cannot name: every installed package, at worst")
    names = (_VERSION.sub("", p, count=1) for p in packages)
    critical = next((p for p in names if _CRITICAL.search(p) or (_GLOB.search(p) and _glob_reaches_critical(p))), None)
    return None if critical is None else hit(f"removing {critical}, which the machine runs on")


def _glob_reaches_critical(glob: str) -> bool:
    """Whether a package glob (`python3*`, `linux-image-*`, `*`) takes a package the machine runs on."""
    match = _GLOB.search(glob)
    prefix = glob[: match.start()] if match else glob[:-1]
    return any(p.startswith(prefix) for p in _GLOB_CRITICAL)
