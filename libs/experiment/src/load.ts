// Reading an experiment before it is parsed: a regular file, or a stream the caller hands over (the
// CLI's stdin), at most MAX_EXPERIMENT_BYTES of it, as UTF-8 text. A FIFO, a device, a socket or a
// directory is refused from its file type before it is opened for reading, so nothing ever blocks on
// one or reads without end; a file over the limit is refused from its size, and a read stops there.
import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { ErrorCode } from '@intutic/errors';
import type { Diagnostic } from './diagnostics.ts';
import { formatBytes, MAX_EXPERIMENT_BYTES } from './limits.ts';

/** The error codes of an input refused before it was read; the CLI exits with their exit code. */
export type RefusedInput = Extract<ErrorCode, 'E_NOT_A_FILE' | 'E_FILE_TOO_LARGE'>;

/** The experiment's text, or the problem that kept it from being read (line 0: the file itself). */
export type ExperimentInput = { text: string } | { error: Diagnostic; refused?: RefusedInput };

const CHUNK = 64 * 1024;

function problem(file: string, message: string, code: string, refused?: RefusedInput): ExperimentInput {
  return { error: { file, line: 0, column: 0, message, code }, ...(refused ? { refused } : {}) };
}

/** What a non-regular file is, in words, with what to do instead; undefined for a regular file. */
function notRegular(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'is a directory, not an experiment file: pass the YAML files in it instead (e.g. DIR/*.yaml)';
  const what = info.isFIFO()
    ? 'a named pipe (FIFO)'
    : info.isCharacterDevice()
      ? 'a character device'
      : info.isBlockDevice()
        ? 'a block device'
        : info.isSocket()
          ? 'a socket'
          : 'not a regular file';
  const article = what.startsWith('not') ? what : `${what}, not a regular file`;
  return `is ${article}: nothing was read from it; save the experiment as a YAML file and pass that file's path`;
}

function tooLarge(file: string, size: number | undefined): ExperimentInput {
  const limit = `the ${formatBytes(MAX_EXPERIMENT_BYTES)} (${MAX_EXPERIMENT_BYTES} bytes) limit for an experiment file`;
  const what = size === undefined ? `is larger than ${limit}: reading stopped there` : `is ${formatBytes(size)}, over ${limit}: nothing was read`;
  return problem(file, `${what}; an experiment is a few kilobytes of YAML, so check that this is the right file`, 'file-too-large', 'E_FILE_TOO_LARGE');
}

function unreadable(file: string, error: unknown): ExperimentInput {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return problem(file, 'no such file', 'file-unreadable');
    case 'EISDIR':
      return problem(file, 'is a directory, not an experiment file: pass the YAML files in it instead (e.g. DIR/*.yaml)', 'not-a-file', 'E_NOT_A_FILE');
    case 'EACCES':
    case 'EPERM':
      return problem(file, 'cannot read the file: permission denied', 'file-unreadable');
    default:
      return problem(file, `cannot read the file: ${error instanceof Error ? error.message : String(error)}`, 'file-unreadable');
  }
}

/** UTF-8 text (a byte-order mark dropped), or why the bytes are not an experiment. */
export function decodeExperiment(bytes: Uint8Array, file: string): ExperimentInput {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return problem(file, 'not UTF-8 text: an experiment file is YAML', 'file-unreadable');
  }
}

/** Up to `limit` bytes from the handle's current position, in bounded chunks. */
async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const buffer = Buffer.alloc(Math.min(CHUNK, limit - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

/** Read an experiment file: refused when it is not a regular file or is over the size limit. */
export async function readExperimentFile(path: string): Promise<ExperimentInput> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    return unreadable(path, error);
  }
  // The type is checked before open: opening a device can have effects of its own, and a FIFO
  // without a writer blocks open() itself.
  const kind = notRegular(info);
  if (kind) return problem(path, kind, 'not-a-file', 'E_NOT_A_FILE');
  if (info.size > MAX_EXPERIMENT_BYTES) return tooLarge(path, info.size);

  let handle: FileHandle;
  try {
    // O_NONBLOCK: should the path have become a FIFO since stat, open still returns at once, and the
    // type is checked again on what was opened.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return unreadable(path, error);
  }
  try {
    const opened = await handle.stat();
    const openedKind = notRegular(opened);
    if (openedKind) return problem(path, openedKind, 'not-a-file', 'E_NOT_A_FILE');
    if (opened.size > MAX_EXPERIMENT_BYTES) return tooLarge(path, opened.size);
    // One byte past the limit tells a file that grew (or a /proc file, which reports size 0) apart.
    const bytes = await readAtMost(handle, MAX_EXPERIMENT_BYTES + 1);
    if (bytes.length > MAX_EXPERIMENT_BYTES) return tooLarge(path, undefined);
    return decodeExperiment(bytes, path);
  } catch (error) {
    return unreadable(path, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Read an experiment from a stream (e.g. stdin) to its end, or until it passes the size limit: then
 * the stream is paused and left, never read further. The caller owns the stream.
 */
export function readExperimentStream(stream: Readable, file: string): Promise<ExperimentInput> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (input: ExperimentInput) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      resolve(input);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += bytes.length;
      if (total > MAX_EXPERIMENT_BYTES) {
        stream.pause();
        finish(tooLarge(file, undefined));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish(decodeExperiment(Buffer.concat(chunks, total), file));
    const onError = (error: unknown) => finish(unreadable(file, error));
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
