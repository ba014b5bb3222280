"""IP addresses as a destination can be written, and host rules written as an address or a CIDR
(a port of libs/governance/src/addresses.ts).

Resolvers take far more than dotted quads (inet_aton: 2130706433, 0x7f.1, 0177.0.0.1, 127.1; IPv6
in brackets, with a zone id, with an IPv4 address inside), so every notation is brought to one
canonical text before anything compares it: the rule `10.0.0.0/8` matches `::ffff:a00:1` and `012.1`.
"""
from __future__ import annotations

import ipaddress
from typing import Dict, List, Optional, Tuple

from ._jsre import js_re, js_trim
from ._policy import pattern_test

# node:net's isIPv4 / isIPv6.
_V4_SEG = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
_V4_STR = f"(?:{_V4_SEG}\\.){{3}}{_V4_SEG}"
_V6_SEG = "(?:[0-9a-fA-F]{1,4})"
_IPV4 = js_re(f"^{_V4_STR}$")
_IPV6 = js_re(
    "^(?:"
    f"(?:{_V6_SEG}:){{7}}(?:{_V6_SEG}|:)|"
    f"(?:{_V6_SEG}:){{6}}(?:{_V4_STR}|:{_V6_SEG}|:)|"
    f"(?:{_V6_SEG}:){{5}}(?::{_V4_STR}|(?::{_V6_SEG}){{1,2}}|:)|"
    f"(?:{_V6_SEG}:){{4}}(?:(?::{_V6_SEG}){{0,1}}:{_V4_STR}|(?::{_V6_SEG}){{1,3}}|:)|"
    f"(?:{_V6_SEG}:){{3}}(?:(?::{_V6_SEG}){{0,2}}:{_V4_STR}|(?::{_V6_SEG}){{1,4}}|:)|"
    f"(?:{_V6_SEG}:){{2}}(?:(?::{_V6_SEG}){{0,3}}:{_V4_STR}|(?::{_V6_SEG}){{1,5}}|:)|"
    f"(?:{_V6_SEG}:){{1}}(?:(?::{_V6_SEG}){{0,4}}:{_V4_STR}|(?::{_V6_SEG}){{1,6}}|:)|"
    f"(?::(?:(?::{_V6_SEG}){{0,5}}:{_V4_STR}|(?::{_V6_SEG}){{1,7}}|:))"
    ")(?:%[0-9a-zA-Z-.:]{1,})?$"
)


def is_ipv4(text: str) -> bool:
    return _IPV4.search(text) is not None


def is_ipv6(text: str) -> bool:
    return _IPV6.search(text) is not None


_HEX_PART = js_re(r"^0x[0-9a-f]+$", "i")
_OCT_PART = js_re(r"^0[0-7]*$")
_DEC_PART = js_re(r"^[1-9][0-9]*$")


def parse_inet_aton(text: str) -> Optional[str]:
    """inet_aton's reading of an IPv4 address: 1 to 4 parts, each decimal, octal (0…) or hex (0x…), the last filling the rest."""
    parts = text.split(".")
    if len(parts) > 4:
        return None
    values: List[int] = []
    for part in parts:
        if _HEX_PART.search(part):
            values.append(int(part[2:], 16))
        elif _OCT_PART.search(part):
            values.append(int(part, 8))
        elif _DEC_PART.search(part):
            values.append(int(part, 10))
        else:
            return None
    last = values.pop()
    if any(v > 255 for v in values) or last >= 2 ** (8 * (4 - len(values))):
        return None
    value = sum(v * 2 ** (8 * (3 - i)) for i, v in enumerate(values)) + last
    return ".".join(str((value >> shift) % 256) for shift in (24, 16, 8, 0))


def _ipv6_words(text: str) -> List[int]:
    body = text
    last_colon = body.rfind(":")
    tail = body[last_colon + 1 :]
    if "." in tail:
        a, b, c, d = (int(x) for x in tail.split("."))
        body = f"{body[: last_colon + 1]}{((a << 8) | b):x}:{((c << 8) | d):x}"

    def words(part: str) -> List[int]:
        return [] if part == "" else [int(w, 16) for w in part.split(":")]

    pieces = body.split("::")
    if len(pieces) == 1:
        return words(pieces[0])
    before = words(pieces[0])
    after = words(pieces[1])
    return [*before, *([0] * (8 - len(before) - len(after))), *after]


def _format_ipv6(words: List[int]) -> str:
    """RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero words as `::`."""
    best_at, best_len = -1, 1
    i = 0
    while i < 8:
        if words[i] != 0:
            i += 1
            continue
        j = i
        while j < 8 and words[j] == 0:
            j += 1
        if j - i > best_len:
            best_at, best_len = i, j - i
        i = j
    hexes = [f"{w:x}" for w in words]
    if best_at < 0:
        return ":".join(hexes)
    return ":".join(hexes[:best_at]) + "::" + ":".join(hexes[best_at + best_len :])


