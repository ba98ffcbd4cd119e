// The PostgreSQL schema: the same tables and meaning as the SQLite migrations (../migrations.ts),
// money as BIGINT units (1e-9 USD), times as BIGINT milliseconds. pg-migrations.ts applies them in
// order.

/** The usage table's columns (after its `seq`), shared with the batch function's insert (pg-batch-function.ts). */
export const USAGE_COLUMNS = `request_id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    project TEXT,
    environment TEXT,
    endpoint TEXT NOT NULL,
    model_requested TEXT,
    model_served TEXT,
    provider TEXT,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    cache_read_tokens BIGINT NOT NULL DEFAULT 0,
    cache_write_tokens BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens BIGINT NOT NULL DEFAULT 0,
    web_searches BIGINT NOT NULL DEFAULT 0,
    audio_seconds DOUBLE PRECISION,
    cost BIGINT NOT NULL,
    call_name TEXT,
    end_user_id TEXT,
    status INTEGER NOT NULL,
    error_code TEXT,
    latency_ms BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    routing TEXT`;

export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    balance BIGINT NOT NULL DEFAULT 0,
    spend_cap BIGINT,
    spent BIGINT NOT NULL DEFAULT 0,
    reserved BIGINT NOT NULL DEFAULT 0
  );
  CREATE TABLE projects (
    org TEXT NOT NULL REFERENCES orgs(id),
    id TEXT NOT NULL,
    spend_cap BIGINT,
    spent BIGINT NOT NULL DEFAULT 0,
    reserved BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (org, id)
  );
  CREATE TABLE environments (
    org TEXT NOT NULL,
    project TEXT NOT NULL,
    id TEXT NOT NULL,
    spend_cap BIGINT,
    spent BIGINT NOT NULL DEFAULT 0,
    reserved BIGINT NOT NULL DEFAULT 0,
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
    spend_cap BIGINT,
    rpm INTEGER,
    tpm INTEGER,
    spent BIGINT NOT NULL DEFAULT 0,
    reserved BIGINT NOT NULL DEFAULT 0,
    source TEXT NOT NULL DEFAULT 'config',
    disabled BOOLEAN NOT NULL DEFAULT false
  );
  CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    org TEXT NOT NULL,
    project TEXT,
    environment TEXT,
    amount BIGINT NOT NULL,
    boot_id TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX reservations_owner ON reservations(boot_id);
  CREATE TABLE usage (
    seq BIGSERIAL,
    ${USAGE_COLUMNS}
  );
  CREATE INDEX usage_key ON usage(key_id, created_at);
  CREATE INDEX usage_org ON usage(org, created_at);
  CREATE TABLE credit_events (
    seq BIGSERIAL PRIMARY KEY,
    org TEXT NOT NULL,
    amount BIGINT NOT NULL,
    reason TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE TABLE leases (
    owner TEXT PRIMARY KEY,
    machine TEXT,
    pid INTEGER,
    expires_at BIGINT NOT NULL
  );
  CREATE TABLE key_epoch (n BIGINT NOT NULL);
  INSERT INTO key_epoch (n) VALUES (0);
  CREATE FUNCTION gateway_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    UPDATE key_epoch SET n = n + 1;
    PERFORM pg_notify('gateway_keys', '');
    RETURN NULL;
  END
  $fn$;
  CREATE TRIGGER keys_changed AFTER INSERT OR DELETE OR UPDATE OF hash, org, project, environment, scopes, models, spend_cap, rpm, tpm, disabled
    ON keys FOR EACH STATEMENT EXECUTE FUNCTION gateway_keys_changed();
  `,
  // 2: the admin API (as SQLite's migration 4)
  `
  ALTER TABLE orgs ADD COLUMN source TEXT NOT NULL DEFAULT 'config';
  ALTER TABLE projects ADD COLUMN source TEXT NOT NULL DEFAULT 'config';
  ALTER TABLE environments ADD COLUMN source TEXT NOT NULL DEFAULT 'config';
  ALTER TABLE keys ADD COLUMN name TEXT;
  ALTER TABLE keys ADD COLUMN hint TEXT;
  ALTER TABLE keys ADD COLUMN created_at BIGINT;
  ALTER TABLE keys ADD COLUMN revoked_at BIGINT;
  CREATE TABLE audit (
    seq BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT NOT NULL
  );
  CREATE INDEX usage_created ON usage(created_at);
  CREATE INDEX usage_seq ON usage(seq);
  `,
  // 3: the requests cursor in commit-safe order. A row's seq is drawn when it is inserted, not when its
  // transaction commits, so a row can become visible below rows a reader has already passed. Each row
  // keeps the id of the transaction that wrote it: the recent-requests read orders by (txid, seq) and
  // answers only rows whose txid is below the oldest transaction still running, a place no later
  // commit can write under (admin-usage-ops.ts). Rows written before this migration share its txid.
  // The seq index served only that read: an insert maintains as many indexes as before.
  `
  ALTER TABLE usage ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
  CREATE INDEX usage_commit_order ON usage(txid, seq);
  DROP INDEX usage_seq;
  `,
];
