// A key and a usage row for the store tests that write usage directly (the fields an answer would fill).
import type { KeyRecord, UsageRecord } from '../../lib/store/types.js';

export const keyRecord = (id: string, org: string): KeyRecord => ({ id, org, project: null, environment: null, scopes: [], models: [], spendCap: null, rateLimit: { rpm: null, tpm: null } });

export function usageRecord(requestId: string, key: KeyRecord, cost: number): UsageRecord {
  return {
    requestId, keyId: key.id, org: key.org, project: null, environment: null, endpoint: 'chat', modelRequested: 'm', modelServed: 'm',
    provider: 'sim', inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, webSearches: 0,
    audioSeconds: null, cost, callName: null, endUserId: null, status: 200, errorCode: null, latencyMs: 1,
  };
}
