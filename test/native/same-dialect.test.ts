// The native same-dialect path through bin/gateway (a Chat client to an OpenAI Chat deployment, a
// Responses client to an OpenAI Responses deployment), against a scripted loopback upstream that keeps
// the bytes it received:
// - the upstream sees the client's bytes (its spacing, its escapes, its member order) with only the
//   values the gateway must change edited: the model name, and what the gateway adds (usage on streams,
//   `store: false` on Responses);
// - the client receives the upstream's frames as they came, but for the gateway's own fields (the model
//   it is served as, the `gateway` object, the billed usage with its cost);
// - a stream cut short still ends in the same error frame as before.
import t from 'tap';
import { send } from '../failure-modes/clients.js';
import { chatSse, delta, frame, modelId, startFm, usageChunk, type Script } from '../failure-modes/upstream.js';

const FINGERPRINT = { service_tier: 'default', system_fingerprint: 'fp_native' };
const chunk = (d: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({ ...FINGERPRINT, ...delta(d, finish), usage: null });

const script: Script = {
  'c-plain': (req) =>
    req.body.stream === true
      ? { body: chatSse('c-plain-2025-01-31', [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Bonjour' }), chunk({ content: ' à vous' }), chunk({}, 'stop'), { ...FINGERPRINT, ...usageChunk(9, 3) }]) }
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion', created: 1, model: 'c-plain-2025-01-31', choices: [{ index: 0, message: { role: 'assistant', content: 'Bonjour' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }) },
  // cut after the content: no finish_reason, no usage, no [DONE]
  'c-cut': { body: chatSse('c-cut', [chunk({ role: 'assistant', content: '' }), chunk({ content: 'half' })], false) },
  'r-plain': {
    body: [
      ['response.created', { response: { id: 'resp_up', object: 'response', created_at: 1, model: 'r-plain', status: 'in_progress', output: [], usage: null } }],
      ['response.output_item.added', { output_index: 0, item: { id: 'msg_up', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }],
      ['response.content_part.added', { item_id: 'msg_up', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }],
      // an escape the gateway's serialiser would never write: its bytes show the frame went through
      ['response.output_text.delta', '"item_id":"msg_up","output_index":0,"content_index":0,"delta":"B\\u006fn","logprobs":[],"obfuscation":"xY"}'],
      ['response.output_text.delta', { item_id: 'msg_up', output_index: 0, content_index: 0, delta: 'jour', logprobs: [], obfuscation: 'zW' }],
      ['response.output_text.done', { item_id: 'msg_up', output_index: 0, content_index: 0, text: 'Bonjour', logprobs: [] }],
      ['response.output_item.done', { output_index: 0, item: { id: 'msg_up', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Bonjour', annotations: [] }] } }],
      ['response.completed', { response: { id: 'resp_up', object: 'response', created_at: 1, model: 'r-plain', status: 'completed', output: [], usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } }],
    ]
      .map(([type, fields], i) => frame(typeof fields === 'string' ? `{"type":"${type}","sequence_number":${i},${fields}` : { type, sequence_number: i, ...(fields as object) }, type as string))
      .join(''),
  },
};

/** The members the gateway appended after the client's last member (`tail` is `,"k":v,…}`). */
function appended(tail: string): Record<string, unknown> {
  return tail === '}' ? {} : (JSON.parse(`{${tail.slice(1)}`) as Record<string, unknown>);
}

t.test('native same-dialect pairs through bin/gateway', async (t) => {
  const { up, gw } = await startFm(t, script, [
    { name: 'c-plain', api: 'chat' },
    { name: 'c-cut', api: 'chat' },
    { name: 'r-plain', api: 'responses' },
  ]);

  t.test('Chat → Chat, streamed: the client\'s bytes go upstream with the model swapped and usage asked for', async (t) => {
    // spacing, member order and escapes no serialiser would write
    const raw = `{ "messages" : [ {"role":"user", "content":"caf\\u00e9 \\/ 😀"} ],\n  "model" : "${modelId('c-plain')}", "stream": true, "temperature": 0.50 }`;
    const a = await send(gw, 'chat', undefined, { raw });
    t.equal(a.status, 200, a.text.slice(0, 300));
    const sent = up.calls('c-plain').at(-1)!.raw.toString();
    const mine = raw.replace(`"${modelId('c-plain')}"`, '"c-plain"');
    const body = mine.slice(0, mine.lastIndexOf('}'));
    t.equal(sent.slice(0, body.length), body, 'every byte of the client\'s body but the model value');
    t.same(appended(sent.slice(body.length)), { stream_options: { include_usage: true } }, 'and the usage request appended');

    const chunks = a.data.slice(0, -1);
    t.equal(a.frames.at(-1)?.data, '[DONE]');
    t.ok(chunks.every((c) => c.model === modelId('c-plain')), 'every frame names the model the client is served as');
    t.ok(chunks.every((c) => c.system_fingerprint === 'fp_native' && c.created === 1), 'the frames are the upstream\'s');
    t.same(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
    t.match(chunks[0].gateway, { routed: false }, 'the first frame carries the gateway object');
    t.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Bonjour à vous');
    const last = chunks.at(-1);
    t.match(last, { choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 }, gateway: { routed: false } }, 'the usage frame');
    t.ok(last.usage.cost > 0, 'with the cost settle charges');
    t.equal(chunks.filter((c) => c.choices[0]?.finish_reason === 'stop').length, 1, 'one finish_reason');
  });

  t.test('Chat → Chat, streamed, usage already asked for: the client\'s own stream_options go as sent, nothing appended', async (t) => {
    const raw = `{"model":"${modelId('c-plain')}","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options": { "include_usage" : true }}`;
    const a = await send(gw, 'chat', undefined, { raw });
    t.equal(a.status, 200, a.text.slice(0, 300));
    const sent = up.calls('c-plain').at(-1)!.raw.toString();
    t.equal(sent, raw.replace(`"${modelId('c-plain')}"`, '"c-plain"'), 'every byte of the client\'s body but the model value');
    t.match(a.data.at(-2), { usage: { prompt_tokens: 9, completion_tokens: 3 } }, 'and the usage frame still comes');
  });

  t.test('Chat → Chat, JSON: spliced as well; nothing appended', async (t) => {
    const raw = `{"model":"${modelId('c-plain')}",  "messages":[{"role":"user","content":"\\u00e9t\\u00e9"}]}`;
    const a = await send(gw, 'chat', undefined, { raw });
    t.equal(a.status, 200, a.text.slice(0, 300));
    t.equal(up.calls('c-plain').at(-1)!.raw.toString(), raw.replace(`"${modelId('c-plain')}"`, '"c-plain"'));
    t.equal(a.json.choices[0].message.content, 'Bonjour');
    t.equal(a.json.model, modelId('c-plain'));
  });

  t.test('Chat → Chat, a stream cut short: the same in-band error as before', async (t) => {
    const a = await send(gw, 'chat', { model: modelId('c-cut'), stream: true, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(a.status, 200);
    const err = a.data.find((d) => d?.error);
    t.match(err, { choices: [{ finish_reason: 'error' }], error: { code: String } }, 'an error chunk');
    t.equal(a.frames.at(-1)?.data, '[DONE]');
    t.equal(a.data.filter((d) => d?.usage).length, 0, 'no usage frame: nothing complete was billed as such');
  });

  t.test('Responses → Responses, streamed: spliced request; delta frames keep the upstream\'s delta bytes', async (t) => {
    const raw = `{"input" : "salut \\u00e0 toi", "model":"${modelId('r-plain')}","stream":true, "client_metadata": {"x": "y"}}`;
    const a = await send(gw, 'responses', undefined, { raw });
    t.equal(a.status, 200, a.text.slice(0, 300));
    const sent = up.calls('r-plain').at(-1)!.raw.toString();
    t.equal(sent, `{"input" : "salut \\u00e0 toi", "model":"r-plain","stream":true,"store":false}`, 'model swapped, client_metadata dropped, store: false appended');
    const deltas = a.data.filter((d) => d?.type === 'response.output_text.delta');
    t.same(deltas.map((d) => d.delta), ['Bon', 'jour'], 'the text');
    t.match(a.text, '"content_index":0,"delta":"B\\u006fn","logprobs":[]}', 'the upstream\'s delta bytes, as they came');
    t.notOk(deltas.some((d) => 'obfuscation' in d), 'without the upstream\'s obfuscation padding, as before');
    const added = a.data.find((d) => d?.type === 'response.output_item.added');
    t.ok(deltas.every((d) => d.item_id === added.item.id && d.item_id !== 'msg_up'), 'under the gateway\'s item id');
    const seqs = a.data.filter((d) => d !== undefined).map((d) => d.sequence_number);
    t.same(seqs, seqs.map((_, i) => i), 'numbered by the gateway');
    const done = a.data.find((d) => d?.type === 'response.completed');
    t.match(done.response, { model: modelId('r-plain'), usage: { input_tokens: 9, output_tokens: 3 } });
  });
});
