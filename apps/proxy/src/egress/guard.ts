// The sandbox reaches the outside world only through this proxy, so the proxy must never become a
// way inside: destinations in private and internal ranges (RFC 1918 and the engine's bridges, CGNAT,
// unique-local, link-local and cloud metadata, loopback, unspecified, multicast, broadcast, reserved)
// and this machine's own interface addresses are refused, in every notation (an IPv4 address inside
// an IPv6 one included). The check runs on the literal a client names AND on every address a name
// resolves to, before any connection. Only an explicit host override (like curl --resolve) is trusted.
//
// Operators may allow named private hosts (a company registry): a host name allowed is dialled even
// though it resolves to a private address; an address or CIDR allowed opens those addresses. Loopback,
// link-local/metadata and the other internal ranges, and this machine's own addresses, open only
// when an allowed address or CIDR lies inside them: never through a name, never through a wide CIDR.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList } from 'node:net';
import { networkInterfaces } from 'node:os';
import { IntuticError } from '@intutic/errors';
import { endsInNumber, parseAddressPattern, parseIpLiteral, type AddressPattern } from '@intutic/governance';
import { normalizeHost } from './target.ts';

/** private: where a company's own hosts live; opened by an allowed name. internal: never by a name. */
type Tier = 'private' | 'internal';

interface Range {
  pattern: AddressPattern;
  label: string;
  tier: Tier;
  list: BlockList;
}

// First match names the refusal, so the narrow entries come before the ranges that contain them.
const RANGES: ReadonlyArray<readonly [string, string, Tier]> = [
  ['0.0.0.0/8', 'unspecified ("this network")', 'internal'],
  ['127.0.0.0/8', 'loopback', 'internal'],
  ['169.254.169.254/32', 'link-local (cloud metadata)', 'internal'],
  ['169.254.0.0/16', 'link-local', 'internal'],
  ['100.100.100.200/32', 'cloud metadata (in CGNAT space)', 'internal'],
  ['224.0.0.0/4', 'multicast', 'internal'],
  ['255.255.255.255/32', 'broadcast', 'internal'],
  ['240.0.0.0/4', 'reserved', 'internal'],
  ['10.0.0.0/8', 'private (RFC 1918)', 'private'],
  ['172.16.0.0/12', 'private (RFC 1918, container bridges)', 'private'],
  ['192.168.0.0/16', 'private (RFC 1918)', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments', 'private'],
  ['198.18.0.0/15', 'benchmarking', 'private'],
  ['::/128', 'unspecified', 'internal'],
  ['::1/128', 'loopback', 'internal'],
  ['fe80::/10', 'link-local', 'internal'],
  ['fd00:ec2::254/128', 'cloud metadata (unique local)', 'internal'],
  ['ff00::/8', 'multicast', 'internal'],
  ['fc00::/7', 'unique local (private)', 'private'],
  ['fec0::/10', 'site-local (private)', 'private'],
];

const ranges: Range[] = RANGES.map(([cidr, label, tier]) => {
  const pattern = parseAddressPattern(cidr)!;
  const list = new BlockList();
  list.addSubnet(pattern.network, pattern.prefix, pattern.family === 4 ? 'ipv4' : 'ipv6');
  return { pattern, label, tier, list };
});

const familyName = (family: 4 | 6): 'ipv4' | 'ipv6' => (family === 4 ? 'ipv4' : 'ipv6');

export interface Refusal {
  /** The address the range was found in (the IPv4 inside an IPv6 address when that is what matched). */
  address: string;
  label: string;
  tier: Tier | 'own';
  range: Range | null;
}

export type OwnAddresses = () => Iterable<string>;

/** Read per check: interfaces come and go (a bridge created after the proxy started). */
export function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((e) => e.address));
}

/**
 * Every reason `address` (any notation) may not be dialled before allowances: the ranges it (or the
 * IPv4 address inside it) falls in, and whether it is one of this machine's own. Empty: a public address.
 * Null: not an address at all.
 */
export function classifyAddress(address: string, own: OwnAddresses = interfaceAddresses): Refusal[] | null {
  const ip = parseIpLiteral(address);
  if (ip === null) return null;
  const candidates: Array<{ address: string; family: 4 | 6 }> = [{ address: ip.address, family: ip.family }];
  if (ip.embeddedV4 !== null) candidates.push({ address: ip.embeddedV4, family: 4 });
  const ownSet = new Set([...own()].map((a) => parseIpLiteral(a)?.address ?? a));
  const refusals: Refusal[] = [];
  for (const c of candidates) {
    const range = ranges.find((r) => r.pattern.family === c.family && r.list.check(c.address, familyName(c.family)));
    // The host's own address is stricter than the private range it sits in (the bridge gateway in 172.16/12).
    if (range?.tier !== 'internal' && ownSet.has(c.address))
      refusals.push({ address: c.address, label: "one of this machine's own addresses", tier: 'own', range: null });
    else if (range) refusals.push({ address: c.address, label: range.label, tier: range.tier, range });
  }
  return refusals;
}

interface AllowedNetwork {
  pattern: AddressPattern;
  list: BlockList;
}

