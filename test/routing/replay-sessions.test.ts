// The captured Claude Code and Codex sessions (../shared/clients/cc_*.jsonl, codex_*.jsonl: one JSON
// line per request the client sent, with its headers and body) replayed in order through bin/gateway
// with `gateway-auto` as the model, on simulated providers. The catalog tempts the router: the
// cheapest models each lack a need every captured request has (tools, reasoning, a large context),
// and between two requests of a session the prices of the two capable models are swapped (SIGHUP),
// so that without stickiness every turn would change model. Asserted: every request is served, by
// a model meeting all its needs, and no session changes model inside a tool loop.
//
// Each request is sent as captured but for the model, the key and `stream` (false: the routing does
// not depend on it, and the answer is read whole). A replayed thinking block carries the signature
// of the model that served the capture; the simulated provider would refuse it, so it is replaced
// by the thinking block the session's previous answer carried (signed by the model that served it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { labConfig, labModel, reload, TEST_KEY } from './lab.js';

const CLIENTS = join(ROOT, '..', 'shared', 'clients');
const files = existsSync(CLIENTS) ? readdirSync(CLIENTS).filter((f) => /^(cc|codex)_.*\.jsonl$/.test(f)).sort() : [];

interface Captured {
  seq: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const tempting = [
  labModel('lab/cheap-no-tools', { input: 0.1, output: 0.5 }, 20, { tools: false }),
  labModel('lab/cheap-no-reasoning', { input: 0.1, output: 0.5 }, 20, { reasoning: false }),
  labModel('lab/cheap-small', { input: 0.1, output: 0.5 }, 20, { contextWindow: 4000 }),
];
const capable = (xPrice: number, yPrice: number): Record<string, unknown>[] => [
  labModel('lab/x', { input: xPrice, output: xPrice * 5 }, 20),
  { ...labModel('lab/y', { input: yPrice, output: yPrice * 5 }, 20), deployments: [{ provider: 'sim-openai', model: 'lab-y', api: 'responses' }] },
];
const { config } = labConfig([...tempting, ...capable(1, 40)]);
const CATALOG = new Map([...tempting, ...capable(1, 1)].map((m) => [m.id as string, m]));

let gw: RunningGateway;
t.before(async () => {
  if (files.length > 0) gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

/** The hard needs of a captured body, read independently of the gateway. */
function needsOf(body: Record<string, any>, bytes: number): { tools: boolean; reasoning: boolean; minContext: number } {
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  const reasoning = body.thinking?.type === 'adaptive' || body.thinking?.type === 'enabled' || body.output_config?.effort !== undefined || body.reasoning?.effort !== 'none';
  // at least one token per four bytes of the body
  return { tools, reasoning, minContext: Math.floor(bytes / 4) };
}

function violations(modelId: string, needs: ReturnType<typeof needsOf>): string[] {
  const m = CATALOG.get(modelId) as Record<string, any> | undefined;
  if (m === undefined) return [`unknown model ${modelId}`];
  const out: string[] = [];
  if (needs.tools && m.tools === false) out.push('tools');
  if (needs.reasoning && m.reasoning === false) out.push('reasoning');
  if (needs.minContext > m.contextWindow) out.push(`context ${needs.minContext} > ${m.contextWindow}`);
  return out;
}

/** The last turn answers tool calls: Messages tool_result, Responses *_call_output. */
function inToolLoop(body: Record<string, any>): boolean {
  if (Array.isArray(body.messages)) {
    const last = body.messages.at(-1);
    return last?.role === 'user' && Array.isArray(last.content) && last.content.some((b: { type: string }) => b.type === 'tool_result');
  }
  const last = Array.isArray(body.input) ? body.input.at(-1) : undefined;
  return typeof last?.type === 'string' && last.type.endsWith('_call_output');
}

/** Replace replayed thinking blocks by the one the session's previous answer carried (or drop them). */
function resignThinking(body: Record<string, any>, previous: Record<string, any> | undefined): void {
  if (!Array.isArray(body.messages)) return;
  const fresh = (previous?.content as Record<string, unknown>[] | undefined)?.find((b) => b.type === 'thinking');
  for (const m of body.messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    m.content = m.content.flatMap((b: { type: string }) => (b.type === 'thinking' ? (fresh ? [fresh] : []) : [b]));
  }
}

function headersOf(c: Captured): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(c.headers)) {
    if (name.startsWith('anthropic-') || name === 'x-claude-code-session-id') out[name] = value;
  }
  if (c.path === '/v1/messages') out['x-api-key'] = TEST_KEY;
  else out.authorization = `Bearer ${TEST_KEY}`;
  return out;
}

/** Sessions of a capture file: by the session the gateway keys on, in the order sent. */
function sessionsOf(lines: Captured[]): Captured[][] {
  const sessions = new Map<string, Captured[]>();
  for (const c of lines) {
    const body = JSON.parse(c.body) as Record<string, any>;
    const id = c.headers['x-claude-code-session-id'] ?? body.session_id ?? body.prompt_cache_key ?? `seq-${c.seq}`;
    sessions.set(id, [...(sessions.get(id) ?? []), c]);
  }
  return [...sessions.values()].map((s) => s.sort((a, b) => a.seq - b.seq));
}

t.test('captured client sessions replayed on gateway-auto', { skip: files.length === 0 ? `no captures in ${CLIENTS}` : false }, async (t) => {
  let loops = 0;
  let swap = false;
  for (const file of files) {
    const lines = readFileSync(join(CLIENTS, file), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Captured);
    for (const session of sessionsOf(lines)) {
      let previous: { model: string; answer: Record<string, any> } | undefined;
      for (const c of session) {
        if (previous !== undefined) {
          // the other capable model becomes far cheaper: only stickiness keeps the session where it is
          swap = !swap;
          t.match(await reload(gw, { ...config, models: [...tempting, ...(swap ? capable(40, 1) : capable(1, 40))] }), { msg: 'config reloaded' });
        }
        const body = JSON.parse(c.body) as Record<string, any>;
        body.model = 'gateway-auto';
        body.stream = false;
        resignThinking(body, previous?.answer);
        const text = JSON.stringify(body);
        const res = await fetch(`${gw.url}${c.path}`, { method: 'POST', headers: headersOf(c), body: text });
        const answerText = await res.text();
        const where = `${file} #${c.seq}`;
        t.equal(res.status, 200, `${where}: ${answerText.slice(0, 300)}`);
        if (res.status !== 200) break;
        const answer = JSON.parse(answerText) as Record<string, any>;
        const model = answer.gateway?.routed_model as string;
        t.same(violations(model, needsOf(body, Buffer.byteLength(text))), [], `${where}: ${model} meets every hard need`);
        if (previous !== undefined && inToolLoop(body)) {
          loops++;
          t.equal(model, previous.model, `${where}: inside a tool loop the session stays on ${previous.model}`);
        }
        previous = { model, answer };
      }
    }
  }
  t.ok(loops >= 3, `the captures hold tool loops to check (${loops})`);
});
