// What a Responses writer (client-encode-writer.ts) reads of its request before any event: the
// validated request's facts, and the response id derived from the gateway's request id.
import type { EncoderInput } from '../../encoder-input.js';
import { responsesFacts, type ResponsesFacts } from './client-validate.js';

const EMPTY_FACTS: ResponsesFacts = {
  effort: undefined, effortDefaulted: false, reasoningGiven: false, summary: undefined, includeEncrypted: false,
  functions: [], customTools: new Set(), clientTools: { shell: false, applyPatch: false }, webSearch: [], callable: new Map(),
};

export function factsFor(input: EncoderInput): ResponsesFacts {
  const req = input.routed?.request;
  return req !== undefined && req.source === 'openai-responses' ? responsesFacts(req) : EMPTY_FACTS;
}

const NOT_ALNUM = /[^A-Za-z0-9]/;

/** `resp_…` from the request id (`req_<hex>`): without its `req_`, and any character but letters and digits (the replace only when there is one) */
export function baseId(requestId: string): string {
  const rest = requestId.startsWith('req_') ? requestId.slice(4) : requestId;
  return NOT_ALNUM.test(rest) ? rest.replace(/[^A-Za-z0-9]/g, '') : rest;
}
