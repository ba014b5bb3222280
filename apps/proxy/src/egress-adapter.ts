// How the server mounts the egress proxy (apps/proxy/src/egress, its own module): CONNECT and
// absolute-form requests go to it; everything else on the port is the LLM side and /health.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { EventWriter } from '@intutic/events';
import type { Plan } from '@intutic/faults';
import { createEgressHandler } from './egress/index.ts';
import type { Resolver } from './egress/guard.ts';
import type { Logger } from './log.ts';
import type { EgressPolicy } from './policy.ts';

export interface Egress {
  handleConnect(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  handleForwardRequest(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

export interface EgressSetup {
  plan: Plan | null;
  eventsPath: string | undefined;
  policy: EgressPolicy | undefined;
  hostOverrides: Record<string, string>;
  allowPrivateHosts: string[];
  resolve: Resolver | undefined;
  caOutPath: string | undefined;
  upstreamCa: string[] | undefined;
  log: Logger;
}

export async function mountEgress(setup: EgressSetup): Promise<Egress> {
  return createEgressHandler({
    plan: setup.plan,
    events: setup.eventsPath ? new EventWriter(setup.eventsPath) : null,
    policy: setup.policy,
    hostOverrides: setup.hostOverrides,
    allowPrivateHosts: setup.allowPrivateHosts,
    ...(setup.resolve ? { resolve: setup.resolve } : {}),
    ...(setup.caOutPath ? { caOutPath: setup.caOutPath } : {}),
    ...(setup.upstreamCa ? { upstreamCa: setup.upstreamCa } : {}),
    log: (line) => setup.log.info(line),
  });
}

/** An absolute-form request line (`GET http://host/path HTTP/1.1`) is a forward-proxy request. */
export function isAbsoluteForm(url: string | undefined): boolean {
  return url !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
}
