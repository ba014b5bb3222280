// The governance proxy: one HTTP port serving the model APIs in origin form (the agent's base URL
// points here), the egress proxy (CONNECT and absolute-form requests from HTTP(S)_PROXY) and
// GET /health, which answers 200 only while the proxy is ready to serve. It reports to nothing but
// its events file and its log. `intutic start` and each repetition's runner start it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import getPort from 'get-port';
import { IntuticError } from '@intutic/errors';
import {
  applicablePlan,
  faultsInjectedBy,
  MUTATING_REFUSED,
  refusalMessage,
  repetitionProxyPlacement,
  type Placement,
  type Plan,
  type PlanFault,
} from '@intutic/faults';
import { DEFAULT_UPSTREAMS, loadPlanFile, parseUpstream, privateHostsFromEnv } from './config.ts';
import { isAbsoluteForm, mountEgress, type Egress } from './egress-adapter.ts';
import type { Resolver } from './egress/guard.ts';
import { EventSink } from './events.ts';
import type { Front } from './front.ts';
import { providerError } from './llm/errors.ts';
import { LlmFaults } from './llm/faults.ts';
import { handleLlmRequest, type LlmContext } from './llm/handler.ts';
import { createFastLane, failedInside } from './model-calls.ts';
import { sendWhole } from './reply.ts';
import { KeyFragments } from './llm/key-fragments.ts';
import type { KeySwaps } from './llm/keys.ts';
import { loadPriceTable } from './llm/pricing.ts';
import { matchLlmRoute, providerOfRequest } from './llm/routes.ts';
import { Upstreams } from './llm/upstream.ts';
import { createLogger, withoutKeys, type Logger } from './log.ts';
import { loadLocalPolicy, type LocalPolicy } from './policy.ts';

export interface ProxyOptions {
  /** Address to bind; loopback by default. All interfaces only when asked for explicitly. */
  host?: string;
  /** 0 or absent: a free port. */
  port?: number;
  /** The plan itself, or planPath to read it from; neither: a baseline (no faults, cost accounting only). */
  plan?: Plan | null;
  planPath?: string;
  eventsPath?: string;
  logPath?: string;
  /** Instead of logPath (tests). Without either the log goes to stderr. */
  logger?: Logger;
  upstreamAnthropic?: string;
  upstreamOpenai?: string;
  upstreamGemini?: string;
  pricesPath?: string;
  caOutPath?: string;
  /** host (or host:port) -> addr:port, like curl --resolve. */
  hostOverrides?: Record<string, string>;
  /**
   * Private destinations egress may reach (a company registry): host names, `*.domain`, addresses,
   * CIDRs. INTUTIC_ALLOW_PRIVATE_HOSTS in env adds to them. Loopback and metadata open only by address.
   */
  allowPrivateHosts?: string[];
  /** How egress resolves names (tests: no DNS leaves the machine). dns.lookup by default. */
  resolve?: Resolver;
  /** Extra CA certificates trusted for upstreams, LLM and egress alike (a gateway's private CA; tests' own CAs). */
  upstreamCa?: string[];
  /** Where the local rules are found (HOME, INTUTIC_SNAPSHOT_RULES, INTUTIC_APPROVED_BYPASSES). */
  env?: NodeJS.ProcessEnv;
  /** Instead of reading the rules from env (tests). */
  policy?: LocalPolicy;
  /** The proxy's own retries of real upstream failures (default 2). */
  upstreamRetries?: number;
  maxBodyBytes?: number;
  /**
   * Per provider, the stand-in key the sandbox holds and the real one it stands for (a repetition's
   * proxy; keySwapsFromEnv reads them). Absent: clients' keys are forwarded as they come.
   */
  keys?: KeySwaps;
  /**
   * Whether the plan's mutating faults may apply (tests). By default only for the repetition the
   * runner started this proxy for (REPETITION_ENV in env equal to the plan's run id; see
   * @intutic/faults placement.ts): run by hand, `intutic start --plan` leaves them out and says so.
   */
  placement?: Placement;
}

