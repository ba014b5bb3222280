// The gates' shared state for one repetition, in a JSON file next to the events file: which
// components already reported plan_loaded, each fault's counter, and the calls being held. Every
// change happens in `updateState` under the file lock and is written by rename, so a reader never
// sees half a file.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock } from './lock.ts';

export interface HoldRecord {
  hold_id: string;
  fault_index: number;
  tool: string;
  input_hash: string;
  mode: 'delay' | 'hold_then_deny';
  delay_s: number;
  first_refusal_ms: number;
  refusals: number;
}

export interface GateState {
  run_id: string;
  plan_loaded: string[];
  counters: Record<string, { seen: number; injected: number }>;
  /** Keyed by `${tool}\u0000${input_hash}`: identical call = same tool + same input. */
  holds: Record<string, HoldRecord>;
  holds_created: number;
}

export const emptyState = (runId: string): GateState => ({ run_id: runId, plan_loaded: [], counters: {}, holds: {}, holds_created: 0 });

function read(path: string, runId: string): GateState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyState(runId);
    throw error;
  }
  const state = JSON.parse(text) as GateState;
  // A state file from another run (a reused events path) starts over.
  return state.run_id === runId ? state : emptyState(runId);
}

export function updateState<T>(path: string, runId: string, change: (state: GateState) => T): T {
  mkdirSync(dirname(path), { recursive: true });
  return withFileLock(`${path}.lock`, () => {
    const state = read(path, runId);
    const result = change(state);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, path);
    return result;
  });
}
