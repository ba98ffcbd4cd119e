// What an admin operation (orgs.ts, keys.ts, credits.ts, usage.ts, requests.ts, audit.ts) works
// with, whoever calls it: the HTTP routes (router.ts) or the CLI (lib/cli/).
import type { Catalog } from '../catalog.js';
import type { GatewayStore } from '../store/store-api.js';

export interface AdminContext {
  readonly store: GatewayStore;
  /** the catalog key model allowlists are checked against */
  readonly catalog: Catalog;
  /** who acts, as the audit log records it: `admin:<fingerprint>` or `cli:<user>`, never a secret */
  readonly actor: string;
  /** tell the other processes sharing the limits (Redis, the cluster primary) that the keys changed */
  readonly keysChanged?: () => void;
}
