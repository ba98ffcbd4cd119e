// Keys on PostgreSQL: the reconcile of the keys table with a config (the same rules as
// ../seed-keys.ts, which explains them), and the per-process key cache the request path reads
// synchronously.
//
// The cache holds every enabled key, loaded at start and reloaded whole whenever the keys change:
// a trigger on the keys table bumps `key_epoch` and sends NOTIFY gateway_keys, which a dedicated
// connection LISTENs to, so a key revoked, rotated or disabled on any replica (its SIGHUP, the CLI,
// an admin write, psql) is refused here within milliseconds. A look at `key_epoch` every
// `checkMs` covers a lost notification (a dropped listening connection), well within one second.
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { errors } from '../../errors/index.js';
import type { KeyRow } from '../seed-keys.js';
import type { StoreLog } from '../store-api.js';

const KEY_COLUMNS = 'id, hash, org, project, environment, scopes, models, spend_cap, rpm, tpm';

/** Reconciles the keys table with the config's rows (inside the caller's transaction). */
export async function reconcileKeysPg(client: PoolClient, rows: readonly KeyRow[]): Promise<void> {
  for (const [i, row] of rows.entries()) {
    const own = (await client.query<{ source: string }>('SELECT source FROM keys WHERE id = $1', [row.id])).rows[0];
    if (own !== undefined && own.source !== 'config') throw errors.configKeyIdTaken(i, row.id, own.source);
    const holder = (await client.query<{ id: string; source: string }>('SELECT id, source FROM keys WHERE hash = $1 AND id <> $2', [row.hash, row.id])).rows[0];
    if (holder !== undefined && holder.source !== 'config') throw errors.configKeySecretTaken(i, holder.id, holder.source);
    if (holder !== undefined) await client.query('UPDATE keys SET hash = $1, disabled = true WHERE id = $2', [`retired:${holder.id}`, holder.id]);
    await client.query(
      `INSERT INTO keys (id, hash, org, project, environment, scopes, models, spend_cap, rpm, tpm, source, disabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'config', false)
       ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, org = excluded.org, project = excluded.project, environment = excluded.environment,
         scopes = excluded.scopes, models = excluded.models, spend_cap = excluded.spend_cap, rpm = excluded.rpm, tpm = excluded.tpm, disabled = false`,
      [row.id, row.hash, row.org, row.project, row.environment, row.scopes, row.models, row.spend_cap, row.rpm, row.tpm],
    );
    if (row.hint !== undefined) await client.query('UPDATE keys SET hint = $1 WHERE id = $2', [row.hint, row.id]);
  }
  await client.query("UPDATE keys SET disabled = true WHERE source = 'config' AND NOT disabled AND NOT (id = ANY($1::TEXT[]))", [rows.map((r) => r.id)]);
}

/** Every enabled key, by hash. */
export async function loadKeys(pool: Pool): Promise<Map<string, KeyRow>> {
  const { rows } = await pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM keys WHERE NOT disabled`);
  return new Map(rows.map((r) => [r.hash, r]));
}

/** Keeps a key map current: LISTEN gateway_keys, and a look at key_epoch every `checkMs`. */
export class KeyWatch {
  private listener: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private epoch = -1;
  private reloading: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly connection: pg.ClientConfig,
    private readonly onKeys: (keys: Map<string, KeyRow>) => void,
    private readonly log: StoreLog,
    private readonly checkMs = 250,
  ) {}

  async start(): Promise<void> {
    await this.listen();
    this.timer = setInterval(() => void this.check(), this.checkMs);
    this.timer.unref();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.connection);
    client.on('notification', () => this.reload());
    client.on('error', (err) => {
      // the next check reconnects; until then the epoch look covers
      this.log.warn({ err: err.message }, 'the key-change listener lost its connection; reconnecting');
      if (this.listener === client) this.listener = null;
      client.end().catch(() => undefined);
    });
    await client.connect();
    await client.query('LISTEN gateway_keys');
    this.listener = client;
  }

  private async check(): Promise<void> {
    try {
      if (this.listener === null && !this.closed) await this.listen();
      const n = (await this.pool.query<{ n: number }>('SELECT n FROM key_epoch')).rows[0]!.n;
      if (n !== this.epoch) {
        this.epoch = n;
        this.reload();
      }
    } catch (err) {
      this.log.warn({ err: String((err as Error).message ?? err) }, 'checking the keys for changes failed');
    }
  }

  /** Reloads the keys; changes during a reload trigger one more. */
  reload(): void {
    if (this.reloading !== null) {
      this.again = true;
      return;
    }
    this.reloading = loadKeys(this.pool)
      .then((keys) => this.onKeys(keys))
      .catch((err: unknown) => this.log.warn({ err: String((err as Error).message ?? err) }, 'reloading the keys failed'))
      .finally(() => {
        this.reloading = null;
        if (this.again) {
          this.again = false;
          this.reload();
        }
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.reloading;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }
}
