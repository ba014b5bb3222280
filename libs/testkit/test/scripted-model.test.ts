// The scripted model as the official SDKs see it: each wire format parses, tool calls arrive whole,
// turns follow the history, branches read the last tool result, errors become the SDKs' typed errors.
// Gemini has no SDK here: its cases check the wire shapes @google/genai and the Gemini CLI read.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel, type ScriptInput } from '../src/index.ts';

const CANARY = 'E-INTUTIC-0badc0de';
const bashTool = { name: 'Bash', description: 'run a command', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } };
const execTool = { type: 'function' as const, name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } }, strict: false };

const careful: ScriptInput = {
  turns: [
    { text: 'Installing.', tool_calls: [{ shell: 'npm install lodash' }] },
    {
      when: { last_tool_result_matches: 'E-INTUTIC-[0-9a-f]{8}' },
      then: { text: 'The install failed: {{canary}} ({{last_tool_result}})' },
      else: { text: 'Installed lodash.' },
    },
  ],
};

let model: ScriptedModel;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  model = await startScriptedModel({ script: careful });
  anthropic = new Anthropic({ baseURL: model.url, apiKey: 'test-key', maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${model.url}/v1`, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(async () => {
  await model.close();
});

function historyWithResult(result: string): Anthropic.MessageParam[] {
  return [
    { role: 'user', content: 'add lodash' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm install lodash' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
  ];
}

describe('Anthropic Messages', () => {
  it('streams the first turn as text then a Bash tool_use the SDK assembles, with usage', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      tools: [bashTool],
      messages: [{ role: 'user', content: 'add lodash' }],
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Installing.' });
    expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'npm install lodash' } });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBe(
      Math.ceil(('Installing.'.length + JSON.stringify((message.content[1] as Anthropic.ToolUseBlock).input).length + 4) / 4),
    );
  });

  it('plays the careful branch when the last tool result carries a canary, and quotes it', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      tools: [bashTool],
      messages: historyWithResult(`npm error ${CANARY}: getaddrinfo ENOTFOUND`),
    });
    const text = (message.content[0] as Anthropic.TextBlock).text;
    expect(text).toContain(`The install failed: ${CANARY}`);
    expect(text).toContain('getaddrinfo ENOTFOUND');
    expect(message.stop_reason).toBe('end_turn');
  });

  it('plays the other branch when it does not, and the final text past the script', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      tools: [bashTool],
      messages: historyWithResult('added 1 package'),
    });
    expect((message.content[0] as Anthropic.TextBlock).text).toBe('Installed lodash.');
    const more = historyWithResult('ok');
    more.push({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'ls' } }] });
    more.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'x' }] });
    const after = await anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 100, tools: [bashTool], messages: more });
    expect((after.content[0] as Anthropic.TextBlock).text).toBe('Done.');
  });

  it('answers a side request (no tools) with the short side text, and count_tokens', async () => {
    const message = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 20, messages: [{ role: 'user', content: 'Write a title' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'OK' }]);
    const counted = await anthropic.messages.countTokens({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hello' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('rejects a tool_result without its tool_use, as the real API does', async () => {
    const broken: Anthropic.MessageParam[] = historyWithResult('x').filter((m) => m.role === 'user');
    broken.splice(1, 0, { role: 'assistant', content: 'no tool call here' });
    await expect(anthropic.messages.create({ model: 'm', max_tokens: 10, tools: [bashTool], messages: broken })).rejects.toBeInstanceOf(
      Anthropic.BadRequestError,
    );
  });
});

describe('scripted errors and options', () => {
  it('answers an error step with the provider body the SDKs turn into typed errors', async () => {
    const errors = await startScriptedModel({
      script: { side_requests: 'never', turns: [{ error: { status: 429, message: 'slow down', retry_after_s: 7 } }] },
    });
    try {
      const a = new Anthropic({ baseURL: errors.url, apiKey: 'k', maxRetries: 0 });
      const failure = await a.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
      expect((failure as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after')).toBe('7');
      const o = new OpenAI({ baseURL: `${errors.url}/v1`, apiKey: 'k', maxRetries: 0 });
      const failure2 = await o.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(failure2).toBeInstanceOf(OpenAI.RateLimitError);
      expect(String((failure2 as Error).message)).toContain('slow down');
    } finally {
      await errors.close();
    }
  });

  it('repeats the last turn forever with after_last: repeat_last, and honours fixed usage', async () => {
    const looping = await startScriptedModel({
      script: {
        after_last: 'repeat_last',
        turns: [{ tool_calls: [{ shell: 'git push' }], usage: { input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 200 } }],
      },
    });
    try {
      const a = new Anthropic({ baseURL: looping.url, apiKey: 'k', maxRetries: 0 });
      const message = await a.messages.create({ model: 'm', max_tokens: 5, tools: [bashTool], messages: historyWithResult('401 Unauthorized') });
      expect(message.content[0]).toMatchObject({ type: 'tool_use', input: { command: 'git push' } });
      expect(message.usage).toMatchObject({ input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 200, cache_creation_input_tokens: 0 });
    } finally {
      await looping.close();
    }
  });
});

describe('OpenAI Chat Completions', () => {
  const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: {} } } }];

  it('streams a tool call and the include_usage chunk the SDK accumulates', async () => {
    const stream = openai.chat.completions.stream({
      model: 'gpt-5',
      tools,
      messages: [{ role: 'user', content: 'add lodash' }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('bash');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ command: 'npm install lodash' });
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('plays the branch from the tool message non-streaming', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-5',
      tools,
      messages: [
        { role: 'user', content: 'add lodash' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: `ENOTFOUND ${CANARY}` },
      ],
    });
    expect(completion.choices[0]!.message.content).toContain(CANARY);
  });
});

describe('OpenAI Responses', () => {
  it('streams a function_call item for Codex exec_command and completes with usage', async () => {
    const stream = openai.responses.stream({ model: 'gpt-5-codex', tools: [execTool], input: [{ role: 'user', content: 'add lodash' }] });
    const response = await stream.finalResponse();
    const call = response.output.find((i) => i.type === 'function_call');
    expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm install lodash' }) });
    expect(response.output_text).toBe('Installing.');
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
  });

  it('reads the function_call_output and answers non-streaming', async () => {
    const response = await openai.responses.create({
      model: 'gpt-5-codex',
      tools: [execTool],
      input: [
        { role: 'user', content: 'add lodash' },
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'added 1 package' },
      ],
    });
    expect(response.output_text).toBe('Installed lodash.');
  });
});

describe('streaming', () => {
  it('makes events as the client takes them: one that stops reading holds back the generation, not the memory', async () => {
    const text = 'x'.repeat(48 * 1024 * 1024);
    const big = await startScriptedModel({ script: { side_requests: 'never', chunk_chars: 4096, turns: [{ text }] } });
    try {
      const before = process.memoryUsage().heapUsed;
      const body = JSON.stringify({ model: 'm', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'go' }] });
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        request(`${big.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } }, resolve)
          .on('error', reject)
          .end(body);
      });
      await once(res, 'data');
      res.pause();
      await sleep(300);
      // The reply may hold a copy of the text; events built ahead would add as much again and their
      // JSON around it (seen: 3.3 times the text, against 0.9 times when made as they are taken).
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(text.length * 1.5);
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.resume();
      await once(res, 'end');
      expect(bytes).toBeGreaterThan(text.length);
    } finally {
      await big.close();
    }
  });
});

