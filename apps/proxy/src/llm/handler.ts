// One model call through the proxy: read the request, put the real provider key where the sandbox's
// stand-in was (or refuse any other key: keys.ts), let governance decide, apply the plan's llm.*
// faults (rewrite the request, or answer the failure the provider would give once retries are
// spent), forward it, relay the answer untouched, and append llm_call with tokens and cost (record.ts).
// count_tokens (Gemini's countTokens) is forwarded as it is and is not a model call: it costs nothing
// and gets no llm_call. Gemini names the model in the path, so a model_degrade rewrites the path.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { BodyTooLarge, readBody, requestBody } from '../body.ts';
import type { EventSink } from '../events.ts';
import type { Logger } from '../log.ts';
import { sendWhole, type Reply } from '../reply.ts';
import { policyDecisionEvent, type EgressPolicy } from '../policy.ts';
import { relayErrorAnswer } from './error-answer.ts';
import { providerError, rateLimited, serverError, streamErrorEvent } from './errors.ts';
import { isFailing, type LlmFaultAction, type LlmFaults } from './faults.ts';
import type { KeyFragments } from './key-fragments.ts';
import { swapProviderKey, type KeySwaps } from './keys.ts';
import type { PriceTable } from './pricing.ts';
import { endToEndHeaders } from '../headers.ts';
import { recordCall, recordInjection } from './record.ts';
import { relay, type RelayOutcome, type StreamCut } from './relay.ts';
import { keyWatch } from './stream-guard.ts';
import { withPathModel, type LlmRoute, type Provider } from './routes.ts';
import { trimContext } from './trim.ts';
import { UpstreamUnreachable, type Upstreams } from './upstream.ts';
import { CallCancel } from '../wire/cancel.ts';
import { createUsageCollector, type CallUsage, type ModelApi } from './usage.ts';

export interface LlmContext {
  upstreams: Record<Provider, URL>;
  client: Upstreams;
  faults: LlmFaults;
  prices: PriceTable;
  events: EventSink;
  log: Logger;
  policy: EgressPolicy | undefined;
  /** Per provider, the sandbox's stand-in and the real key; a provider without one forwards the client's key. */
  keys: KeySwaps;
  /** What quotes the real keys (of `keys`): an upstream answer that does is not passed on. */
  fragments: KeyFragments;
  /** The plan's canary; empty without a plan (then no fault can fire). */
  canary: string;
  maxBodyBytes: number;
}

type Json = Record<string, unknown>;
type FailingAction = Extract<LlmFaultAction, { kind: 'rate_limit' | 'upstream_5xx' }>;
const NO_USAGE: CallUsage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, model: null, reported: true };

/** A model call's request as read whole, by node:http or by the fast lane (../front.ts). */
export interface ModelRequest {
  /** Path and query as the client sent them. */
  url: string;
  httpVersion: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** performance.now() when the request arrived. */
  started: number;
}

/** A model call node:http serves: its body is read (within the size limit), then it is handled as any other. */
export async function handleLlmRequest(route: LlmRoute, req: IncomingMessage, res: Reply, ctx: LlmContext): Promise<void> {
  const started = performance.now();
  let body: Buffer;
  try {
    body = await readBody(req, ctx.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) sendWhole(res, providerError(route.provider, 413, `intutic proxy: ${error.message}`));
    else ctx.log.warn('request body could not be read', { endpoint: route.endpoint, error: (error as Error).message });
    return;
  }
  await handleLlmCall(route, { url: req.url ?? route.endpoint, httpVersion: req.httpVersion, headers: req.headers, body, started }, res, ctx);
}

