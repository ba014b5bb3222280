// Namespaced tools, as Codex offers its MCP servers' tools: inside a `namespace` tool of the Responses
// request (fixtures/codex-mcp-request.json, recorded from Codex 0.169.0). A script calls such a tool
// by the joined name Claude Code uses (`mcp__fs__list_directory`); the scripted model answers with the
// two-part `function_call` Codex runs, and leaves the call as it is for any other request.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyProblem, readResponses, startScriptedModel, type ScriptedModel, type ScriptInput } from '../src/index.ts';

type Body = Record<string, unknown>;
type Item = Record<string, unknown>;
const recorded = JSON.parse(readFileSync(new URL('./fixtures/codex-mcp-request.json', import.meta.url), 'utf8')) as {
  request: Body;
  followUpInput: Item[];
  errorOutput: Item;
};
const firstRequest = recorded.request;
const followUp: Body = { ...firstRequest, input: [...(firstRequest.input as Item[]), ...recorded.followUpInput] };

const script: ScriptInput = {
  turns: [
    { text: 'Listing.', tool_calls: [{ name: 'mcp__fs__list_directory', input: { path: '/work' } }] },
    {
      when: { last_tool_result_matches: 'E-INTUTIC-[0-9a-f]{8}' },
      then: { text: 'The listing failed: {{canary}}' },
      else: { text: 'Listed: {{last_tool_result}}' },
    },
  ],
};

let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel({ script });
});
afterAll(async () => {
  await model.close();
});

async function post(path: string, body: Body): Promise<Response> {
  return fetch(`${model.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The data of each SSE event of a streamed reply. */
async function sseEvents(res: Response): Promise<Item[]> {
  const text = await res.text();
  return text.split('\n\n').flatMap((event) =>
    event
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Item),
  );
}

const functionCalls = (output: unknown): Item[] => (output as Item[]).filter((item) => item.type === 'function_call');

describe("Codex's namespaced MCP tools", () => {
  it('reads the tools inside each namespace under their joined names', () => {
    const conversation = readResponses(firstRequest);
    expect(conversation.toolNames).toEqual(
      expect.arrayContaining(['exec_command', 'list_mcp_resources', 'mcp__fs__list_directory', 'mcp__fs__search_files', 'multi_agent_v1__close_agent']),
    );
    expect(conversation.toolNames).not.toContain('mcp__fs');
    expect(conversation.namespaced['mcp__fs__list_directory']).toEqual({ namespace: 'mcp__fs', name: 'list_directory' });
    expect(conversation.namespaced['exec_command']).toBeUndefined();
    expect(conversation.rounds).toBe(0);
  });

  it('streams the call as a function_call with namespace and the bare name, in every event that carries it', async () => {
    const events = await sseEvents(await post('/v1/responses', firstRequest));
    const items = events.flatMap((e) => (e.type === 'response.output_item.added' || e.type === 'response.output_item.done' ? [e.item as Item] : []));
    const calls = items.filter((item) => item.type === 'function_call');
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toMatchObject({ namespace: 'mcp__fs', name: 'list_directory' });
    const done = calls[1]!;
    expect(JSON.parse(String(done.arguments))).toEqual({ path: '/work' });
    const completed = events.find((e) => e.type === 'response.completed')!.response as Item;
    expect(functionCalls(completed.output)).toEqual([done]);
  });

  it('answers the same in a response body that is not streamed', async () => {
    const response = (await (await post('/v1/responses', { ...firstRequest, stream: false })).json()) as Item;
    expect(functionCalls(response.output)).toEqual([
      expect.objectContaining({ type: 'function_call', namespace: 'mcp__fs', name: 'list_directory', arguments: '{"path":"/work"}' }),
    ]);
  });

  it('counts the namespaced call Codex sends back and its output as a round, and quotes the result', async () => {
    expect(historyProblem('openai-responses', followUp)).toBeNull();
    const conversation = readResponses(followUp);
    expect(conversation.rounds).toBe(1);
    expect(conversation.lastToolResult).toContain('[FILE] a.txt');
    const response = (await (await post('/v1/responses', { ...followUp, stream: false })).json()) as Item;
    const message = (response.output as Item[])[0]!;
    expect((message.content as Item[])[0]!.text).toContain('Listed: Wall time');
  });

  it('reads an MCP error result, which Codex sends back as input_text parts, as the last tool result', async () => {
    const input = (followUp.input as Item[]).map((item) => (item.type === 'function_call_output' ? recorded.errorOutput : item));
    const failed = { ...followUp, input, stream: false };
    expect(historyProblem('openai-responses', failed)).toBeNull();
    const conversation = readResponses(failed);
    expect(conversation.rounds).toBe(1);
    expect(conversation.lastToolResult).toContain('the directory listing timed out');
    const response = (await (await post('/v1/responses', failed)).json()) as Item;
    expect(((response.output as Item[])[0]!.content as Item[])[0]!.text).toBe('The listing failed: E-INTUTIC-9d05b8c2');
  });

  it('rejects an output whose namespaced call is missing, as the real API does', () => {
    const orphan = { ...followUp, input: (followUp.input as Item[]).filter((item) => item.type !== 'function_call') };
    expect(historyProblem('openai-responses', orphan)).toMatch(/No tool call found for function call output with call_id call_/);
  });
});

describe('the same call where no namespace offers it', () => {
  it('stays one name in a plain Responses function tool', async () => {
    const tool = { type: 'function', name: 'mcp__fs__list_directory', parameters: { type: 'object', properties: { path: { type: 'string' } } } };
    const response = (await (await post('/v1/responses', { model: 'gpt-5-codex', tools: [tool], input: [{ role: 'user', content: 'list' }] })).json()) as Item;
    const [call] = functionCalls(response.output);
    expect(call).toMatchObject({ name: 'mcp__fs__list_directory' });
    expect(call).not.toHaveProperty('namespace');
  });

  it('stays one name in an Anthropic tool_use, for Claude Code', async () => {
    const tool = { name: 'mcp__fs__list_directory', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };
    const message = (await (
      await post('/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 100, tools: [tool], messages: [{ role: 'user', content: 'list' }] })
    ).json()) as Item;
    expect((message.content as Item[]).find((block) => block.type === 'tool_use')).toMatchObject({ name: 'mcp__fs__list_directory', input: { path: '/work' } });
  });
});
