// `chaos worker` in process: run(options, deps) with a fake engine, queue and worker; what it says
// as it starts, takes and ends jobs, and that the signal stops it after the work in progress.
import { describe, expect, it } from 'vitest';
import { EXIT, IntuticError } from '@intutic/errors';
import type { Engine } from '@intutic/sandbox';
import { parseWorkerOptions, runWorker, type WorkerDeps, type WorkerJobEvent } from '../src/commands/chaos-worker.ts';

const engine = { kind: 'docker', endpoint: 'unix:///var/run/docker.sock', version: '27.0.0' } as Engine;

function workerDeps(over: Partial<WorkerDeps> = {}) {
  const lines: string[] = [];
  const stop = new AbortController();
  const started: { concurrency: number; name?: string }[] = [];
  let emit: (event: WorkerJobEvent) => void = () => undefined;
  let closed = 0;
  const deps: WorkerDeps = {
    log: (line) => lines.push(line),
    signal: stop.signal,
    pid: 4242,
    checkEngine: async () => engine,
    queueConfig: async () => ({ url: 'redis://:secret@127.0.0.1:6379', prefix: 'intutic' }),
    startWorker: async ({ concurrency, name }) => {
      started.push({ concurrency, ...(name ? { name } : {}) });
      return { onJob: (listener) => (emit = listener), close: async () => void closed++ };
    },
    ...over,
  };
  return { deps, lines, stop, started, emit: (e: WorkerJobEvent) => emit(e), closed: () => closed };
}

describe('runWorker', () => {
  it('says it is ready, reports jobs, and on the signal finishes and exits 0', async () => {
    const { deps, lines, stop, started, emit, closed } = workerDeps();
    const running = runWorker({ concurrency: 2, name: 'ci-1' }, deps);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([{ concurrency: 2, name: 'ci-1' }]);
    emit({ kind: 'active', id: 'run-1-f1', deferredFailure: false });
    emit({ kind: 'active', id: 'run-0-f2', deferredFailure: true });
    emit({ kind: 'completed', id: 'run-1-f1' });
    emit({ kind: 'failed', id: undefined, message: 'boom' });
    expect(closed()).toBe(0);
    stop.abort();
    expect(await running).toBe(EXIT.ok);
    expect(closed()).toBe(1);
    expect(lines).toEqual([
      'worker ready (pid 4242, docker at unix:///var/run/docker.sock, Redis redis://:***@127.0.0.1:6379, prefix intutic, concurrency 2)',
      'started run-1-f1',
      'finished run-1-f1',
      'failed ?: boom',
      'stopping: finishing the repetition in progress (Ctrl-C again to stop at once)…',
    ]);
  });

  it('fails with the engine’s error when no container engine answers, starting nothing', async () => {
    const { deps, started, lines } = workerDeps({
      checkEngine: async () => {
        throw new IntuticError('E_SANDBOX_UNAVAILABLE', 'no container engine answered');
      },
    });
    await expect(runWorker({ concurrency: 1 }, deps)).rejects.toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE', exitCode: EXIT.couldNotRun });
    expect(started).toEqual([]);
    expect(lines).toEqual([]);
  });
});

describe('parseWorkerOptions', () => {
  it('takes a concurrency from 1 to 32 and the name', () => {
    expect(parseWorkerOptions({ concurrency: '32', name: 'w' })).toEqual({ concurrency: 32, name: 'w' });
    expect(parseWorkerOptions({ concurrency: '1' })).toEqual({ concurrency: 1 });
  });

  it.each(['0', '33', '1.5', 'abc'])('refuses --concurrency %s with E_USAGE (exit 64)', (concurrency) => {
    expect(() => parseWorkerOptions({ concurrency })).toThrow(
      expect.objectContaining({ code: 'E_USAGE', exitCode: EXIT.usage, message: `--concurrency must be an integer from 1 to 32, got ${concurrency}` }),
    );
  });
});
