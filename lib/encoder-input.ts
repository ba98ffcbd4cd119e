// What a client encoder knows about the request it answers, learned from the chain's notes
// (lib/notes.ts) by the encode stage: the routed request (the served model, the client's fields),
// the validated usage so far and its cost, and the request id the client sees. Dialect encoders
// read this, never the request context.
import type { Catalog } from './catalog.js';
import type { RoutedRequest, Usage } from './chunks.js';
import { costOfUsage } from './billing/cost.js';
import type { ChainNote } from './notes.js';
import type { Sealer } from './search/seal.js';

export interface EncoderInput {
  /** the gateway's own request id */
  readonly reqId: string;
  /** the id the client sees in `request-id`: an Anthropic upstream's for a Messages client, else `reqId` */
  readonly requestId: string;
  readonly routed: RoutedRequest | null;
  /** validated usage so far (the integrity stage's usage notes); null before any */
  readonly usage: Usage | null;
  /** the cost in units of `usage` at the served model's prices: what settle charges */
  cost(): number;
  /** seals what a Messages client carries back unread (web-search blocks, lib/search/seal.ts); absent: the process key */
  readonly sealer?: Sealer;
}

/** An EncoderInput kept up to date from the notes the encode stage hears. */
export class EncoderState implements EncoderInput {
  requestId: string;
  routed: RoutedRequest | null;
  usage: Usage | null = null;

  constructor(
    readonly reqId: string,
    /** the catalog the served model is priced from; absent offline (the cost is then 0) */
    private readonly catalog: Pick<Catalog, 'get'> | undefined,
    routed: RoutedRequest | null = null,
    readonly sealer?: Sealer,
  ) {
    this.requestId = reqId;
    this.routed = routed;
  }

  note(n: ChainNote): void {
    if (n.note === 'routed') this.routed = n.routed;
    else if (n.note === 'usage') this.usage = n.usage;
    else if (n.note === 'headers') {
      const shown = n.headers['request-id'];
      if (shown !== undefined) this.requestId = shown;
    }
  }

  cost(): number {
    if (this.routed === null || this.usage === null || this.catalog === undefined) return 0;
    return costOfUsage(this.catalog, this.routed.modelId, this.usage);
  }
}
