// The Responses decoder marks a block-stop `complete` only when the upstream itself said the item
// is done and whole (its output_item.done, or a whole Response's item, with status completed or
// none); an item done as `incomplete`, or closed at the terminal event without a done event, stays
// unmarked, so the integrity stage treats a last tool call at the limit as it does any upstream's.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent } from '../../../lib/chunks.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { DIR } from './harness.js';

/** each block-stop's index and mark */
const stops = (events: CanonicalEvent[]): [number, boolean][] =>
  events.flatMap((e) => (e.type === 'block-stop' ? [[e.index, e.complete === true] as [number, boolean]] : []));

function decodeSse(text: string): CanonicalEvent[] {
  const d = responsesDecoder();
  return text.split('\n\n').filter((f) => f.trim() !== '').flatMap((f) => {
    const event = /^event: (.*)$/m.exec(f)?.[1];
    const data = /^data: (.*)$/m.exec(f)![1]!;
    return d.sse({ event, data });
  });
}

t.test('recorded answers: items said completed are marked, a message done as incomplete is not', async (t) => {
  t.same(stops(decodeSse(readFileSync(`${DIR}/function-calls-parallel.sse`, 'utf8'))), [[0, true], [1, true]], 'stream: both calls done, completed');
  t.same(stops(responsesDecoder().json(readFileSync(`${DIR}/function-calls-parallel.json`, 'utf8'))), [[0, true], [1, true], [2, true]], 'whole Response: its three calls completed');
  t.same(stops(decodeSse(readFileSync(`${DIR}/incomplete-max-output-tokens.sse`, 'utf8'))), [[0, false]], 'a message done with status incomplete');
});

t.test('a function call never said done before response.incomplete: its stop, at the finish, unmarked', async (t) => {
  let seq = 0;
  const frame = (type: string, fields: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`;
  const response = (status: string): Record<string, unknown> => ({
    id: 'resp_1', object: 'response', model: 'gpt-5', status, output: [],
    usage: status === 'in_progress' ? null : { input_tokens: 5, output_tokens: 9, total_tokens: 14 },
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
  });
  const call = { id: 'fc_1', type: 'function_call', status: 'in_progress', call_id: 'call_1', name: 'bash', arguments: '' };
  const head = frame('response.created', { response: response('in_progress') }) + frame('response.output_item.added', { output_index: 0, item: call })
    + frame('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: '{"command":"ls"}' });
  const cut = decodeSse(head + frame('response.incomplete', { response: response('incomplete') }));
  t.same(stops(cut), [[0, false]], 'closed at the finish: unmarked');
  seq = 3;
  const doneAs = (status: string): CanonicalEvent[] =>
    decodeSse(head + frame('response.output_item.done', { output_index: 0, item: { ...call, status, arguments: '{"command":"ls"}' } }) + frame('response.incomplete', { response: response('incomplete') }));
  t.same(stops(doneAs('completed')), [[0, true]], 'done as completed: marked');
  seq = 3;
  t.same(stops(doneAs('incomplete')), [[0, false]], 'done as incomplete: unmarked');
});
