"""Taking the machine's firewall or network down (a port of libs/governance/src/tier/network.ts).

In any of its tools' spellings: flushing or deleting the packet filter's rules or chains (`iptables
-F`, `nft flush ruleset`), a policy that drops everything (`iptables -P INPUT DROP`), switching the
firewall off (`ufw disable`, `ufw reset`, `systemctl stop firewalld`, `firewall-cmd --panic-on`), and
cutting the machine off (`ip link set eth0 down` with ip's abbreviations, `ip route flush`, `ip route
del default`, `route del default`, `ifconfig eth0 down`, `ifdown`, `nmcli networking off`). Listing, adding rules and
bringing links up stay allowed.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ._jsre import js_re
from ._tier_files import long_opt


def _disruption(detail: str) -> tuple:
    return ("destructive.system_disruption", detail)


_PACKET_FILTERS = js_re(r"^(iptables|ip6tables|iptables-legacy|ip6tables-legacy|iptables-nft|ip6tables-nft|ebtables|arptables)$")
_FIREWALL_SERVICES = js_re(r"^(firewalld|ufw|nftables|iptables|ip6tables|netfilter-persistent|NetworkManager|networking|network|systemd-networkd|wicked)(\.service)?$")
_SHORT = js_re(r"^-[a-zA-Z]+$")
_FLUSH_LETTERS = js_re(r"[FX]")
_DROP = js_re(r"^(DROP|REJECT)$", "i")
_NFT_SPLIT = js_re(r"[\s;]+")
_NFT_VERB = js_re(r"^(flush|delete|destroy)$")
_NFT_OBJECT = js_re(r"^(ruleset|table|chain)$")
_IP_VALUED = js_re(r"^-(n|netns|b|batch|rc|rcvbuf)$")
_DEFAULT_ROUTE = js_re(r"^(default|0\.0\.0\.0\/0|::\/0)$")
_ROUTE_DEFAULT = js_re(r"^(default|0\.0\.0\.0(\/0)?)$")
_DENY = js_re(r"^(deny|reject)$")
_SYSTEMCTL_STOP = js_re(r"^(stop|disable|mask|kill)$")
#: ip's objects and their commands, in ip's own order: an abbreviation means the first that it starts.
_IP_OBJECTS = ["address", "addrlabel", "maddress", "route", "rule", "neighbor", "ntable", "link"]
_IP_COMMANDS = {
    "link": ["add", "set", "change", "replace", "delete", "show", "list"],
    "address": ["add", "change", "replace", "delete", "list", "show", "flush"],
    "route": ["add", "change", "replace", "delete", "list", "show", "flush"],
}


def _packet_filter_hit(program: str, args: Sequence[str]) -> Optional[tuple]:
    """iptables's teardown: -F/--flush, -X/--delete-chain (alone or in a cluster: `-vF`), -P CHAIN DROP|REJECT."""
    for i, a in enumerate(args):
        short = a[1:] if _SHORT.search(a) else ""
        if _FLUSH_LETTERS.search(short) or long_opt(a, "flush", 3) or long_opt(a, "delete-chain", 8):
            return _disruption(f"{program} {a}: the firewall's rules removed")
        if (short.endswith("P") or long_opt(a, "policy", 3)) and _DROP.search(args[i + 2] if i + 2 < len(args) else ""):
            return _disruption(f"{program} {a} {args[i + 1]} {args[i + 2]}: every packet dropped")
    return None


def _nft_hit(args: Sequence[str]) -> Optional[tuple]:
    """nft's teardown: `flush ruleset|table|chain …`, `delete|destroy table|chain …`, in separate words or one."""
    words = _NFT_SPLIT.split(" ".join(a for a in args if not a.startswith("-")))
    for i, w in enumerate(words):
        if _NFT_VERB.search(w) and _NFT_OBJECT.search(words[i + 1] if i + 1 < len(words) else ""):
            return _disruption(f"nft {w} {words[i + 1]}")
    return None


def _abbreviates(word: Optional[str], choices: Sequence[str]) -> Optional[str]:
    """The word of `choices` that `word` abbreviates, the first in ip's own order, or None."""
    if not word:
        return None
    return next((c for c in choices if c.startswith(word)), None)


