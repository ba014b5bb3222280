// The container's stdio, attached before it starts so that no output is missed: stdin carries the
// env block (see env-block.ts), stdout and stderr go to the caller as they come, stdout without the
// entrypoint's exit trailer (exit-trailer.ts), which is said to onCommandEnded instead.
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { Engine } from './engine.ts';
import { ExitTrailerFilter } from './exit-trailer.ts';

export interface SandboxStreams {
  stdin: NodeJS.ReadWriteStream;
  /** Resolves when the attach stream ends, closes or fails: all output has been passed on. */
  ended: Promise<void>;
  /** The entrypoint's own failure line (`intutic-sandbox: …`), if it wrote one. */
  entrypointMessage(): string;
}

/**
 * The hijacked attach, its request with an empty body (`Content-Length: 0`, as the docker CLI sends it).
 * Podman passes whatever body the request carries on to the container's stdin, where Docker drops it;
 * dockerode's own attach sends its options as a JSON body (or, without one, an empty chunked body, whose
 * end marker Podman passes on too), which would reach the entrypoint before the env block.
 */
function attachRequest(engine: Engine, container: Docker.Container): Promise<NodeJS.ReadWriteStream> {
  return new Promise((resolve, reject) => {
    engine.docker.modem.dial(
      {
        path: `/containers/${container.id}/attach?`,
        method: 'POST',
        options: { stream: true, stdin: true, stdout: true, stderr: true },
        // docker-modem's raw body: an empty Buffer goes out as `Content-Length: 0`, and the request ends.
        file: Buffer.alloc(0),
        hijack: true,
        isStream: true,
        statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
      },
      (error, stream) => (error ? reject(error) : resolve(stream as NodeJS.ReadWriteStream)),
    );
  });
}

/** Attach before start so no output is missed; stdin carries the env block, output goes to the callbacks. */
export async function attachStreams(
  engine: Engine,
  container: Docker.Container,
  opts: { onStdout?: (chunk: Buffer) => void; onStderr?: (chunk: Buffer) => void; onCommandEnded?: (exitCode: number) => void },
  trailerNonce: string,
): Promise<SandboxStreams> {
  const stream = await attachRequest(engine, container);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let entrypointMessage = '';
  const trailer = new ExitTrailerFilter(
    trailerNonce,
    (chunk) => opts.onStdout?.(chunk),
    (exitCode) => opts.onCommandEnded?.(exitCode),
  );
  stdout.on('data', (chunk: Buffer) => trailer.push(chunk));
  stderr.on('data', (chunk: Buffer) => {
    // The entrypoint's own failures are one line with this prefix, written before the command starts.
    if (!entrypointMessage && chunk.includes('intutic-sandbox: ')) entrypointMessage = /intutic-sandbox: [^\n]*/.exec(chunk.toString('utf8'))?.[0] ?? '';
    opts.onStderr?.(chunk);
  });
  engine.docker.modem.demuxStream(stream, stdout, stderr);
  // Over when both sides have passed on all they were given (and stdout what it held back).
  const drained = (side: PassThrough): Promise<void> => new Promise((resolve) => side.once('end', resolve));
  const ended = Promise.all([drained(stdout).then(() => trailer.end()), drained(stderr)]).then(() => undefined);
  const finish = (): void => {
    stdout.end();
    stderr.end();
  };
  // The attach ended or failed: nothing more is written to either side (a late write would only fail there).
  for (const side of [stdout, stderr]) side.on('error', () => undefined);
  stream.on('end', finish);
  stream.on('close', finish);
  stream.on('error', finish);
  return { stdin: stream, ended, entrypointMessage: () => entrypointMessage };
}
