// Registry of request encoders: (client dialect, deployment API) → the upstream request. A
// same-dialect pair forwards the validated body natively (the dialect's own `upstream` encoder);
// other pairs translate (lib/translate/index.ts).
import type { Deployment, DialectName, RoutedRequest } from '../chunks.js';
import { errors } from '../errors/index.js';
import { translators } from '../translate/index.js';
import type { Dialect, EncodedCall, RequestEncoder } from './dialect.js';

type Pair = `${DialectName}>${Deployment['api']}`;

const encoders = new Map<Pair, RequestEncoder>();

/** Fill the table from the dialects (native pairs) and the translators (the others). */
export function initRequestEncoders(dialects: readonly Dialect[]): void {
  for (const d of dialects) if (d.upstream) encoders.set(`${d.name}>${d.upstream.api}`, d.upstream.encodeRequest);
  for (const [source, api, encoder] of translators) encoders.set(`${source}>${api}`, encoder);
}

export function registerRequestEncoder(source: DialectName, api: Deployment['api'], encoder: RequestEncoder): void {
  encoders.set(`${source}>${api}`, encoder);
}

export function canEncode(source: DialectName, api: Deployment['api']): boolean {
  return encoders.has(`${source}>${api}`);
}

export function encodeUpstreamRequest(routed: RoutedRequest, deployment: Deployment): EncodedCall {
  const encoder = encoders.get(`${routed.request.source}>${deployment.api}`);
  if (!encoder) {
    throw errors.apiUnreachable(routed.modelId, deployment.api);
  }
  return encoder(routed, deployment);
}
