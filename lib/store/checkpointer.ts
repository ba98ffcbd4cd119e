// The WAL checkpointer of the serving gateway (`Store.startCheckpointer`): on the event loop, but
// never waiting there for the disk.
//
// With SQLite's default automatic checkpoint, every ~1,000 pages one ordinary commit also copies the
// WAL back into the database file and fsyncs it, on the event loop: measured on this kind of
// machine, commits of 8 usage rows take 69 µs at the median but 3 ms at p99 and up to 30 ms, and
// every request in flight waits that long. So the main connection turns the automatic checkpoint
// off, and every `everyMs` (100 ms when serving) this runs a PASSIVE checkpoint (it never takes the
// write lock: commits go on) in three steps, of which only the copy runs on the event loop:
//   1. a read transaction on a guard connection pins the WAL: no writer may start it over (restart
//      it) while the guard reads, so every frame stays there to replay until step 3 ends; then the
//      WAL file is fsynced in libuv's thread pool (fsync, as this build of SQLite syncs): its
//      frames up to the guard's snapshot are durable;
//   2. a connection with `synchronous = OFF` copies those frames into the database file, without
//      syncing (about 1 µs a page; the syncs took 16–130 ms on this VM under load);
//   3. the database file is synced in the thread pool.
// That is what SQLite's own checkpoint does (sync the WAL, copy, sync the database), with the two
// syncs off the event loop. It replaces a worker thread that ran the same checkpoint on its own
// connection: a Node worker is a whole V8 isolate and environment, ~9 MB resident.
//
// The WAL starts over only once it holds `RESTART_BYTES`. The first commit after a complete
// checkpoint starts the WAL over from its beginning if no reader holds a snapshot of it, and that
// commit then syncs the WAL's new header (SQLite does, so that frames of the old WAL are never taken
// for new ones after a power loss): an fsync on the event loop, in the middle of a request (0.5–1 ms
// here, more on network disks). With a checkpoint every 100 ms and requests further apart than that,
// it was every request's hold. So after its copy the guard goes on reading (its snapshot still
// pins the WAL: the next commits append to it), and lets go only once the WAL is that large: the
// WAL starts over once every few hundred requests, and stays about as small as it did with a
// restart after every checkpoint under load (3-4 MB at 600 requests a second). A checkpoint
// that finds nothing committed since the last one (the wal-index header unchanged) does nothing,
// so an idle gateway keeps its pin. journal_size_limit keeps the file from staying large.
import { closeSync, fsync, fsyncSync, openSync, readSync } from 'node:fs';
import Database from 'better-sqlite3';

/** the WAL is let start over once a checkpoint found it this large (see the top of this file) */
export const RESTART_BYTES = 4 * 1024 * 1024;

/**
 * The first copy of the wal-index header, at the start of the `-shm` file
 * (https://www.sqlite.org/walformat.html): its change counter, frame count and salts change with
 * every commit and every restart of the WAL.
 */
const SHM_HEADER_BYTES = 48;

export class WalCheckpointer {
  private readonly copier: Database.Database;
  private readonly guard: Database.Database;
  private readonly pin: Database.Statement;
  /** the database file and its WAL, opened to be synced only (a sync flushes the file, whoever wrote it); the wal-index, read only */
  private readonly fds: readonly [db: number, wal: number, shm: number];
  private readonly pageSize: number;
  /** the wal-index header as the last checkpoint found it before pinning its snapshot */
  private readonly seen = Buffer.alloc(SHM_HEADER_BYTES);
  private readonly now = Buffer.alloc(SHM_HEADER_BYTES);
  private readonly timer: NodeJS.Timeout;
  /** a checkpoint between its steps (at most one at a time) */
  private running = false;
  private stopped = false;

  constructor(
    file: string,
    everyMs: number,
    private readonly onError: (err: Error) => void,
  ) {
    this.copier = new Database(file, { fileMustExist: true });
    this.copier.pragma('busy_timeout = 0');
    this.copier.pragma('synchronous = OFF');
    this.guard = new Database(file, { fileMustExist: true });
    this.pin = this.guard.prepare('SELECT 1 FROM sqlite_schema LIMIT 1');
    this.pin.get(); // a first read: the WAL file is open (it exists while a connection has it)
    this.pageSize = this.copier.pragma('page_size', { simple: true }) as number;
    this.fds = [openSync(file, 'r'), openSync(`${file}-wal`, 'r'), openSync(`${file}-shm`, 'r')];
    this.timer = setInterval(() => this.checkpoint(), everyMs);
    this.timer.unref();
  }

  private checkpoint(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      // read before the new pin: a commit after this read changes the header again, and the next
      // checkpoint copies it
      const read = readSync(this.fds[2], this.now, 0, SHM_HEADER_BYTES, 0);
      if (this.guard.inTransaction && read === SHM_HEADER_BYTES && this.now.equals(this.seen)) {
        // nothing committed since the last copy: the guard keeps its pin, the WAL stays as it is
        this.running = false;
        return;
      }
      this.now.copy(this.seen);
      if (this.guard.inTransaction) this.guard.exec('COMMIT');
      this.guard.exec('BEGIN');
      this.pin.get(); // the read transaction starts at the first read
    } catch (err) {
      this.end(err, true);
      return;
    }
    fsync(this.fds[1], (err) => {
      if (err !== null || this.stopped) return this.end(err, true);
      let frames: number;
      try {
        frames = walFrames(this.copier.pragma('wal_checkpoint(PASSIVE)'));
      } catch (copyErr) {
        return this.end(copyErr, true);
      }
      fsync(this.fds[0], (syncErr) => this.end(syncErr, frames * this.pageSize >= RESTART_BYTES));
    });
  }

  /**
   * A checkpoint's end: the guard lets the WAL start over when it has grown large (or on an error),
   * else its snapshot keeps pinning the WAL (stop: the closing connection syncs what was copied).
   */
  private end(err: unknown, release: boolean): void {
    this.running = false;
    try {
      if ((release || (err !== null && err !== undefined)) && this.guard.inTransaction) this.guard.exec('COMMIT');
    } catch (endErr) {
      err ??= endErr;
    }
    if (err !== null && err !== undefined && !this.stopped) this.onError(err instanceof Error ? err : new Error(String(err)));
    if (this.stopped) this.close();
  }

  private close(): void {
    if (!this.copier.open) return;
    if (this.guard.inTransaction) this.guard.exec('COMMIT');
    this.copier.close();
    this.guard.close();
    for (const fd of this.fds) closeSync(fd);
  }

  /**
   * Stops checkpointing. A checkpoint between its steps has its copied pages synced here (shutdown
   * may block) before the WAL may start over: the caller's closing checkpoint would find nothing
   * left to copy, and so nothing to sync. A sync still in the thread pool closes the connections
   * when it returns.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    if (!this.running) return this.close();
    try {
      fsyncSync(this.fds[0]);
    } finally {
      if (this.guard.inTransaction) this.guard.exec('COMMIT');
    }
  }
}

/** `PRAGMA wal_checkpoint` answers one row; `log` is the number of frames in the WAL. */
function walFrames(rows: unknown): number {
  return (rows as { log?: number }[])[0]?.log ?? 0;
}
