// The address containers reach the host at: the gateway of the engine's default bridge network
// (172.17.0.1 on a stock Docker, 10.88.0.1 on Podman's `podman` network). A proxy the sandbox should
// reach must listen there, not on loopback.
import { networkInterfaces } from 'node:os';
import { createServer, isIPv4 } from 'node:net';
import { IntuticError } from '@intutic/errors';
import type { Engine } from './engine.ts';

interface NetworkInfo {
  IPAM?: { Config?: { Subnet?: string; Gateway?: string }[] };
  Options?: Record<string, string>;
}

const cache = new WeakMap<Engine, Promise<string>>();

/** First host address of an IPv4 subnet: the bridge driver's default gateway. */
export function firstHostAddress(subnet: string): string | undefined {
  const [base, bits] = subnet.split('/');
  if (!base || !isIPv4(base) || bits === undefined) return undefined;
  const value = base.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
  const mask = Number(bits) === 0 ? 0 : 2 ** 32 - 2 ** (32 - Number(bits));
  const first = ((value & mask) >>> 0) + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(first / 2 ** shift) % 256).join('.');
}

async function lookupGateway(engine: Engine): Promise<string> {
  for (const name of engine.kind === 'podman' ? ['podman', 'bridge'] : ['bridge']) {
    let info: NetworkInfo;
    try {
      info = await engine.docker.getNetwork(name).inspect();
    } catch {
      continue;
    }
    const configs = info.IPAM?.Config ?? [];
    const explicit = configs.map((c) => c.Gateway).find((g): g is string => Boolean(g && isIPv4(g)));
    if (explicit) return explicit;
    // Docker leaves Gateway out of the default bridge's IPAM; the bridge interface holds it.
    const bridgeName = info.Options?.['com.docker.network.bridge.name'];
    if (bridgeName && engine.endpoint.startsWith('unix://')) {
      const address = networkInterfaces()[bridgeName]?.find((a) => a.family === 'IPv4')?.address;
      if (address) return address;
    }
    const subnet = configs.map((c) => c.Subnet).find((s): s is string => Boolean(s && isIPv4(s.split('/')[0] ?? '')));
    const derived = subnet ? firstHostAddress(subnet) : undefined;
    if (derived) return derived;
  }
  throw new IntuticError('E_SANDBOX_UNAVAILABLE', `could not find the host's address on the engine's bridge network (${engine.endpoint})`, {
    hints: ['the sandbox reaches its proxy through the default bridge network; check `docker network inspect bridge`'],
  });
}

/** Whether this machine holds `address`: a bridge without carrier is left out of networkInterfaces(). */
function listenable(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(0, address, () => server.close(() => resolve(true)));
  });
}

/**
 * Podman's bridge exists only while a container is on it (netavark creates it with the first and
 * deletes it with the last), where Docker's docker0 is always there; the proxy listens on its gateway
 * before the sandbox starts, so a bridge that is down is said here, not as a proxy that cannot listen.
 */
async function requireBridgeUp(engine: Engine, address: string): Promise<string> {
  if (engine.kind !== 'podman' || !engine.endpoint.startsWith('unix://') || (await listenable(address))) return address;
  throw new IntuticError(
    'E_SANDBOX_UNAVAILABLE',
    `Podman's bridge gateway ${address} is on no interface of this machine: Podman removes its bridge while no container uses it`,
    {
      hints: [
        "the sandbox's proxy listens on that address before the sandbox starts; keep the bridge up: keep one container running on Podman's default network, or in an intutic checkout run `bash scripts/setup/podman.sh` (it pins the bridge)",
        "rootless Podman's bridge is in a network namespace of its own, never on this machine: the sandbox needs rootful Podman",
      ],
    },
  );
}

export function hostGatewayAddress(engine: Engine): Promise<string> {
  let pending = cache.get(engine);
  if (!pending) {
    pending = lookupGateway(engine).then((address) => requireBridgeUp(engine, address));
    pending.catch(() => cache.delete(engine));
    cache.set(engine, pending);
  }
  return pending;
}
