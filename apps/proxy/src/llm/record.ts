// What a model call leaves behind: fault_injected for each fault applied to it, and one llm_call with
// its tokens and cost, both in the events file and the log. A model the price table does not know
// is charged at the table's ceiling (pricing.ts), said once per model in the log.
import { performance } from 'node:perf_hooks';
import type { EventSink } from '../events.ts';
import type { Logger } from '../log.ts';
import type { LlmFaultAction } from './faults.ts';
import type { PriceTable } from './pricing.ts';
import type { LlmRoute } from './routes.ts';
import type { CallUsage } from './usage.ts';

export interface CallRecorder {
  events: Pick<EventSink, 'emit'>;
  log: Logger;
  prices: PriceTable;
}

export function recordInjection(ctx: CallRecorder, action: LlmFaultAction, model: string, detail: string, retryAfterS?: number): void {
  ctx.events.emit({
    type: 'fault_injected',
    source: 'proxy',
    fault_index: action.fault.index,
    fault_id: action.fault.id,
    target: model || 'unknown-model',
    detail,
    ...(retryAfterS === undefined ? {} : { retry_after_s: retryAfterS }),
  });
  ctx.log.info('fault injected', { fault: action.fault.id, index: action.fault.index, model, detail });
}

const warnedUnknown = new WeakMap<PriceTable, Set<string>>();

/** `started` is the call's performance.now() on arrival, `ended` once its answer was written. */
export function recordCall(
  ctx: CallRecorder,
  route: LlmRoute,
  model: string,
  status: number,
  stream: boolean,
  usage: CallUsage,
  started: number,
  ended = performance.now(),
): void {
  const { cost_usd, priced_as_unknown } = ctx.prices.cost(model, usage);
  if (priced_as_unknown && (usage.input_tokens > 0 || usage.output_tokens > 0)) {
    const warned = warnedUnknown.get(ctx.prices) ?? new Set<string>();
    warnedUnknown.set(ctx.prices, warned);
    if (!warned.has(model)) {
      warned.add(model);
      ctx.log.warn('model not in the price table: charged at the highest known price', { model });
    }
  }
  const duration_ms = Math.round((ended - started) * 100) / 100;
  ctx.events.emit({
    type: 'llm_call',
    source: 'proxy',
    provider: route.provider,
    endpoint: route.endpoint,
    model: model || 'unknown-model',
    status,
    stream,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cost_usd,
    priced_as_unknown,
    duration_ms,
  });
  ctx.log.info('model call', { provider: route.provider, endpoint: route.endpoint, model, status, stream, cost_usd, duration_ms });
}