export interface RunningProxy {
  url: string;
  host: string;
  port: number;
  /** The plan's mutating faults this proxy refused to apply here (empty when it applies them all). */
  refusedFaults: readonly PlanFault[];
  /** Why, in one line, when refusedFaults is not empty. */
  refusal: string | null;
  /** Resolves once every event emitted so far is in the events file. */
  flush(): Promise<void>;
  /** Stop serving (in-flight calls get a few seconds), flush the events and the log. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const DRAIN_MS = 5_000;

async function listen(server: NetServer, host: string, requested: number | undefined): Promise<number> {
  const tryListen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      server.once('error', onError);
      server.listen({ host, port, exclusive: true }, () => {
        server.off('error', onError);
        resolve();
      });
    });
  const fixed = requested !== undefined && requested !== 0;
  for (let attempt = 0; ; attempt++) {
    const port = fixed ? requested : await getPort({ host });
    try {
      await tryListen(port);
      return (server.address() as AddressInfo).port;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // get-port's pick can be taken by someone else before we bind: pick again.
      if (!fixed && code === 'EADDRINUSE' && attempt < 5) continue;
      throw new IntuticError('E_PROXY_FAILED', `cannot listen on ${host}:${port}: ${(error as Error).message}`, {
        hints: code === 'EADDRINUSE' ? ['another process holds that port; omit --port to get a free one'] : [],
      });
    }
  }
}

export async function startProxy(options: ProxyOptions = {}): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const fragments = KeyFragments.of(options.keys ?? {});
  // Nothing the proxy logs may quote a real key, whoever wrote the line (the egress side's included).
  const log = withoutKeys(options.logger ?? createLogger({ path: options.logPath }), fragments);
  const env = options.env ?? process.env;
  const faults = placeFaults(options, env);
  const { plan } = faults;
  const { ctx, local } = llmContext(options, env, plan, log, fragments);
  const { events, client } = ctx;
  const egress: Egress = await mountEgress({
    plan,
    eventsPath: options.eventsPath,
    policy: local.policy,
    hostOverrides: options.hostOverrides ?? {},
    allowPrivateHosts: [...(options.allowPrivateHosts ?? []), ...privateHostsFromEnv(env)],
    resolve: options.resolve,
    caOutPath: options.caOutPath,
    upstreamCa: options.upstreamCa,
    log,
  });

  const state: ServingState = { ready: false, closing: null };
  const server = createProxyServer(state, egress, ctx);
  const front = createFastLane(server, ctx);
  let port: number;
  try {
    port = await listen(front.server, host, options.port);
  } catch (error) {
    await egress.close();
    client.destroy();
    await log.close();
    throw error;
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  if (host === '0.0.0.0' || host === '::') log.warn('listening on every interface, as asked', { host });
  log.info('proxy listening', {
    url,
    plan: plan ? `${plan.experiment} run ${plan.run_id}` : 'none (baseline)',
    upstream_anthropic: ctx.upstreams.anthropic.origin,
    upstream_openai: ctx.upstreams.openai.origin,
    upstream_gemini: ctx.upstreams.gemini.origin,
    // Which providers' stand-ins are swapped; the values themselves are never logged.
    stand_ins: Object.keys(ctx.keys).join(',') || 'none',
    policy: local.summary,
  });
  announceFaults(faults, events, log);
  state.ready = true;

  const close = (): Promise<void> => (state.closing ??= shutDown(state, front, server, egress, ctx));
  return { url, host, port, refusedFaults: faults.refusedHere, refusal: faults.refusal, flush: () => events.flush(), close };
}

/** The plan as this proxy applies it: its mutating faults are refused outside their repetition. */
interface PlacedFaults {
  plan: Plan | null;
  /** The ids of the faults the proxy injects (llm.* and egress.*). */
  proxyFaults: Set<string>;
  refusedHere: PlanFault[];
  refusal: string | null;
}

function placeFaults(options: ProxyOptions, env: NodeJS.ProcessEnv): PlacedFaults {
  const loaded = options.plan ?? (options.planPath ? loadPlanFile(options.planPath) : null);
  const placement = loaded ? (options.placement ?? repetitionProxyPlacement(env, loaded)) : null;
  const { plan, refused } = loaded && placement ? applicablePlan(loaded, placement) : { plan: loaded, refused: [] };
  const proxyFaults = new Set<string>(faultsInjectedBy('proxy'));
  const refusedHere = refused.filter((f) => proxyFaults.has(f.id));
  const refusal = refusedHere.length > 0 && placement ? refusalMessage('intutic proxy', refusedHere, placement) : null;
  return { plan, proxyFaults, refusedHere, refusal };
}

/** What every model call is handled with, and the local rules it was given. */
function llmContext(
  options: ProxyOptions,
  env: NodeJS.ProcessEnv,
  plan: Plan | null,
  log: Logger,
  fragments: KeyFragments,
): { ctx: LlmContext; local: LocalPolicy } {
  const upstreams = {
    anthropic: parseUpstream('anthropic', options.upstreamAnthropic ?? DEFAULT_UPSTREAMS.anthropic),
    openai: parseUpstream('openai', options.upstreamOpenai ?? DEFAULT_UPSTREAMS.openai),
    gemini: parseUpstream('gemini', options.upstreamGemini ?? DEFAULT_UPSTREAMS.gemini),
  };
  const prices = loadPriceTable(options.pricesPath);
  const local = options.policy ?? loadLocalPolicy(env);
  const events = new EventSink(options.eventsPath, plan?.run_id, log);
  const client = new Upstreams(options.upstreamRetries ?? 2, options.upstreamCa ? { extraCa: options.upstreamCa } : {});
  const ctx: LlmContext = {
    upstreams,
    client,
    faults: new LlmFaults(plan),
    prices,
    events,
    log,
    policy: local.policy,
    keys: options.keys ?? {},
    fragments,
    canary: plan?.canary ?? '',
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
  };
  return { ctx, local };
}

/** Whether /health says ok, and the close under way once close() was called. */
interface ServingState {
  ready: boolean;
  closing: Promise<void> | null;
}

/** One port for all: egress (absolute-form and CONNECT), /health, and the model APIs. */
function createProxyServer(state: ServingState, egress: Egress, ctx: LlmContext): Server {
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (isAbsoluteForm(req.url)) {
      egress.handleForwardRequest(req, res);
      return;
    }
    const url = req.url ?? '/';
    if (url === '/health' || url.startsWith('/health?')) {
      const status = state.ready ? 200 : 503;
      sendWhole(res, { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: state.ready ? 'ok' : 'closing' }) });
      return;
    }
    const route = matchLlmRoute(req.method, url);
    if (!route) {
      req.resume();
      const provider = providerOfRequest(req.headers, url);
      sendWhole(res, providerError(provider, 404, `intutic proxy: no route for ${req.method ?? '?'} ${url.split('?')[0]}`));
      return;
    }
    handleLlmRequest(route, req, res, ctx).catch((error: unknown) => failedInside(route, res, ctx, error));
  };

  const server = createServer({ noDelay: true, keepAlive: true, requestTimeout: 0 }, onRequest);
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => egress.handleConnect(req, socket, head));
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (socket.writable && error.code !== 'ECONNRESET') socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

