// Schema migrations, applied in order at open; PRAGMA user_version records how many ran.
// Money columns are integers of UNITS_PER_USD (nano-dollars).

/**
 * The page size of a database file this gateway creates (set before anything is written; a file that
 * exists keeps its own). Each commit of the ledger writes every page it changed to the WAL whole,
 * checksummed, and a batch of holds and settles changes 9-10 pages (a reservations page, the orgs
 * and keys counters, the usage table, its request-id key and its three indexes), so 2 KB pages
 * halve the bytes copied and checksummed per commit: 34 -> 29 µs of CPU per commit (batches of 3
 * holds + 3 settles, WAL overwritten in place as the checkpointer leaves it). Not smaller: at 1 KB a
 * reservations row with long names
 * would spill into an overflow page, one more page per hold, and commits were no cheaper.
 * An existing 4 KB file is not converted: that takes a VACUUM, which rewrites the whole file
 * while every other process on it waits, and leaves WAL mode meanwhile.
 */
export const NEW_FILE_PAGE_SIZE = 2048;

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    balance INTEGER NOT NULL DEFAULT 0,
    spend_cap INTEGER,
    spent INTEGER NOT NULL DEFAULT 0,
    reserved INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE projects (
    org TEXT NOT NULL REFERENCES orgs(id),
    id TEXT NOT NULL,
    spend_cap INTEGER,
    spent INTEGER NOT NULL DEFAULT 0,
    reserved INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (org, id)
  );
  CREATE TABLE environments (
    org TEXT NOT NULL,
    project TEXT NOT NULL,
    id TEXT NOT NULL,
    spend_cap INTEGER,
    spent INTEGER NOT NULL DEFAULT 0,
    reserved INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (org, project, id)
  );
  CREATE TABLE keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    org TEXT NOT NULL REFERENCES orgs(id),
    project TEXT,
    environment TEXT,
    scopes TEXT NOT NULL DEFAULT '[]',
    models TEXT NOT NULL DEFAULT '[]',
    spend_cap INTEGER,
    rpm INTEGER,
    tpm INTEGER,
    spent INTEGER NOT NULL DEFAULT 0,
    reserved INTEGER NOT NULL DEFAULT 0,
    source TEXT NOT NULL DEFAULT 'config',
    disabled INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    project TEXT,
    environment TEXT,
    amount INTEGER NOT NULL,
    boot_id TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE usage (
    request_id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    project TEXT,
    environment TEXT,
    endpoint TEXT NOT NULL,
    model_requested TEXT,
    model_served TEXT,
    provider TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    web_searches INTEGER NOT NULL DEFAULT 0,
    audio_seconds REAL,
    cost INTEGER NOT NULL,
    call_name TEXT,
    end_user_id TEXT,
    status INTEGER NOT NULL,
    error_code TEXT,
    latency_ms INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX usage_key ON usage(key_id, created_at);
  CREATE INDEX usage_org ON usage(org, created_at);
  CREATE TABLE credit_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    org TEXT NOT NULL,
    amount INTEGER NOT NULL,
    reason TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  // 2: leases (lib/store/lease.ts): each serving process renews its row; a reservation's boot_id is
  // its owner, and only the holds of owners whose lease is gone are swept. key_epoch counts changes
  // to the keys table's attributes (triggers; not its spend counters), so every process sharing the file notices a revoked key.
  `
  CREATE TABLE leases (
    owner TEXT PRIMARY KEY,
    machine TEXT,
    pid INTEGER,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX reservations_owner ON reservations(boot_id);
  CREATE TABLE key_epoch (n INTEGER NOT NULL);
  INSERT INTO key_epoch (n) VALUES (0);
  CREATE TRIGGER keys_changed_insert AFTER INSERT ON keys BEGIN UPDATE key_epoch SET n = n + 1; END;
  CREATE TRIGGER keys_changed_update AFTER UPDATE OF hash, org, project, environment, scopes, models, spend_cap, rpm, tpm, disabled ON keys BEGIN UPDATE key_epoch SET n = n + 1; END;
  CREATE TRIGGER keys_changed_delete AFTER DELETE ON keys BEGIN UPDATE key_epoch SET n = n + 1; END;
  `,
  // 3: gateway-auto's decision (the top candidates with predicted quality and expected cost, and why)
  `
  ALTER TABLE usage ADD COLUMN routing TEXT;
  `,
  // 4: the admin API (lib/admin/): where an org, project or environment came from (the config's
  // seed changes only its own), a key's name, times and the last characters of its secret (to
  // tell keys apart; the secret itself is never stored), the audit log, and an index for the usage
  // queries by time
  `
  ALTER TABLE orgs ADD COLUMN source TEXT NOT NULL DEFAULT 'config';
  ALTER TABLE projects ADD COLUMN source TEXT NOT NULL DEFAULT 'config';
  ALTER TABLE environments ADD COLUMN source TEXT NOT NULL DEFAULT 'config';
  ALTER TABLE keys ADD COLUMN name TEXT;
  ALTER TABLE keys ADD COLUMN hint TEXT;
  ALTER TABLE keys ADD COLUMN created_at INTEGER;
  ALTER TABLE keys ADD COLUMN revoked_at INTEGER;
  CREATE TABLE audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT NOT NULL
  );
  CREATE INDEX usage_created ON usage(created_at);
  `,
  // 5: the reservations table holds only the holds in flight (a row is inserted by a hold and
  // deleted by its end), yet each of those two writes went through three b-trees: the rowid table,
  // the index of its TEXT primary key, and reservations_owner. A WITHOUT ROWID table is one b-tree
  // keyed by id; the owner index goes, since the only readers by owner (the stale sweep at start and
  // on a lease check) scan a table of in-flight rows anyway. Every commit of the ledger's batches
  // writes two fewer pages: 25-28 % less time per reserve + settle in batches of 3 to 8 (bench/ab.ts notes).
  `
  DROP INDEX reservations_owner;
  CREATE TABLE reservations_new (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    project TEXT,
    environment TEXT,
    amount INTEGER NOT NULL,
    boot_id TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO reservations_new (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    SELECT id, request_id, key_id, org, project, environment, amount, boot_id, created_at FROM reservations;
  DROP TABLE reservations;
  ALTER TABLE reservations_new RENAME TO reservations;
  `,
  // 6: one usage index instead of three. Each settle inserted its row into usage_key (key, time),
  // usage_org (org, time) and usage_created (time): three more pages in every ledger commit, and
  // one more per distinct key and organization of the batch. usage_org_time (org, time, key) serves
  // the three reads with key_orgs, every (key, organization) pair a usage row was ever written with
  // (a trigger adds a new pair; it writes nothing for a known one, i.e. almost always): a read by
  // organization is the range it was; by key, the ranges of the key's organizations, the key
  // compared in the index; by time alone, one range per organization (admin-usage-ops.ts). Mixed
  // batches of 3 holds + 3 settles (bench/store-pages.ts): 10.9 -> 8.1 pages per commit with one
  // key, 18.3 -> 12.9 with 50 keys of 10 organizations (timings in the commit message). On an
  // existing file it takes about 1.3 s per million usage rows (filling key_orgs without DISTINCT's
  // sort: 0.4 s instead of 3.6; building the index: 0.9 s), holding the write lock meanwhile.
  `
  CREATE TABLE key_orgs (
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    PRIMARY KEY (key_id, org)
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO key_orgs (key_id, org) SELECT key_id, org FROM usage;
  CREATE TRIGGER usage_key_org_insert AFTER INSERT ON usage BEGIN
    INSERT INTO key_orgs (key_id, org) SELECT new.key_id, new.org
      WHERE NOT EXISTS (SELECT 1 FROM key_orgs WHERE key_id = new.key_id AND org = new.org);
  END;
  CREATE TRIGGER usage_key_org_update AFTER UPDATE OF key_id, org ON usage BEGIN
    INSERT INTO key_orgs (key_id, org) SELECT new.key_id, new.org
      WHERE NOT EXISTS (SELECT 1 FROM key_orgs WHERE key_id = new.key_id AND org = new.org);
  END;
  DROP INDEX usage_key;
  DROP INDEX usage_org;
  DROP INDEX usage_created;
  CREATE INDEX usage_org_time ON usage(org, created_at, key_id);
  `,
  // 7: key_orgs is kept by the ledger (key-org-pairs.ts), not by a trigger on every usage insert
  // (about 1 µs per row: 4.5 -> 3.5 µs per insert, the trigger's program running to find the pair
  // known). Writers that are not this ledger, chiefly a process of the previous version still
  // serving during a rolling upgrade, take their rows' pairs from the keys table: so every key's
  // (id, organization) goes into key_orgs too, now and whenever a key is added or moves. key_orgs
  // may then name a pair no usage row has; reads search its range and find nothing there. The
  // trigger on usage updates (a row moved to another key or organization) stays. (Not `INSERT OR
  // IGNORE` in the triggers: the upsert that fires them (seed-keys.ts) imposes its own conflict
  // policy on them, and a known pair would then fail the seed.)
  `
  DROP TRIGGER usage_key_org_insert;
  INSERT OR IGNORE INTO key_orgs (key_id, org) SELECT id, org FROM keys;
  CREATE TRIGGER keys_key_org_insert AFTER INSERT ON keys BEGIN
    INSERT INTO key_orgs (key_id, org) SELECT new.id, new.org
      WHERE NOT EXISTS (SELECT 1 FROM key_orgs WHERE key_id = new.id AND org = new.org);
  END;
  CREATE TRIGGER keys_key_org_update AFTER UPDATE OF id, org ON keys BEGIN
    INSERT INTO key_orgs (key_id, org) SELECT new.id, new.org
      WHERE NOT EXISTS (SELECT 1 FROM key_orgs WHERE key_id = new.id AND org = new.org);
  END;
  `,
  // 8: a reservation row sits at a slot, its rowid, that its process reuses (reservation-slots.ts):
  // a new hold takes the place of a row an end of its own batch deleted. Keyed by its time-ordered
  // id (migration 5), the table gained rows at one end and lost them at the other while requests of
  // about equal length were in flight, and SQLite rebalanced pages at both ends: with 64 holds in
  // flight a batch of 3 holds + 3 ends wrote 5.5 reservations pages (1.0 with none in flight), and
  // with slots 1.5. The id is no longer a key: a hold of this process is ended by its slot (and id),
  // any other by its id, scanning the rows in flight (as the sweep by owner does). A process of the
  // previous version still serving (a rolling upgrade) inserts rows at new rowids and deletes by id.
  `
  CREATE TABLE reservations_new (
    slot INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    project TEXT,
    environment TEXT,
    amount INTEGER NOT NULL,
    boot_id TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  INSERT INTO reservations_new (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    SELECT id, request_id, key_id, org, project, environment, amount, boot_id, created_at FROM reservations;
  DROP TABLE reservations;
  ALTER TABLE reservations_new RENAME TO reservations;
  `,
];
