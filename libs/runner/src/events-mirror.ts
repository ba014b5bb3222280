// A host-side mirror of the events file, kept while the agent runs: the sandbox can write the file
// (the gates append to it as the agent's uid), so the agent could delete, truncate or rewrite it. Each
// poll copies the new bytes to a mirror outside the sandbox and notes any sign of tampering (gone,
// replaced, shrunk, rewritten without growing); at the end the file must still start with every byte
// the mirror saw. The kept events are then the union (the mirror, then lines added after it), minus
// lines forged with another run's id. Limit: a line appended and removed between two polls (250 ms)
// and hidden behind a longer append is not seen. The file is only ever opened through sandbox-file.ts:
// replaced by a link, a FIFO or anything but a plain file, it is tampering and never read.
import { createReadStream } from 'node:fs';
import { appendFile, lstat, open, writeFile, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { copyOpened, isRefused, openSandboxFile, readRange } from './sandbox-file.ts';

/** The most the runner keeps of one repetition's events (about a million lines): past it, the agent is flooding the file. */
export const EVENTS_MAX_BYTES = 256 * 1024 * 1024;

interface Stamp {
  ino: number;
  mtimeMs: number;
}

export interface MirrorResult {
  /** What was seen, in words; empty when the file is intact. */
  tampering: string[];
  /** Lines carrying another run's run_id, left out of the kept events. */
  forged: number;
}

async function* linesOf(input: Readable): AsyncGenerator<string> {
  for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line) yield line;
}

function runIdOf(line: string): unknown {
  try {
    return (JSON.parse(line) as { run_id?: unknown }).run_id;
  } catch {
    return undefined;
  }
}

/** How a failed open of the events file reads as tampering; rethrows what is not the sandbox's doing. */
function openFailure(error: unknown): string {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'the events file was deleted';
  if (isRefused(error)) return `the events file was replaced by ${error.reason} (not read)`;
  return `the events file could not be read: ${(error as Error).message}`;
}

export class EventsMirror {
  private readonly path: string;
  private readonly mirrorPath: string;
  private readonly root: string | undefined;
  private offset = 0;
  private stamp: Stamp | null = null;
  private readonly seen = new Set<string>();
  private stopped = false;
  private chain: Promise<void> = Promise.resolve();

  /** `root`: the worktree the events file is in (its directories must not be links either). */
  constructor(path: string, mirrorPath: string, root?: string) {
    this.path = path;
    this.mirrorPath = mirrorPath;
    this.root = root;
  }

  async start(): Promise<void> {
    await writeFile(this.mirrorPath, '');
    await this.poll();
  }

  private flag(reason: string): void {
    this.seen.add(reason);
    // After tampering the file's offsets mean nothing; the mirror keeps what it had.
    this.stopped = true;
  }

  /** The events file, opened as sandbox-file.ts allows; null (and flagged) when it is gone or refused. */
  private async openEvents(): Promise<FileHandle | null> {
    try {
      return await openSandboxFile(this.path, this.root ? { root: this.root } : {});
    } catch (error) {
      this.flag(openFailure(error));
      return null;
    }
  }

  /** Copy the bytes appended since the last poll; note tampering. Never throws; polls run one at a time. */
  poll(): Promise<void> {
    this.chain = this.chain.then(() => this.pollOnce());
    return this.chain;
  }

