// A later stateless turn that sends back the web-search blocks the gateway wrote (server_tool_use,
// web_search_tool_result, cited text) is checked and replayed to any upstream (decisions §11): the
// sealed values open under the configured webSearch.sealKey into text the next model reads; an
// Anthropic deployment never receives them as its own hosted blocks; a changed or foreign sealed value
// is a 400 naming its path. Through bin/gateway with a scripted upstream of each dialect.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject, WebSearchCall } from '../../lib/chunks.js';
import { sealedCitation, webSearchBlocks } from '../../lib/dialects/anthropic/web-search.js';
import { resultLocation } from '../../lib/search/cite-blocks.js';
import { createSealer } from '../../lib/search/seal.js';
import { send } from '../failure-modes/clients.js';
import { anthropicJson, chatJson, JSON_HEAD, startFm, type Script } from '../failure-modes/upstream.js';
import { fixture } from '../helpers/paths.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SEAL_KEY = 'replay-test seal key 0123456789';
const sealer = createSealer(SEAL_KEY);
const SRC = { id: 'ws_abcdefghij', url: 'https://peaks.example/columbia', title: 'Mount Columbia', snippet: 'Mount Columbia is 3,747 m high.', published: '2024-05-01' };
const CALL: WebSearchCall = { id: 'wsc_1', query: 'tallest mountain in Alberta', status: 'completed', sources: [SRC], billed: true };
const FAILED: WebSearchCall = { id: 'wsc_2', query: 'second try', status: 'failed', sources: [], billed: false, errorCode: 'too_many_requests' };

/** The assistant turn the gateway returned to a Messages client (the encoders' own builders, same key). */
function assistantTurn(): JsonObject[] {
  const a = webSearchBlocks(CALL, sealer);
  const b = webSearchBlocks(FAILED, sealer);
  return [
    a.use, a.result, b.use, b.result,
    { type: 'text', text: 'Mount Columbia is the tallest.', citations: [sealedCitation(resultLocation(SRC), sealer)] },
    { type: 'text', text: ' Nothing else.' },
  ];
}

const body = (model: string, turn: JsonObject[]): Obj => ({
  model: `fm/${model}`,
  max_tokens: 100,
  messages: [{ role: 'user', content: 'How tall is the tallest mountain in Alberta?' }, { role: 'assistant', content: turn }, { role: 'user', content: 'Thanks. And in feet?' }],
});

const RESPONSE = JSON.stringify({
  id: 'resp_up', object: 'response', created_at: 1, model: 'rp-responses', status: 'completed',
  output: [{ id: 'msg_up', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
  usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 },
});
const script: Script = {
  'rp-anthropic': { headers: JSON_HEAD, body: anthropicJson('rp-anthropic', [{ type: 'text', text: 'ok' }], 'end_turn') },
  'rp-chat': { headers: JSON_HEAD, body: chatJson('rp-chat', { content: 'ok' }, 'stop') },
  'rp-responses': { headers: JSON_HEAD, body: RESPONSE },
};

t.test('sealed web-search history', async (t) => {
  const { up, gw } = await startFm(t, script, [{ name: 'rp-anthropic', api: 'messages' }, { name: 'rp-chat', api: 'chat' }, { name: 'rp-responses', api: 'responses' }], { webSearch: { sealKey: SEAL_KEY } });
  const last = (m: string): Obj => up.calls(m).at(-1)!.body;

  t.test('replayed to an Anthropic deployment as text, never as its own hosted blocks', async (t) => {
    const a = await send(gw, 'messages', body('rp-anthropic', assistantTurn()));
    t.equal(a.status, 200, a.text.slice(0, 300));
    const sent = last('rp-anthropic').messages[1].content as Obj[];
    t.same(sent.map((b) => b.type), ['text', 'text', 'text', 'text'], 'search blocks became text');
    t.notOk(JSON.stringify(sent).includes('gws1_'), 'no sealed value reaches Anthropic');
    t.match(sent[0]!.text, /Web search for "tallest mountain in Alberta", results:/);
    t.ok(sent[0]!.text.includes(SRC.snippet) && sent[0]!.text.includes(SRC.url) && sent[0]!.text.includes(SRC.title), 'the result, opened');
    t.equal(sent[1]!.text, 'Web search for "second try" failed (too_many_requests).');
    t.same(sent[2], { type: 'text', text: 'Mount Columbia is the tallest.' }, 'the gateway citation left the text block');
  });

  for (const [model, ep] of [['rp-chat', 'chat'], ['rp-responses', 'responses']] as const) {
    t.test(`replayed to a ${ep} deployment: the model reads what was found`, async (t) => {
      const a = await send(gw, 'messages', body(model, assistantTurn()));
      t.equal(a.status, 200, a.text.slice(0, 300));
      const wire = JSON.stringify(last(model));
      t.ok(wire.includes(SRC.snippet.replace(/"/g, '\\"')) && wire.includes(SRC.url), 'the snippet and URL are in the upstream request');
      t.ok(wire.includes('Mount Columbia is the tallest.'));
      t.notOk(wire.includes('gws1_'), 'no sealed value is sent');
    });
  }

  t.test('a changed or foreign sealed value is a 400 naming its path', async (t) => {
    const cases: [string, (turn: Obj[]) => void, string][] = [
      ['changed content', (turn) => { const r = turn[1]!.content[0]; r.encrypted_content = r.encrypted_content.slice(0, -4) + (r.encrypted_content.endsWith('AAAA') ? 'BBBB' : 'AAAA'); }, 'messages[1].content[1].content[0].encrypted_content'],
      ['foreign key', (turn) => { turn[1]!.content[0].encrypted_content = createSealer('another gateway key 0123').seal('web_search_result', { id: 'x', url: 'https://evil.example/', title: 't', snippet: 's' }); }, 'messages[1].content[1].content[0].encrypted_content'],
      ['a sealed citation passed off as content', (turn) => { turn[1]!.content[0].encrypted_content = turn[4]!.citations[0].encrypted_index; }, 'messages[1].content[1].content[0].encrypted_content'],
      ['changed citation index', (turn) => { turn[4]!.citations[0].encrypted_index = 'gws1_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'; }, 'messages[1].content[4].citations[0].encrypted_index'],
      ['result content replaced by plain text', (turn) => { turn[1]!.content[0].encrypted_content = 'not sealed'; }, 'messages[1].content[1].content[0].encrypted_content'],
    ];
    for (const [what, change, path] of cases) {
      const turn = structuredClone(assistantTurn()) as Obj[];
      change(turn);
      const a = await send(gw, 'messages', body('rp-anthropic', turn as JsonObject[]));
      t.equal(a.status, 400, what);
      t.equal(a.json?.error?.type, 'invalid_request_error', what);
      t.ok(String(a.json?.error?.message).startsWith(`${path}: was not sealed by this gateway`), `${what}: ${String(a.json?.error?.message)}`);
    }
  });

  t.test("Anthropic's own hosted-search blocks and citations go to Anthropic unchanged", async (t) => {
    const recorded = JSON.parse(readFileSync(fixture('upstream', 'anthropic', 'web-search-citations.json'), 'utf8')) as Obj;
    const a = await send(gw, 'messages', body('rp-anthropic', recorded.content as JsonObject[]));
    t.equal(a.status, 200, a.text.slice(0, 300));
    t.same(last('rp-anthropic').messages[1].content, recorded.content);
  });
});
