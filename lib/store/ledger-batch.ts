// The hold rules of the credit ledger (`checkHold`, shared by `reserve` and the batches) and the
// counter cache of one batch (`CounterBatch`), so that a batch writes each level's counters once.
//
// A batch (`reserveSoon` / `endSoon` of one event-loop turn, one `BEGIN IMMEDIATE` transaction) does
// not UPDATE the counters per operation. It keeps, per level it touched (organization by id, key by
// id, project by (org, project), environment by (org, project, environment), exactly the rows the
// bump statements identify), the counters as read from the database (read once per batch, by the
// first hold that needs them; never for an end) and the batch's accumulated delta (reserved, spent;
// the organization's balance moves by −spent). A hold is decided against read values + delta, i.e.
// against the counters as the earlier operations of the batch left them, exactly as if each had
// been written. Before the commit, `write()` runs one bump per level with a non-zero delta.
//
// This relies on the counters not changing in the database during the batch: the write lock is
// held from the start of the transaction and nothing else writes them until `write()`. A cache
// lives for one batch only (another process may change the file between batches, e.g.
// `credits add`); a store failure throws out of the transaction, which rolls everything back.
//
// Why the counters are still written at every batch, not kept in memory between them: other
// processes on the file (workers, a rolling restart, the CLI) decide their holds against them, and
// the admin API and `credits` read them. Memory could only spare the one levels read per batch
// (a few µs: one indexed row per level), and knowing it is still fresh would need a check of
// every other writer (PRAGMA data_version for other connections, and this connection's own admin
// and credit writes) costing about as much. What a batch costs is its commit, i.e. its pages.
import type Database from 'better-sqlite3';
import { errors } from '../errors/index.js';
import type { CapLevel } from './types.js';

/** One counter change at every level of a reservation: `reserve` added to reserved, `cost` charged. */
export interface Delta {
  key: string;
  org: string;
  project: string | null;
  environment: string | null;
  reserve: number;
  cost: number;
}

/** The counters of every level of a hold, read in one statement (null columns: no such row/level). */
export interface LevelsRow {
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

/** A LevelsRow as the SQLite ledger reads it: its columns in order (ledger-statements.ts). */
export type LevelsColumns = [
  balance: number, o_reserved: number, o_spent: number, o_cap: number | null,
  k_reserved: number | null, k_spent: number | null, k_cap: number | null,
  p_reserved: number | null, p_spent: number | null, p_cap: number | null,
  e_reserved: number | null, e_spent: number | null, e_cap: number | null,
];

export function levelsRow(c: LevelsColumns | undefined): LevelsRow | undefined {
  if (c === undefined) return undefined;
  return {
    balance: c[0], o_reserved: c[1], o_spent: c[2], o_cap: c[3],
    k_reserved: c[4], k_spent: c[5], k_cap: c[6],
    p_reserved: c[7], p_spent: c[8], p_cap: c[9],
    e_reserved: c[10], e_spent: c[11], e_cap: c[12],
  };
}

export interface Counters {
  reserved: number;
  spent: number;
  cap: number | null;
}

export interface OrgCounters extends Counters {
  balance: number;
}

/** The counters a hold is decided against; null: no such row (or the key names no such level). */
export interface HoldLevels {
  org: OrgCounters | null;
  key: Counters | null;
  project: Counters | null;
  environment: Counters | null;
}

const counters = (reserved: number | null, spent: number | null, cap: number | null): Counters | null =>
  reserved === null || spent === null ? null : { reserved, spent, cap };

export function levelsOf(row: LevelsRow | undefined): HoldLevels {
  if (row === undefined) return { org: null, key: null, project: null, environment: null };
  return {
    org: { balance: row.balance, reserved: row.o_reserved, spent: row.o_spent, cap: row.o_cap },
    key: counters(row.k_reserved, row.k_spent, row.k_cap),
    project: counters(row.p_reserved, row.p_spent, row.p_cap),
    environment: counters(row.e_reserved, row.e_spent, row.e_cap),
  };
}

/**
 * Throws the 402 refusing a hold of `hold.reserve` units: when the organization's available balance
 * (balance − reserved) does not cover it or is not positive, or when a level's cap would be passed
 * (spent + reserved + amount > cap), checked key, environment, project, organization.
 */
export function checkHold(hold: Delta, levels: HoldLevels): void {
  const { org } = levels;
  const amount = hold.reserve;
  const available = org ? org.balance - org.reserved : 0;
  if (available <= 0 || available < amount) {
    throw errors.creditsInsufficient(available, org?.balance ?? 0, org?.reserved ?? 0, amount);
  }
  // the cap check runs on every hold: names are only spelled out for a refusal
  const check = (level: CapLevel, c: Counters | null): void => {
    if (c === null || c.cap === null || c.spent + c.reserved + amount <= c.cap) return;
    const { key, org: orgId, project, environment } = hold;
    const name = { key: `the key ${key}`, environment: `the environment ${environment} of project ${project}`, project: `the project ${project}`, organization: `the organization ${orgId}` }[level];
    throw errors.spendCapExceeded(level, name, c.cap, c.spent, c.reserved, amount);
  };
  check('key', levels.key);
  check('environment', levels.environment);
  check('project', levels.project);
  check('organization', org);
}

/**
 * The ledger's statements a batch uses, with positional parameters (ledger-statements.ts): bound
 * from an object, each named one cost about 900 instructions more (a property lookup through V8's
 * API), ten of them in a batch. `readLevels` and `bump` bind them from a `Delta`.
 */
export interface BatchStatements {
  /** key, project, project, environment, organization */
  levels: Database.Statement<[string, string | null, string | null, string | null, string], LevelsColumns>;
  /** reserve, cost, cost, organization */
  bumpOrg: Database.Statement<[number, number, number, string]>;
  /** reserve, cost, key */
  bumpKey: Database.Statement<[number, number, string]>;
  /** reserve, cost, organization, project */
  bumpProject: Database.Statement<[number, number, string, string | null]>;
  /** reserve, cost, organization, project, environment */
  bumpEnv: Database.Statement<[number, number, string, string | null, string | null]>;
}

/** The counters of every level of `d`, read (undefined: no such organization). */
export function readLevels(st: BatchStatements, d: Delta): LevelsRow | undefined {
  return levelsRow(st.levels.get(d.key, d.project, d.project, d.environment, d.org));
}

type LevelKind = 'org' | 'key' | 'project' | 'environment';

/** Adds `d` (reserve to reserved, cost to spent, and −cost to an organization's balance) to the one row of a level. */
export function bump(st: BatchStatements, kind: LevelKind, d: Delta): void {
  if (kind === 'org') st.bumpOrg.run(d.reserve, d.cost, d.cost, d.org);
  else if (kind === 'key') st.bumpKey.run(d.reserve, d.cost, d.key);
  else if (kind === 'project') st.bumpProject.run(d.reserve, d.cost, d.org, d.project);
  else st.bumpEnv.run(d.reserve, d.cost, d.org, d.project, d.environment);
}

/**
 * One level in a batch. `delta` names the row (the first operation's identity: the bump statement
 * reads only the columns that identify its row) and accumulates the batch's change; `base` is the
 * row as read (undefined: not read yet, null: no such row).
 */
interface Level<C extends Counters> {
  delta: Delta;
  base: C | null | undefined;
}

/** the levels an operation touches, as `apply()` bumps them */
interface OpLevels {
  org: Level<OrgCounters>;
  key: Level<Counters>;
  project: Level<Counters> | null;
  environment: Level<Counters> | null;
}

function level<C extends Counters>(map: Map<string, Level<C>>, id: string, d: Delta): Level<C> {
  let l = map.get(id);
  if (l === undefined) map.set(id, (l = { delta: { ...d, reserve: 0, cost: 0 }, base: undefined }));
  return l;
}

/** the counters as the batch left them: read + delta */
function current({ base, delta }: Level<Counters>): Counters | null {
  return base ? { reserved: base.reserved + delta.reserve, spent: base.spent + delta.cost, cap: base.cap } : null;
}

/** The counters of one batch: created at its start, written by `write()` before its commit. */
export class CounterBatch {
  private readonly orgs = new Map<string, Level<OrgCounters>>();
  private readonly keys = new Map<string, Level<Counters>>();
  private readonly projects = new Map<string, Level<Counters>>();
  private readonly environments = new Map<string, Level<Counters>>();