/** The plan this proxy applies, and the faults it refused here, said in the events and the log. */
function announceFaults({ plan, proxyFaults, refusedHere, refusal }: PlacedFaults, events: EventSink, log: Logger): void {
  if (plan) {
    events.emit({
      type: 'plan_loaded',
      source: 'proxy',
      faults: plan.faults.filter((f) => proxyFaults.has(f.id)).map((f) => f.index),
      detail: 'governance proxy: llm.* and egress.* faults',
    });
  }
  if (refusal) {
    log.warn(refusal, { faults: refusedHere.map((f) => f.index).join(',') });
    events.emit({ type: 'warning', source: 'proxy', code: MUTATING_REFUSED, faults: refusedHere.map((f) => f.index), detail: refusal });
  }
}

/** Stop serving (in-flight calls get DRAIN_MS), then flush the events and the log. */
async function shutDown(state: ServingState, front: Front, server: Server, egress: Egress, ctx: LlmContext): Promise<void> {
  state.ready = false;
  // The front's close waits for every connection it accepted, node:http's included.
  const closed = new Promise<void>((resolve) => front.server.close(() => resolve()));
  server.close();
  front.closeIdle();
  server.closeIdleConnections();
  // In-flight calls (a stream to the agent) get a moment to finish, then are cut.
  const timer = setTimeout(() => {
    front.closeAll();
    server.closeAllConnections();
  }, DRAIN_MS);
  await egress.close();
  await closed;
  clearTimeout(timer);
  ctx.client.destroy();
  await ctx.events.close();
  ctx.log.info('proxy stopped');
  await ctx.log.close();
}
