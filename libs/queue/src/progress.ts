// Live progress of a run, published by the worker on the run's Redis pub/sub channel and rendered by
// whoever follows it (`chaos run`). Lossy by design: the job states in Redis and the artifacts are
// the record; these messages are only the live view (phase, repetition, agent stdout).
import { z } from 'zod';
import { repetitionKindSchema } from './payload.ts';

export const progressMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('repetition_started'), job_id: z.string(), kind: repetitionKindSchema, index: z.number(), repeat: z.number() }),
  z.object({ type: z.literal('log'), job_id: z.string(), line: z.string() }),
  z.object({ type: z.literal('agent_output'), job_id: z.string(), stream: z.enum(['stdout', 'stderr']), text: z.string() }),
  z.object({
    type: z.literal('repetition_finished'),
    job_id: z.string(),
    kind: repetitionKindSchema,
    index: z.number(),
    agent_exit_code: z.number().nullable(),
    verify_exit_code: z.number().nullable(),
    duration_s: z.number(),
    abort: z.string().nullable(),
    error: z.string().nullable(),
  }),
  z.object({ type: z.literal('repetition_skipped'), job_id: z.string(), kind: repetitionKindSchema, index: z.number(), reason: z.string() }),
  z.object({ type: z.literal('run_finished'), verdict: z.string(), score: z.number().nullable(), report_path: z.string() }),
]);
export type ProgressMessage = z.infer<typeof progressMessageSchema>;

export function parseProgressMessage(raw: string): ProgressMessage | null {
  try {
    const parsed = progressMessageSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** How a follower shows a message: agent output as it came, the rest as short lines. */
export function renderProgress(message: ProgressMessage): { stream: 'stdout' | 'stderr'; text: string } | null {
  switch (message.type) {
    case 'repetition_started':
      return { stream: 'stderr', text: `\n▶ ${message.kind} repetition ${message.index}/${message.repeat} (${message.job_id})\n` };
    case 'log':
      return { stream: 'stderr', text: `  · ${message.line}\n` };
    case 'agent_output':
      return { stream: message.stream, text: message.text };
    case 'repetition_finished': {
      const how = message.error
        ? `runner error: ${message.error}`
        : message.abort
          ? `aborted (${message.abort})`
          : `agent exit ${message.agent_exit_code ?? '-'}, verify exit ${message.verify_exit_code ?? '-'}`;
      return { stream: 'stderr', text: `■ ${message.kind} repetition ${message.index}: ${how}, ${message.duration_s.toFixed(1)} s\n` };
    }
    case 'repetition_skipped':
      return { stream: 'stderr', text: `– ${message.kind} repetition ${message.index} ${message.reason}\n` };
    case 'run_finished':
      return null;
  }
}