def _dotted(high: int, low: int) -> str:
    return ".".join(str(x) for x in (high >> 8, high & 0xFF, low >> 8, low & 0xFF))


def _embedded_v4(w: List[int]) -> Optional[str]:
    def zero(a: int, b: int) -> bool:
        return all(x == 0 for x in w[a:b])

    if zero(0, 5) and w[5] == 0xFFFF:
        return _dotted(w[6], w[7])  # mapped
    if zero(0, 4) and w[4] == 0xFFFF and w[5] == 0:
        return _dotted(w[6], w[7])  # translated
    if zero(0, 6) and not (w[6] == 0 and w[7] <= 1):
        return _dotted(w[6], w[7])  # compatible, not :: or ::1
    if w[0] == 0x64 and w[1] == 0xFF9B and zero(2, 6):
        return _dotted(w[6], w[7])  # NAT64 well-known
    if w[0] == 0x64 and w[1] == 0xFF9B and w[2] == 1:
        return _dotted(w[6], w[7])  # NAT64 local-use, /96 layout
    if w[0] == 0x2002:
        return _dotted(w[1], w[2])  # 6to4
    return None


def parse_ip_literal(text: str) -> Optional[Tuple[int, str, Optional[str]]]:
    """(family, canonical address, embedded IPv4) of the address `text` names in any notation, or None for a host name."""
    host = js_trim(text).lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host.endswith("."):
        host = host[:-1]
    zone = host.find("%")
    if zone > 0 and ":" in host:
        host = host[:zone]
    if is_ipv6(host):
        words = _ipv6_words(host)
        return (6, _format_ipv6(words), _embedded_v4(words))
    v4 = parse_inet_aton(host)
    return None if v4 is None else (4, v4, None)


_ADDRESS_PATTERN = js_re(r"^\[?([0-9a-fA-F:.]+)\]?(?:\/(\d{1,3}))?$")


def parse_address_pattern(pattern: str) -> Optional[Tuple[int, str, int]]:
    """A rule pattern written as an address or a CIDR (`203.0.113.7`, `10.0.0.0/8`, `[fd00::]/8`): (family, network, prefix)."""
    m = _ADDRESS_PATTERN.search(js_trim(pattern))
    if not m:
        return None
    family = 4 if is_ipv4(m.group(1)) else 6 if is_ipv6(m.group(1)) else 0
    if family == 0:
        return None
    top = 32 if family == 4 else 128
    prefix = top if m.group(2) is None else int(m.group(2))
    if prefix > top:
        return None
    parsed = parse_ip_literal(m.group(1))
    assert parsed is not None
    return (family, parsed[1], prefix)


_compiled: Dict[str, Optional[Tuple[int, int, int]]] = {}


def _network_of(pattern: str) -> Optional[Tuple[int, int, int]]:
    """(family, network as an integer with host bits cleared, prefix), like node:net's BlockList.addSubnet."""
    if pattern not in _compiled:
        parsed = parse_address_pattern(pattern)
        net = None
        if parsed:
            family, network, prefix = parsed
            bits = 32 if family == 4 else 128
            value = int(ipaddress.ip_address(network))
            net = (family, (value >> (bits - prefix)) << (bits - prefix) if prefix else 0, prefix)
        _compiled[pattern] = net
    return _compiled[pattern]


def _check(net: Tuple[int, int, int], address: str, family: int) -> bool:
    """BlockList.check: an IPv4 address is seen as IPv4-mapped by an IPv6 rule, and the other way round."""
    net_family, network, prefix = net
    value = int(ipaddress.ip_address(address))
    if family != net_family:
        if family == 4:
            value, family = 0xFFFF00000000 | value, 6
        elif value >> 32 == 0xFFFF:
            value, family = value & 0xFFFFFFFF, 4
        else:
            return False
    bits = 32 if family == 4 else 128
    return prefix == 0 or (value >> (bits - prefix)) == (network >> (bits - prefix))


def address_in_pattern(pattern: str, host: str) -> bool:
    """Whether the address `host` names (in any notation) lies in the address or CIDR `pattern`."""
    net = _network_of(pattern)
    ip = None if net is None else parse_ip_literal(host)
    if net is None or ip is None:
        return False
    if _check(net, ip[1], ip[0]):
        return True
    return ip[2] is not None and _check(net, ip[2], 4)


def host_rule_matches(pattern: str, host: str) -> bool:
    """A host rule's test: the glob or regex on the host as given and on the address it names, or, for an address or CIDR pattern, the address itself."""
    ip = parse_ip_literal(host)
    forms = [host] if ip is None else [host, ip[1], *([] if ip[2] is None else [ip[2]])]
    return any(pattern_test(pattern, form, False, True) for form in forms) or address_in_pattern(pattern, host)
