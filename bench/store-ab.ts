// Before/after of the SQLite ledger alone, in one process: two compiled trees' `Store`s, each on its
// own file-backed store (WAL) with the bench gateway's org and key, run reserve + settle batches as
// the gateway does (`reserveSoon` × N in one turn, then their `endSoon`s) in alternating rounds;
// each side's median CPU µs per reserve + settle is printed. One process and alternating rounds
// make a change of a few percent visible on a shared machine, where wall times move by ±50 %.
// Diagnostic, like ab.ts: figures printed only.
//
//   node dist/bench/store-ab.js --a DIST_DIR [--b DIST_DIR] [--batch 6] [--open 0] [--ops 6000] [--rounds 8] [--mixed [--in-flight N]] [--find-key]
//
// Each side makes request ids as its gateway does: its `lib/ids.js` when it has one, else
// `req_` and a random UUID's hex (lib/server.ts before lib/ids.ts). `--open N` keeps N holds open
// throughout (long streams in flight). `--mixed`: each batch holds N and ends the previous batch's N
// (a busy gateway's batches mix new holds and settles: msg-msg-sse@16 averaged 5 operations a batch,
// so --mixed --batch 3 is near it). `--in-flight N` (with --mixed): N holds stay in flight and each
// batch ends the oldest ones, as requests of about equal length at concurrency N end (first in,
// first out: the reservations table then gains rows at one end and loses them at the other, where
// `--open` holds sit still). `--find-key`: each hold is preceded by the request's key lookup
// (`findKey`), of a credential taken from an Authorization header's text as lib/auth.ts takes it (a
// new string each time, as a request's is). Default --b: this build.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { finalizeConfig as FinalizeConfig } from '../lib/config.js';
import type { Store as StoreClass } from '../lib/store/store.js';
import type { KeyRecord, Reservation, UsageRecord } from '../lib/store/types.js';

const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    batch: { type: 'string', default: '6' },
    open: { type: 'string', default: '0' },
    ops: { type: 'string', default: '6000' },
    rounds: { type: 'string', default: '8' },
    mixed: { type: 'boolean', default: false },
    'in-flight': { type: 'string', default: '0' },
    'find-key': { type: 'boolean', default: false },
  },
});
const thisBuild = fileURLToPath(new URL('..', import.meta.url));
const batch = Math.max(1, Number(args.batch));
const open = Math.max(0, Number(args.open));
const ops = Math.max(batch, Number(args.ops));
const rounds = Math.max(2, Number(args.rounds));
const mixed = args.mixed === true;
const inFlight = Math.max(0, Number(args['in-flight']));
const findKey = args['find-key'] === true;
const SECRET = 'bench-key-0123456789';
const AUTHORIZATION = `Bearer ${SECRET}`;

interface Side {
  name: string;
  store: StoreClass;
  key: KeyRecord;
  nextId: () => string;
  cpu: number[];
  /** `--mixed`: the holds in flight, oldest first */
  held: Reservation[];
}

function record(requestId: string): UsageRecord {
  return {
    requestId, keyId: 'bench', org: 'bench', project: null, environment: null, endpoint: 'chat', modelRequested: 'sim/model', modelServed: 'sim/model',
    provider: 'sim', inputTokens: 1200, outputTokens: 350, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, webSearches: 0,
    audioSeconds: null, cost: 900, callName: null, endUserId: null, status: 200, errorCode: null, latencyMs: 42,
  };
}

