// Which pages the SQLite ledger's batches write: one build's `Store` on a file-backed store (WAL) runs
// mixed batches as a busy gateway makes them (`--batch` new holds and the previous batch's settles,
// one commit), with the automatic checkpoint off so the WAL keeps every frame; then the WAL's frame
// headers are read (each names the page it holds, and a commit frame says so) and each page is named
// by the b-tree it belongs to (dbstat). Prints the frames and WAL bytes per commit and, per b-tree,
// the pages a commit writes (`(int)`: interior pages). A commit costs about its pages: each is
// checksummed and written whole. Diagnostic: figures printed only.
//
//   node dist/bench/store-pages.js [--dist DIST_DIR] [--batch 3] [--batches 400] [--keys 1] [--prefill 0] [--page-size N] [--open N]
//
// `--keys N` spreads the requests over N keys of N/5 organizations (the usage indexes by key and by
// organization then write one page per distinct key and organization of a batch); `--prefill N`
// settles N requests first (a usage table of some size); `--page-size` creates the file with that
// page size instead of the build's own; `--open N` keeps N holds open (requests in flight, as at
// concurrency N): each batch then ends the N oldest holds' first `--batch`, not the previous batch's.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { finalizeConfig as FinalizeConfig } from '../lib/config.js';
import type { Store as StoreClass } from '../lib/store/store.js';
import type { KeyRecord, Reservation, UsageRecord } from '../lib/store/types.js';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string' },
    batch: { type: 'string', default: '3' },
    batches: { type: 'string', default: '400' },
    keys: { type: 'string', default: '1' },
    prefill: { type: 'string', default: '0' },
    'page-size': { type: 'string' },
    open: { type: 'string', default: '0' },
  },
});
const root = resolve(args.dist ?? fileURLToPath(new URL('..', import.meta.url)));
const at = (p: string): string => pathToFileURL(join(root, p)).href;
const batch = Math.max(1, Number(args.batch));
const batches = Math.max(1, Number(args.batches));
const keyCount = Math.max(1, Number(args.keys));
const open = Math.max(0, Number(args.open));

const { finalizeConfig } = (await import(at('lib/config.js'))) as { finalizeConfig: typeof FinalizeConfig };
const { Store } = (await import(at('lib/store/store.js'))) as { Store: typeof StoreClass };
const { newRequestId } = (await import(at('lib/ids.js'))) as { newRequestId: () => string };
const orgs = Array.from({ length: Math.ceil(keyCount / 5) }, (_, i) => ({ id: `org${i}`, credits: 10_000_000 }));
const keys = Array.from({ length: keyCount }, (_, i) => ({ id: `key${i}`, key: `bench-key-${i}-0123456789`, org: `org${i % orgs.length}` }));
const config = finalizeConfig(
  {
    providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
    models: [{ id: 'sim/model', deployments: [{ provider: 'sim', model: 'model' }], pricing: { input: 3, output: 15 } }],
    orgs,
    keys,
  },
  {},
);

const dir = mkdtempSync(join(tmpdir(), 'gateway-store-pages-'));
try {
  const file = join(dir, 'gateway.db');
  if (args['page-size'] !== undefined) {
    const db = new Database(file);
    db.pragma(`page_size = ${Number(args['page-size'])}`);
    db.pragma('journal_mode = WAL');
    db.close();
  }
  const store = new Store(`sqlite:${file}`);
  store.seed(config);
  const records = keys.map((k) => store.findKey(k.key)!);
  const keyOf = new Map(records.map((k) => [k.id, k]));
  let n = 0;
  const nextKey = (): KeyRecord => records[(n++ * 7919) % records.length]!;
  const usage = (h: Reservation): UsageRecord => ({
    requestId: h.requestId, keyId: h.keyId, org: keyOf.get(h.keyId)!.org, project: null, environment: null, endpoint: 'chat', modelRequested: 'sim/model',
    modelServed: 'sim/model', provider: 'sim', inputTokens: 1200, outputTokens: 350, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0,
    webSearches: 0, audioSeconds: null, cost: 900, callName: null, endUserId: null, status: 200, errorCode: null, latencyMs: 42,
  });
  // the holds in flight, oldest first: each batch ends the oldest `batch` of them once more than `open` are held
  let held: Reservation[] = [];
  const run = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const holds = Array.from({ length: batch }, () => store.ledger.reserveSoon({ requestId: newRequestId(), key: nextKey(), amount: 1000 }));
      const ending = held.length > open ? held.slice(0, batch) : [];
      held = held.slice(ending.length);
      const ends = ending.map((h) => store.ledger.endSoon(h, usage(h), true));
      const [taken] = await Promise.all([Promise.all(holds), Promise.all(ends)]);
      held.push(...taken);
    }
  };
  await run(Math.ceil(Number(args.prefill) / batch) + 50); // warm-up: statements, and the tables' first pages
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.db.pragma('wal_autocheckpoint = 0');
  await run(batches);

  const pageSize = store.db.pragma('page_size', { simple: true }) as number;
  const wal = readFileSync(`${file}-wal`);
  const names = new Map(
    store.db
      .prepare<[], { name: string; pageno: number; pagetype: string }>('SELECT name, pageno, pagetype FROM dbstat')
      .all()
      .map((r) => [r.pageno, r.pagetype === 'internal' ? `${r.name}(int)` : r.name]),
  );
  const pages = new Map<string, number>();
  let frames = 0;
  let commits = 0;
  // a 32-byte header, then frames of a 24-byte header (page number, and the database size on a commit frame) and the page
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const name = names.get(wal.readUInt32BE(at)) ?? 'freed';
    pages.set(name, (pages.get(name) ?? 0) + 1);
    frames++;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  const rows = (store.db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n;
  console.log(`page size ${pageSize}, ${keyCount} keys, ${open} holds open, ${rows} usage rows, ${commits} commits of ${batch} holds + ${batch} settles: ${(frames / commits).toFixed(2)} pages and ${Math.round((frames * (24 + pageSize)) / commits)} WAL bytes per commit`);
  console.log([...pages].sort((a, b) => b[1] - a[1]).map(([name, count]) => `${name} ${(count / commits).toFixed(2)}`).join(', '));
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
