// The pure rules of the LLM side: price-table lookup, which faults apply to a call (and in what
// order two failing faults share a call), and the context trim's well-formedness per provider.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyProblem } from '@intutic/testkit';
import { LlmFaults } from '../src/llm/faults.ts';
import { loadPriceTable, parsePriceTable } from '../src/llm/pricing.ts';
import { trimContext } from '../src/llm/trim.ts';
import { planWith } from './llm-fixtures.ts';

describe('price table', () => {
  const table = loadPriceTable();
  it('finds a model by its longest family prefix at a - @ or : boundary', () => {
    expect(table.entryFor('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(table.entryFor('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5');
    expect(table.entryFor('gpt-4.1-mini-2025-04-14')).toBe('gpt-4.1-mini');
    expect(table.entryFor('GPT-5')).toBe('gpt-5');
    expect(table.entryFor('gpt-5.9')).toBeNull(); // "." is not a boundary: gpt-5.9 is not gpt-5
    expect(table.entryFor('claude-sonnet-45')).toBeNull();
    expect(table.entryFor('gemini-2.5-flash-lite-preview-09-2025')).toBe('gemini-2.5-flash-lite');
    expect(table.entryFor('gemini-2.5-flash-001')).toBe('gemini-2.5-flash');
    expect(table.entryFor('gemini-2.5-pro')).toBe('gemini-2.5-pro');
  });

  it('charges an unknown model the highest price of each kind', () => {
    const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const unknown = table.cost('who-knows', usage);
    expect(unknown.priced_as_unknown).toBe(true);
    expect(unknown.cost_usd).toBe(table.ceiling.input + table.ceiling.output);
    const known = table.cost('claude-haiku-4-5', usage);
    expect(known).toEqual({ cost_usd: 6, priced_as_unknown: false });
    expect(unknown.cost_usd).toBeGreaterThan(known.cost_usd);
  });

  it('rejects a malformed table with a config error', () => {
    expect(() => parsePriceTable({ schema_version: 1, models: {} }, 'x.json')).toThrow(/price table x.json is not valid/);
    expect(() => parsePriceTable({ schema_version: 1, models: { m: { input: -1, output: 1, cache_write: 1, cache_read: 1 } } }, 'y.json')).toThrow(/y.json/);
  });
});

describe('LlmFaults', () => {
  it('applies mutating faults together and only the first failing one; the other counts the call as seen', () => {
    const faults = new LlmFaults(
      planWith([
        { id: 'llm.model_degrade', options: { to_model: 'small' } },
        { id: 'llm.rate_limit', times: 1 },
        { id: 'llm.upstream_5xx', times: 1 },
      ]),
    );
    expect(faults.actionsFor('big').map((a) => a.kind)).toEqual(['model_degrade', 'rate_limit']);
    expect(faults.actionsFor('big').map((a) => a.kind)).toEqual(['model_degrade', 'upstream_5xx']);
    expect(faults.actionsFor('big').map((a) => a.kind)).toEqual(['model_degrade']);
  });

  it('for any after_calls, times and call sequence, injects exactly on the matching calls they name', () => {
    const ids = ['llm.rate_limit', 'llm.upstream_5xx', 'llm.context_trim', 'llm.model_degrade'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...ids),
        fc.nat(5),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
        fc.array(fc.constantFrom('claude-a', 'claude-b', 'gpt-c'), { maxLength: 20 }),
        (id, after, times, models) => {
          const options = id === 'llm.model_degrade' ? { to_model: 'x' } : id === 'llm.context_trim' ? { drop_oldest: 1 } : {};
          const faults = new LlmFaults(planWith([{ id, match: { model: 'claude-b' }, after_calls: after, times, options }]));
          let seen = 0;
          for (const model of models) {
            const injected = faults.actionsFor(model).length === 1;
            if (model !== 'claude-b') {
              expect(injected).toBe(false);
              continue;
            }
            expect(injected).toBe(seen >= after && (times === null || seen < after + times));
            seen++;
          }
        },
      ),
    );
  });

  it('applies catalog defaults to options and rejects invalid ones at load', () => {
    const [action] = new LlmFaults(planWith([{ id: 'llm.upstream_5xx' }])).actionsFor('m');
    expect(action).toMatchObject({ kind: 'upstream_5xx', status: 500, cutAfterChunks: null });
    expect(() => new LlmFaults(planWith([{ id: 'llm.upstream_5xx', options: { status: 404 } }]))).toThrow(/invalid options/);
  });

  it('ignores faults of other components', () => {
    expect(new LlmFaults(planWith([{ id: 'tool.error' }, { id: 'egress.dns_fail', match: { host: 'x' } }])).actionsFor('m')).toEqual([]);
  });
});