def _ip_hit(args: Sequence[str]) -> Optional[tuple]:
    """ip's teardown: a link set down or deleted, addresses or routes flushed, the default route deleted."""
    words = [a for i, a in enumerate(args) if not a.startswith("-") and not _IP_VALUED.search(args[i - 1] if i > 0 else "")]
    obj = _abbreviates(words[0] if words else None, _IP_OBJECTS) or ""
    command = _abbreviates(words[1] if len(words) > 1 else None, _IP_COMMANDS.get(obj, []))
    operands = words[2:]
    if obj == "link" and command == "set" and "down" in operands:
        return _disruption(f"ip link set {next((w for w in operands if w != 'dev'), '')} down")
    if (obj == "link" and command == "delete") or (obj != "link" and command == "flush"):
        return _disruption(f"ip {obj} {command}")
    if obj == "route" and command == "delete" and any(_DEFAULT_ROUTE.search(w) for w in operands):
        return _disruption("ip route delete default")
    return None


def _at(words: List[str], i: int) -> Optional[str]:
    return words[i] if i < len(words) else None


def stopped_units(argv: Sequence[str]) -> Optional[Tuple[str, List[str]]]:
    """The verb and the units `systemctl stop|disable|mask|kill UNIT…` or `service UNIT stop` stops; None for any other command."""
    program = argv[0] if argv else ""
    words = [a for a in argv[1:] if not a.startswith("-")]
    if program == "systemctl" and _SYSTEMCTL_STOP.search(_at(words, 0) or ""):
        return (words[0], words[1:])
    if program == "service" and _at(words, 1) == "stop":
        return ("stop", [words[0]])
    return None


def network_hit(argv: Sequence[str]) -> Optional[tuple]:
    """A command that takes the machine's firewall or network down; None otherwise."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    words = [a for a in args if not a.startswith("-")]
    if any(a in ("--help", "--version") for a in args):
        return None
    if _PACKET_FILTERS.search(program):
        return _packet_filter_hit(program, args)
    if program == "nft":
        return _nft_hit(args)
    if program == "ip":
        return _ip_hit(args)
    # The kernel's own guards taken off: SELinux no longer enforcing, every AppArmor profile unloaded.
    if program == "setenforce" and (_at(words, 0) or "").lower() in ("0", "permissive"):
        return _disruption(f"setenforce {_at(words, 0)}: SELinux stops enforcing")
    if program == "aa-teardown":
        return _disruption("aa-teardown: every AppArmor profile unloaded")
    if program == "ufw" and _at(words, 0) in ("disable", "reset"):
        return _disruption(f"ufw {words[0]}")
    # `ufw default deny incoming` and `ufw default allow outgoing` are every guide's first two lines.
    direction = _at(words, 2) or "incoming"
    if program == "ufw" and _at(words, 0) == "default":
        if (_at(words, 1) == "allow" and direction == "incoming") or (_DENY.search(_at(words, 1) or "") and direction == "outgoing"):
            return _disruption(f"ufw default {words[1]} {direction}")
    if program == "firewall-cmd" and "--panic-on" in args:
        return _disruption("firewall-cmd --panic-on")
    if program == "ifconfig" and "down" in words:
        return _disruption(f"ifconfig {_at(words, 0) or ''} down")
    if program == "route" and (_at(words, 0) or "").startswith("del") and any(_ROUTE_DEFAULT.search(w) for w in words):
        return _disruption("route del default")
    if program == "ifdown" and args:
        return _disruption(f"ifdown {' '.join(args)}")
    if program == "nmcli":
        obj, verb, state = _at(words, 0), _at(words, 1), _at(words, 2)
        o = _abbreviates(obj, ["general", "networking", "radio", "connection", "device", "agent", "monitor"])
        if (o == "networking" and verb == "off") or (o == "radio" and state == "off" and verb is not None):
            return _disruption(f"nmcli {o} off")
        if (o == "connection" and _abbreviates(verb, ["down", "delete"]) is not None) or (o == "device" and _abbreviates(verb, ["disconnect", "delete"]) is not None):
            return _disruption(f"nmcli {o} {verb}")
    stopped = stopped_units(argv)
    if stopped is not None and any(_FIREWALL_SERVICES.search(s) for s in stopped[1]):
        return _disruption(f"{program} stopping {' '.join(stopped[1])}")
    return None
