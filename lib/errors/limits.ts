// What a key may spend: its rate limit (429), the organization's credits and the spend caps (402).
import { defineError } from '../errors.js';
import { formatUsd } from '../pricing.js';
import type { CapLevel } from '../store/types.js';

/** where each cap level's limit is set in the gateway config */
const CAP_FIELD: Record<CapLevel, string> = {
  key: 'keys[].spendCap',
  environment: 'orgs[].projects[].environments[].spendCap',
  project: 'orgs[].projects[].spendCap',
  organization: 'orgs[].spendCap',
};

/** a positive amount held by requests in progress, as the credit messages show it */
function heldNote(balance: number, reserved: number): string {
  return reserved > 0 ? ` (balance ${formatUsd(balance)}, ${formatUsd(reserved)} held by requests in progress)` : '';
}

export const limitErrors = {
  /** `reasons`: the limits passed ("60 requests per minute"); `headers`: the dialect's rate-limit headers, retry-after is added here */
  rateLimited: defineError(
    'GW_ERR_RATE_LIMITED',
    (keyId: string, reasons: readonly string[], retryAfter: number, _headers?: Record<string, string>) => `Rate limit reached for key ${keyId}: ${reasons.join(' and ')}. Retry after ${retryAfter} seconds. The limits are \`keys[].rateLimit\` in the gateway config.`,
    (_keyId, _reasons, retryAfter, headers) => ({ headers: { 'retry-after': String(retryAfter), ...headers } }),
  ),
  /**
   * `limits` is configured (Redis) but cannot be reached: a request that needs a rate-limit decision
   * is refused before any provider work (never run unlimited); retry-after 1
   */
  limitsUnreachable: defineError(
    'GW_ERR_UNAVAILABLE',
    (_cause?: unknown) => 'The gateway cannot check rate limits right now (its limits store, Redis, is unreachable); nothing was processed. Retry shortly.',
    (cause?: unknown) => ({ headers: { 'retry-after': '1' }, cause }),
  ),
  /** amounts in ledger units; `balance` and `reserved` are the organization's */
  creditsInsufficient: defineError('GW_ERR_CREDITS_INSUFFICIENT', (available: number, balance: number, reserved: number, amount: number) => `Insufficient credits: the organization has ${formatUsd(available)} available${heldNote(balance, reserved)} and this request may cost up to ${formatUsd(amount)}. Add credits to continue.`),
  /** `name` spells out the level ("the project p1"); amounts in ledger units */
  spendCapExceeded: defineError(
    'GW_ERR_SPEND_CAP_EXCEEDED',
    (level: CapLevel, name: string, cap: number, spent: number, reserved: number, amount: number) => `Spend cap of ${name} reached (cap ${formatUsd(cap)}, spent ${formatUsd(spent)}${reserved > 0 ? `, ${formatUsd(reserved)} held by requests in progress` : ''}, this request may cost up to ${formatUsd(amount)}). The cap is \`${CAP_FIELD[level]}\` in the gateway config.`,
    (level) => ({ param: level }),
  ),
};
