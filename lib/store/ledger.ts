// The credit ledger on SQLite. Every change is one `BEGIN IMMEDIATE` transaction (better-sqlite3's
// `.immediate()`): atomic inside this process (synchronous calls never interleave) and across
// processes sharing the database file (the write lock is taken before anything is read).
//
// Amounts are integer units (1e-9 USD). Four levels carry `spent` and `reserved` counters: the
// organization (which also holds the `balance`), and, when the key names them, its project and
// environment, and the key itself. A reservation row remembers the levels it was taken at, so it is
// always ended at the same rows even if the key was moved since.
//
// - reserve: refused when the organization's available balance (balance − reserved) does not cover
//   the amount or is not positive (the spec's "balance zero or negative": 402 even for a free
//   request), or when any level's cap would be passed: spent + reserved + amount > cap.
// - settle/release: deleting the reservation row is the claim: whichever call deletes it takes
//   effect, every later call (settle, release, stale release) finds nothing and does nothing.
// - The charge is the actual cost even above the reservation (honest billing; a reservation is an
//   upper bound, so an overrun means the estimate was wrong, and the balance may then go below zero
//   by that overrun only).
// - A usage row is keyed by request id: the first record of a request is kept (a duplicate id never
//   fails a settle, and the charge is applied either way).
// - releaseStale releases every reservation taken by another boot. Run it at start only: with
//   several live processes on one file it would also release the other processes' holds.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { GatewayError } from '../errors.js';
import { formatUsd } from '../pricing.js';
import type { Balance, Ledger, ReserveInput, StoredUsage, UsageQuery } from './ledger-api.js';
import type { CapLevel, Reservation, UsageRecord } from './types.js';

export type { Balance, Ledger, ReserveInput, StoredUsage, UsageQuery } from './ledger-api.js';

interface LevelsRow {
  balance: number;
  o_reserved: number;
  o_spent: number;
  o_cap: number | null;
  k_reserved: number | null;
  k_spent: number | null;
  k_cap: number | null;
  p_reserved: number | null;
  p_spent: number | null;
  p_cap: number | null;
  e_reserved: number | null;
  e_spent: number | null;
  e_cap: number | null;
}

interface ReservationRow {
  id: string;
  key_id: string;
  org: string;
  project: string | null;
  environment: string | null;
  amount: number;
}

/** An operation waiting for the batch (one transaction) that runs it. */
type Op =
  | { kind: 'end'; id: string; record: UsageRecord; resolve: (ended: boolean) => void; reject: (err: unknown) => void }
  | { kind: 'reserve'; input: ReserveInput; resolve: (r: Reservation) => void; reject: (err: unknown) => void };

/** One counter change at every level of a reservation: `reserve` added to reserved, `cost` charged. */
interface Delta {
  key: string;
  org: string;
  project: string | null;
  environment: string | null;
  reserve: number;
  cost: number;
}

/** usage columns under their UsageRecord names (snake_case → camelCase) */
const USAGE_COLUMNS = [
  'request_id', 'key_id', 'org', 'project', 'environment', 'endpoint', 'model_requested', 'model_served', 'provider',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'web_searches',
  'audio_seconds', 'cost', 'call_name', 'end_user_id', 'status', 'error_code', 'latency_ms', 'created_at',
]
  .map((c) => `${c} AS ${c.replace(/_([a-z])/g, (_m, l: string) => l.toUpperCase())}`)
  .join(', ');

