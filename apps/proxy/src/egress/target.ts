// Where an egress request goes: parsing a CONNECT target, normalizing host names for matching, and
// the host overrides (like curl --resolve) that let tests name `api.github.test` and reach loopback.
import { IntuticError } from '@intutic/errors';
import { endsInNumber, parseIpLiteral } from '@intutic/governance';

export interface HostPort {
  /** Lower-case, no trailing dot; an address in its canonical text (dotted quad, RFC 5952 IPv6): what faults and rules match. */
  host: string;
  port: number;
}

const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Lower-case, drop a trailing dot and IPv6 brackets; an address in any notation a resolver reads
 * (2130706433, 0x7f.1, 127.1, an IPv6 zone id) becomes its canonical text, so the policy, the faults
 * and the guard all see the address that would be dialled. Null when it is neither a host name nor
 * an address, including a name ending in a number that is no address (`1.2.3.4.5`, `999.1.1.1`).
 */
export function normalizeHost(raw: string): string | null {
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253) return null;
  const ip = parseIpLiteral(host);
  if (ip !== null) return ip.address;
  if (endsInNumber(host)) return null;
  return host.split('.').every((label) => HOST_LABEL.test(label)) ? host : null;
}

function parsePort(raw: string): number | null {
  if (!/^\d{1,5}$/.test(raw)) return null;
  const port = Number(raw);
  return port >= 1 && port <= 65535 ? port : null;
}

/** `host:port` or `[v6]:port` from a CONNECT request line; null when malformed. */
export function parseConnectTarget(target: string | undefined): HostPort | null {
  if (!target) return null;
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(target.trim());
  if (!m) return null;
  const host = normalizeHost(m[1]!);
  const port = parsePort(m[2]!);
  return host !== null && port !== null ? { host, port } : null;
}

/** The host of an absolute-form request (`http://host[:port]/path`), or null when it is not one. */
export function parseAbsoluteUrl(raw: string | undefined): { target: HostPort; path: string; protocol: string } | null {
  if (!raw || !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const host = normalizeHost(url.hostname);
  if (host === null) return null;
  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  const port = url.port === '' ? defaultPort : Number(url.port);
  return { target: { host, port }, path: `${url.pathname}${url.search}`, protocol: url.protocol };
}

export type HostOverrides = Record<string, string>;

/**
 * The address to dial for `host:port`. An override keyed `host:port` wins over one keyed `host`;
 * a value is `addr:port` (`[v6]:port` for IPv6). Without an override: the host itself.
 */
export function resolveUpstream(target: HostPort, overrides: HostOverrides): { address: string; port: number; overridden: boolean } {
  const value = overrides[`${target.host}:${target.port}`] ?? overrides[target.host];
  if (value === undefined) return { address: target.host, port: target.port, overridden: false };
  // Values were checked by normalizeOverrides at start.
  const parsed = parseConnectTarget(value)!;
  return { address: parsed.host, port: parsed.port, overridden: true };
}

/** Override keys normalized like hosts, with every value checked once at start. */
export function normalizeOverrides(overrides: HostOverrides): HostOverrides {
  const out: HostOverrides = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (parseConnectTarget(value) === null) {
      throw new IntuticError('E_CONFIG_INVALID', `host override for ${key} is not addr:port: ${value}`, {
        hints: ['write it like 127.0.0.1:8443 or [::1]:8443'],
      });
    }
    const withPort = parseConnectTarget(key);
    const name = withPort ? `${withPort.host}:${withPort.port}` : normalizeHost(key);
    if (name === null) throw new IntuticError('E_CONFIG_INVALID', `host override key is not a host name: ${key}`);
    out[name] = value;
  }
  return out;
}