describe('context trim keeps histories well-formed', () => {
  const toolRound = (i: number) => [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `step ${i}` },
        { type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text: `out ${i}` }] }] },
  ];
  const anthropic = () => ({ model: 'm', system: 's', messages: [{ role: 'user', content: 'task' }, ...toolRound(1), ...toolRound(2), ...toolRound(3)] });

  for (let n = 1; n <= 10; n++) {
    it(`Anthropic, drop_oldest ${n}: the scripted upstream's checks (the real API's rules) pass`, () => {
      const { body, droppedMessages } = trimContext('anthropic-messages', anthropic(), { dropOldest: n, dropSystem: false });
      expect(historyProblem('anthropic', body)).toBeNull();
      expect(droppedMessages).toBeGreaterThanOrEqual(Math.min(n, 6));
      const kept = body.messages as unknown[];
      // The newest message stays; alone, its orphaned tool result becomes text.
      if (kept.length > 1) expect(kept.at(-1)).toEqual(anthropic().messages.at(-1));
      else expect(kept).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Tool result: out 3' }] }]);
      expect(body.system).toBe('s');
    });
  }

  it('never drops the newest message, and the system prompt only when asked', () => {
    const { body, droppedSystem } = trimContext('anthropic-messages', anthropic(), { dropOldest: 100, dropSystem: true });
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Tool result: out 3' }] }]);
    expect(droppedSystem).toBe(true);
    expect(body.system).toBeUndefined();
  });

  it('OpenAI chat and Responses stay acceptable for every drop count', () => {
    const chat = () => ({
      messages: [
        { role: 'developer', content: 'dev' },
        { role: 'user', content: 'task' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'A' },
        { role: 'tool', tool_call_id: 'b', content: 'B' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'more' },
      ],
    });
    const responses = () => ({
      instructions: 'i',
      input: [
        { role: 'user', content: 'task' },
        { type: 'reasoning', id: 'r1', summary: [] },
        { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'a', output: 'A' },
        { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'b', output: 'B' },
      ],
    });
    for (let n = 1; n <= 8; n++) {
      const c = trimContext('openai-chat', chat(), { dropOldest: n, dropSystem: false }).body;
      expect(historyProblem('openai-chat', c)).toBeNull();
      expect((c.messages as Array<{ role: string }>)[0]!.role).toBe('developer');
      const r = trimContext('openai-responses', responses(), { dropOldest: n, dropSystem: n % 2 === 0 }).body;
      expect(historyProblem('openai-responses', r)).toBeNull();
      const input = r.input as Array<Record<string, unknown>>;
      expect(JSON.stringify(input.at(-1))).toContain('B');
    }
  });

  it('Gemini contents stay acceptable for every drop count: a user turn first, no function response without its call', () => {
    const round = (i: number) => [
      { role: 'model', parts: [{ text: `step ${i}` }, { functionCall: { name: 'run_shell_command', args: { command: `c${i}` } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'run_shell_command', response: { output: `out ${i}` } } }] },
    ];
    const gemini = () => ({
      systemInstruction: { parts: [{ text: 's' }] },
      contents: [{ role: 'user', parts: [{ text: 'task' }] }, ...round(1), ...round(2), ...round(3)],
    });
    type Turn = { role?: string; parts: Array<Record<string, unknown>> };
    for (let n = 1; n <= 10; n++) {
      const { body, droppedMessages, droppedSystem } = trimContext('gemini-generate', gemini(), { dropOldest: n, dropSystem: n % 2 === 0 });
      const kept = body.contents as Turn[];
      expect(kept[0]!.role).toBe('user');
      kept.forEach((turn, i) => {
        if (turn.parts.some((p) => p.functionResponse)) expect(kept[i - 1]?.parts.some((p) => p.functionCall)).toBe(true);
      });
      // The newest turn stays; alone, its orphaned function response becomes text (below).
      if (kept.length > 1) expect(kept.at(-1)).toEqual(gemini().contents.at(-1));
      expect(droppedMessages).toBe(7 - kept.length);
      expect(droppedSystem).toBe(n % 2 === 0);
      expect(body.systemInstruction === undefined).toBe(n % 2 === 0);
    }
    // Everything but the newest turn dropped: its orphaned function response becomes text.
    expect(trimContext('gemini-generate', gemini(), { dropOldest: 100, dropSystem: false }).body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Tool result: out 3' }] },
    ]);
  });
});