export interface PrivateAllowances {
  /** Host names (lower case), and `.suffix` for a `*.suffix` entry. */
  names: string[];
  networks: AllowedNetwork[];
}

export const NO_ALLOWANCES: PrivateAllowances = { names: [], networks: [] };

/**
 * `--allow-private-host` entries: a host name, `*.domain` (its subdomains), an address (dotted quad
 * or IPv6) or a CIDR. Throws E_CONFIG_INVALID naming the entry that is none of these: an odd notation
 * (`10.1`) is refused rather than guessed at in the one list that opens addresses.
 */
export function parseAllowances(entries: readonly string[]): PrivateAllowances {
  const names: string[] = [];
  const networks: AllowedNetwork[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    // An IPv4 network is written as IPv4: ::ffff:10.0.0.0/104 stays an IPv6 pattern and opens nothing IPv4.
    const pattern = parseAddressPattern(entry);
    if (pattern) {
      const list = new BlockList();
      list.addSubnet(pattern.network, pattern.prefix, familyName(pattern.family));
      networks.push({ pattern, list });
      continue;
    }
    const wildcard = entry.startsWith('*.');
    const name = normalizeHost(wildcard ? entry.slice(2) : entry);
    if (name === null || name.includes(':') || endsInNumber(name)) {
      throw new IntuticError('E_CONFIG_INVALID', `an allowed private host must be a host name, *.domain, an address or a CIDR; got ${JSON.stringify(raw)}`, {
        hints: [
          'e.g. --allow-private-host registry.corp.example --allow-private-host 10.20.0.0/16, or INTUTIC_ALLOW_PRIVATE_HOSTS=registry.corp.example,10.20.0.0/16',
        ],
      });
    }
    names.push(wildcard ? `.${name}` : name);
  }
  return { names, networks };
}

function nameAllowed(allow: PrivateAllowances, host: string): boolean {
  return allow.names.some((n) => (n.startsWith('.') ? host.endsWith(n) : host === n));
}

/** An allowed network lifts a refusal when it covers the address, and for an internal range only when it lies inside it. */
function networkLifts(network: AllowedNetwork, refusal: Refusal): boolean {
  const family = refusal.address.includes(':') ? 6 : 4;
  if (network.pattern.family !== family || !network.list.check(refusal.address, familyName(family))) return false;
  if (refusal.tier === 'private') return true;
  if (refusal.tier === 'own') return network.pattern.prefix === (family === 4 ? 32 : 128);
  const range = refusal.range!;
  return network.pattern.prefix >= range.pattern.prefix && range.list.check(network.pattern.network, familyName(network.pattern.family));
}

export interface DestinationGuard {
  /** Why `address` may not be dialled on behalf of `host` (the name the client asked for), or null. */
  refusal(host: string, address: string): string | null;
  /** A `lookup` for net.connect / http.request that refuses when any address the name resolves to is refused. */
  lookup: GuardedLookup;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type GuardedLookup = (hostname: string, options: object, callback: LookupCallback) => void;
export type Resolver = (hostname: string, options: { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface GuardOptions {
  allow?: PrivateAllowances;
  /** How names resolve: dns.lookup unless a test says otherwise. */
  resolve?: Resolver;
  ownAddresses?: OwnAddresses;
}

export function forbiddenError(host: string, why: string): Error {
  const what = why.startsWith(`${host} `) ? why : `${host} (${why})`;
  return Object.assign(new Error(`destination not allowed: ${what}; the sandbox may not reach the host through the proxy`), { code: 'EGRESS_FORBIDDEN' });
}

export function createDestinationGuard(options: GuardOptions = {}): DestinationGuard {
  const allow = options.allow ?? NO_ALLOWANCES;
  const resolve: Resolver = options.resolve ?? ((hostname, opts, callback) => dnsLookup(hostname, opts, callback));
  const own = options.ownAddresses ?? interfaceAddresses;

  function refusal(host: string, address: string): string | null {
    const found = classifyAddress(address, own);
    if (found === null) return null;
    const named = parseIpLiteral(host) === null && nameAllowed(allow, normalizeHost(host) ?? host);
    const left = found.filter((r) => !(named && r.tier === 'private') && !allow.networks.some((n) => networkLifts(n, r)));
    const first = left[0];
    if (first === undefined) return null;
    const shown = parseIpLiteral(address)?.address ?? address;
    return `${shown}${first.address === shown ? '' : ` (${first.address})`} is ${first.tier === 'own' ? first.label : `a ${first.label} address`}`;
  }

  const lookup: GuardedLookup = (hostname, lookupOptions, callback) => {
    // Only names get here: net dials an address without a lookup (and the literal was checked before).
    resolve(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const why = refusal(hostname, a.address);
        if (why) return callback(forbiddenError(hostname, why), []);
      }
      if ((lookupOptions as { all?: boolean }).all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };

  return { refusal, lookup };
}

const defaultGuard = createDestinationGuard();

/** Why `address` may not be dialled with no allowances, or null when it may (a name: null, decided after resolution). */
export function forbiddenDestination(address: string): string | null {
  return defaultGuard.refusal(address, address);
}
