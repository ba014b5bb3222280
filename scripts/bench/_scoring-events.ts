// The scoring benchmark's input: repetitions' events files as a Claude Code run writes them, of an
// exact number of lines, built turn by turn (a model call, the gate's decision, the tool call's
// outcome, now and then an egress request), with a torn line now and then.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * One turn of an agent as the proxy and a Claude Code gate report it: a model call, the gate's
 * decision on the tool call it asked for, the tool call's outcome (same call id and input hash), and
 * every fifth turn an egress request. In a faulted repetition turn 200 has its Bash call faulted.
 */
function turn(call: number, rep: number, ts: number, faulted: boolean): object[] {
  const run_id = `run-${rep}`;
  const tool = ['Bash', 'Read', 'Edit', 'Grep'][call % 4]!;
  const call_id = `toolu_01${rep}${call.toString(36).padStart(8, '0')}`;
  // Inputs repeat every 1000 calls, minutes apart: identical calls, but no tight loop.
  const input_hash = `sha256:${(((call % 1000) * 2654435761) % 4294967296).toString(16).padStart(8, '0')}`;
  const fault = faulted && call === 200;
  const events: object[] = [
    {
      v: 1,
      ts,
      source: 'proxy',
      run_id,
      type: 'llm_call',
      provider: 'anthropic',
      endpoint: '/v1/messages',
      model: 'claude-sonnet-4-5',
      status: 200,
      stream: true,
      input_tokens: 1800 + (call % 500),
      output_tokens: 220,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1500,
      cost_usd: 0.0000021,
      duration_ms: 910,
    },
    {
      v: 1,
      ts: ts + 40,
      source: 'gate',
      run_id,
      type: 'gate_decision',
      tool,
      decision: 'allow',
      rule: null,
      mode: null,
      destructive: false,
      harness: 'claude-code',
      call_id,
      input_hash,
    },
  ];
  if (fault) events.push({ v: 1, ts: ts + 41, source: 'gate', run_id, type: 'fault_injected', fault_index: 0, fault_id: 'tool.error', target: tool, call_id });
  if (call % 5 === 0)
    events.push({
      v: 1,
      ts: ts + 60,
      source: 'proxy',
      run_id,
      type: 'egress_request',
      host: 'packages.example.test',
      method: 'GET',
      outcome: 'forwarded',
      status: 200,
    });
  events.push({ v: 1, ts: ts + 90, source: 'gate', run_id, type: 'tool_call', tool, ok: !fault && call % 7 !== 0, call_id, input_hash });
  return events;
}

/** Exactly `lines` lines: turns until the count is reached, the last one cut short. */
export async function writeRepetition(path: string, lines: number, faulted: boolean, rep: number): Promise<void> {
  const out = createWriteStream(path);
  const batch: string[] = [];
  let written = 0;
  const push = (line: string): void => {
    if (written < lines) batch.push(line);
    written++;
  };
  let ts = 1_800_000_000_000 + rep * 100_000_000;
  if (faulted) push(JSON.stringify({ v: 1, ts, source: 'gate', run_id: `run-${rep}`, type: 'plan_loaded', faults: [0], detail: 'claude-code' }));
  for (let call = 0; written < lines; call++) {
    for (const event of turn(call, rep, (ts += 400), faulted)) {
      // Now and then a line torn by a crash: counted as malformed, never an event.
      push(call % 5000 === 4999 ? JSON.stringify(event).slice(0, 60) : JSON.stringify(event));
    }
    if (batch.length >= 5000 || written >= lines) {
      if (!out.write(batch.join('\n') + '\n')) await once(out, 'drain');
      batch.length = 0;
    }
  }
  out.end();
  await once(out, 'finish');
}