function assertUnits(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer of units, got ${value}`);
}

export class SqliteLedger implements Ledger {
  private readonly levels: Database.Statement<[{ org: string; key: string; project: string | null; environment: string | null }], LevelsRow>;
  private readonly bumpOrg: Database.Statement<[Delta]>;
  private readonly bumpKey: Database.Statement<[Delta]>;
  private readonly bumpProject: Database.Statement<[Delta]>;
  private readonly bumpEnv: Database.Statement<[Delta]>;
  private readonly insertReservation: Database.Statement<[ReservationRow & { boot: string; at: number; request: string }]>;
  private readonly claimReservation: Database.Statement<[string], ReservationRow>;
  private readonly staleReservations: Database.Statement<[string], ReservationRow>;
  private readonly insertUsage: Database.Statement<[UsageRecord & { createdAt: number }]>;
  private readonly selectBalance: Database.Statement<[string], { balance: number; reserved: number; spent: number; spend_cap: number | null }>;
  private readonly selectOrgIds: Database.Statement<[], { id: string }>;
  private readonly selectUsage: Database.Statement<[{ org: string | null; key: string | null; limit: number }], StoredUsage>;
  private readonly creditOrg: Database.Statement<[number, string]>;
  private readonly insertCreditEvent: Database.Statement<[string, number, string, number]>;
  private readonly countReservations: Database.Statement<[], { n: number }>;
  private readonly reserveTx: Database.Transaction<(input: ReserveInput) => Reservation>;
  private readonly endTx: Database.Transaction<(id: string, record: UsageRecord | null) => boolean>;
  /** runs a batch; returns, per operation, what settles its promise once the transaction committed */
  private readonly batchTx: Database.Transaction<(batch: readonly Op[]) => (() => void)[]>;
  private queue: Op[] = [];
  private readonly staleTx: Database.Transaction<() => number>;
  private readonly creditTx: Database.Transaction<(org: string, units: number, reason: string) => number>;

  constructor(
    readonly db: Database.Database,
    readonly bootId: string,
  ) {
    this.levels = db.prepare(`SELECT o.balance, o.reserved AS o_reserved, o.spent AS o_spent, o.spend_cap AS o_cap,
        k.reserved AS k_reserved, k.spent AS k_spent, k.spend_cap AS k_cap,
        p.reserved AS p_reserved, p.spent AS p_spent, p.spend_cap AS p_cap,
        e.reserved AS e_reserved, e.spent AS e_spent, e.spend_cap AS e_cap
      FROM orgs o
      LEFT JOIN keys k ON k.id = @key
      LEFT JOIN projects p ON p.org = o.id AND p.id = @project
      LEFT JOIN environments e ON e.org = o.id AND e.project = @project AND e.id = @environment
      WHERE o.id = @org`);
    const bump = 'reserved = reserved + @reserve, spent = spent + @cost';
    this.bumpOrg = db.prepare(`UPDATE orgs SET ${bump}, balance = balance - @cost WHERE id = @org`);
    this.bumpKey = db.prepare(`UPDATE keys SET ${bump} WHERE id = @key`);
    this.bumpProject = db.prepare(`UPDATE projects SET ${bump} WHERE org = @org AND id = @project`);
    this.bumpEnv = db.prepare(`UPDATE environments SET ${bump} WHERE org = @org AND project = @project AND id = @environment`);
    this.insertReservation = db.prepare(`INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
      VALUES (@id, @request, @key_id, @org, @project, @environment, @amount, @boot, @at)`);
    this.claimReservation = db.prepare('DELETE FROM reservations WHERE id = ? RETURNING id, key_id, org, project, environment, amount');
    this.staleReservations = db.prepare('DELETE FROM reservations WHERE boot_id <> ? RETURNING id, key_id, org, project, environment, amount');
    this.insertUsage = db.prepare(`INSERT INTO usage (request_id, key_id, org, project, environment, endpoint, model_requested, model_served, provider,
        input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, web_searches, audio_seconds, cost,
        call_name, end_user_id, status, error_code, latency_ms, created_at)
      VALUES (@requestId, @keyId, @org, @project, @environment, @endpoint, @modelRequested, @modelServed, @provider,
        @inputTokens, @outputTokens, @cacheReadTokens, @cacheWriteTokens, @reasoningTokens, @webSearches, @audioSeconds, @cost,
        @callName, @endUserId, @status, @errorCode, @latencyMs, @createdAt)
      ON CONFLICT(request_id) DO NOTHING`);
    this.selectBalance = db.prepare('SELECT balance, reserved, spent, spend_cap FROM orgs WHERE id = ?');
    this.selectOrgIds = db.prepare('SELECT id FROM orgs ORDER BY id');
    this.selectUsage = db.prepare(`SELECT ${USAGE_COLUMNS} FROM usage WHERE (@org IS NULL OR org = @org) AND (@key IS NULL OR key_id = @key)
      ORDER BY created_at DESC, rowid DESC LIMIT @limit`);
    this.creditOrg = db.prepare('UPDATE orgs SET balance = balance + ? WHERE id = ?');
    this.insertCreditEvent = db.prepare('INSERT INTO credit_events (org, amount, reason, created_at) VALUES (?, ?, ?, ?)');
    this.countReservations = db.prepare('SELECT COUNT(*) AS n FROM reservations');

    this.reserveTx = db.transaction((input: ReserveInput) => this.reserveInTx(input));
    this.endTx = db.transaction((id: string, record: UsageRecord | null) => this.endInTx(id, record));
    this.batchTx = db.transaction((batch: readonly Op[]) => batch.map((op) => this.runOp(op)));
    this.staleTx = db.transaction(() => {
      const rows = this.staleReservations.all(this.bootId);
      for (const r of rows) this.apply({ key: r.key_id, org: r.org, project: r.project, environment: r.environment, reserve: -r.amount, cost: 0 });
      return rows.length;
    });
    this.creditTx = db.transaction((org: string, units: number, reason: string) => {
      if (this.creditOrg.run(units, org).changes === 0) throw new Error(`unknown organization "${org}"`);
      this.insertCreditEvent.run(org, units, reason, Date.now());
      return this.selectBalance.get(org)!.balance;
    });
  }

  private endInTx(id: string, record: UsageRecord | null): boolean {
    const row = this.claimReservation.get(id);
    if (row === undefined) return false;
    const cost = record?.cost ?? 0;
    this.apply({ key: row.key_id, org: row.org, project: row.project, environment: row.environment, reserve: -row.amount, cost });
    if (record) this.insertUsage.run({ ...record, createdAt: Date.now() });
    return true;
  }

  /** One operation inside the batch transaction. A refused hold wrote nothing, so the batch goes on. */
  private runOp(op: Op): () => void {
    if (op.kind === 'end') {
      const ended = this.endInTx(op.id, op.record);
      return () => op.resolve(ended);
    }
    try {
      const reservation = this.reserveInTx(op.input);
      return () => op.resolve(reservation);
    } catch (err) {
      if (GatewayError.is(err)) return () => op.reject(err);
      throw err; // a store failure: the whole batch rolls back
    }
  }

  private enqueue(op: Op): void {
    this.queue.push(op);
    if (this.queue.length === 1) setImmediate(() => this.flush());
  }

  reserveSoon(input: ReserveInput): Promise<Reservation> {
    assertUnits(input.amount, 'reservation amount');
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', input, resolve, reject }));
  }

  endSoon(reservation: Reservation, record: UsageRecord, charge: boolean): Promise<boolean> {
    if (charge) assertUnits(record.cost, 'cost');
    return new Promise((resolve, reject) => this.enqueue({ kind: 'end', id: reservation.id, record: charge ? record : { ...record, cost: 0 }, resolve, reject }));
  }

  flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let settle: (() => void)[];
    try {
      settle = this.batchTx.immediate(batch);
    } catch (err) {
      for (const op of batch) op.reject(err);
      return;
    }
    for (const done of settle) done();
  }

  private apply(d: Delta): void {
    this.bumpOrg.run(d);
    this.bumpKey.run(d);
    if (d.project !== null) {
      this.bumpProject.run(d);
      if (d.environment !== null) this.bumpEnv.run(d);
    }
  }

  private reserveInTx({ requestId, key, amount }: ReserveInput): Reservation {
    const project = key.project;
    const environment = project === null ? null : key.environment;
    const row = this.levels.get({ org: key.org, key: key.id, project, environment });
    const available = row ? row.balance - row.o_reserved : 0;
    if (available <= 0 || available < amount) {
      const held = row && row.o_reserved > 0 ? ` (balance ${formatUsd(row.balance)}, ${formatUsd(row.o_reserved)} held by requests in progress)` : '';
      throw new GatewayError(
        'GW_ERR_CREDITS_INSUFFICIENT',
        `Insufficient credits: the organization has ${formatUsd(available)} available${held} and this request may cost up to ${formatUsd(amount)}. Add credits to continue.`,
      );
    }
    // the cap check runs on every hold: names are only spelled out for a refusal
    const check = (level: CapLevel, cap: number | null, spent: number | null, reserved: number | null): void => {
      if (cap === null || spent === null || reserved === null || spent + reserved + amount <= cap) return;
      const name = { key: `the key ${key.id}`, environment: `the environment ${environment} of project ${project}`, project: `the project ${project}`, organization: `the organization ${key.org}` }[level];
      const held = reserved > 0 ? `, ${formatUsd(reserved)} held by requests in progress` : '';
      throw new GatewayError(
        'GW_ERR_SPEND_CAP_EXCEEDED',
        `Spend cap of ${name} reached (cap ${formatUsd(cap)}, spent ${formatUsd(spent)}${held}, this request may cost up to ${formatUsd(amount)}).`,
        { param: level },
      );
    };
    check('key', row!.k_cap, row!.k_spent, row!.k_reserved);
    check('environment', row!.e_cap, row!.e_spent, row!.e_reserved);
    check('project', row!.p_cap, row!.p_spent, row!.p_reserved);
    check('organization', row!.o_cap, row!.o_spent, row!.o_reserved);
    const reservation: ReservationRow = { id: `res_${randomUUID()}`, key_id: key.id, org: key.org, project, environment, amount };
    this.apply({ key: key.id, org: key.org, project, environment, reserve: amount, cost: 0 });
    this.insertReservation.run({ ...reservation, request: requestId, boot: this.bootId, at: Date.now() });
    return { id: reservation.id, requestId, keyId: key.id, amount };
  }

  reserve(input: ReserveInput): Reservation {
    assertUnits(input.amount, 'reservation amount');
    return this.reserveTx.immediate(input);
  }

  settle(reservation: Reservation, record: UsageRecord): boolean {
    assertUnits(record.cost, 'cost');
    return this.endTx.immediate(reservation.id, record);
  }

  release(reservation: Reservation, record?: UsageRecord): boolean {
    return this.endTx.immediate(reservation.id, record ? { ...record, cost: 0 } : null);
  }

  releaseStale(): number {
    return this.staleTx.immediate();
  }

  balanceOf(org: string): Balance | null {
    const row = this.selectBalance.get(org);
    return row ? { balance: row.balance, reserved: row.reserved, spent: row.spent, spendCap: row.spend_cap } : null;
  }

  orgIds(): string[] {
    return this.selectOrgIds.all().map((r) => r.id);
  }

  usageFor(query: UsageQuery): StoredUsage[] {
    return this.selectUsage.all({ org: query.org ?? null, key: query.keyId ?? null, limit: query.limit });
  }

  addCredits(org: string, units: number, reason: string): number {
    if (!Number.isSafeInteger(units) || units === 0) throw new TypeError(`credits must be a non-zero integer of units, got ${units}`);
    return this.creditTx.immediate(org, units, reason);
  }

  openReservations(): number {
    return this.countReservations.get()!.n;
  }
}
