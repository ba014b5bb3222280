// What the proxy reports: events for the probes (INTUTIC_CHAOS_EVENTS) and a log for people. Nothing
// here ever touches stdout, which belongs to the protocol: the log goes to stderr, or to
// .intutic/events/mcp-proxy-<server>.log in the working directory when an events file is set (a chaos
// run, where the agent owns the terminal). A failing events file is logged, never fatal to the tools.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { EventWriter, type EventInput } from '@intutic/events';
import { ENV } from '@intutic/faults';

export type Log = (message: string) => void;

export function createLog(options: { env: NodeJS.ProcessEnv; cwd: string; stderr: Writable; server: string }): Log {
  const prefix = `[intutic-mcp-proxy ${options.server}]`;
  const toStderr: Log = (message) => {
    options.stderr.write(`${prefix} ${message}\n`);
  };
  if (!options.env[ENV.events]) return toStderr;
  const dir = join(options.cwd, '.intutic', 'events');
  const file = join(dir, `mcp-proxy-${options.server.replace(/[^A-Za-z0-9._-]/g, '_')}.log`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    return toStderr;
  }
  return (message) => {
    try {
      appendFileSync(file, `${new Date().toISOString()} ${prefix} ${message}\n`);
    } catch {
      toStderr(message);
    }
  };
}

type Input<T extends EventInput['type']> = Omit<Extract<EventInput, { type: T }>, 'type' | 'source' | 'run_id' | 'v' | 'ts'>;

export class Recorder {
  private readonly writer: EventWriter | null;
  private readonly log: Log;
  private readonly server: string;
  runId: string | undefined;
  private failed = false;

  constructor(options: { env: NodeJS.ProcessEnv; log: Log; server: string }) {
    const path = options.env[ENV.events];
    this.writer = path ? new EventWriter(path) : null;
    this.log = options.log;
    this.server = options.server;
  }

  planLoaded(faults: number[]): void {
    this.append({ type: 'plan_loaded', source: 'mcp-proxy', faults, detail: this.server });
  }

  warning(input: Input<'warning'>): void {
    this.append({ type: 'warning', source: 'mcp-proxy', ...input });
  }

  gateDecision(input: Omit<Input<'gate_decision'>, 'server' | 'harness'>): void {
    this.append({ type: 'gate_decision', source: 'mcp-proxy', harness: 'mcp', server: this.server, ...input });
  }

  toolCall(input: Omit<Input<'tool_call'>, 'server'>): void {
    this.append({ type: 'tool_call', source: 'mcp-proxy', server: this.server, ...input });
  }

  faultInjected(input: Input<'fault_injected'>): void {
    this.append({ type: 'fault_injected', source: 'mcp-proxy', ...input });
    this.log(`injected ${input.fault_id} (fault ${input.fault_index}) on ${input.target}${input.call_id === undefined ? '' : ` call ${input.call_id}`}`);
  }

  private append(input: EventInput): void {
    if (!this.writer) return;
    try {
      // Synchronous: lines land in the order things happened, and before the proxy can exit.
      this.writer.appendSync(this.runId === undefined ? input : { ...input, run_id: this.runId });
    } catch (error) {
      if (this.failed) return;
      this.failed = true;
      this.log(`cannot append to the events file ${this.writer.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
