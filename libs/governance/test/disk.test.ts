// What the tier asks a gate to look up before it decides (libs/gates/conformance/disk-questions.json,
// shared with the Python SDK), and how the answers change a decision: a link resolved, a script read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decideToolCall, diskQuestions, EMPTY_POLICY, type DiskView, type ToolCallSubject } from '../src/index.ts';

const table = JSON.parse(readFileSync(new URL('../../gates/conformance/disk-questions.json', import.meta.url), 'utf8')) as {
  cases: { name: string; call: ToolCallSubject; expect: { paths: string[]; files: string[]; commands: string[] } }[];
};

describe('diskQuestions', () => {
  it.each(table.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const q = diskQuestions(c.call);
    expect({ paths: [...q.paths].sort(), files: [...q.files].sort(), commands: [...q.commands].sort() }).toEqual(c.expect);
  });
});

describe('a decision with what the gate found on disk', () => {
  const call = (command: string, disk?: DiskView): ToolCallSubject => ({
    tool: 'Bash',
    input: { command },
    cwd: '/work/proj',
    home: '/root',
    ...(disk ? { disk } : {}),
  });
  const decide = (command: string, disk?: DiskView) => decideToolCall(EMPTY_POLICY, call(command, disk));

  it('judges a write through a link the gate resolved as a write to its target, and the same words without the link as before', () => {
    expect(decide('echo x > rc', { real: { '/work/proj/rc': '/root/.bashrc' } })).toMatchObject({ decision: 'block', rule: 'destructive.protected_file' });
    expect(decide('echo x > rc', { real: {} }).decision).toBe('allow');
  });

  it('reads a script a shell runs as if typed; without a gate the words are all there is', () => {
    const disk = { files: { '/work/proj/x.sh': { kind: 'text' as const, text: 'rm -rf ~\n' } } };
    expect(decide('bash x.sh', disk)).toMatchObject({ decision: 'block', rule: 'destructive.rm_recursive' });
    expect(decide('bash x.sh').decision).toBe('allow');
  });

  it('blocks a script the gate looked for but could not read, or did not get to', () => {
    expect(decide('bash x.sh', { files: { '/work/proj/x.sh': { kind: 'unreadable', why: 'larger than 256 KiB' } } }).rule).toBe(
      'destructive.unresolved_script',
    );
    expect(decide('bash x.sh', { files: {} }).rule).toBe('destructive.unresolved_script');
  });

  it('lets a version question to an agent found by content through, as it does by name', () => {
    const disk = { files: { '/root/helper': { kind: 'binary' as const, agent: 'claude' } } };
    expect(decide('~/helper --version', disk).decision).toBe('allow');
    expect(decide('~/helper -p "tidy up"', disk).rule).toBe('destructive.ungoverned_agent');
  });
});
