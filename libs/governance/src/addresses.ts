// IP addresses as a destination can be written, and host rules written as an address or a CIDR.
// Resolvers take far more than dotted quads (inet_aton: 2130706433, 0x7f.1, 0177.0.0.1, 127.1; IPv6
// in brackets, with a zone id, with an IPv4 address inside), so every notation is brought to one
// canonical text before anything compares it: the rule `10.0.0.0/8` matches `::ffff:a00:1` and `012.1`.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
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
  if (isIPv6(host)) {
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
  const family = isIPv4(m[1]!) ? 4 : isIPv6(m[1]!) ? 6 : 0;
  if (family === 0) return null;
  const max = family === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? max : Number(m[2]);
  if (prefix > max) return null;
  return { family, network: parseIpLiteral(m[1]!)!.address, prefix };
}

const compiled = new Map<string, BlockList | null>();

function blockListOf(pattern: string): BlockList | null {
  if (compiled.has(pattern)) return compiled.get(pattern)!;
  const parsed = parseAddressPattern(pattern);
  let list: BlockList | null = null;
  if (parsed) {
    list = new BlockList();
    list.addSubnet(parsed.network, parsed.prefix, parsed.family === 4 ? 'ipv4' : 'ipv6');
  }
  compiled.set(pattern, list);
  return list;
}

/** Whether the address `host` names (in any notation) lies in the address or CIDR `pattern`. */
export function addressInPattern(pattern: string, host: string): boolean {
  const list = blockListOf(pattern);
  const ip = list === null ? null : parseIpLiteral(host);
  if (list === null || ip === null) return false;
  // BlockList itself sees an IPv4 rule through an IPv4-mapped address; the other embeddings are ours.
  if (list.check(ip.address, ip.family === 4 ? 'ipv4' : 'ipv6')) return true;
  return ip.embeddedV4 !== null && list.check(ip.embeddedV4, 'ipv4');
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
