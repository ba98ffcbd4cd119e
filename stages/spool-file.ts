// A private temporary file for one upload (used by parse-multipart). It is created with mode 0600 and
// unlinked at once, so only its open handle keeps it: it vanishes when the handle is closed, and also
// when the process dies without cleaning up. (Where an open file cannot be unlinked, the name is
// kept and removed by `dispose`.) Written once through `sink`, then read from the start as often as
// needed (one read per upstream attempt) without holding it in memory.
import { randomBytes } from 'node:crypto';
import { open, rm, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { transientBytes } from './transient-buffers.js';

const READ_CHUNK = 64 * 1024;

export class SpoolFile {
  /** bytes written so far */
  bytes = 0;

  private constructor(
    private readonly handle: FileHandle,
    /** the name, while the file is still linked */
    private path: string | null,
  ) {}

  static async create(dir: string, prefix: string): Promise<SpoolFile> {
    const path = join(dir, `${prefix}-${randomBytes(6).toString('hex')}`);
    const handle = await open(path, 'wx+', 0o600);
    let linked: string | null = path;
    try {
      await unlink(path);
      linked = null;
    } catch {
      // kept until dispose()
    }
    return new SpoolFile(handle, linked);
  }

  /** A Writable appending to the file; `onChunk` sees every chunk first. */
  sink(onChunk: (chunk: Buffer) => void): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        onChunk(chunk);
        this.append(chunk).then(() => {
          // the chunk (a piece of a request body Buffer) is garbage once written
          transientBytes(chunk.length);
          cb();
        }, cb);
      },
    });
  }

  private async append(chunk: Buffer): Promise<void> {
    for (let off = 0; off < chunk.length; ) {
      const { bytesWritten } = await this.handle.write(chunk, off, chunk.length - off, this.bytes);
      off += bytesWritten;
      this.bytes += bytesWritten;
    }
  }

  /** The file's bytes from the start, in chunks of up to 64 KiB. */
  async *read(): AsyncGenerator<Buffer> {
    const end = this.bytes;
    for (let pos = 0; pos < end; ) {
      // A fresh buffer per chunk: the consumer (the upstream socket) may still hold the last one in a
      // pending write, so one buffer cannot safely be reused; the chunks are counted as transient.
      const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - pos));
      const { bytesRead } = await this.handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) return;
      pos += bytesRead;
      transientBytes(bytesRead);
      yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
    }
  }

  /** Close the handle (waiting for reads and writes in flight) and remove the name if it is still there. */
  async dispose(): Promise<void> {
    await this.handle.close();
    if (this.path !== null) {
      await rm(this.path, { force: true });
      this.path = null;
    }
  }
}
