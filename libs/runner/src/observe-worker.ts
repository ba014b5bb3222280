// An observation thread: bundled to libs/runner/dist/observe-worker.mjs (scripts/build.mjs) and
// started by observeAll. It observes one events file per message and answers with the observation,
// or with the error inline observation would have thrown.
import { parentPort } from 'node:worker_threads';
import type { Experiment } from '@intutic/experiment';
import { observeEvents } from './observe-events.ts';

export interface ObserveRequest {
  id: number;
  path: string;
  experiment: Experiment;
}

parentPort?.on('message', (request: ObserveRequest) => {
  observeEvents(request.path, request.experiment).then(
    (observation) => parentPort!.postMessage({ id: request.id, observation }),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
