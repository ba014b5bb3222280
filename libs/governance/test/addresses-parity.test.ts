// addresses.ts decides IP literals and address rules without node:net (a hook gate would pay for
// loading it). These properties hold it to node:net's own answers: isIPv4, isIPv6 and BlockList's
// subnet check, on texts and addresses made to sit on every edge (prefix boundaries, both families,
// IPv4-mapped forms, compressed and dotted IPv6, malformed groups).
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressInPattern, ipv6Words, isDottedQuad, isIpv6Text, parseIpLiteral } from '../src/addresses.ts';

const RUNS = 3000;

/** Strings of the characters addresses are written with, and parts of real ones. */
const addressLike = fc
  .array(fc.constantFrom('0', '1', '9', '25', '255', '256', '01', 'a', 'F', 'ffff', '12345', ':', '::', '.', '1.2.3.4', '%', ''), { maxLength: 12 })
  .map((parts) => parts.join(''));

/** Groups joined by `:`, one joint (or an end) now and then a `::`: too many words, too few, a quad in the wrong place. */
const groupsText = fc
  .tuple(fc.array(fc.constantFrom('0', '1', 'ff', 'FFFF', 'abcd', '1.2.3.4', '12345', 'g', ''), { minLength: 1, maxLength: 9 }), fc.nat(10))
  .map(([groups, at]) => groups.map((g, i) => (i === 0 ? g : `${i === at ? '::' : ':'}${g}`)).join('') + (at === groups.length ? '::' : ''));

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
const v6Words = fc.array(fc.oneof(fc.constant(0), fc.constant(0xffff), fc.nat(0xffff)), { minLength: 8, maxLength: 8 });
/** IPv6 text in the forms people write: full, compressed at a zero run, upper case, IPv4-mapped dotted. */
const v6 = fc.tuple(v6Words, fc.nat(3), v4).map(([words, form, quad]) => {
  const full = words.map((w) => w.toString(16)).join(':');
  if (form === 0) return full;
  if (form === 1) return `::ffff:${quad}`;
  if (form === 2) return full.toUpperCase();
  return full.replace(/(^|:)0(:0)+(:|$)/, '::');
});

/** A subnet and an address near it: the network with some of its low bits flipped, or anything. */
const ruleAndHost = fc.tuple(fc.oneof(v4, v6), fc.nat(128), fc.oneof(v4, v6), fc.boolean()).map(([network, rawPrefix, other, near]) => {
  const family = isIPv4(network) ? 4 : 6;
  const prefix = rawPrefix % (family === 4 ? 33 : 129);
  const host = near ? nudge(network, family, prefix) : other;
  return { pattern: `${family === 6 ? `[${network}]` : network}/${prefix}`, network, family, prefix, host };
});

/** The address with one bit flipped just after, at or just before the prefix's last bit. */
function nudge(address: string, family: 4 | 6, prefix: number): string {
  const bits = family === 4 ? 32 : 128;
  const bit = Math.min(bits - 1, Math.max(0, prefix - 1 + ((address.length % 3) - 1)));
  if (family === 4) {
    const n = address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
    const flipped = (n ^ (2 ** (31 - bit))) >>> 0;
    return [24, 16, 8, 0].map((s) => (flipped >>> s) & 0xff).join('.');
  }
  const words = ipv6Words(parseIpLiteral(address)!.address);
  words[bit >> 4] = words[bit >> 4]! ^ (1 << (15 - (bit & 15)));
  return words.map((w) => w.toString(16)).join(':');
}

/** The reading addresses.ts had when it used node:net: BlockList, then the IPv4 embedded in an IPv6 address. */
function byNodeNet(network: string, family: 4 | 6, prefix: number, host: string): boolean {
  const ip = parseIpLiteral(host);
  if (ip === null) return false;
  const list = new BlockList();
  list.addSubnet(parseIpLiteral(network)!.address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  if (list.check(ip.address, ip.family === 4 ? 'ipv4' : 'ipv6')) return true;
  return ip.embeddedV4 !== null && list.check(ip.embeddedV4, 'ipv4');
}

describe('IP literals and address rules decide as node:net does', () => {
  it('a dotted quad and IPv6 text are what isIPv4 and isIPv6 accept', () => {
    fc.assert(
      fc.property(fc.oneof(addressLike, groupsText, v4, v6), (text) => {
        expect(isDottedQuad(text)).toBe(isIPv4(text));
        expect(isIpv6Text(text)).toBe(isIPv6(text) && !text.includes('%'));
      }),
      { numRuns: RUNS },
    );
  });

  it('an address lies in a rule`s subnet exactly when BlockList says so', () => {
    fc.assert(
      fc.property(ruleAndHost, ({ pattern, network, family, prefix, host }) => {
        expect(addressInPattern(pattern, host)).toBe(byNodeNet(network, family as 4 | 6, prefix, host));
      }),
      { numRuns: RUNS },
    );
  });

  it('across families: a mapped address meets an IPv4 rule, an IPv4 address an IPv6 rule on the mapped block', () => {
    expect(addressInPattern('10.0.0.0/8', '::ffff:10.1.2.3')).toBe(true);
    expect(addressInPattern('[::ffff:a00:0]/104', '10.1.2.3')).toBe(true);
    expect(addressInPattern('[::ffff:a00:0]/104', '11.1.2.3')).toBe(false);
    expect(addressInPattern('[2001::]/16', '10.1.2.3')).toBe(false);
    expect(addressInPattern('0.0.0.0/0', '2001::1')).toBe(false);
    // Ours beyond BlockList: the IPv4 inside NAT64 and 6to4 addresses.
    expect(addressInPattern('10.0.0.0/8', '64:ff9b::a01:203')).toBe(true);
    expect(addressInPattern('10.0.0.0/8', '2002:a01:203::1')).toBe(true);
  });
});
