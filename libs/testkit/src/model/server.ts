// The scripted model server: stands in for the Anthropic and OpenAI APIs where no real model can be
// reached. It speaks their wire formats well enough that the real agents and the official SDKs
// accept it, plays a script (script.ts) and keeps no per-conversation state: the turn comes from the
// request's own history, so any number of agents can talk to one server at once.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { historyProblem, readAnthropic, readChat, readResponses, type Api, type Conversation } from './conversation.ts';
import { playScript, type Reply } from './play.ts';
import { parseScript, type Script, type ScriptInput } from './script.ts';
import { anthropicCountTokens, anthropicErrorBody, anthropicEvents, anthropicMessage } from './wire-anthropic.ts';
import { chatChunks, chatCompletion, openaiErrorBody } from './wire-openai-chat.ts';
import { responsesBody, responsesEvents } from './wire-openai-responses.ts';

export interface RecordedRequest {
  api: Api | 'anthropic-count-tokens' | 'unknown';
  method: string;
  /** Path with query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
}

export interface ScriptedModel {
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Play another script from the next request on. */
  setScript(script: Script | ScriptInput): void;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  script: Script | ScriptInput;
  host?: string;
  port?: number;
}

const ROUTES: Record<string, RecordedRequest['api']> = {
  '/v1/messages': 'anthropic',
  '/v1/messages/count_tokens': 'anthropic-count-tokens',
  '/v1/chat/completions': 'openai-chat',
  '/v1/responses': 'openai-responses',
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function errorBody(api: RecordedRequest['api'], status: number, message: string): string {
  return api === 'openai-chat' || api === 'openai-responses' ? openaiErrorBody(status, message) : anthropicErrorBody(status, message);
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * Write the events as they are made, as a provider streams tokens while it generates them: each
 * goes out when the client can take it (a full socket waits for 'drain'), so the first bytes leave
 * before the last event is made and a slow client holds back the generation, not the memory.
 */
async function sendEvents(res: ServerResponse, events: Iterable<string>, delayMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const event of events) {
    if (res.destroyed) return; // the client went away
    if (!res.write(event)) await drainedOrClosed(res);
    if (delayMs > 0) await sleep(delayMs);
  }
  res.end();
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  // Closed already (a write to a closed response returns false too): 'close' will not come again.
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function conversationOf(api: Api, body: Record<string, unknown>): Conversation {
  if (api === 'anthropic') return readAnthropic(body);
  if (api === 'openai-chat') return readChat(body);
  return readResponses(body);
}

async function answer(api: Api, reply: Reply, conversation: Conversation, script: Script, res: ServerResponse): Promise<void> {
  const { model, stream } = conversation;
  const ids: Record<string, string> = api === 'anthropic' ? { 'request-id': `req_${reply.id}` } : { 'x-request-id': `req_${reply.id}` };
  if (reply.error) {
    const retry: Record<string, string> = reply.error.retryAfterS === undefined ? {} : { 'retry-after': String(reply.error.retryAfterS) };
    sendJson(res, reply.error.status, errorBody(api, reply.error.status, reply.error.message), { ...ids, ...retry });
    return;
  }
  if (!stream) {
    const body =
      api === 'anthropic'
        ? anthropicMessage(reply, model)
        : api === 'openai-chat'
          ? chatCompletion(reply, model, script.created)
          : responsesBody(reply, model, script.created, conversation.namespaced);
    sendJson(res, 200, body, ids);
    return;
  }
  const events =
    api === 'anthropic'
      ? anthropicEvents(reply, model, script.chunk_chars)
      : api === 'openai-chat'
        ? chatChunks(reply, model, script.created, script.chunk_chars, conversation.includeUsage)
        : responsesEvents(reply, model, script.created, script.chunk_chars, conversation.namespaced);
  await sendEvents(res, events, reply.chunkDelayMs);
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  let script = parseScript(options.script);
  const requests: RecordedRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const api = req.method === 'POST' ? (ROUTES[path] ?? 'unknown') : 'unknown';
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({ api, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (api === 'unknown') {
      sendJson(res, 404, errorBody(api, 404, `scripted model: no route for ${req.method} ${path}`));
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      sendJson(res, 400, errorBody(api, 400, 'The request body is not valid JSON.'));
      return;
    }
    const json = body as Record<string, unknown>;
    if (api === 'anthropic-count-tokens') {
      sendJson(res, 200, anthropicCountTokens(Math.max(1, Math.ceil(raw.length / script.chars_per_token))));
      return;
    }
    const problem = historyProblem(api, json);
    if (problem) {
      sendJson(res, 400, errorBody(api, 400, problem));
      return;
    }
    const conversation = conversationOf(api, json);
    await answer(api, playScript(script, conversation, raw), conversation, script, res);
  };

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, anthropicErrorBody(500, `scripted model failed: ${String(error)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    setScript(next) {
      script = parseScript(next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
