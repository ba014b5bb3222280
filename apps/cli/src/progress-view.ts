// What a follower (`chaos run`, `chaos status --follow`) writes for each progress message. The
// agent's output goes through the terminal-safe view, one per repetition and stream, so it is shown
// escaped and marked `│ ` and never acts on the terminal; text the CLI's own lines quote from a
// repetition (log lines, errors, reasons) is shown escaped on its line. The artifacts keep the raw bytes.
import type { Writable } from 'node:stream';
import pc from 'picocolors';
import { renderProgress, type ProgressMessage } from '@intutic/queue';
import { terminalSafeStream, visibleInline, type TerminalSafeStream } from '@intutic/report';
import type { CliContext } from './context.ts';

export interface ProgressView {
  show(message: ProgressMessage): void;
  /** Shows what is pending of every stream (a last line without a newline). */
  end(): void;
}

export function progressView(ctx: CliContext): ProgressView {
  const views = new Map<string, { stream: Writable; view: TerminalSafeStream }>();
  const paintPrefix = ctx.isTTY && !ctx.env.NO_COLOR ? pc.dim : undefined;
  const target = (stream: 'stdout' | 'stderr') => (stream === 'stdout' ? ctx.stdout : ctx.stderr);
  const viewOf = (jobId: string, name: 'stdout' | 'stderr') => {
    const key = `${jobId}\n${name}`;
    let held = views.get(key);
    if (!held) {
      const stream = target(name);
      held = { stream, view: terminalSafeStream({ paintPrefix, columns: () => columnsOf(stream) }) };
      views.set(key, held);
    }
    return held;
  };
  const endViews = (jobId: string | null) => {
    for (const [key, { stream, view }] of views) {
      if (jobId !== null && !key.startsWith(`${jobId}\n`)) continue;
      const rest = view.end();
      if (rest) stream.write(rest);
      views.delete(key);
    }
  };
  return {
    show(message) {
      if (message.type === 'agent_output') {
        const { stream, view } = viewOf(message.job_id, message.stream);
        const text = view.write(message.text);
        if (text) stream.write(text);
        return;
      }
      // A repetition's last line without a newline is shown before the line that closes it.
      if (message.type === 'repetition_finished' || message.type === 'repetition_skipped') endViews(message.job_id);
      if (message.type === 'run_finished') endViews(null);
      const out = renderProgress(withVisibleText(message));
      if (out) target(out.stream).write(out.text);
    },
    end: () => endViews(null),
  };
}

/** The fields a repetition fills with text that is not the CLI's, escaped onto one line. */
function withVisibleText(message: ProgressMessage): ProgressMessage {
  switch (message.type) {
    case 'log':
      return { ...message, line: visibleInline(message.line) };
    case 'repetition_finished':
      return {
        ...message,
        abort: message.abort === null ? null : visibleInline(message.abort),
        error: message.error === null ? null : visibleInline(message.error),
      };
    case 'repetition_skipped':
      return { ...message, reason: visibleInline(message.reason) };
    default:
      return message;
  }
}

/** A terminal's width (rows of agent output wrap before it); none for a file or a pipe. */
function columnsOf(stream: Writable): number | undefined {
  const columns = 'columns' in stream ? stream.columns : undefined;
  return typeof columns === 'number' && columns > 0 ? columns : undefined;
}