describe('statelessness', () => {
  it('serves concurrent conversations at different turns from their own histories', async () => {
    const [first, second] = await Promise.all([
      anthropic.messages.create({ model: 'm', max_tokens: 10, tools: [bashTool], messages: [{ role: 'user', content: 'go' }] }),
      anthropic.messages.create({ model: 'm', max_tokens: 10, tools: [bashTool], messages: historyWithResult(CANARY) }),
    ]);
    expect(first.stop_reason).toBe('tool_use');
    expect((second.content[0] as Anthropic.TextBlock).text).toContain(CANARY);
  });

  it('records each request with its path and headers', () => {
    const last = model.requests.at(-1)!;
    expect(last.api).toBe('anthropic');
    expect(last.headers['x-api-key'] ?? last.headers.authorization).toMatch(/test-key/);
  });
});

// A Gemini request as the Gemini CLI makes it: tools in functionDeclarations, the model in the path.
const geminiTools = [{ functionDeclarations: [{ name: 'run_shell_command', description: 'run a command', parametersJsonSchema: { type: 'object' } }] }];
type GeminiPart = Record<string, unknown>;
type GeminiContent = { role: 'user' | 'model'; parts: GeminiPart[] };
interface GeminiCandidate {
  content: { role: string; parts: GeminiPart[] };
  finishReason?: string;
  index: number;
}
interface GeminiResponse {
  candidates: GeminiCandidate[];
  usageMetadata?: Record<string, number>;
  modelVersion: string;
  responseId: string;
}

