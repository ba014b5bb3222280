// Semantic rules the file schema cannot say, checked on the raw data so they are reported together
// with the schema's problems: each probe once, each abort condition once, a mandatory cost ceiling.
import type { Finding } from './diagnostics.ts';

function entries(raw: unknown, key: string): unknown[] | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const value = (raw as Record<string, unknown>)[key];
  return Array.isArray(value) ? value : undefined;
}

function abortConditionOf(item: unknown): string | undefined {
  if (typeof item === 'string') return item;
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    const keys = Object.keys(item);
    if (keys.length === 1) return keys[0];
  }
  return undefined;
}

export function semanticErrors(raw: unknown): Finding[] {
  const findings: Finding[] = [];

  const probes = entries(raw, 'probes') ?? [];
  const seenProbes = new Map<string, number>();
  probes.forEach((probe, index) => {
    const id = probe && typeof probe === 'object' ? (probe as Record<string, unknown>)['id'] : undefined;
    if (typeof id !== 'string') return;
    const first = seenProbes.get(id);
    if (first === undefined) seenProbes.set(id, index);
    else {
      findings.push({
        path: ['probes', index, 'id'],
        at: 'value',
        code: 'duplicate-probe',
        message: `duplicate probe "${id}" (also probes[${first}]): each probe appears once; its weight says how much it counts`,
      });
    }
  });

  // agent or task: a file with neither starts nothing (the schema leaves both optional).
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && !('agent' in raw) && !('task' in raw)) {
    findings.push({
      path: [],
      at: 'value',
      code: 'missing-key',
      message: 'missing required key "agent": the agent command, or give the prompt as task: (a suite runs a task under each profile)',
    });
  }

  // mcp_servers are handed to a profile's agent with the task; an agent: command starts its own.
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'mcp_servers' in raw && !('task' in raw)) {
    findings.push({
      path: ['mcp_servers'],
      at: 'key',
      code: 'mcp-servers-without-task',
      message: 'mcp_servers go with task: (each profile hands them to its agent); an agent: command names its own servers, so give the prompt as task:',
    });
  }

  const abort = entries(raw, 'abort');
  if (abort) {
    const seen = new Set<string>();
    abort.forEach((item, index) => {
      const condition = abortConditionOf(item);
      if (condition === undefined) return;
      if (seen.has(condition)) {
        findings.push({
          path: ['abort', index],
          at: 'value',
          code: 'duplicate-abort',
          message: `duplicate abort condition "${condition}": give each condition once`,
        });
      }
      seen.add(condition);
    });
    // An item with several keys is an error of its own; its cost_usd_above still counts as present.
    const hasCost = abort.some((item) => item !== null && typeof item === 'object' && 'cost_usd_above' in item);
    if (!hasCost) {
      findings.push({
        path: ['abort'],
        at: 'key',
        code: 'cost-ceiling-missing',
        message: 'abort has no cost_usd_above: a cost ceiling is mandatory, since every repetition spends real tokens (add "- cost_usd_above: 2")',
      });
    }
  }
  return findings;
}
