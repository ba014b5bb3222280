// IP addresses as a destination can be written, and host rules written as an address or a CIDR.
// Resolvers take far more than dotted quads (inet_aton: 2130706433, 0x7f.1, 0177.0.0.1, 127.1; IPv6
// in brackets, with a zone id, with an IPv4 address inside), so every notation is brought to one
// canonical text before anything compares it: the rule `10.0.0.0/8` matches `::ffff:a00:1` and `012.1`.
// Written out rather than taken from node:net: loading node:net costs a hook gate process ~3 ms of
// start-up, and a gate needs it only for these few tests (a property test holds them to node:net's).
import { patternTest } from './patterns.ts';

export interface IpLiteral {
  family: 4 | 6;
  /** A dotted quad, or RFC 5952 IPv6 text: lower case, longest zero run compressed, no zone id. */
  address: string;
  /**
   * The IPv4 address an IPv6 one stands for or reaches: IPv4-mapped (::ffff:a.b.c.d), -translated
   * (::ffff:0:a.b.c.d), -compatible (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002::/16).
   */
  embeddedV4: string | null;
}

export interface AddressPattern {
  family: 4 | 6;
  network: string;
  prefix: number;
}

const DECIMAL_OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
const HEX_WORD = /^[0-9a-f]{1,4}$/i;

/** A dotted quad as node:net's isIPv4 takes it: four decimal parts 0–255, no leading zeros. */
export function isDottedQuad(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => DECIMAL_OCTET.test(part));
}

/**
 * IPv6 text as node:net's isIPv6 takes it, without a zone id: eight words of 1–4 hex digits, fewer
 * around one `::` that stands for at least one, and a dotted quad for the last two.
 */
export function isIpv6Text(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  let words = 0;
  for (const [i, group] of groups.entries()) {
    if (i === groups.length - 1 && group.includes('.') && text.endsWith(group)) {
      if (!isDottedQuad(group)) return false;
      words += 2;
    } else if (HEX_WORD.test(group)) {
      words += 1;
    } else {
      return false;
    }
  }
  return halves.length === 2 ? words <= 7 : words === 8;
}

