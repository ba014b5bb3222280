// The host's only way to open a file the sandbox could have written or replaced (the events file and
// the rest of the worktree, anything carried out of it). The sandbox can plant a symbolic link to a
// host file (/proc/self/environ, a key), a FIFO that blocks a reader forever, a directory, a second
// name for another file: so a file is opened without following a link and without blocking, and read
// only when it is a regular file with one name, the inode that was looked at, and (given the root the
// host made) reached through real directories only. Anything else is refused before a byte is read:
// a SandboxFileRefused, which callers record as tampering. Reads are bounded by the caller's limit.
// (Appending to the events file has its twin in @intutic/events, openEventsForAppend, for the proxy.)
import { constants, createWriteStream, type Stats } from 'node:fs';
import { lstat, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
/** Never follows a link in the last component, never blocks on a FIFO, never becomes a terminal's reader. */
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const CHUNK = 1 << 20;

/** A path the host would not open: what it was instead of a plain file, in words (never its target or content). */
export class SandboxFileRefused extends Error {
  readonly code = 'E_SANDBOX_FILE_REFUSED';
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${path} is ${reason}: not read`);
    this.path = path;
    this.reason = reason;
  }
}

export interface SandboxFileOptions {
  /**
   * The host-made directory the path lies in (the worktree): every directory between it and the file
   * must be a real directory, so a link planted higher up is refused too.
   */
  root?: string;
}

function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** Why a file the host opened is not one it may read; null when it is. */
function refusal(info: Stats): string | null {
  if (!info.isFile()) return kindOf(info);
  // The host made each file it reads with one name. A second one is a hard link the sandbox made:
  // either to another file (its content is not the file the host wrote) or to this one from elsewhere.
  if (info.nlink !== 1) return `a file with ${info.nlink} names (a hard link)`;
  return null;
}

/** Every directory from `root` (exclusive) down to the file's parent is a real directory, not a link. */
async function checkParents(path: string, root: string): Promise<void> {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..')) throw new SandboxFileRefused(path, `outside ${root}`);
  const parts = rel.split(sep).slice(0, -1);
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    const info = await lstat(dir);
    if (!info.isDirectory()) throw new SandboxFileRefused(path, `under ${kindOf(info)} (${relative(root, dir)})`);
  }
}

/** Where the open file really is, checked against where it should be (Linux: /proc names the open file). */
async function checkOpenedPath(handle: FileHandle, path: string, root: string): Promise<void> {
  const actual = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  if (actual === null) return; // no /proc (macOS): the lstat walk stands alone
  const expected = join(await realpath(root), relative(root, path));
  if (actual !== expected) throw new SandboxFileRefused(path, 'reached through a link in its directories');
}

async function checked(handle: FileHandle, path: string, options: SandboxFileOptions, before: Stats | null): Promise<FileHandle> {
  try {
    const info = await handle.stat();
    const why = refusal(info);
    if (why) throw new SandboxFileRefused(path, why);
    if (before && (before.ino !== info.ino || before.dev !== info.dev)) throw new SandboxFileRefused(path, 'replaced while it was being opened');
    if (options.root) await checkOpenedPath(handle, path, options.root);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** What an open that the kernel refused means here: a link (ELOOP) or a FIFO/socket nobody serves (ENXIO). */
function openRefusal(path: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new SandboxFileRefused(path, 'a symbolic link');
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') return new SandboxFileRefused(path, 'a named pipe (FIFO) or a socket');
  return error as Error;
}

/**
 * Open a file the sandbox could have written, for reading: a handle on a regular file with one name,
 * or SandboxFileRefused. A missing file rejects with ENOENT as usual.
 */
export async function openSandboxFile(path: string, options: SandboxFileOptions = {}): Promise<FileHandle> {
  if (options.root) await checkParents(path, options.root);
  // Looked at before it is opened, so that a FIFO or a device is never opened at all.
  const before = await lstat(path);
  const why = refusal(before);
  if (why) throw new SandboxFileRefused(path, why);
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    throw openRefusal(path, error);
  }
  return checked(handle, path, options, before);
}

/** The whole file, when it is at most `maxBytes`; refused (never read) when larger. */
export async function readSandboxFile(path: string, maxBytes: number, options: SandboxFileOptions = {}): Promise<Buffer> {
  const handle = await openSandboxFile(path, options);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new SandboxFileRefused(path, `${size} bytes, over the ${maxBytes}-byte limit`);
    return await readRange(handle, 0, size);
  } finally {
    await handle.close();
  }
}

/** Bytes [start, end) of an open file, read in bounded chunks; shorter if the file is. */
export async function readRange(handle: FileHandle, start: number, end: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let at = start;
  while (at < end) {
    const buffer = Buffer.alloc(Math.min(CHUNK, end - at));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    at += bytesRead;
  }
  return Buffer.concat(chunks);
}

/**
 * Copy a file the sandbox could have written to `to` (a host path): refused, with nothing written,
 * when it is not a plain file or is over `maxBytes`. Resolves to the bytes copied.
 */
export async function copySandboxFile(from: string, to: string, maxBytes: number, options: SandboxFileOptions = {}): Promise<number> {
  const handle = await openSandboxFile(from, options);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new SandboxFileRefused(from, `${size} bytes, over the ${maxBytes}-byte limit`);
    await copyOpened(handle, size, to);
    return size;
  } finally {
    await handle.close();
  }
}

/** The first `size` bytes of an open file into `to`, streamed (a file that grows meanwhile adds nothing). */
export async function copyOpened(handle: FileHandle, size: number, to: string): Promise<void> {
  const sink = createWriteStream(to);
  if (size > 0) await pipeline(handle.createReadStream({ start: 0, end: size - 1, autoClose: false }), sink);
  else await new Promise<void>((resolve, reject) => sink.on('error', reject).end(resolve));
}

/** Whether `error` is a refusal: the caller records tampering instead of failing. */
export function isRefused(error: unknown): error is SandboxFileRefused {
  return error instanceof SandboxFileRefused;
}
