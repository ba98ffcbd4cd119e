// A test and diagnostic switch that makes the store refuse writes the way a full disk or a
// read-only file does, with SQLite's own errors, so the gateway's answer to that (settles retried,
// new requests 503, SIGTERM exit code) can be exercised without filling a real disk (as root, file
// permissions do not stop a write). Off unless the environment variable GATEWAY_STORE_FAULT_FILE
// names a file when the store opens; nothing reachable from the network turns it on. Before each
// ledger write, the file is read:
//   `full`      PRAGMA max_page_count = the current size: a write that needs a new page fails with
//               SQLITE_FULL (writes that fit in the pages already there still succeed, as on a disk
//               with a little space left in the file);
//   `readonly`  PRAGMA query_only: every write fails with SQLITE_READONLY;
//   `slow <ms>` (either store, read when a batch is queued): each ledger batch (holds and settles)
//               commits `ms` late, which widens the moment between an answer and its charge so a
//               test can kill the process inside it (stages/settle.ts: the answer's last frame
//               must wait for the charge);
//   absent, or anything else: the store writes normally again.
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';

export const STORE_FAULT_ENV = 'GATEWAY_STORE_FAULT_FILE';

type Fault = 'full' | 'readonly' | 'none';

export class StoreFaultSwitch {
  private current: Fault = 'none';
  private readonly maxPages: number;

  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    this.maxPages = db.pragma('max_page_count', { simple: true }) as number;
  }

  /** The switch the environment asks for, or null (the normal case: no check at all). */
  static fromEnv(db: Database.Database, env: NodeJS.ProcessEnv = process.env): StoreFaultSwitch | null {
    const file = env[STORE_FAULT_ENV];
    return file ? new StoreFaultSwitch(db, file) : null;
  }

  private read(): Fault {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8').trim();
    } catch {
      return 'none';
    }
    return text === 'full' || text === 'readonly' ? text : 'none';
  }

  /** Applies what the file says now (called before each write transaction). */
  apply(): void {
    const wanted = this.read();
    if (wanted === this.current) return;
    const db = this.db;
    db.pragma(`query_only = ${wanted === 'readonly' ? 1 : 0}`);
    const pages = wanted === 'full' ? (db.pragma('page_count', { simple: true }) as number) : this.maxPages;
    db.pragma(`max_page_count = ${pages}`);
    this.current = wanted;
  }
}

const faultFile = process.env[STORE_FAULT_ENV];

/** `slow <ms>` in the fault file: how late a batch commits; 0 (no file read at all) normally. */
function batchDelayMs(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return 0;
  }
  const m = /^slow (\d+)$/.exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * Runs a ledger batch in the next event-loop turn, or at once when `now` (or `slow <ms>` later either
 * way, under the test switch).
 */
export function scheduleBatch(run: () => void, now = false): void {
  const delay = faultFile ? batchDelayMs(faultFile) : 0;
  if (delay > 0) setTimeout(run, delay);
  else if (now) run();
  else setImmediate(run);
}
