// The scripted model's script: plain JSON data (a demo or a container loads it from a file) saying
// which tool calls to make and which text to answer on each turn of a conversation. A turn may
// branch on the previous tool result, and text may quote it, so one script plays a careful agent and
// another a careless one. Parsing only; playing a script is play.ts.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { IntuticError } from '@intutic/errors';

const usageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  cache_creation_input_tokens: z.number().int().nonnegative().optional(),
  cache_read_input_tokens: z.number().int().nonnegative().optional(),
});
export type ScriptUsage = z.infer<typeof usageSchema>;

/** `{ shell: "cmd" }` becomes whichever shell tool the request offers (Claude Code's Bash, Codex's exec_command…). */
const shellCallSchema = z.strictObject({ shell: z.string().min(1) });
const namedCallSchema = z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) });
export const toolCallSchema = z.union([shellCallSchema, namedCallSchema]);
export type ScriptToolCall = z.infer<typeof toolCallSchema>;

export const stepSchema = z.strictObject({
  /** Text to answer; with tool_calls it comes before them. `{{canary}}`, `{{last_tool_result}}` and `{{round}}` (how many rounds of tool results came before) are filled in, in tool inputs too. */
  text: z.string().optional(),
  tool_calls: z.array(toolCallSchema).min(1).optional(),
  /** Answer with the provider's own error body instead. */
  error: z
    .strictObject({
      status: z.number().int().min(400).max(599),
      message: z.string().optional(),
      retry_after_s: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** Fixed token counts for this step; fields left out are derived from text length. */
  usage: usageSchema.optional(),
  chunk_delay_ms: z.number().min(0).max(60_000).optional(),
});
export type ScriptStep = z.infer<typeof stepSchema>;

export const branchSchema = z.strictObject({
  when: z.strictObject({
    /** A regular expression tested against the previous tool result's text. */
    last_tool_result_matches: z.string().min(1),
  }),
  then: stepSchema,
  else: stepSchema,
});
export type ScriptBranch = z.infer<typeof branchSchema>;

export const turnSchema = z.union([branchSchema, stepSchema]);
export type ScriptTurn = z.infer<typeof turnSchema>;

export const scriptSchema = z.strictObject({
  name: z.string().optional(),
  /** Turn n answers the request that carries n rounds of tool results. */
  turns: z.array(turnSchema),
  /** Past the last turn: answer final_text (end), or play the last turn again (repeat_last: an agent that retries forever). */
  after_last: z.enum(['end', 'repeat_last']).default('end'),
  final_text: z.string().default('Done.'),
  /** Requests that offer no tools (titles, summaries, quota checks) are side requests and get side_text; `never` plays the script for them too. */
  side_requests: z.enum(['no_tools', 'never']).default('no_tools'),
  side_text: z.string().default('OK'),
  /** Streamed text and tool input arrive in pieces of this many characters. */
  chunk_chars: z.number().int().positive().default(16),
  chunk_delay_ms: z.number().min(0).max(60_000).default(0),
  /** Token counts are text length divided by this, rounded up: deterministic, so costs can be asserted. */
  chars_per_token: z.number().positive().default(4),
  /** The `created` timestamp OpenAI bodies carry; fixed so identical requests get identical bytes. */
  created: z.number().int().nonnegative().default(1_750_000_000),
});
export type Script = z.infer<typeof scriptSchema>;
export type ScriptInput = z.input<typeof scriptSchema>;

export function isBranch(turn: ScriptTurn): turn is ScriptBranch {
  return 'when' in turn;
}

export function parseScript(raw: unknown): Script {
  const result = scriptSchema.safeParse(raw);
  if (!result.success) {
    throw new IntuticError('E_CONFIG_INVALID', `invalid model script: ${z.prettifyError(result.error)}`);
  }
  for (const turn of result.data.turns) {
    if (isBranch(turn)) new RegExp(turn.when.last_tool_result_matches); // fail at load, not mid-run
  }
  return result.data;
}

export function loadScript(path: string): Script {
  return parseScript(JSON.parse(readFileSync(path, 'utf8')));
}
