// Registry of request encoders: (client dialect, deployment API) → the upstream request. A
// same-dialect pair forwards the validated body natively (the dialect's own `upstream` encoder);
// other pairs translate (lib/translate/index.ts).
import type { Deployment, DialectName, RoutedRequest } from '../chunks.js';
import { errors } from '../errors/index.js';
import { translators } from '../translate/index.js';
import type { Dialect, EncodedCall, RequestEncoder } from './dialect.js';

/**
 * client dialect → deployment API → encoder: two lookups by interned strings, not a key joined per
 * request (a new string, hashed on every lookup)
 */
const encoders = new Map<DialectName, Map<Deployment['api'], RequestEncoder>>();

function put(source: DialectName, api: Deployment['api'], encoder: RequestEncoder): void {
  let bySource = encoders.get(source);
  if (bySource === undefined) encoders.set(source, (bySource = new Map()));
  bySource.set(api, encoder);
}

/** Fill the table from the dialects (native pairs) and the translators (the others). */
export function initRequestEncoders(dialects: readonly Dialect[]): void {
  for (const d of dialects) if (d.upstream) put(d.name, d.upstream.api, d.upstream.encodeRequest);
  for (const [source, api, encoder] of translators) put(source, api, encoder);
}

export function registerRequestEncoder(source: DialectName, api: Deployment['api'], encoder: RequestEncoder): void {
  put(source, api, encoder);
}

export function canEncode(source: DialectName, api: Deployment['api']): boolean {
  return encoders.get(source)?.has(api) === true;
}

export function encodeUpstreamRequest(routed: RoutedRequest, deployment: Deployment): EncodedCall {
  const encoder = encoders.get(routed.request.source)?.get(deployment.api);
  if (!encoder) {
    throw errors.apiUnreachable(routed.modelId, deployment.api);
  }
  return encoder(routed, deployment);
}
