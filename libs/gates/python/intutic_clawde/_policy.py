"""Loading the policy (a port of libs/governance/src/policy-load.ts and patterns.ts).

The rules snapshot and the approved-bypass list come from ~/.intutic/hooks/ or wherever
INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES point. A missing file is an empty policy,
unless INTUTIC_POLICY_REQUIRED says a snapshot was put there (a chaos run that carried one in):
then its absence raises PolicyError too. A malformed or unreadable file raises PolicyError (code
E_POLICY_INVALID) naming file:line.
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._json import JsonSyntaxError, parse_json_with_lines

SUBJECTS = ("tool", "command", "path", "content", "host")
ACTIONS = ("block", "hold", "redact")
MODES = ("enforce", "warn", "shadow")
SNAPSHOT_FILE = "snapshot-rules.json"
BYPASSES_FILE = "approved-bypasses.json"
#: Set (to anything but empty or 0) by whoever put a snapshot where the gates read it.
POLICY_REQUIRED_ENV = "INTUTIC_POLICY_REQUIRED"


class PolicyError(Exception):
    code = "E_POLICY_INVALID"


# --- patterns ----------------------------------------------------------------------------------

_REGEX_FORM = re.compile(r"^/(.+)/([imsu]*)$", re.S)
_cache: Dict[Tuple[str, bool, bool], "re.Pattern[str]"] = {}


def is_regex_pattern(pattern: str) -> bool:
    return _REGEX_FORM.match(pattern) is not None


def _glob_source(glob: str, path: bool) -> str:
    out = ""
    braces = 0
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            if glob[i + 1 : i + 2] == "*":
                i += 1
                if path and glob[i + 1 : i + 2] == "/":
                    i += 1
                    out += "(?:.*/)?"
                else:
                    out += ".*"
            else:
                out += "[^/]*" if path else ".*"
        elif c == "?":
            out += "[^/]" if path else "."
        elif c == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out += "\\["
            else:
                body = glob[i + 1 : end].replace("\\", "\\\\")
                out += "[" + ("^" + body[1:] if body.startswith("!") else body) + "]"
                i = end
        elif c == "{":
            braces += 1
            out += "(?:"
        elif c == "}" and braces > 0:
            braces -= 1
            out += ")"
        elif c == "," and braces > 0:
            out += "|"
        elif c == "\\" and i + 1 < len(glob):
            i += 1
            out += re.escape(glob[i])
        else:
            out += re.escape(c)
        i += 1
    return out + ")" * braces


def compile_pattern(pattern: str, path: bool = False, ignore_case: bool = False) -> "re.Pattern[str]":
    key = (pattern, path, ignore_case)
    if key in _cache:
        return _cache[key]
    m = _REGEX_FORM.match(pattern)
    flags = re.I if ignore_case else 0
    if m:
        for f in m.group(2):
            flags |= {"i": re.I, "m": re.M, "s": re.S, "u": 0}[f]
        # JavaScript's named groups `(?<name>…)` are Python's `(?P<name>…)`.
        compiled = re.compile(re.sub(r"\(\?<(?![=!])", "(?P<", m.group(1)), flags)
    else:
        compiled = re.compile(r"\A(?:" + _glob_source(pattern, path) + r")\Z", flags | re.S)
    _cache[key] = compiled
    return compiled


def pattern_test(pattern: str, value: str, path: bool = False, ignore_case: bool = False) -> bool:
    return compile_pattern(pattern, path, ignore_case).search(value) is not None


# --- files -------------------------------------------------------------------------------------


def parse_time(text: str) -> Optional[float]:
    """An ISO 8601 date as epoch seconds, or None (Python 3.9's fromisoformat has no 'Z')."""
    from datetime import datetime, timezone

    try:
        t = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()


def policy_paths(env: Mapping[str, str]) -> Dict[str, str]:
    home = env.get("HOME") or os.path.expanduser("~")
    d = os.path.join(home, ".intutic", "hooks")
    return {"snapshot": env.get("INTUTIC_SNAPSHOT_RULES") or os.path.join(d, SNAPSHOT_FILE), "bypasses": env.get("INTUTIC_APPROVED_BYPASSES") or os.path.join(d, BYPASSES_FILE)}


def policy_required(env: Mapping[str, str]) -> bool:
    return (env.get(POLICY_REQUIRED_ENV) or "").strip() not in ("", "0")


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise PolicyError(f"{path}: cannot read the policy file: {e}") from e


class _Checker:
    def __init__(self, file: str, text: str) -> None:
        self.file = file
        try:
            self.value, self.line_of = parse_json_with_lines(text)
        except JsonSyntaxError as e:
            raise PolicyError(f"{file}:{e.line}:{e.column}: not valid JSON: {e}") from e

    def fail(self, path: List[Any], message: str):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        raise PolicyError(f"{self.file}:{self.line_of(path)}: {where + ' ' if where else ''}{message}")

    def obj(self, value: Any, path: List[Any], allowed: Tuple[str, ...]) -> Dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(path, "must be an object")
        for key in value:
            if key not in allowed:
                self.fail(path + [key], f"is not a known field (known: {', '.join(allowed)})")
        return value

    def string(self, o: Dict[str, Any], key: str, path: List[Any], required: bool) -> Optional[str]:
        v = o.get(key)
        if v is None and key not in o and not required:
            return None
        if not isinstance(v, str) or v.strip() == "":
            self.fail(path + [key], "is required" if required and key not in o else "must be a non-empty string")
        return v

    def one_of(self, o: Dict[str, Any], key: str, path: List[Any], values: Tuple[str, ...], fallback: Optional[str] = None) -> str:
        v = o.get(key, fallback)
        if v not in values:
            self.fail(path + [key], f"is required (one of {', '.join(values)})" if v is None else f"must be one of {', '.join(values)}")
        return v

    def pattern(self, value: str, path: List[Any], is_path: bool = False) -> None:
        try:
            compile_pattern(value, is_path)
        except re.error as e:
            self.fail(path, f"is not a valid pattern: {e}")

    def items(self, key: str) -> List[Any]:
        root = self.obj(self.value, [], ("$schema", "version", "description", key))
        if root.get("version", 1) != 1:
            self.fail(["version"], "must be 1")
        items = root.get(key, [])
        if not isinstance(items, list):
            self.fail([key], "must be an array")
        return items


def parse_snapshot(file: str, text: str) -> List[Dict[str, Any]]:
    check = _Checker(file, text)
    ids = set()
    rules = []
    for i, raw in enumerate(check.items("rules")):
        at = ["rules", i]
        o = check.obj(raw, at, ("id", "subject", "pattern", "action", "mode", "reason", "tool", "description"))
        rid = check.string(o, "id", at, True)
        if rid in ids:
            check.fail(at + ["id"], f'"{rid}" is used by an earlier rule')
        if rid.startswith("destructive."):
            check.fail(at + ["id"], 'must not start with "destructive." (reserved for the built-in tier)')
        ids.add(rid)
        subject = check.one_of(o, "subject", at, SUBJECTS)
        pattern = check.string(o, "pattern", at, True)
        check.pattern(pattern, at + ["pattern"], subject == "path")
        tool = check.string(o, "tool", at, False)
        if tool is not None:
            check.pattern(tool, at + ["tool"])
        reason = "" if "reason" not in o else check.string(o, "reason", at, True)
        rule = {"id": rid, "subject": subject, "pattern": pattern, "action": check.one_of(o, "action", at, ACTIONS), "mode": check.one_of(o, "mode", at, MODES, "enforce"), "reason": reason}
        if tool is not None:
            rule["tool"] = tool
        rules.append(rule)
    return rules


def parse_bypasses(file: str, text: str) -> List[Dict[str, Any]]:
    check = _Checker(file, text)
    out = []
    for i, raw in enumerate(check.items("bypasses")):
        at = ["bypasses", i]
        o = check.obj(raw, at, ("id", "rule", "tool", "pattern", "reason", "approved_by", "expires_at"))
        b = {"id": check.string(o, "id", at, True), "rule": check.string(o, "rule", at, True), "reason": check.string(o, "reason", at, True)}
        for key in ("tool", "pattern", "approved_by", "expires_at"):
            v = check.string(o, key, at, False)
            if v is not None:
                b[key] = v
        if "pattern" in b:
            check.pattern(b["pattern"], at + ["pattern"])
        if "expires_at" in b and parse_time(b["expires_at"]) is None:
            check.fail(at + ["expires_at"], "must be an ISO 8601 date")
        out.append(b)
    return out


def load_policy(env: Mapping[str, str]) -> Dict[str, Any]:
    paths = policy_paths(env)
    snapshot = _read(paths["snapshot"])
    if snapshot is None and policy_required(env):
        # Deciding without it would drop every rule the run was given: refuse instead, and say what is gone.
        raise PolicyError(f"{paths['snapshot']}: the policy snapshot is missing, but {POLICY_REQUIRED_ENV} says this run has one")
    bypasses = _read(paths["bypasses"])
    return {
        "rules": [] if snapshot is None else parse_snapshot(paths["snapshot"], snapshot),
        "bypasses": [] if bypasses is None else parse_bypasses(paths["bypasses"], bypasses),
        "sources": {"snapshot": paths["snapshot"] if snapshot is not None else None, "bypasses": paths["bypasses"] if bypasses is not None else None},
        "missing": {"snapshot": snapshot is None},
    }
