// The requests Codex 0.169.0 really sent (../shared/clients/codex_basic.jsonl and codex_more.jsonl,
// recorded by the client probe: REPORT.md §2), replayed byte for byte but for `model` through
// bin/gateway to a Claude model, a Chat Completions model and a Responses model, streamed as Codex
// asks: each answers 200 with a stream that ends in `response.completed`; on the translated paths
// the namespace members arrive flattened, the hosted web_search is not sent, and the echoed
// history (function_call, function_call_output) reaches the upstream in a valid order. Also: the
// hosted web_search Codex always sends costs nothing where no deployment runs it (FAILURE-MODES F32),
// not even in the reservation. (Captures are read where the workplace keeps them, `../shared` beside
// the clone, or GATEWAY_CLIENT_CAPTURES; without them this file fails under CI and skips elsewhere.)
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { parseSse, upstreamCalls } from '../helpers/messages.js';
import { ROOT } from '../helpers/paths.js';
import { underCi } from '../clients/claude-code.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CAPTURES = process.env.GATEWAY_CLIENT_CAPTURES || resolve(ROOT, '..', 'shared', 'clients');
const FILES = ['codex_basic.jsonl', 'codex_more.jsonl'];

interface Capture {
  label: string;
  seq: number;
  body: Obj;
}

function captures(): Capture[] {
  const out: Capture[] = [];
  for (const file of FILES) {
    for (const line of readFileSync(join(CAPTURES, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const row = JSON.parse(line) as Obj;
      if (row.method === 'POST' && row.path === '/v1/responses') out.push({ label: `${file} ${row.label} #${row.seq}`, seq: row.seq, body: JSON.parse(row.body) as Obj });
    }
  }
  return out;
}

const missing = FILES.find((f) => !existsSync(join(CAPTURES, f)));
if (missing !== undefined) {
  const why = `the Codex captures are not at ${CAPTURES} (${missing} missing; set GATEWAY_CLIENT_CAPTURES)`;
  if (underCi(process.env)) t.fail(why);
  else t.plan(0, why);
}

const config = withModels(baseConfig({
  orgs: [
    { id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
    { id: 'lean', credits: 0.02, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
  ],
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
    { id: 'lean', key: 'sk-test-lean-0000', org: 'lean', project: 'web', environment: 'production' },
  ],
}), [{ id: 'openai/gpt-5-mini', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text', 'image'], reasoning: true, family: 'openai' }]);

const MODELS = [
  { model: 'anthropic/claude-sonnet-5', path: '/v1/messages' },
  { model: 'openai/gpt-5', path: '/v1/chat/completions' },
  { model: 'openai/gpt-5-mini', path: '/v1/responses' },
];

async function post(gw: RunningGateway, body: Obj, key = TEST_KEY): Promise<{ status: number; text: string }> {
  // the headers Codex sends that matter here (REPORT.md §2.3): bearer key, SSE accept, no accept-encoding
  const r = await fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream', originator: 'codex_exec' }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

/** Tool names the upstream was offered, whatever its dialect (a Responses namespace as `ns:{members}`). */
function offered(call: Obj | undefined): string[] {
  return ((call?.body.tools ?? []) as Obj[]).map((x) => (x.type === 'namespace' ? `${x.name}:{${(x.tools as Obj[]).map((m) => m.name).join(',')}}` : String(x.function?.name ?? x.name ?? x.type)));
}

if (missing === undefined) {
  let gw: RunningGateway;
  t.before(async () => {
    gw = await startGateway(config);
  });
  t.teardown(() => gw?.stop());

  for (const capture of captures()) {
    for (const { model, path } of MODELS) {
      t.test(`${capture.label} → ${model} (${path})`, async (t) => {
        await gw.clearSim();
        const r = await post(gw, { ...capture.body, model });
        t.equal(r.status, 200, r.status === 200 ? 'status' : r.text.slice(0, 400));
        const evs = parseSse(r.text).map((f) => JSON.parse(f.data) as Obj);
        t.equal(evs.at(-1)?.type, 'response.completed', 'the stream ends in response.completed');
        t.ok(evs.at(-1)?.response.usage.output_tokens > 0, 'with usage');
        const [up] = await upstreamCalls(gw);
        t.equal(up?.path, path);
        const names = offered(up);
        if (path === '/v1/responses') {
          t.ok(names.includes('web_search'), 'the hosted web_search goes to the Responses deployment');
          if (capture.body.tools.some((x: Obj) => x.type === 'namespace')) t.ok(names.includes('multi_agent_v1:{close_agent,resume_agent,send_input,spawn_agent,wait_agent}'), 'the namespace whole');
          return;
        }
        t.notOk(names.includes('web_search'), 'no web_search upstream');
        t.ok(names.includes('exec_command'));
        if (capture.body.tools.some((x: Obj) => x.type === 'namespace')) t.ok(names.includes('multi_agent_v1__spawn_agent'), 'namespace members flattened');
        if (capture.body.tools.some((x: Obj) => x.type === 'custom')) t.ok(names.includes('apply_patch'), 'the custom apply_patch as a function');
        const history = (capture.body.input as Obj[]).filter((i) => i.type === 'function_call');
        if (history.length > 0) {
          const msgs = up?.body.messages as Obj[];
          const callId = history[0]!.call_id as string;
          const json = JSON.stringify(msgs.slice(-2));
          t.match(json, callId, 'the echoed call and its output are the last two messages');
          t.match(msgs.at(-1), path === '/v1/messages' ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId }] } : { role: 'tool', tool_call_id: callId });
        }
      });
    }
  }

  t.test('the hosted web_search costs nothing on models that cannot run it, in the hold too (F32)', async (t) => {
    const ask = { input: 'hi', max_output_tokens: 100, tools: [{ type: 'web_search', external_web_access: false }] };
    for (const model of ['anthropic/claude-sonnet-5', 'openai/gpt-5']) {
      const r = await post(gw, { ...ask, model }, 'sk-test-lean-0000');
      t.equal(r.status, 200, `${model}: a $0.02 balance suffices (five searches would hold $0.05)${r.status === 200 ? '' : `: ${r.text.slice(0, 300)}`}`);
      const cost = (JSON.parse(r.text) as Obj).gateway.cost as number;
      const plain = JSON.parse((await post(gw, { input: 'hi', max_output_tokens: 100, model }, 'sk-test-lean-0000')).text) as Obj;
      t.equal(cost, plain.gateway.cost, `${model}: charged as the same request without the tool`);
    }
    const native = await post(gw, { ...ask, model: 'openai/gpt-5-mini' }, 'sk-test-lean-0000');
    t.equal(native.status, 402, 'a Responses deployment can search: its hold still covers the searches');
  });
}