  private async pollOnce(): Promise<void> {
    if (this.stopped) return;
    const handle = await this.openEvents();
    if (!handle) return;
    let again = false;
    try {
      const st = await handle.stat();
      if (this.stamp && st.ino !== this.stamp.ino) return this.flag('the events file was replaced by another file');
      if (st.size < this.offset) return this.flag(`the events file shrank from ${this.offset} to ${st.size} bytes`);
      if (st.size > EVENTS_MAX_BYTES) return this.flag(`the events file grew past ${EVENTS_MAX_BYTES} bytes (flooded; the rest not read)`);
      // Appends always grow the file, so a change that did not is a truncate-and-rewrite. But Linux
      // updates mtime before size during an append: confirm after a moment before calling it tampering.
      if (this.stamp && st.size === this.offset && st.mtimeMs !== this.stamp.mtimeMs) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const now = await lstat(this.path).catch(() => null);
        if (now && now.ino === st.ino && now.size === this.offset) return this.flag('the events file was rewritten without growing');
        again = true;
        return;
      }
      if (st.size > this.offset) {
        const bytes = await readRange(handle, this.offset, st.size);
        await appendFile(this.mirrorPath, bytes);
        this.offset += bytes.length;
      }
      this.stamp = { ino: st.ino, mtimeMs: st.mtimeMs };
    } catch (error) {
      this.flag(`the events file could not be read: ${(error as Error).message}`);
    } finally {
      await handle.close().catch(() => undefined);
      if (again) await this.pollOnce();
    }
  }

  /** Whether the open file still starts with every byte the mirror holds. */
  private async prefixIntact(file: FileHandle | null): Promise<boolean> {
    if (!file) return this.offset === 0;
    const mirror = await open(this.mirrorPath, 'r');
    try {
      const a = Buffer.alloc(64 * 1024);
      const b = Buffer.alloc(64 * 1024);
      for (let at = 0; at < this.offset;) {
        const n = Math.min(a.length, this.offset - at);
        const [ra, rb] = await Promise.all([file.read(a, 0, n, at), mirror.read(b, 0, n, at)]);
        if (ra.bytesRead !== n || rb.bytesRead !== n || !a.subarray(0, n).equals(b.subarray(0, n))) return false;
        at += n;
      }
      return true;
    } finally {
      await mirror.close();
    }
  }

  /**
   * The last poll, the final check, and the events kept at `artifact`: the file as it is when
   * nothing happened to it, else the union of the mirror and what was added after it. The file is
   * opened once, as sandbox-file.ts allows: one that was replaced by a link, a FIFO or anything but
   * a plain file is never read, and the kept events are then the mirror's alone.
   */
  async finish(artifact: string, runId: string): Promise<MirrorResult> {
    await this.poll();
    const file = this.stopped ? await this.openAfterTampering() : await this.openEvents();
    try {
      const size = file ? Math.min((await file.stat()).size, EVENTS_MAX_BYTES) : 0;
      const fileLines = () => linesOf(file!.createReadStream({ start: 0, end: Math.max(0, size - 1), autoClose: false, encoding: 'utf8' }));
      const hasFile = file !== null && size > 0;
      if (!this.stopped && !(await this.prefixIntact(file))) this.flag('lines already recorded were changed or removed');
      const forgedLine = (line: string) => {
        const id = runIdOf(line);
        return id !== undefined && id !== runId;
      };
      let forged = 0;
      if (this.seen.size === 0) {
        if (hasFile) for await (const line of fileLines()) if (forgedLine(line)) forged++;
        if (forged === 0) {
          if (file) await copyOpened(file, size, artifact);
          else await writeFile(artifact, '');
          return { tampering: [], forged: 0 };
        }
      }
      const kept: string[] = [];
      const mirrored = new Set<string>();
      forged = 0;
      for await (const line of linesOf(createReadStream(this.mirrorPath, { encoding: 'utf8' }))) {
        mirrored.add(line);
        if (forgedLine(line)) forged++;
        else kept.push(line);
      }
      if (hasFile) {
        for await (const line of fileLines()) {
          if (mirrored.has(line)) continue;
          if (forgedLine(line)) forged++;
          else kept.push(line);
        }
      }
      await writeFile(artifact, kept.map((l) => `${l}\n`).join(''));
      return { tampering: [...this.seen], forged };
    } finally {
      await file?.close().catch(() => undefined);
    }
  }

  /**
   * After tampering was seen: the file if it may be read, else null. What stands there now is a
   * finding of its own when it is refused (deleted, then a link planted in its place, says both); a
   * file still gone adds nothing to the deletion already seen.
   */
  private async openAfterTampering(): Promise<FileHandle | null> {
    return openSandboxFile(this.path, this.root ? { root: this.root } : {}).catch((error: unknown) => {
      if (isRefused(error)) this.seen.add(openFailure(error));
      return null;
    });
  }
}
