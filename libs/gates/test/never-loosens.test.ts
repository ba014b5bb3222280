// Property: for random policies, plans and call sequences, a governance decision of block, hold or
// redact is never turned into an allow (or into anything else) by a fault. Faults touch allows only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideToolCall, loadPolicy } from '@intutic/governance';
import { checkCall, openGate } from '../src/index.ts';
import { planOf, tempProject } from './helpers.ts';

const tools = ['Bash', 'Edit', 'mcp__fs__read_file', 'Write'] as const;
const commands = ['ls', 'npm publish', 'git push --force', 'rm -rf /', 'echo secret-token', 'deploy prod', 'cat README.md'];

const rule = fc.record({
  id: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
  subject: fc.constantFrom('tool', 'command', 'content', 'path'),
  pattern: fc.constantFrom('Bash', 'mcp__*', '*', 'npm *', 'deploy*', '/secret/', '**/*.md', 'git push*', '/e/'),
  action: fc.constantFrom('block', 'hold', 'redact'),
  mode: fc.constantFrom('enforce', 'enforce', 'warn', 'shadow'),
});
const fault = fc.record({
  id: fc.constantFrom('tool.error', 'permission.deny_or_delay', 'llm.rate_limit'),
  match: fc.option(fc.constantFrom('Bash', 'Edit', 'read_file', '*'), { nil: undefined }).map((tool) => (tool ? { tool } : {})),
  after_calls: fc.integer({ min: 0, max: 2 }),
  times: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  options: fc.record({ mode: fc.constantFrom('deny', 'delay', 'hold_then_deny'), delay_s: fc.constantFrom(0, 1, 5), message: fc.constant('injected') }),
});
const call = fc.record({
  tool: fc.constantFrom(...tools),
  command: fc.constantFrom(...commands),
  path: fc.constantFrom('README.md', 'src/a.ts'),
  advanceMs: fc.constantFrom(0, 500, 2_000, 6_000),
});

describe('a fault never loosens governance', () => {
  it('block, hold and redact survive every plan', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(rule, { selector: (r) => r.id, maxLength: 4 }),
        fc.array(fault, { maxLength: 3 }),
        fc.array(call, { minLength: 1, maxLength: 12 }),
        (rules, faults, calls) => {
          const p = tempProject();
          mkdirSync(join(p.home, '.intutic/hooks'), { recursive: true });
          writeFileSync(join(p.home, '.intutic/hooks/snapshot-rules.json'), JSON.stringify({ rules }));
          p.writePlan(planOf(faults));
          const policy = loadPolicy(p.env);
          const clock = { t: 0 };
          for (const c of calls) {
            clock.t += c.advanceMs;
            const input = c.tool === 'Bash' ? { command: c.command } : { file_path: c.path, content: c.command };
            const governance = decideToolCall(policy, { tool: c.tool, input, home: p.home });
            const gate = openGate({ source: 'gate', harness: 'claude-code', env: p.env, projectDir: p.dir, logDir: null, now: () => clock.t });
            const verdict = checkCall(gate, { tool: c.tool, input });
            expect(verdict.decision).toEqual(governance);
            if (governance.decision === 'block') expect(verdict).toMatchObject({ outcome: 'refuse', code: 'BLOCKED' });
            if (governance.decision === 'hold')
              expect(verdict).toMatchObject({ outcome: 'refuse', code: 'HELD', message: expect.not.stringContaining('E-INTUTIC') });
            if (governance.decision === 'redact') expect(verdict).toMatchObject({ outcome: 'redact', input: governance.redactedInput });
            if (verdict.outcome === 'allow') expect(governance.decision).toBe('allow');
          }
          const faulted = p.readEvents().filter((e) => e.type === 'gate_decision' && e.decision !== 'allow' && String(e.reason).includes('; fault #'));
          expect(faulted).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
