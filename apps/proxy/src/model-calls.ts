// How model calls reach the LLM handler (llm/handler.ts) from the proxy's port: through the fast
// lane (front.ts) for the plainest, through node:http (server.ts) for the rest, and how a call the
// proxy itself fails is answered either way.
import type { Server as HttpServer } from 'node:http';
import { createFront, type Front } from './front.ts';
import { providerError } from './llm/errors.ts';
import { handleLlmCall, type LlmContext } from './llm/handler.ts';
import { matchLlmRoute, type LlmRoute } from './llm/routes.ts';
import { sendWhole, type Reply } from './reply.ts';

/**
 * The fast lane (front.ts) for model calls in their plainest form; the port is its, and everything
 * else goes to `server`.
 */
export function createFastLane(server: HttpServer, ctx: LlmContext): Front {
  return createFront({
    http: server,
    accepts: (head) => (head.bodyBytes <= ctx.maxBodyBytes ? matchLlmRoute(head.method, head.target) : null),
    serve: ({ head, body, started }, route, reply) => {
      const call = { url: head.target, httpVersion: '1.1', headers: head.headers, body, started };
      handleLlmCall(route, call, reply, ctx).catch((error: unknown) => failedInside(route, reply, ctx, error));
    },
  });
}

/** A model call the proxy itself failed: a 500 in the provider's format, or the response broken off. */
export function failedInside(route: LlmRoute, res: Reply, ctx: LlmContext, error: unknown): void {
  ctx.log.error('model call failed inside the proxy', { endpoint: route.endpoint, error: error instanceof Error ? error.message : String(error) });
  if (res.headersSent) res.destroy();
  else sendWhole(res, providerError(route.provider, 500, 'intutic proxy: internal error'));
}