  constructor(private readonly st: BatchStatements) {}

  private levelsFor(d: Delta): OpLevels {
    const project = d.project === null ? null : level(this.projects, JSON.stringify([d.org, d.project]), d);
    const environment = d.project === null || d.environment === null ? null : level(this.environments, JSON.stringify([d.org, d.project, d.environment]), d);
    return { org: level(this.orgs, d.org, d), key: level(this.keys, d.key, d), project, environment };
  }

  /**
   * Decides a hold of `hold.reserve` like `reserve` does, against the counters as the earlier
   * operations of the batch left them, reading the levels not read yet in this batch. Granted, it is
   * counted; refused, it throws the GatewayError and changes nothing.
   */
  hold(hold: Delta): void {
    const l = this.levelsFor(hold);
    const unread = [l.org, l.key, l.project, l.environment].some((x) => x !== null && x.base === undefined);
    // (no organization row: refused whatever the other levels hold, nothing more to read)
    if (unread && l.org.base !== null) {
      const row = readLevels(this.st, hold);
      const read = levelsOf(row);
      if (l.org.base === undefined) l.org.base = read.org;
      // no row at all says nothing about the other levels (the organization is missing)
      if (row !== undefined) {
        if (l.key.base === undefined) l.key.base = read.key;
        if (l.project !== null && l.project.base === undefined) l.project.base = read.project;
        if (l.environment !== null && l.environment.base === undefined) l.environment.base = read.environment;
      }
    }
    const org = l.org.base ? { reserved: l.org.base.reserved + l.org.delta.reserve, spent: l.org.base.spent + l.org.delta.cost, cap: l.org.base.cap, balance: l.org.base.balance - l.org.delta.cost } : null;
    checkHold(hold, { org, key: current(l.key), project: l.project && current(l.project), environment: l.environment && current(l.environment) });
    this.add(hold, l);
  }

  /** Counts a change (an end: −amount reserved, +cost spent) at every level of `d`, read or not. */
  add(d: Delta, l: OpLevels = this.levelsFor(d)): void {
    for (const x of [l.org, l.key, l.project, l.environment]) {
      if (x === null) continue;
      x.delta.reserve += d.reserve;
      x.delta.cost += d.cost;
    }
  }

  /** One bump per level the batch changed (inside the transaction, before the commit). */
  write(): void {
    const writes: [LevelKind, Map<string, Level<Counters>>][] = [
      ['org', this.orgs],
      ['key', this.keys],
      ['project', this.projects],
      ['environment', this.environments],
    ];
    for (const [kind, map] of writes) for (const { delta } of map.values()) if (delta.reserve !== 0 || delta.cost !== 0) bump(this.st, kind, delta);
  }
}