async function side(name: string, root: string, dir: string): Promise<Side> {
  const at = (p: string): string => pathToFileURL(join(root, p)).href;
  const { finalizeConfig } = (await import(at('lib/config.js'))) as { finalizeConfig: typeof FinalizeConfig };
  const { Store } = (await import(at('lib/store/store.js'))) as { Store: typeof StoreClass };
  const ids = existsSync(join(root, 'lib/ids.js')) ? ((await import(at('lib/ids.js'))) as { newRequestId: () => string }) : null;
  const nextId = ids?.newRequestId ?? ((): string => `req_${randomUUID().replace(/-/g, '')}`);
  const config = finalizeConfig(
    {
      providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
      models: [{ id: 'sim/model', deployments: [{ provider: 'sim', model: 'model' }], pricing: { input: 3, output: 15 } }],
      orgs: [{ id: 'bench', credits: 10_000_000 }],
      keys: [{ id: 'bench', key: SECRET, org: 'bench' }],
    },
    {},
  );
  const store = new Store(`sqlite:${join(dir, `${name}.db`)}`);
  store.seed(config);
  const key = store.findKey(SECRET)!;
  for (let i = 0; i < open; i++) await store.ledger.reserveSoon({ requestId: nextId(), key, amount: 10 });
  return { name, store, key, nextId, cpu: [], held: [] };
}

/** The key a request presents: looked up as the gateway does (`--find-key`), else the one found at the start. */
function keyOf(s: Side): KeyRecord {
  if (!findKey) return s.key;
  // a new string, as lib/auth.ts's match of a request's header is
  const found = s.store.findKey(/^Bearer[ \t]+(\S+)[ \t]*$/i.exec(AUTHORIZATION)![1]!);
  if (found === null) throw new Error('the bench key was not found');
  return found;
}

async function run(s: Side, n: number): Promise<void> {
  if (mixed) return runMixed(s, n);
  for (let i = 0; i < n / batch; i++) {
    const holds = await Promise.all(Array.from({ length: batch }, () => s.store.ledger.reserveSoon({ requestId: s.nextId(), key: keyOf(s), amount: 1000 })));
    await Promise.all(holds.map((h) => s.store.ledger.endSoon(h, record(h.requestId), true)));
  }
}

/**
 * `--mixed`: each batch takes `batch` holds and ends as many of the oldest in flight (the previous
 * batch's when `--in-flight` is 0), in one turn, as a busy gateway's batches do. The holds in flight
 * stay so from one call to the next: the rounds measure the steady state.
 */
async function runMixed(s: Side, n: number): Promise<void> {
  for (let i = 0; i < n / batch; i++) {
    const holds = Array.from({ length: batch }, () => s.store.ledger.reserveSoon({ requestId: s.nextId(), key: keyOf(s), amount: 1000 }));
    const ending = s.held.length > inFlight ? s.held.slice(0, batch) : [];
    s.held = s.held.slice(ending.length);
    const ends = ending.map((h) => s.store.ledger.endSoon(h, record(h.requestId), true));
    const [taken] = await Promise.all([Promise.all(holds), Promise.all(ends)]);
    s.held.push(...taken);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'gateway-store-ab-'));
try {
  const sides = [await side('a', resolve(args.a ?? thisBuild), dir), await side('b', resolve(args.b ?? thisBuild), dir)];
  for (const s of sides) await run(s, 3000); // warm-up: statements, page cache
  for (let r = 0; r < rounds; r++) {
    for (const s of sides) {
      const c0 = process.cpuUsage();
      await run(s, ops);
      const c = process.cpuUsage(c0);
      s.cpu.push((c.user + c.system) / ops);
    }
  }
  const [a, b] = sides.map((s) => median(s.cpu)) as [number, number];
  const shape = (findKey ? 'key lookups + ' : '') + (mixed ? `mixed batches (holds + the ${inFlight > 0 ? `oldest of ${inFlight} in flight` : "last batch's"} ends)` : 'batches');
  console.log(`${shape} of ${batch}, ${open} holds open, ${rounds} rounds of ${ops}: CPU µs per reserve+settle median a ${a.toFixed(1)} b ${b.toFixed(1)} (${(((b - a) / a) * 100).toFixed(1)} %), lowest a ${Math.min(...sides[0]!.cpu).toFixed(1)} b ${Math.min(...sides[1]!.cpu).toFixed(1)}`);
  for (const s of sides) s.store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
