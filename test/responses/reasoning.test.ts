// POST /v1/responses reasoning round trips against the real gateway: the signed state a model
// returns (Claude thinking, redacted thinking, a Responses model's own encrypted_content) comes back
// byte-identical on the next turn, and a tampered one is refused.
import t, { type Test } from 'tap';
import { upstreamCalls } from '../helpers/messages.js';
import { responsesGateway, type Ev, type Obj } from './harness.js';

const h = responsesGateway();

/** A streamed request expected to complete with a reasoning item: its events, output and that item. */
async function streamReasoning(t: Test, req: Obj): Promise<{ evs: Ev[]; output: Obj[]; reasoning: Obj }> {
  await h.gw.clearSim();
  const r = await h.post(req);
  t.equal(r.status, 200, r.text.slice(0, 400));
  const evs = h.sse(r.text);
  t.equal(evs.at(-1)?.event, 'response.completed');
  const output = evs.at(-1)!.data.response.output as Obj[];
  return { evs, output, reasoning: output.find((o) => o.type === 'reasoning')! };
}

t.test('reasoning round trip on a Claude model: encrypted_content carries the signed thinking', async (t) => {
  const req = { model: 'anthropic/claude-sonnet-5', input: 'Think about this', reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'], stream: true };
  const { evs, output, reasoning } = await streamReasoning(t, req);
  t.ok(reasoning, 'a reasoning item');
  t.match(reasoning.encrypted_content, /^anthropic-thinking:/);
  const summary = evs.filter((e) => e.event === 'response.reasoning_summary_text.delta').map((e) => e.data.delta as string).join('');
  t.ok(summary.length > 0, 'summary streamed');
  t.equal(reasoning.summary[0].text, summary);
  const [up] = await upstreamCalls(h.gw);
  t.match(up?.body, { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });

  await h.gw.clearSim();
  const next = await h.post({ ...req, stream: false, input: [{ role: 'user', content: 'Think about this' }, ...output, { role: 'user', content: 'And again' }] });
  t.equal(next.status, 200, next.text.slice(0, 400));
  const [up2] = await upstreamCalls(h.gw);
  const assistant = (up2?.body.messages as Obj[]).find((m) => m.role === 'assistant');
  t.equal(assistant?.content[0].type, 'thinking', 'the thinking block went back');
  t.equal(assistant?.content[0].thinking, summary, 'byte-identical thinking');

  // a tampered state is refused by the provider: the signature really is checked
  const tampered = { ...reasoning, encrypted_content: 'anthropic-thinking:' + Buffer.from(JSON.stringify({ type: 'thinking', thinking: 'other', signature: 'bad' })).toString('base64url') };
  const bad = await h.post({ ...req, stream: false, input: [{ role: 'user', content: 'x' }, tampered, { role: 'user', content: 'y' }] });
  t.equal(bad.status, 400, bad.text.slice(0, 300));
});

t.test('without include, no encrypted_content is returned', async (t) => {
  const r = await h.post({ model: 'anthropic/claude-sonnet-5', input: 'Think', reasoning: { effort: 'low' } });
  t.equal(r.status, 200, r.text.slice(0, 400));
  const reasoning = (JSON.parse(r.text) as Obj).output.find((o: Obj) => o.type === 'reasoning');
  t.ok(reasoning);
  t.notOk('encrypted_content' in reasoning);
  t.ok(reasoning.summary[0].text.length > 0);
});

t.test('redacted thinking round trip', async (t) => {
  await h.gw.clearSim();
  const req = { model: 'test/redacted', input: 'Think', reasoning: { effort: 'medium' }, include: ['reasoning.encrypted_content'] };
  const r = await h.post(req);
  t.equal(r.status, 200, r.text.slice(0, 400));
  const out = (JSON.parse(r.text) as Obj).output as Obj[];
  const reasoning = out.find((o) => o.type === 'reasoning');
  t.match(reasoning, { summary: [], encrypted_content: /^anthropic-thinking:/ });
  await h.gw.clearSim();
  const next = await h.post({ ...req, input: [{ role: 'user', content: 'Think' }, ...out, { role: 'user', content: 'more' }] });
  t.equal(next.status, 200, next.text.slice(0, 400));
  const [up] = await upstreamCalls(h.gw);
  const assistant = (up?.body.messages as Obj[]).find((m) => m.role === 'assistant');
  t.equal(assistant?.content[0].type, 'redacted_thinking');
});

t.test('reasoning round trip on a Responses deployment: the original encrypted_content comes back', async (t) => {
  const req = { model: 'openai/gpt-5-mini', input: 'Think about this', reasoning: { effort: 'medium', summary: 'auto' }, include: ['reasoning.encrypted_content'], stream: true };
  const { evs, output, reasoning } = await streamReasoning(t, req);
  t.match(reasoning.id, /^rs_sim_/, 'the provider item id');
  t.type(reasoning.encrypted_content, 'string');
  t.notMatch(reasoning.encrypted_content, /^(oai-rs|anthropic-thinking):/, "the provider's own encrypted_content");
  const added = evs.find((e) => e.event === 'response.output_item.added' && e.data.item.type === 'reasoning');
  t.equal(added?.data.item.id, reasoning.id, 'same id on added and done');

  await h.gw.clearSim();
  const next = await h.post({ ...req, stream: false, input: [{ role: 'user', content: 'Think about this' }, ...output, { role: 'user', content: 'again' }] });
  t.equal(next.status, 200, next.text.slice(0, 400)); // the sim verifies encrypted_content against the summary
  const [up] = await upstreamCalls(h.gw);
  const item = (up?.body.input as Obj[]).find((i) => i.type === 'reasoning');
  t.equal(item?.encrypted_content, reasoning.encrypted_content, 'byte-identical');

  // a tampered summary no longer verifies
  const tampered = { ...reasoning, summary: [{ type: 'summary_text', text: 'changed' }] };
  const bad = await h.post({ ...req, stream: false, input: [{ role: 'user', content: 'x' }, tampered, { role: 'user', content: 'y' }] });
  t.equal(bad.status, 400, bad.text.slice(0, 300));
});

t.test('Claude thinking is not sent to an OpenAI Responses deployment', async (t) => {
  const first = await h.post({ model: 'anthropic/claude-sonnet-5', input: 'Think', reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] });
  const out = (JSON.parse(first.text) as Obj).output as Obj[];
  await h.gw.clearSim();
  const r = await h.post({ model: 'openai/gpt-5-mini', input: [{ role: 'user', content: 'Think' }, ...out, { role: 'user', content: 'next' }] });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const [up] = await upstreamCalls(h.gw);
  t.notOk((up?.body.input as Obj[]).some((i) => i.type === 'reasoning'), 'dropped');
});
