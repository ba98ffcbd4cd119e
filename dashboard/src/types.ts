// The admin API's shapes (decisions §12, the admin contract), as the dashboard reads them. Written
// out here rather than imported from lib/: the page compiles for the browser, without Node's types.

export interface Org {
  id: string;
  balance: number;
  spendCap: number | null;
  spent: number;
  reserved: number;
  source: 'config' | 'admin';
}

export interface Environment {
  id: string;
  spendCap: number | null;
  spent: number;
}

export interface Project {
  id: string;
  org: string;
  spendCap: number | null;
  spent: number;
  reserved: number;
  environments: Environment[];
}

export interface OrgDetail extends Org {
  projects: Project[];
}

export interface Key {
  id: string;
  org: string;
  project: string | null;
  environment: string | null;
  name: string | null;
  scopes: string[];
  models: string[];
  spendCap: number | null;
  spent: number;
  reserved: number;
  source: 'config' | 'admin';
  revoked: boolean;
  createdAt: string | null;
  revokedAt: string | null;
  /** 'sk-gw-…abcd'; null for keys from the config file */
  hint: string | null;
}

/** POST /admin/v1/keys answers the key and, this once, its secret */
export interface CreatedKey extends Key {
  key: string;
}

export interface UsageSums {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  webSearches: number;
  usd: number;
}

export type GroupBy = 'day' | 'model' | 'key' | 'project' | 'end_user';

export interface UsageRow extends UsageSums {
  /** null: requests without one (no project, no end user) */
  group: string | null;
}

export interface Usage {
  group_by: GroupBy;
  data: UsageRow[];
  total: UsageSums;
}

export interface RoutingCandidate {
  id: string;
  quality: number;
  costUsd: number;
}

export interface RoutingDecision {
  reason: string;
  target: number;
  choice: string;
  pinned?: string;
  candidates: RoutingCandidate[];
  eligible: number;
}

export interface RequestRecord {
  requestId: string;
  at: string;
  endpoint: string;
  requestedModel: string | null;
  servedModel: string | null;
  provider: string | null;
  routing: RoutingDecision | null;
  status: number;
  errorCode: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  usd: number;
  latencyMs: number | null;
  key: string | null;
  org: string | null;
  project: string | null;
}

export interface List<T> {
  data: T[];
}

export interface RequestPage extends List<RequestRecord> {
  hasMore: boolean;
  /** newest-first pages: where the next older page starts */
  nextBefore?: string | null;
  /** where the rows newer than this page start (`after=`) */
  nextAfter: string | null;
}

export interface AuditEntry {
  seq: number;
  at: string;
  /** the admin credential's fingerprint, never the key */
  actor: string;
  action: string;
  target: string;
  detail: unknown;
}
