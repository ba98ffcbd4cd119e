// A non-streaming Response object → the same CanonicalEvent sequence a stream gives: message-start
// (id, model, zero usage), the blocks of every output item in order (items.ts: each block-start
// carries the COMPLETE block), message-delta (stop reason + usage), message-stop. A Response whose
// `status` is `failed` (or that carries an `error` object) gives one `error` event. Every event
// carries the whole body as its native frame (event name "response").
import { emptyUsage, type CanonicalEvent } from '../../chunks.js';
import { completeItemEvents, type Tally } from './items.js';
import {
  errorFromResponses, integrityError, isObject, optionalString, parseObject, requireString, responsesFrame, stopFromResponse, usageFromResponse,
} from './wire.js';

export function decodeResponsesBody(body: string): CanonicalEvent[] {
  const response = parseObject(body, 'response');
  const native = responsesFrame('response', body, response);
  const status = optionalString(response, 'status', 'response');
  if (status === 'failed' || isObject(response.error)) return [{ type: 'error', error: errorFromResponses(response.error), native }];
  if (status !== 'completed' && status !== 'incomplete') {
    throw integrityError(`response.status is ${JSON.stringify(status ?? null)}, expected "completed" or "incomplete"`);
  }
  const id = requireString(response, 'id', 'response');
  const model = optionalString(response, 'model', 'response') ?? '';
  const output = response.output;
  if (!Array.isArray(output)) throw integrityError('response.output must be an array');

  const events: CanonicalEvent[] = [
    { type: 'message-start', id, model, usage: emptyUsage(), native },
  ];
  const tally: Tally = { toolCalls: false, webSearches: 0 };
  let index = 0;
  for (let i = 0; i < output.length; i++) index = completeItemEvents(output[i], index, native, `response.output[${i}]`, tally, events);
  events.push(
    {
      type: 'message-delta',
      stop: stopFromResponse(response, status, tally.toolCalls, 'response'),
      usage: usageFromResponse(response, tally.webSearches, 'response'),
      native,
    },
    { type: 'message-stop', native },
  );
  return events;
}
