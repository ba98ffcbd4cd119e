// What a request's usage costs, from typed inputs only (the catalog, the served model, the usage):
// the client encoders report it inside the answer (Chat Completions, Responses, transcriptions) and
// settle charges it, so both read the same number from the same function. Dialect encoders import
// this file, never a stage.
import type { Usage } from '../chunks.js';
import type { Catalog } from '../catalog.js';
import { priceOf, totalCostUnits } from '../pricing.js';

/**
 * The cost in units of `usage` at the prices of the catalog model `modelId` (plus per-minute audio
 * when `audioSeconds` is given); 0 without a served model.
 */
export function costOfUsage(catalog: Pick<Catalog, 'get'>, modelId: string | undefined, usage: Usage | null, audioSeconds: number | null = null): number {
  if (modelId === undefined) return 0;
  const model = catalog.get(modelId);
  if (model === undefined) return 0;
  return totalCostUnits(priceOf(model), usage, audioSeconds);
}

/** Tokens a request used, as rate limits count them: every input token (cached or not) and output. */
export function tokensUsed(usage: Usage | null): number {
  return usage === null ? 0 : usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
}
