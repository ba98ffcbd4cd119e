// A native Messages request goes upstream as the client's bytes with only the changed values
// (model, a capped max_tokens, a reconciled thinking budget) spliced in; when the messages are
// rewritten, or no bytes are at hand, it is serialised as before. Either way the JSON value is the same.
import t from 'tap';
import type { Deployment, RoutedRequest } from '../../../lib/chunks.js';
import { anthropicNative } from '../../../lib/dialects/anthropic/request.js';
import { validateMessagesRequest } from '../../../lib/dialects/anthropic/validate.js';
import { parseJsonBody } from '../../../stages/parse-body.js';
import { header } from './validate-harness.js';

const deployment = { providerId: 'p', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-upstream-1' } as unknown as Deployment;

function routedFrom(text: string, opts: { cap?: number; budget?: number; withRaw?: boolean } = {}): RoutedRequest {
  const raw = parseJsonBody(Buffer.from(text));
  const request = validateMessagesRequest(raw.value, header(), { betas: [] });
  if (opts.withRaw !== false) request.raw = raw.raw;
  return { request, modelId: 'm', deployments: [deployment], maxTokensCappedTo: opts.cap ?? null, thinkingBudget: opts.budget ?? null } as unknown as RoutedRequest;
}

const CLIENT = '{ "model" : "my-alias",  "max_tokens": 64000, "messages": [ {"role":"user","content":"caf\\u00e9 — ünïcode 😀"} ], "thinking": {"type":"enabled","budget_tokens": 40000} }';

t.test('only the model changes: the bytes are the client\'s, model value swapped', async (t) => {
  const call = anthropicNative(routedFrom(CLIENT), deployment);
  t.ok(Buffer.isBuffer(call.body), 'bytes, not a re-serialised string');
  t.equal(call.body.toString(), CLIENT.replace('"my-alias"', '"claude-upstream-1"'));
});

t.test('a capped max_tokens and a reconciled thinking budget are spliced too; the value equals the serialised body', async (t) => {
  const routed = routedFrom(CLIENT, { cap: 32000, budget: 31000 });
  const call = anthropicNative(routed, deployment);
  const serialised = anthropicNative(routedFrom(CLIENT, { cap: 32000, budget: 31000, withRaw: false }), deployment);
  t.equal(typeof serialised.body, 'string', 'without the bytes: serialised');
  t.same(JSON.parse(call.body.toString()), JSON.parse(serialised.body.toString()), 'the same JSON value');
  t.match(call.body.toString(), /"max_tokens": 32000, "messages": \[ \{"role":"user","content":"caf\\u00e9/, 'untouched bytes around the spliced value');
});