/** inet_aton's reading of an IPv4 address: 1 to 4 parts, each decimal, octal (0…) or hex (0x…), the last filling the rest. */
export function parseInetAton(text: string): string | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    if (/^0x[0-9a-f]+$/i.test(part)) values.push(parseInt(part.slice(2), 16));
    else if (/^0[0-7]*$/.test(part)) values.push(parseInt(part, 8));
    else if (/^[1-9][0-9]*$/.test(part)) values.push(parseInt(part, 10));
    else return null;
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 2 ** (8 * (4 - values.length))) return null;
  const value = values.reduce((sum, v, i) => sum + v * 2 ** (8 * (3 - i)), 0) + last;
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The eight 16-bit words of an address node:net already accepts as IPv6 (no zone id). */
export function ipv6Words(text: string): number[] {
  let body = text;
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    body = `${body.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const words = (part: string): number[] => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const [head, rest] = body.split('::') as [string, string | undefined];
  if (rest === undefined) return words(head);
  const before = words(head);
  const after = words(rest);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero words as `::`. */
function formatIpv6(words: number[]): string {
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

const dotted = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

function embeddedV4(w: number[]): string | null {
  const zero = (from: number, to: number): boolean => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && w[5] === 0xffff) return dotted(w[6]!, w[7]!); // mapped
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return dotted(w[6]!, w[7]!); // translated
  if (zero(0, 6) && !(w[6] === 0 && w[7]! <= 1)) return dotted(w[6]!, w[7]!); // compatible, not :: or ::1
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return dotted(w[6]!, w[7]!); // NAT64 well-known
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return dotted(w[6]!, w[7]!); // NAT64 local-use, /96 layout
  if (w[0] === 0x2002) return dotted(w[1]!, w[2]!); // 6to4
  return null;
}

/**
 * The address `text` names in any notation a client or resolver accepts (brackets, a trailing dot,
 * an IPv6 zone id, inet_aton forms), or null when it is a host name.
 */
export function parseIpLiteral(text: string): IpLiteral | null {
  let host = text.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  const zone = host.indexOf('%');
  if (zone > 0 && host.includes(':')) host = host.slice(0, zone);
  if (isIpv6Text(host)) {
    const words = ipv6Words(host);
    return { family: 6, address: formatIpv6(words), embeddedV4: embeddedV4(words) };
  }
  const v4 = parseInetAton(host);
  return v4 === null ? null : { family: 4, address: v4, embeddedV4: null };
}

/**
 * WHATWG URL's test for a host that must be an IPv4 address: its last label is a number. One that
 * then fails to parse is neither an address nor a name any resolver would look up.
 */
export function endsInNumber(host: string): boolean {
  const last = host.replace(/\.$/, '').split('.').pop() ?? '';
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

/** A rule pattern written as an address or a CIDR (`203.0.113.7`, `10.0.0.0/8`, `[fd00::]/8`), else null. */
export function parseAddressPattern(pattern: string): AddressPattern | null {
  const m = /^\[?([0-9a-fA-F:.]+)\]?(?:\/(\d{1,3}))?$/.exec(pattern.trim());
  if (!m) return null;
  const family = isDottedQuad(m[1]!) ? 4 : isIpv6Text(m[1]!) ? 6 : 0;
  if (family === 0) return null;
  const max = family === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? max : Number(m[2]);
  if (prefix > max) return null;
  return { family, network: parseIpLiteral(m[1]!)!.address, prefix };
}

const compiled = new Map<string, AddressPattern | null>();

function patternOf(text: string): AddressPattern | null {
  if (!compiled.has(text)) compiled.set(text, parseAddressPattern(text));
  return compiled.get(text)!;
}

/** The 16 bytes of an IPv6 address, or of an IPv4 one as IPv4-mapped (::ffff:a.b.c.d). */
function bytes16(family: 4 | 6, address: string): number[] {
  if (family === 4) return [...new Array<number>(10).fill(0), 0xff, 0xff, ...address.split('.').map(Number)];
  return ipv6Words(address).flatMap((word) => [word >> 8, word & 0xff]);
}

/** Whether the first `bits` bits of two byte strings agree. */
function samePrefix(a: number[], b: number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i]! & mask) !== (b[i]! & mask)) return false;
  }
  return true;
}

/**
 * As node:net's BlockList decides a subnet, every address in its 16-byte form: an IPv6 rule sees an
 * IPv4 address as IPv4-mapped, an IPv4 rule is the mapped block and so sees a mapped address too.
 */
function subnetHas(subnet: AddressPattern, ip: IpLiteral): boolean {
  const bits = subnet.family === 4 ? subnet.prefix + 96 : subnet.prefix;
  return samePrefix(bytes16(subnet.family, subnet.network), bytes16(ip.family, ip.address), bits);
}

/** Whether the address `host` names (in any notation) lies in the address or CIDR `pattern`. */
export function addressInPattern(pattern: string, host: string): boolean {
  const subnet = patternOf(pattern);
  const ip = subnet === null ? null : parseIpLiteral(host);
  if (subnet === null || ip === null) return false;
  if (subnetHas(subnet, ip)) return true;
  // BlockList's reading sees an IPv4 rule only through IPv4-mapped; the other embeddings are ours.
  return ip.embeddedV4 !== null && subnetHas(subnet, { family: 4, address: ip.embeddedV4, embeddedV4: null });
}

/**
 * A host rule's test for an outbound destination: the glob or regex on the host as given and on
 * the address it names (canonical, and the IPv4 inside an IPv6 one), or, for a pattern written as an
 * address or CIDR, the address itself.
 */
export function hostRuleMatches(pattern: string, host: string): boolean {
  const ip = parseIpLiteral(host);
  const forms = ip === null ? [host] : [host, ip.address, ...(ip.embeddedV4 === null ? [] : [ip.embeddedV4])];
  return forms.some((form) => patternTest(pattern, form, { ignoreCase: true })) || addressInPattern(pattern, host);
}