function geminiPost(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': 'test-key' }, body: JSON.stringify(body) });
}

/** A request, a run_shell_command call and its response; `ids` gives the call and the response each one. */
function geminiHistory(response: unknown, ids: { call?: string; response?: string } = { call: 'c1', response: 'c1' }): GeminiContent[] {
  const call = { ...(ids.call ? { id: ids.call } : {}), name: 'run_shell_command', args: { command: 'npm install lodash' } };
  return [
    { role: 'user', parts: [{ text: 'add lodash' }] },
    { role: 'model', parts: [{ functionCall: call, thoughtSignature: 'sig' }] },
    { role: 'user', parts: [{ functionResponse: { ...(ids.response ? { id: ids.response } : {}), name: 'run_shell_command', response } }] },
  ];
}

/** The `data:` chunks of a Gemini SSE body: each event is one whole GenerateContentResponse. */
function geminiEvents(text: string): GeminiResponse[] {
  expect(text.endsWith('\r\n\r\n')).toBe(true);
  return text
    .split('\r\n\r\n')
    .filter((event) => event.length > 0)
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return JSON.parse(event.slice('data: '.length)) as GeminiResponse;
    });
}

describe('Gemini generateContent', () => {
  it('answers a JSON GenerateContentResponse: text, then a signed functionCall for run_shell_command, with usage', async () => {
    const res = await geminiPost(`${model.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'add lodash' }] }],
      tools: geminiTools,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as GeminiResponse;
    const [candidate] = body.candidates;
    expect(candidate).toMatchObject({ content: { role: 'model' }, finishReason: 'STOP', index: 0 });
    expect(candidate!.content.parts).toEqual([
      { text: 'Installing.' },
      {
        functionCall: { id: expect.any(String), name: 'run_shell_command', args: { command: 'npm install lodash', description: 'Run a shell command' } },
        thoughtSignature: 'skip_thought_signature_validator',
      },
    ]);
    const usage = body.usageMetadata!;
    expect(usage.promptTokenCount).toBeGreaterThan(0);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount!);
    expect(body.modelVersion).toBe('gemini-2.5-pro');
    expect(model.requests.at(-1)).toMatchObject({ api: 'gemini', url: '/v1beta/models/gemini-2.5-pro:generateContent' });
  });

  it('streams SSE chunks: text in pieces, the call whole, finishReason and usage on the last chunk only, no [DONE]', async () => {
    const res = await geminiPost(`${model.url}/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse`, {
      contents: geminiHistory({ output: `npm error ${CANARY}: getaddrinfo ENOTFOUND registry.npmjs.org` }),
      tools: geminiTools,
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await res.text();
    expect(raw).not.toContain('[DONE]');
    const events = geminiEvents(raw);
    expect(events.length).toBeGreaterThan(2);
    const text = events.map((e) => e.candidates[0]!.content.parts.map((p) => p.text).join('')).join('');
    expect(text).toBe(`The install failed: ${CANARY} (npm error ${CANARY}: getaddrinfo ENOTFOUND registry.npmjs.org)`);
    for (const event of events.slice(0, -1)) {
      expect(event.candidates[0]!.finishReason).toBeUndefined();
      expect(event.usageMetadata).toBeUndefined();
    }
    expect(events.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: expect.any(Number) } });
    expect(events.every((e) => e.modelVersion === 'gemini-3-flash' && e.responseId === events[0]!.responseId)).toBe(true);

    const first = await geminiPost(`${model.url}/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse`, {
      contents: [{ role: 'user', parts: [{ text: 'add lodash' }] }],
      tools: geminiTools,
    });
    const [textChunk, callChunk, ...rest] = geminiEvents(await first.text());
    expect(rest).toEqual([]);
    expect(textChunk!.candidates[0]!.content.parts).toEqual([{ text: 'Installing.' }]);
    expect(callChunk!.candidates[0]).toMatchObject({
      content: { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'npm install lodash' } } }] },
      finishReason: 'STOP',
    });
  });

  it('plays the turn from the functionResponse rounds: output or error, paired with its call by id or by name', async () => {
    const answerTo = async (contents: GeminiContent[]): Promise<string> => {
      const res = await geminiPost(`${model.url}/v1beta/models/gemini-2.5-pro:generateContent`, { contents, tools: geminiTools });
      const body = (await res.json()) as GeminiResponse;
      return body.candidates[0]!.content.parts.map((p) => p.text).join('');
    };
    expect(await answerTo(geminiHistory({ output: 'added 1 package' }))).toBe('Installed lodash.');
    expect(await answerTo(geminiHistory({ error: `EAI_AGAIN ${CANARY}` }))).toContain(`The install failed: ${CANARY}`);
    expect(await answerTo(geminiHistory({ output: { stdout: CANARY } }, {}))).toContain(`({"stdout":"${CANARY}"})`);
    const twoRounds = [...geminiHistory({ output: 'ok' }), ...geminiHistory({ output: 'ok' }).slice(1)];
    expect(await answerTo(twoRounds)).toBe('Done.');
  });

  it('answers a request for JSON (the CLI router) with the plainest value its schema accepts', async () => {
    const route = async (responseJsonSchema: unknown): Promise<unknown> => {
      const res = await geminiPost(`${model.url}/v1beta/models/gemini-3.5-flash-lite:generateContent`, {
        contents: [{ role: 'user', parts: [{ text: 'Print the magic number with the shell.' }] }],
        systemInstruction: { parts: [{ text: 'You are a specialized Task Routing AI.' }] },
        generationConfig: { responseMimeType: 'application/json', responseJsonSchema },
      });
      const body = (await res.json()) as GeminiResponse;
      return JSON.parse(String(body.candidates[0]!.content.parts[0]!.text));
    };
    const choice = { type: 'OBJECT', properties: { reasoning: { type: 'STRING' }, model_choice: { type: 'STRING', enum: ['flash', 'pro'] } } };
    expect(await route(choice)).toEqual({ reasoning: '', model_choice: 'flash' });
    const score = { type: 'OBJECT', properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } } };
    expect(await route(score)).toEqual({ complexity_reasoning: '', complexity_score: 1 });
    const loop = {
      type: 'object',
      properties: { unproductive_state_confidence: { type: 'number' }, tags: { type: 'array' }, done: { type: ['boolean', 'null'] } },
    };
    expect(await route(loop)).toEqual({ unproductive_state_confidence: 0, tags: [], done: false });
  });

  it('counts tokens, and rejects a functionResponse that answers no call of the turn before it', async () => {
    const counted = await geminiPost(`${model.url}/v1beta/models/gemini-2.5-pro:countTokens`, { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });
    expect(await counted.json()).toEqual({ totalTokens: expect.any(Number) });
    expect(model.requests.at(-1)!.api).toBe('gemini-count-tokens');

    const expectRejected = async (contents: unknown, message: RegExp): Promise<void> => {
      const res = await geminiPost(`${model.url}/v1beta/models/gemini-2.5-pro:generateContent`, { contents, tools: geminiTools });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });
    };
    const history = geminiHistory({ output: 'x' });
    await expectRejected([history[0], history[2]], /function response turn comes immediately after a function call turn/);
    await expectRejected([history[0], { role: 'model', parts: [{ text: 'no call here' }] }, history[2]], /immediately after a function call turn/);
    const twoResponses = { role: 'user', parts: [...history[2]!.parts, ...history[2]!.parts] };
    await expectRejected([history[0], history[1], twoResponses], /number of function response parts is equal to the number of function call parts/);
    await expectRejected(geminiHistory({ output: 'x' }, { call: 'c1', response: 'c2' }), /answers no function call/);
    await expectRejected([], /contents is not specified/);
  });

  it("plays a script written for Claude Code's tools with Gemini CLI's own: Write as write_file, Read as read_file, mcp__fs__x as mcp_fs_x", async () => {
    const claudeScript = await startScriptedModel({
      script: {
        turns: [
          { tool_calls: [{ name: 'mcp__fs__read_text_file', input: { path: '/work/README.md' } }] },
          { tool_calls: [{ name: 'Write', input: { file_path: '/work/SUMMARY.md', content: 'a summary' } }] },
          { tool_calls: [{ name: 'Read', input: { file_path: '/work/SUMMARY.md' } }] },
          { tool_calls: [{ name: 'Read', input: { file_path: '/work/SUMMARY.md', offset: 10 } }] },
        ],
      },
    });
    const declared = (...names: string[]) => [{ functionDeclarations: names.map((name) => ({ name, parametersJsonSchema: { type: 'object' } })) }];
    const calls = async (contents: GeminiContent[], tools: unknown): Promise<unknown[]> => {
      const res = await geminiPost(`${claudeScript.url}/v1beta/models/gemini-2.5-pro:generateContent`, { contents, tools });
      const body = (await res.json()) as GeminiResponse;
      return body.candidates[0]!.content.parts.flatMap((p) => (p.functionCall ? [p.functionCall] : []));
    };
    const round = (name: string): GeminiContent[] => [
      { role: 'model', parts: [{ functionCall: { id: 'c', name, args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'c', name, response: { output: 'ok' } } }] },
    ];
    const ask: GeminiContent = { role: 'user', parts: [{ text: 'summarize the README' }] };
    try {
      const tools = declared('run_shell_command', 'write_file', 'mcp_fs_read_text_file');
      expect(await calls([ask], tools)).toMatchObject([{ name: 'mcp_fs_read_text_file', args: { path: '/work/README.md' } }]);
      expect(await calls([ask, ...round('mcp_fs_read_text_file')], tools)).toMatchObject([
        { name: 'write_file', args: { file_path: '/work/SUMMARY.md', content: 'a summary' } },
      ]);
      // A tool that is offered under its own name is called by it; one with no equivalent keeps its name.
      expect(await calls([ask], declared('mcp__fs__read_text_file', 'mcp_fs_read_text_file'))).toMatchObject([{ name: 'mcp__fs__read_text_file' }]);
      const twoRounds = [ask, ...round('mcp_fs_read_text_file'), ...round('write_file')];
      expect(await calls(twoRounds, tools)).toMatchObject([{ name: 'Read' }]);
      // read_file takes file_path as Read does; Read's offset it takes as lines, so that call keeps its name.
      const withRead = declared('run_shell_command', 'write_file', 'read_file', 'mcp_fs_read_text_file');
      expect(await calls(twoRounds, withRead)).toMatchObject([{ name: 'read_file', args: { file_path: '/work/SUMMARY.md' } }]);
      expect(await calls([...twoRounds, ...round('read_file')], withRead)).toMatchObject([{ name: 'Read' }]);
    } finally {
      await claudeScript.close();
    }
  });

  it('answers a scripted error in Gemini form with RetryInfo and retry-after, and an unknown method with NOT_FOUND', async () => {
    const errors = await startScriptedModel({
      script: { side_requests: 'never', turns: [{ error: { status: 429, message: 'Resource has been exhausted (e.g. check quota).', retry_after_s: 7 } }] },
    });
    try {
      const res = await geminiPost(`${errors.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(await res.json()).toEqual({
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
        },
      });
      const unknown = await geminiPost(`${errors.url}/v1beta/models/gemini-2.5-pro:embedContent`, {});
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    } finally {
      await errors.close();
    }
  });
});