export async function handleLlmCall(route: LlmRoute, received: ModelRequest, res: Reply, ctx: LlmContext): Promise<void> {
  const { provider } = route;
  const { body: raw, started } = received;
  // As the provider would, the key is checked before anything else about the call.
  const forwardHeaders = endToEndHeaders(received.headers, ['host', 'content-length', 'expect']);
  const key = swapProviderKey(provider, forwardHeaders, received.url, ctx.keys);
  if (!key.ok) {
    ctx.log.warn("model call refused: not this sandbox's stand-in key", { provider, endpoint: route.endpoint, problem: key.problem });
    sendWhole(res, key.answer);
    return;
  }
  // The agent's request, refused as the provider would when it is not a JSON object.
  const body = requestBody(raw);
  if (typeof body === 'string') {
    ctx.log.warn('malformed request refused', { endpoint: route.endpoint, bytes: raw.length, error: body });
    sendWhole(res, providerError(provider, 400, `intutic proxy: the request body is not a JSON object (${body})`));
    return;
  }

  if (refusedByRule(route, res, ctx)) return;

  const requestedModel = route.inPath?.model ?? (typeof body.model === 'string' ? body.model : '');
  const request = { route, httpVersion: received.httpVersion, res, ctx, headers: forwardHeaders, started };
  if (route.api === 'anthropic-count-tokens' || route.api === 'gemini-count-tokens') {
    await forward({ ...request, path: key.path, body: raw, call: null, model: requestedModel });
    return;
  }

  const api = route.api;
  const stream = route.inPath?.stream ?? body.stream === true;
  // Governance allowed the call: only now may a fault apply.
  const actions = ctx.faults.actionsFor(requestedModel);
  const modelInBody = route.inPath === null;
  const model = rewriteRequest(api, body, actions, ctx, requestedModel, modelInBody);
  const bodyRewritten = actions.some((a) => a.kind === 'context_trim' || (a.kind === 'model_degrade' && modelInBody));
  const outBody = bodyRewritten ? Buffer.from(JSON.stringify(body)) : raw;
  const path = route.inPath && model !== requestedModel ? withPathModel(key.path, model) : key.path;

  const failing = actions.find(isFailing);
  if (failing && (failing.kind === 'rate_limit' || failing.cutAfterChunks === null || !stream)) {
    answerInjectedFailure(failing, route, res, ctx, requestedModel, model, stream, started);
    return;
  }
  const cut = failing?.kind === 'upstream_5xx' ? streamCut(api, failing, ctx, requestedModel) : null;
  const call = { api, stream, cut, usageRequested: usageRequested(body) };
  await forward({ ...request, path, body: outBody, call, model });
}

/** Governance on the model's host; true when a rule refused the call (the agent has its 403). */
function refusedByRule(route: LlmRoute, res: Reply, ctx: LlmContext): boolean {
  const base = ctx.upstreams[route.provider];
  const decision = ctx.policy?.decideEgress(base.hostname) ?? { decision: 'allow', rule: null, reason: '' };
  // A rule that fired on the model's host is a policy hit like one in a gate (no_policy_hits).
  const decided = policyDecisionEvent('llm', base.hostname, decision);
  if (decided !== null) ctx.events.emit(decided);
  if (decision.decision !== 'block' && decision.decision !== 'hold') return false;
  ctx.log.warn('model call refused by a rule', { host: base.hostname, rule: decision.rule, decision: decision.decision });
  const verdict = decision.decision === 'hold' ? 'HELD' : 'BLOCKED';
  sendWhole(
    res,
    providerError(route.provider, 403, `[Intutic Governance] ${verdict}: calls to ${base.hostname} (rule ${decision.rule ?? 'none'}): ${decision.reason}`),
  );
  return true;
}

/**
 * Apply the faults that rewrite the request (body is changed in place); returns the model that will
 * serve it. Where the model is named in the path instead (Gemini) the caller puts it there.
 */
function rewriteRequest(api: ModelApi, body: Json, actions: readonly LlmFaultAction[], ctx: LlmContext, requestedModel: string, modelInBody: boolean): string {
  let model = requestedModel;
  for (const action of actions) {
    if (action.kind === 'context_trim') {
      const trimmed = trimContext(api, body, action);
      recordInjection(
        ctx,
        action,
        requestedModel,
        `dropped ${trimmed.droppedMessages} oldest message(s)${trimmed.droppedSystem ? ' and the system prompt' : ''}`,
      );
    } else if (action.kind === 'model_degrade') {
      model = action.toModel;
      if (modelInBody) body.model = model;
      recordInjection(ctx, action, requestedModel, `served by ${action.toModel} instead`);
    }
  }
  return model;
}

/**
 * The proxy does not retry its own injections: the agent gets the failure as it looks once retries
 * are spent, and the upstream is never called.
 */
function answerInjectedFailure(
  failing: FailingAction,
  route: LlmRoute,
  res: Reply,
  ctx: LlmContext,
  requestedModel: string,
  model: string,
  stream: boolean,
  started: number,
): void {
  const { provider } = route;
  const answer =
    failing.kind === 'rate_limit' ? rateLimited(provider, requestedModel, ctx.canary, failing.retryAfterS) : serverError(provider, failing.status, ctx.canary);
  recordInjection(ctx, failing, requestedModel, `answered ${answer.status}`, failing.kind === 'rate_limit' ? failing.retryAfterS : undefined);
  sendWhole(res, answer);
  recordCall(ctx, route, model, answer.status, stream, NO_USAGE, started);
}

/** An upstream_5xx with stream_cut_after_chunks: the stream is cut mid-way (relay.ts), or null without a cut. */
function streamCut(api: ModelApi, failing: Extract<FailingAction, { kind: 'upstream_5xx' }>, ctx: LlmContext, requestedModel: string): StreamCut | null {
  if (failing.cutAfterChunks === null) return null;
  const { status, cutAfterChunks } = failing;
  return {
    afterEvents: cutAfterChunks,
    errorEvent: (first) => streamErrorEvent(api, status, ctx.canary, first),
    onCut: (n) => recordInjection(ctx, failing, requestedModel, `stream cut after ${n} event(s) with a ${status} error event`),
  };
}

