// A host-side mirror of the events file, kept while the agent runs: the sandbox can write the file
// (the gates append to it as the agent's uid), so the agent could delete, truncate or rewrite it. Each
// poll copies the new bytes to a mirror outside the sandbox and notes any sign of tampering (gone,
// replaced, shrunk, rewritten without growing); at the end the file must still start with every byte
// the mirror saw. The kept events are then the union (the mirror, then lines added after it), minus
// lines forged with another run's id. Limit: a line appended and removed between two polls (250 ms)
// and hidden behind a longer append is not seen.
import { createReadStream } from 'node:fs';
import { appendFile, copyFile, open, stat, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

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

async function* lines(path: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) if (line) yield line;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function runIdOf(line: string): unknown {
  try {
    return (JSON.parse(line) as { run_id?: unknown }).run_id;
  } catch {
    return undefined;
  }
}

export class EventsMirror {
  private readonly path: string;
  private readonly mirrorPath: string;
  private offset = 0;
  private stamp: Stamp | null = null;
  private readonly seen = new Set<string>();
  private stopped = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(path: string, mirrorPath: string) {
    this.path = path;
    this.mirrorPath = mirrorPath;
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

  /** Copy the bytes appended since the last poll; note tampering. Never throws; polls run one at a time. */
  poll(): Promise<void> {
    this.chain = this.chain.then(() => this.pollOnce());
    return this.chain;
  }

  private async pollOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      const st = await stat(this.path).catch(() => null);
      if (!st) return this.flag('the events file was deleted');
      if (this.stamp && st.ino !== this.stamp.ino) return this.flag('the events file was replaced by another file');
      if (st.size < this.offset) return this.flag(`the events file shrank from ${this.offset} to ${st.size} bytes`);
      // Appends always grow the file, so a change that did not is a truncate-and-rewrite. But Linux
      // updates mtime before size during an append: confirm after a moment before calling it tampering.
      if (this.stamp && st.size === this.offset && st.mtimeMs !== this.stamp.mtimeMs) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const again = await stat(this.path).catch(() => null);
        if (again && again.ino === st.ino && again.size === this.offset) return this.flag('the events file was rewritten without growing');
        return this.pollOnce();
      }
      if (st.size > this.offset) {
        const handle = await open(this.path, 'r');
        try {
          const buffer = Buffer.alloc(st.size - this.offset);
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
          await appendFile(this.mirrorPath, buffer.subarray(0, bytesRead));
          this.offset += bytesRead;
        } finally {
          await handle.close();
        }
      }
      this.stamp = { ino: st.ino, mtimeMs: st.mtimeMs };
    } catch (error) {
      this.flag(`the events file could not be read: ${(error as Error).message}`);
    }
  }

  /** Whether the file still starts with every byte the mirror holds. */
  private async prefixIntact(): Promise<boolean> {
    const [file, mirror] = await Promise.all([open(this.path, 'r').catch(() => null), open(this.mirrorPath, 'r')]);
    try {
      if (!file) return this.offset === 0;
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
      await Promise.all([file?.close(), mirror.close()]);
    }
  }

  /**
   * The last poll, the final check, and the events kept at `artifact`: the file as it is when
   * nothing happened to it, else the union of the mirror and what was added after it.
   */
  async finish(artifact: string, runId: string): Promise<MirrorResult> {
    await this.poll();
    if (!this.stopped && !(await this.prefixIntact())) this.flag('lines already recorded were changed or removed');
    const forgedLine = (line: string) => {
      const id = runIdOf(line);
      return id !== undefined && id !== runId;
    };
    let forged = 0;
    if (this.seen.size === 0) {
      for await (const line of lines(this.path)) if (forgedLine(line)) forged++;
      if (forged === 0) {
        await copyFile(this.path, artifact);
        return { tampering: [], forged: 0 };
      }
    }
    const kept: string[] = [];
    const mirrored = new Set<string>();
    forged = 0;
    for (const source of [this.mirrorPath, this.path]) {
      for await (const line of lines(source)) {
        if (source === this.path && mirrored.has(line)) continue;
        if (source === this.mirrorPath) mirrored.add(line);
        if (forgedLine(line)) forged++;
        else kept.push(line);
      }
    }
    await writeFile(artifact, kept.map((l) => `${l}\n`).join(''));
    return { tampering: [...this.seen], forged };
  }
}