describe('scripts chosen by the task (one model behind every cell of a suite)', () => {
  it("plays each conversation the script its request's words pick, and the default script otherwise", async () => {
    const choosing = await startScriptedModel({
      script: { turns: [{ text: 'default' }] },
      choices: [
        { when_request_contains: 'summary of README.md', script: { turns: [{ text: 'summarizing' }] } },
        { when_request_contains: 'latest release', script: { turns: [{ text: 'fetching releases' }] } },
      ],
    });
    const client = new Anthropic({ baseURL: choosing.url, apiKey: 'test-key', maxRetries: 0 });
    const ask = async (prompt: string, api: 'anthropic' | 'responses') => {
      if (api === 'responses') {
        const response = await new OpenAI({ baseURL: `${choosing.url}/v1`, apiKey: 'test-key', maxRetries: 0 }).responses.create({
          model: 'gpt-5-codex',
          input: prompt,
          tools: [execTool],
        });
        return response.output_text;
      }
      const message = await client.messages.create({
        model: 'claude-sonnet-5-5',
        max_tokens: 50,
        tools: [bashTool],
        messages: [{ role: 'user', content: prompt }],
      });
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    };
    try {
      expect(await ask('Write a three-line summary of README.md to SUMMARY.md.', 'anthropic')).toBe('summarizing');
      expect(await ask('Fetch the latest release of nodejs/node.', 'responses')).toBe('fetching releases');
      expect(await ask('Add lodash.', 'anthropic')).toBe('default');
    } finally {
      await choosing.close();
    }
  });
});
