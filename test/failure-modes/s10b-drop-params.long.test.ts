// FAILURE-MODES F64, for OpenAI-compatible endpoints that refuse some of OpenAI's parameters: a
// provider's `dropParams` through the real bin/gateway. The members never reach that provider from
// any client dialect, everything else still does, another provider still gets them, and a member the
// gateway needs is refused at start with its field path.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import { send } from './clients.js';
import { chatSse, delta, fmConfig, modelId, scriptedUpstream, usageChunk, type FmModel } from './upstream.js';

const DROPPED = ['prompt_cache_key', 'prompt_cache_retention', 'parallel_tool_calls', 'safety_identifier'];
const models: FmModel[] = [
  { name: 'third-party', api: 'chat' },
  { name: 'openai-own', api: 'chat' },
];

/** The failure-mode config with a second OpenAI provider, the third-party one, that drops `drop`. */
function config(upUrl: string, drop: unknown = DROPPED): Record<string, unknown> {
  const base = fmConfig(upUrl, models);
  const providers = [...(base.providers as Record<string, unknown>[]), { id: 'up-third', protocol: 'openai', baseUrl: `${upUrl}/v1`, apiKey: 'sk-up-third', dropParams: drop }];
  const catalog = (base.models as Record<string, unknown>[]).map((m) =>
    m.id === modelId('third-party') ? { ...m, deployments: [{ provider: 'up-third', model: 'third-party', api: 'chat' }] } : m,
  );
  return { ...base, providers, models: catalog };
}

const CHAT_TOOL = { type: 'function', function: { name: 'get_time', description: 'the time', parameters: { type: 'object', properties: {} } } };
const RESPONSES_TOOL = { type: 'function', name: 'get_time', description: 'the time', parameters: { type: 'object', properties: {} } };
const HINTS = { prompt_cache_key: 'sess-1', prompt_cache_retention: '24h', safety_identifier: 'user-1' };

type Body = (model: string) => Record<string, unknown>;
const BODIES: [api: 'chat' | 'responses' | 'messages', body: Body][] = [
  ['chat', (m) => ({ model: modelId(m), messages: [{ role: 'user', content: 'hi' }], tools: [CHAT_TOOL], parallel_tool_calls: false, stream: true, ...HINTS })],
  ['responses', (m) => ({ model: modelId(m), input: 'hi', tools: [RESPONSES_TOOL], parallel_tool_calls: false, stream: true, ...HINTS })],
  ['messages', (m) => ({ model: modelId(m), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], stream: true })],
];

t.test('dropParams keeps the listed members from one provider, from every client dialect', async (t) => {
  const answer = (model: string) => ({ body: chatSse(model, [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) });
  const up = await scriptedUpstream({ 'third-party': answer('third-party'), 'openai-own': answer('openai-own') });
  const gw = await startGateway(config(up.url));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (const [api, body] of BODIES) {
    const res = await send(gw, api, body('third-party'));
    t.equal(res.status, 200, `${api}: ${res.text.slice(0, 200)}`);
    const sent = up.calls('third-party').at(-1)!.body as Record<string, unknown>;
    t.same(Object.keys(sent).filter((k) => DROPPED.includes(k)), [], `${api} → third-party: none of ${DROPPED.join(', ')}`);
    t.equal(sent.model, 'third-party', `${api}: the model still goes`);
    t.ok(Array.isArray(sent.messages) && sent.messages.length > 0, `${api}: the conversation still goes`);
    t.same(sent.stream_options, { include_usage: true }, `${api}: streamed usage is still asked for`);
    if (api !== 'messages') t.equal((sent.tools as unknown[]).length, 1, `${api}: the tools still go`);
  }
  // a native Chat body goes as the client's bytes, members dropped: the conversation is not re-serialised
  const messages = '[{"role":"user","content":"caf\\u00e9 \\/ ok"}]';
  const raw = `{"model":"${modelId('third-party')}","messages":${messages},"prompt_cache_key":"sess-1","stream":true}`;
  const spliced = await send(gw, 'chat', undefined, { raw });
  t.equal(spliced.status, 200, spliced.text.slice(0, 200));
  const rawSent = up.calls('third-party').at(-1)!.raw.toString('utf8');
  t.ok(rawSent.includes(`"messages":${messages}`), `the client's conversation bytes, escapes kept: ${rawSent}`);
  t.notOk(rawSent.includes('prompt_cache_key'), 'and the dropped member is gone');

  const own = await send(gw, 'chat', BODIES[0]![1]('openai-own'));
  t.equal(own.status, 200);
  const sent = up.calls('openai-own').at(-1)!.body as Record<string, unknown>;
  t.equal(sent.prompt_cache_key, 'sess-1', 'a provider without the list still gets prompt_cache_key');
  t.equal(sent.parallel_tool_calls, false, 'and parallel_tool_calls');
});

t.test('a member the gateway needs cannot be dropped: refused at start, naming the field', async (t) => {
  const up = await scriptedUpstream({});
  t.teardown(() => up.close());
  const cases: [unknown, RegExp][] = [
    [['prompt_cache_key', 'stream_options'], /providers\[\d+\]\.dropParams\[1\]: "stream_options" cannot be dropped/],
    [['max_completion_tokens'], /providers\[\d+\]\.dropParams\[0\]: "max_completion_tokens" cannot be dropped/],
    [['user', 'user'], /providers\[\d+\]\.dropParams: must NOT have duplicate items/],
    [[''], /providers\[\d+\]\.dropParams\[0\]: must NOT have fewer than 1 characters/],
  ];
  for (const [drop, message] of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'gw-drop-cfg-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config(up.url, drop)));
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), '--config', join(dir, 'config.json'), '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 15_000 });
    t.equal(r.status, 1, `exit 1 for ${JSON.stringify(drop)}`);
    t.match(r.stderr, message);
  }
});
