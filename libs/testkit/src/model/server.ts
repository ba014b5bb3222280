// The scripted model server: stands in for the Anthropic, OpenAI and Gemini APIs where no real model
// can be reached. It speaks their wire formats well enough that the real agents and the official SDKs
// accept it, plays a script (script.ts) and keeps no per-conversation state: the turn comes from the
// request's own history, so any number of agents can talk to one server at once.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { historyProblem, readAnthropic, readChat, readGemini, readResponses, type Api, type Conversation } from './conversation.ts';
import { playScript, type Reply } from './play.ts';
import { parseScript, type Script, type ScriptInput } from './script.ts';
import { anthropicCountTokens, anthropicErrorBody, anthropicEvents, anthropicMessage } from './wire-anthropic.ts';
import { geminiChunks, geminiCountTokens, geminiErrorBody, geminiResponse } from './wire-gemini.ts';
import { chatChunks, chatCompletion, openaiErrorBody } from './wire-openai-chat.ts';
import { responsesBody, responsesEvents } from './wire-openai-responses.ts';

export interface RecordedRequest {
  api: Api | 'anthropic-count-tokens' | 'gemini-count-tokens' | 'unknown';
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
  /** Play another script from the next request on, in every conversation no choice picks. */
  setScript(script: Script | ScriptInput): void;
  close(): Promise<void>;
}

/** A script played for the conversations whose requests contain `when_request_contains` (the task's words, say). */
export interface ScriptChoice {
  when_request_contains: string;
  script: Script | ScriptInput;
}

export interface ScriptedModelOptions {
  /** The script of every conversation no choice picks. */
  script: Script | ScriptInput;
  /** Scripts chosen by what the request holds, the first that matches: one model plays a suite's different tasks. */
  choices?: ScriptChoice[];
  host?: string;
  port?: number;
}

const ROUTES: Record<string, RecordedRequest['api']> = {
  '/v1/messages': 'anthropic',
  '/v1/messages/count_tokens': 'anthropic-count-tokens',
  '/v1/chat/completions': 'openai-chat',
  '/v1/responses': 'openai-responses',
};

// Gemini names the model and the method in the path: /v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse.
// A stream is answered as SSE whether or not alt=sse asks for it (without it the API streams one JSON
// array, which no client here reads).
const GEMINI_PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

interface Route {
  api: RecordedRequest['api'];
  /** Gemini only: the model and the streaming, from the path. */
  model?: string;
  stream?: boolean;
}

function route(method: string | undefined, path: string): Route {
  if (method !== 'POST') return { api: 'unknown' };
  const gemini = GEMINI_PATH.exec(path);
  if (!gemini) return { api: ROUTES[path] ?? 'unknown' };
  const [, model, verb] = gemini;
  if (verb === 'countTokens') return { api: 'gemini-count-tokens' };
  return { api: 'gemini', model: decodeURIComponent(model!), stream: verb === 'streamGenerateContent' };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function errorBody(api: RecordedRequest['api'], status: number, message: string, retryAfterS?: number): string {
  if (api === 'gemini' || api === 'gemini-count-tokens') return geminiErrorBody(status, message, retryAfterS);
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

function conversationOf(api: Api, body: Record<string, unknown>, route: Route): Conversation {
  if (api === 'anthropic') return readAnthropic(body);
  if (api === 'openai-chat') return readChat(body);
  if (api === 'gemini') return readGemini(body, route.model ?? 'unknown-model', route.stream);
  return readResponses(body);
}

const requestIds = (api: Api, reply: Reply): Record<string, string> =>
  api === 'anthropic' ? { 'request-id': `req_${reply.id}` } : api === 'gemini' ? {} : { 'x-request-id': `req_${reply.id}` };

async function answer(api: Api, reply: Reply, conversation: Conversation, script: Script, res: ServerResponse): Promise<void> {
  const { model, stream } = conversation;
  const ids = requestIds(api, reply);
  if (reply.error) {
    const { status, message, retryAfterS } = reply.error;
    const retry: Record<string, string> = retryAfterS === undefined ? {} : { 'retry-after': String(retryAfterS) };
    sendJson(res, status, errorBody(api, status, message, retryAfterS), { ...ids, ...retry });
    return;
  }
  if (!stream) {
    const body =
      api === 'anthropic'
        ? anthropicMessage(reply, model)
        : api === 'openai-chat'
          ? chatCompletion(reply, model, script.created)
          : api === 'gemini'
            ? geminiResponse(reply, model)
            : responsesBody(reply, model, script.created, conversation.namespaced);
    sendJson(res, 200, body, ids);
    return;
  }
  const events =
    api === 'anthropic'
      ? anthropicEvents(reply, model, script.chunk_chars)
      : api === 'openai-chat'
        ? chatChunks(reply, model, script.created, script.chunk_chars, conversation.includeUsage)
        : api === 'gemini'
          ? geminiChunks(reply, model, script.chunk_chars)
          : responsesEvents(reply, model, script.created, script.chunk_chars, conversation.namespaced);
  await sendEvents(res, events, reply.chunkDelayMs);
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  let fallback = parseScript(options.script);
  const choices = (options.choices ?? []).map((choice) => ({ needle: choice.when_request_contains, script: parseScript(choice.script) }));
  const requests: RecordedRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const target = route(req.method, path);
    const { api } = target;
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({ api, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (api === 'unknown') {
      const speaks = path.startsWith('/v1beta/') ? 'gemini' : api; // answer a Gemini client in its own error format
      sendJson(res, 404, errorBody(speaks, 404, `scripted model: no route for ${req.method} ${path}`));
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      sendJson(res, 400, errorBody(api, 400, 'The request body is not valid JSON.'));
      return;
    }
    const json = body as Record<string, unknown>;
    const text = raw.toString('utf8');
    const script = choices.find((choice) => text.includes(choice.needle))?.script ?? fallback;
    const counted = Math.max(1, Math.ceil(raw.length / script.chars_per_token));
    if (api === 'anthropic-count-tokens' || api === 'gemini-count-tokens') {
      sendJson(res, 200, api === 'anthropic-count-tokens' ? anthropicCountTokens(counted) : geminiCountTokens(counted));
      return;
    }
    const problem = historyProblem(api, json);
    if (problem) {
      sendJson(res, 400, errorBody(api, 400, problem));
      return;
    }
    const conversation = conversationOf(api, json, target);
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
      fallback = parseScript(next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
