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
//   3. the database file is synced in the thread pool, then the guard's read ends: the WAL may
//      start over, its pages being on disk.
// That is what SQLite's own checkpoint does (sync the WAL, copy, sync the database, then allow a
// restart), with the two syncs off the event loop. A restart needs a moment when every frame was
// copied and synced: every 100 ms, the WAL stays about as small as it did with checkpoints every
// 250 ms in a worker (3-4 MB at 600 requests a second). It replaces a worker thread that ran the same
// checkpoint on its own connection: a Node worker is a whole V8 isolate and environment, ~9 MB
// resident. After a complete checkpoint the next commit starts the WAL over from the beginning;
// journal_size_limit keeps the file from staying large.
import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';

export class WalCheckpointer {
  private readonly copier: Database.Database;
  private readonly guard: Database.Database;
  private readonly pin: Database.Statement;
  /** the database file and its WAL, opened to be synced only (a sync flushes the file, whoever wrote it) */
  private readonly fds: readonly [db: number, wal: number];
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
    this.fds = [openSync(file, 'r'), openSync(`${file}-wal`, 'r')];
    this.timer = setInterval(() => this.checkpoint(), everyMs);
    this.timer.unref();
  }

  private checkpoint(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      this.guard.exec('BEGIN');
      this.pin.get(); // the read transaction starts at the first read
    } catch (err) {
      this.end(err);
      return;
    }
    fsync(this.fds[1], (err) => {
      if (err !== null || this.stopped) return this.end(err);
      try {
        this.copier.pragma('wal_checkpoint(PASSIVE)');
      } catch (copyErr) {
        return this.end(copyErr);
      }
      fsync(this.fds[0], (syncErr) => this.end(syncErr));
    });
  }

  /** a checkpoint's end: the guard lets the WAL start over (stop: the closing connection syncs what was copied) */
  private end(err: unknown): void {
    this.running = false;
    try {
      if (this.guard.inTransaction) this.guard.exec('COMMIT');
    } catch (endErr) {
      err ??= endErr;
    }
    if (err !== null && err !== undefined && !this.stopped) this.onError(err instanceof Error ? err : new Error(String(err)));
    if (this.stopped) this.close();
  }

  private close(): void {
    if (!this.copier.open) return;
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
