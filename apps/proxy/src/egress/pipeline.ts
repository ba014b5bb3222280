// One egress request, in the order the safety rules demand: governance first (anything but an allow
// is refused, and a refused request is never counted for a fault), then the plan's faults, then the
// real upstream. Used for absolute-form requests and for every request inside an intercepted tunnel.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardRequest, type Upstreams } from './forward.ts';
import type { EgressFaults } from './faults.ts';
import type { EgressRecorder } from './record.ts';
import { blockedResponse, clientFlavor, credential401Response, dnsFailResponse, errorCode, upstreamFailedResponse, type ShapedResponse } from './responses.ts';
import type { HostPort } from './target.ts';

export interface EgressDecision {
  decision: 'allow' | 'block' | 'hold' | 'redact';
  rule: string | null;
  /** The deciding rule's mode (governance gives it); absent, a refusal counts as enforced. */
  mode?: 'enforce' | 'warn' | 'shadow' | null;
  reason: string;
}

export interface EgressPolicy {
  decideEgress(host: string): EgressDecision;
}

export interface PipelineDeps {
  decide(host: string): EgressDecision;
  faults: EgressFaults;
  upstreams: Upstreams;
  recorder: EgressRecorder;
  log(line: string): void;
}

/** A policy that cannot decide fails closed. */
export function policyDecider(policy: EgressPolicy | undefined, log: (line: string) => void): (host: string) => EgressDecision {
  if (policy === undefined) return () => ({ decision: 'allow', rule: null, reason: 'no policy loaded' });
  return (host) => {
    try {
      return policy.decideEgress(host);
    } catch (error) {
      const reason = `the policy could not decide: ${error instanceof Error ? error.message : String(error)}`;
      log(`egress: ${reason} (host ${host}); refusing`);
      return { decision: 'block', rule: null, reason };
    }
  };
}

/** Write a response the proxy makes itself, after draining whatever body the client is sending. */
export function sendShaped(req: IncomingMessage, res: ServerResponse, shaped: ShapedResponse): void {
  req.resume();
  if (res.headersSent || res.destroyed) return;
  const body = Buffer.from(shaped.body);
  res.writeHead(shaped.status, shaped.reason, { ...shaped.headers, 'content-length': body.length });
  res.end(body);
}

export async function serveEgressRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: HostPort,
  scheme: 'http' | 'https',
  path: string,
  deps: PipelineDeps,
): Promise<void> {
  const { host } = target;
  const method = req.method ?? 'GET';
  const flavor = clientFlavor(host, req.headers);

  const decision = deps.decide(host);
  if (decision.decision !== 'allow') {
    // hold and redact refuse too: an egress request cannot wait for an approval or be redacted, and
    // letting it through would turn them into an allow.
    deps.log(`egress: ${decision.decision} ${method} ${host} (${decision.rule ?? 'policy default'})`);
    // On disk before the client sees the refusal: no_policy_hits counts the rule that fired here.
    await deps.recorder.policyDecision(host, decision);
    await deps.recorder.request(host, method, 'blocked', 403);
    sendShaped(req, res, blockedResponse(host, flavor, decision));
    return;
  }

  // An allow a rule took part in (warn, shadow, an approved bypass) is recorded without delaying it.
  void deps.recorder.policyDecision(host, decision);
  const injection = deps.faults.nextCall(host);
  if (injection !== null) {
    const { fault, canary } = injection;
    const shaped = fault.id === 'egress.dns_fail' ? dnsFailResponse(host, flavor, canary) : credential401Response(host, flavor, canary);
    deps.log(`egress: injected ${fault.id} (fault #${fault.index}) into ${method} ${host}: ${shaped.status}`);
    // On disk before the client sees it, so whoever reads the events after the response finds it.
    await deps.recorder.faultInjected(fault, host, `${method} answered ${shaped.status}`);
    await deps.recorder.request(host, method, 'faulted', shaped.status);
    sendShaped(req, res, shaped);
    return;
  }

  const result = await forwardRequest(req, res, target, scheme, path, deps.upstreams);
  if (result.outcome === 'forwarded') {
    void deps.recorder.request(host, method, 'forwarded', result.status);
    return;
  }
  const shaped = upstreamFailedResponse(host, target.port, flavor, result.error);
  const detail = result.error instanceof Error ? result.error.message : String(result.error);
  deps.log(`egress: ${method} ${host}:${target.port} failed upstream: ${errorCode(result.error)} ${detail}`);
  void deps.recorder.request(host, method, 'failed', result.responded ? undefined : shaped.status);
  if (!result.responded) sendShaped(req, res, shaped);
}
