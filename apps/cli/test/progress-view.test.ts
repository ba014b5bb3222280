// The follower's view of a run's progress messages, the one both `chaos run` and `chaos status
// --follow` use: agent output escaped and marked per repetition and stream, a repetition's last
// partial line shown before the line that closes it, and untrusted text in the CLI's own lines escaped.
import { describe, expect, it } from 'vitest';
import type { ProgressMessage } from '@intutic/queue';
import type { CliContext } from '../src/context.ts';
import { progressView } from '../src/progress-view.ts';
import { capture } from './run-fixtures.ts';

function follower() {
  const stdout = capture();
  const stderr = capture();
  const ctx: CliContext = { stdout: stdout.stream, stderr: stderr.stream, env: {}, cwd: '/', version: '0', isTTY: false, signal: new AbortController().signal };
  return { view: progressView(ctx), stdout, stderr };
}

const output = (job_id: string, stream: 'stdout' | 'stderr', text: string): ProgressMessage => ({ type: 'agent_output', job_id, stream, text });

describe('progressView', () => {
  it("shows each repetition's streams apart, escaped and marked, and ends a partial line before the closing line", () => {
    const { view, stdout, stderr } = follower();
    view.show({ type: 'repetition_started', job_id: 'r-b1', kind: 'baseline', index: 1, repeat: 1 });
    view.show(output('r-b1', 'stdout', 'clear\x1b[2J\x1b]0;ti'));
    view.show(output('r-b1', 'stderr', 'err\x1b['));
    view.show(output('r-b1', 'stdout', 'tle\x07 done\n✔ verdict: pass'));
    view.show(output('r-b1', 'stderr', '31mred\n'));
    view.show({
      type: 'repetition_finished',
      job_id: 'r-b1',
      kind: 'baseline',
      index: 1,
      agent_exit_code: 0,
      verify_exit_code: 0,
      duration_s: 1,
      abort: null,
      error: null,
    });
    expect(stdout.text()).toBe('│ clear\\u001b[2J\\u001b]… done\n│ ✔ verdict: pass\n');
    expect(stderr.text()).toBe('\n▶ baseline repetition 1/1 (r-b1)\n│ errred\n■ baseline repetition 1: agent exit 0, verify exit 0, 1.0 s\n');
  });

  it('escapes what log lines, errors and reasons quote onto their one line', () => {
    const { view, stderr } = follower();
    view.show({ type: 'log', job_id: 'r-f1', line: 'tampered: /work/x\n✔ verdict: pass\x1b[2J' });
    view.show({
      type: 'repetition_finished',
      job_id: 'r-f1',
      kind: 'faulted',
      index: 1,
      agent_exit_code: null,
      verify_exit_code: null,
      duration_s: 2,
      abort: null,
      error: 'bad\r■ ok',
    });
    view.show({ type: 'repetition_skipped', job_id: 'r-f2', kind: 'faulted', index: 2, reason: 'x\u202ey' });
    expect(stderr.text()).toBe(
      '  · tampered: /work/x\\u000a✔ verdict: pass\\u001b[2J\n■ faulted repetition 1: runner error: bad\\u000d■ ok, 2.0 s\n– faulted repetition 2 x\\u202ey\n',
    );
  });

  it('end() shows what is pending of every stream', () => {
    const { view, stdout } = follower();
    view.show(output('r-b1', 'stdout', 'no newline'));
    expect(stdout.text()).toBe('');
    view.end();
    expect(stdout.text()).toBe('│ no newline\n');
  });
});
