// The WAL checkpointer, run in a worker thread by the serving gateway (`Store.startCheckpointer`).
//
// With SQLite's default automatic checkpoint, every ~1,000 pages one ordinary commit also copies the
// WAL back into the database file and fsyncs it, on the event loop: measured on this kind of
// machine, commits of 8 usage rows take 69 µs at the median but 3 ms at p99 and up to 30 ms, and
// every request in flight waits that long. So the main connection turns the automatic checkpoint
// off and this worker, on its own connection, runs a PASSIVE checkpoint every `everyMs`: it never
// takes the write lock, so the gateway's commits go on while it copies and syncs. (After a
// complete checkpoint the next commit starts the WAL over from the beginning; journal_size_limit
// keeps the file from staying large.)
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

interface CheckpointerData {
  file: string;
  everyMs: number;
}

const { file, everyMs } = workerData as CheckpointerData;
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 0');

function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort?.postMessage({ error: (err as Error).message });
  }
}

const timer = setInterval(checkpoint, everyMs);
parentPort?.on('message', (msg: unknown) => {
  if (msg === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort?.close();
  }
});
