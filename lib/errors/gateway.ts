// The gateway's own state: shutting down, a lost client, an upload it cannot store, its own bugs.
import { defineError } from '../errors.js';

export const gatewayErrors = {
  shuttingDown: defineError('GW_ERR_UNAVAILABLE', () => 'The gateway is shutting down; retry shortly.'),
  shutDownMidRequest: defineError('GW_ERR_UNAVAILABLE', () => 'The gateway shut down before the request finished.'),
  uploadNotStored: defineError('GW_ERR_UNAVAILABLE', (cause: unknown) => 'The gateway could not store the upload; retry shortly.', (cause) => ({ cause })),
  clientClosed: defineError('GW_ERR_CLIENT_CLOSED', () => 'The client closed the connection.'),
  uploadCutShort: defineError('GW_ERR_CLIENT_CLOSED', () => 'The request ended before the upload was read.'),
  // broken invariants of the gateway's own wiring (a bug, not a client's or provider's fault)
  noUpstreamDialect: defineError('GW_ERR_INTERNAL', () => 'provider-decode: the upstream dialect is unknown'),
  noUpstreamDecoder: defineError('GW_ERR_INTERNAL', (dialect: string) => `provider-decode: no decoder for the ${dialect} dialect`),
  noSseEncoder: defineError('GW_ERR_INTERNAL', (dialect: string) => `sse-encode: no SSE encoder for the ${dialect} dialect`),
  noJsonEncoder: defineError('GW_ERR_INTERNAL', (dialect: string) => `no JSON encoder for the ${dialect} dialect`),
  reserveWithoutKey: defineError('GW_ERR_INTERNAL', () => 'reserve-credits ran without an authenticated key.'),
  reserveModelMissing: defineError('GW_ERR_INTERNAL', (model: string) => `reserve-credits: model ${model} is not in the catalog.`),
};
