// The sandbox reaches the outside world only through this proxy, so the proxy must not become a way
// back into the host: destinations on loopback, unspecified, link-local (cloud metadata) or
// multicast addresses, or on any of this machine's own interface addresses (the engine's bridge
// gateway included), are refused. The check runs on the RESOLVED address, so a name that resolves
// to 127.0.0.1 is refused too. Only an explicit host override (like curl --resolve) is trusted.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

const blocked = new BlockList();
blocked.addSubnet('0.0.0.0', 8, 'ipv4');
blocked.addSubnet('127.0.0.0', 8, 'ipv4');
blocked.addSubnet('169.254.0.0', 16, 'ipv4');
blocked.addSubnet('224.0.0.0', 4, 'ipv4');
blocked.addSubnet('255.255.255.255', 32, 'ipv4');
blocked.addAddress('::', 'ipv6');
blocked.addAddress('::1', 'ipv6');
blocked.addSubnet('fe80::', 10, 'ipv6');
blocked.addSubnet('ff00::', 8, 'ipv6');

function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) for (const e of entries ?? []) own.add(e.address.toLowerCase());
  return own;
}

/** Why `address` may not be dialled, or null when it may. */
export function forbiddenDestination(address: string): string | null {
  let ip = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) ip = mapped[1]!;
  const family = isIP(ip);
  if (family === 0) return null;
  if (blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return `${address} is a loopback, link-local, multicast or unspecified address`;
  // Read per check: interfaces come and go (a bridge created after the proxy started).
  if (ownAddresses().has(ip)) return `${address} is one of this machine's own addresses`;
  return null;
}

export function forbiddenError(host: string, why: string): Error {
  return Object.assign(new Error(`destination not allowed: ${host} (${why}); the sandbox may not reach the host through the proxy`), { code: 'EGRESS_FORBIDDEN' });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect / http.request that refuses forbidden resolved addresses. */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const why = forbiddenDestination(a.address);
      if (why) return callback(forbiddenError(hostname, why) as NodeJS.ErrnoException, []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