function usageRequested(body: Json): boolean {
  const options = body.stream_options;
  return typeof options === 'object' && options !== null && (options as Json).include_usage === true;
}

interface ModelCall {
  api: ModelApi;
  stream: boolean;
  cut: StreamCut | null;
  usageRequested: boolean;
}

interface Forwarding {
  route: LlmRoute;
  /** The client's HTTP version: whether the answer's bytes can be passed through as they come. */
  httpVersion: string;
  res: Reply;
  ctx: LlmContext;
  /** Path and query as they go upstream: the real key swapped in, the model a model_degrade put there (Gemini). */
  path: string;
  /** The request body as it goes upstream (rewritten by a mutating fault, or as received). */
  body: Buffer;
  headers: ReturnType<typeof endToEndHeaders>;
  /** null for count_tokens / countTokens: forwarded, but not a model call. */
  call: ModelCall | null;
  started: number;
  model: string;
}

/** Send the call upstream and relay the answer; a model call then gets its llm_call. */
async function forward({ route, httpVersion, res, ctx, path, body, headers, call, started, model }: Forwarding): Promise<void> {
  const cancel = new CallCancel();
  const onClose = (): void => {
    if (!res.writableFinished) cancel.cancel();
  };
  res.once('close', onClose);
  let upstream;
  try {
    upstream = await ctx.client.send({ base: ctx.upstreams[route.provider], path, headers, body }, cancel);
  } catch (error) {
    const message = error instanceof UpstreamUnreachable ? error.message : `upstream request failed: ${(error as Error).message}`;
    ctx.log.error('upstream unreachable', { endpoint: route.endpoint, model, error: message });
    sendWhole(res, providerError(route.provider, 502, `intutic proxy: ${message}`, { 'x-intutic-proxy-error': 'upstream_unreachable' }));
    if (call) recordCall(ctx, route, model, 502, call.stream, NO_USAGE, started);
    return;
  }
  const { response } = upstream;
  const { status, headers: responseHeaders } = response.head;
  const isSse = String(responseHeaders['content-type'] ?? '').includes('text/event-stream');
  const cut = call?.cut && isSse && status < 300 ? call.cut : null;
  if (call?.cut && !cut) ctx.log.warn('stream cut not applied: the upstream answered without a stream', { model, status });
  const collector = createUsageCollector({
    api: call?.api ?? 'anthropic-messages',
    contentType: responseHeaders['content-type'],
    contentEncoding: responseHeaders['content-encoding'],
    requestBytes: body.length,
    usageRequested: call?.usageRequested ?? true,
  });
  // With real keys to keep: an answer that is not a success is read whole and checked before it
  // goes (error-answer.ts); a stream's error events are checked as they come (stream-guard.ts). A
  // success's body is the model's output, which never saw a key: it is relayed unread.
  const guarded = ctx.fragments.active;
  let outcome: RelayOutcome;
  if (guarded && (status < 200 || status >= 300)) {
    const answered = await relayErrorAnswer(route.provider, response, res, collector, ctx.fragments);
    if (answered.withheldWhy)
      ctx.log.warn('upstream error answer withheld', { provider: route.provider, endpoint: route.endpoint, status, why: answered.withheldWhy });
    outcome = answered;
  } else {
    const watch = guarded && isSse ? keyWatch(call?.api ?? 'anthropic-messages', ctx.fragments) : null;
    outcome = await relay(httpVersion, response, res, collector, cut, watch);
    if (outcome.withheld)
      ctx.log.warn("upstream stream's error event withheld", { provider: route.provider, endpoint: route.endpoint, status, why: 'quotes a key' });
  }
  const ended = performance.now();
  res.off('close', onClose);
  if (!call) {
    ctx.log.info('token count forwarded', { endpoint: route.endpoint, model, status });
    return;
  }
  // The answer has gone; its accounting waits until the client has had the CPU to read it (events.ts).
  ctx.events.afterAnswer(async (emit) => {
    if (outcome.clientGone) ctx.log.warn('client disconnected before the response was complete', { endpoint: route.endpoint, model });
    if (outcome.upstreamFailed) ctx.log.warn('upstream broke off the response', { endpoint: route.endpoint, model });
    const usage = await collector.finish();
    if (!usage.reported && status < 300) ctx.log.warn('the provider reported no usage; tokens estimated from sizes', { endpoint: route.endpoint, model });
    // The model the provider named is written down: not if it is anything a key's part.
    const named = usage.model !== null && !ctx.fragments.found(usage.model) ? usage.model : model;
    recordCall({ ...ctx, events: { emit } }, route, named, status, call.stream, usage, started, ended);
  });
}
