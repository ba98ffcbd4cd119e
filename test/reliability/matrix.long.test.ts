// The fault matrix (issue #18): every simulated fault kind (lib/sim/spec.ts FAULT_KINDS) × client
// endpoint (Messages, Chat Completions, Responses) × upstream protocol (Anthropic Messages, OpenAI
// Chat, OpenAI Responses deployments) × stream/JSON, through the real bin/gateway on a file store.
// Each case runs twice: the faulty deployment followed by a healthy one ("failover"), and alone.
//
// Every answer is checked against the documented RULES, not against today's outputs:
// - its status and envelope are ones the endpoint documents (gateway-api.md "Errors" and the
//   decided additions in docs/errors.md), with a request id, and no other gateway 5xx;
// - failover (docs: lib/providers/failover-loop.ts, decisions.md): a fault before anything reached
//   the client goes to the next deployment, so with a healthy one the answer is a clean 200; a
//   provider 400/401 is final;
// - the exact ledger: the usage record's cost is nothing for an error answer and for a failed Chat
//   or Responses stream, the validated usage for Messages (and for a clean answer); no open
//   reservation afterwards, and the organisation's spent total is the sum of the records.
// A case that a fix still to land would change can be marked `todo` (TODO below); none is today.
import t from 'tap';
import { FAULT_KINDS, type FaultKind } from '../../lib/sim/spec.js';
import { chatHeaders, expectedCost, fileStoreConfig, headersFor, LedgerView, rowUsage, TEST_KEY } from '../helpers/billing.js';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { documentedPair, gatewayRequestId, readError, sseEnd, type EndpointKind } from './documented.js';

const FULL = process.env.GATEWAY_RELIABILITY_FULL === '1';
const PRICING = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
type Protocol = 'anthropic' | 'chat' | 'responses';
const PROTOCOLS: readonly Protocol[] = ['anthropic', 'chat', 'responses'];
const ENDPOINTS: readonly EndpointKind[] = ['messages', 'chat', 'responses'];
const RETRYABLE_STATUS = new Set<FaultKind>(['429', '500', '502', '503', '529']);
const FINAL_STATUS = new Set<FaultKind>(['400', '401']);
/** faults of the answer's body or stream, after the upstream's 200 headers */
const BODY_FAULTS = new Set<FaultKind>(['reset-mid', 'stall-mid', 'malformed-sse', 'wrong-model', 'duplicate-keys', 'non-finite', 'bad-index', 'no-stop', 'unclosed-block']);
/** stream faults in the first frame: nothing can have reached the client */
const FIRST_FRAME = new Set<FaultKind>(['wrong-model', 'duplicate-keys']);
/**
 * A recorded upstream stream that ends in the provider's in-band `error` event (no fault kind of the
 * sim sends one): OpenAI Responses `error` + `response.failed` before any output, so nothing can
 * have reached the client.
 */
const IN_BAND = 'in-band-error';
type MatrixFault = FaultKind | typeof IN_BAND;
// replayed under the model name it was recorded with (the `x-sim-model` header of its provider)
const IN_BAND_FIXTURE = 'fixture:openai-responses/error-insufficient-quota.sse';
const IN_BAND_MODEL = 'gpt-5-nano-2025-08-07';

/** Cases a fix still to land changes, by `<endpoint> <protocol> <fault> <stream|json> <failover|alone>` pattern: none left. */
const TODO: [RegExp, string][] = [];

/** the sim's fault kinds, and the recorded in-band error where the protocol has one */
function faultsOf(protocol: Protocol): readonly MatrixFault[] {
  return protocol === 'responses' ? [...FAULT_KINDS, IN_BAND] : FAULT_KINDS;
}

function upstreamName(fault: MatrixFault): string {
  if (fault === IN_BAND) return IN_BAND_MODEL;
  if (fault === 'slow') return 'fault:slow;ms=2000';
  // frames a few ms apart: the failing one comes after the first bytes went to the client
  if (BODY_FAULTS.has(fault)) return `fault:${fault};delay=5`;
  return `fault:${fault}`;
}

function deployment(protocol: Protocol, model: string): Record<string, unknown> {
  if (model === IN_BAND_MODEL) return { provider: 'rel-openai-in-band', model, api: protocol };
  if (protocol === 'anthropic') return { provider: 'rel-anthropic', model };
  return { provider: 'rel-openai', model, api: protocol };
}

const HEALTHY: Record<Protocol, string> = { anthropic: 'claude-opus-5', chat: 'gpt-5', responses: 'gpt-5' };

function modelId(protocol: Protocol, fault: MatrixFault, alone: boolean): string {
  return `rel/${protocol}/${fault}${alone ? '/alone' : ''}`;
}

function models(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const protocol of PROTOCOLS) {
    for (const fault of faultsOf(protocol)) {
      for (const alone of [false, true]) {
        const deployments = [deployment(protocol, upstreamName(fault))];
        if (!alone) deployments.push(deployment(protocol, HEALTHY[protocol]));
        out.push({ id: modelId(protocol, fault, alone), family: protocol === 'anthropic' ? 'anthropic' : 'openai', deployments, pricing: PRICING, input: ['text'], contextWindow: 200000, maxOutputTokens: 4096 });
      }
    }
  }
  return out;
}

const base = baseConfig();
const store = fileStoreConfig(models(), {
  providers: [
    ...(base.providers as Record<string, unknown>[]),
    // short timeouts: `slow` and `stall-mid` cost real time
    { id: 'rel-anthropic', protocol: 'anthropic', simulated: true, timeoutMs: 400, idleTimeoutMs: 400 },
    { id: 'rel-openai', protocol: 'openai', simulated: true, timeoutMs: 400, idleTimeoutMs: 400 },
    { id: 'rel-openai-in-band', protocol: 'openai', simulated: true, timeoutMs: 400, idleTimeoutMs: 400, headers: { 'x-sim-model': IN_BAND_FIXTURE } },
  ],
  orgs: [{ id: 'acme', credits: 1000, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }],
});

interface Case {
  endpoint: EndpointKind;
  protocol: Protocol;
  fault: MatrixFault;
  stream: boolean;
  alone: boolean;
}

const caseName = (c: Case): string => `${c.endpoint} ${c.protocol} ${c.fault} ${c.stream ? 'stream' : 'json'} ${c.alone ? 'alone' : 'failover'}`;

function request(gw: RunningGateway, c: Case): Promise<Response> {
  const model = modelId(c.protocol, c.fault, c.alone);
  const content = 'Hello there';
  if (c.endpoint === 'messages') {
    return fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headersFor(TEST_KEY), body: JSON.stringify({ model, max_tokens: 64, stream: c.stream, messages: [{ role: 'user', content }] }) });
  }
  if (c.endpoint === 'chat') {
    return fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(TEST_KEY), body: JSON.stringify({ model, max_tokens: 64, stream: c.stream, messages: [{ role: 'user', content }] }) });
  }
  return fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: chatHeaders(TEST_KEY), body: JSON.stringify({ model, max_output_tokens: 64, stream: c.stream, input: content }) });
}

/** What the rules say a case must answer: 'clean' (a 200 with the whole answer), or any documented outcome. */
function expected(c: Case): 'clean' | 'documented' {
  if (c.alone) return 'documented';
  if (c.fault === IN_BAND) return 'clean';
  const fault = c.fault;
  if (FINAL_STATUS.has(fault)) return 'documented';
  // decided: an answer from another model than the one dispatched is an integrity failure of a
  // misconfigured deployment, answered at once (502 / 500 internal_error), never masked by a retry
  if (fault === 'wrong-model') return 'documented';
  if (RETRYABLE_STATUS.has(fault) || fault === 'reset-before' || fault === 'slow') return 'clean';
  // nothing reached the client: a JSON answer is read whole before answering; a stream fault in its first frame
  if (!c.stream || FIRST_FRAME.has(fault)) return 'clean';
  return 'documented';
}

const cases: Case[] = [];
for (const endpoint of ENDPOINTS) {
  for (const protocol of PROTOCOLS) {
    for (const fault of faultsOf(protocol)) {
      for (const stream of [false, true]) {
        for (const alone of [false, true]) cases.push({ endpoint, protocol, fault, stream, alone });
      }
    }
  }
}

let gw: RunningGateway;
let ledger: LedgerView;
t.before(async () => {
  gw = await startGateway(store.config);
  ledger = new LedgerView(store.db);
});
t.teardown(async () => {
  ledger?.close();
  await gw?.stop();
});

interface Outcome {
  c: Case;
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}

/** Runs the cases `width` at a time (the slow faults cost hundreds of ms each). */
async function runAll(list: Case[], width: number): Promise<Outcome[]> {
  const out: Outcome[] = new Array(list.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < list.length) {
      const i = next++;
      const c = list[i]!;
      const started = Date.now();
      const res = await request(gw, c);
      out[i] = { c, status: res.status, headers: res.headers, text: await res.text(), ms: Date.now() - started };
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

t.test('the fault matrix', async (t) => {
  const started = Date.now();
  const outcomes = await runAll(cases, FULL ? 4 : 8);
  let spentByRecords = 0;
  const statuses = new Map<string, number>();
  for (const o of outcomes) {
    const { c } = o;
    const name = caseName(c);
    const todo = TODO.find(([re]) => re.test(name))?.[1];
    const key = `${o.status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    // the usage record is read (and its cost summed) whether or not the case is a todo
    const reqId = gatewayRequestId(o.headers);
    const row = reqId === null ? undefined : await ledger.row('acme', reqId);
    if (row) spentByRecords += row.cost;
    await t.test(name, todo ? { todo } : {}, async (t) => {
      t.ok(reqId, 'a request id header');
      const want = expected(c);
      let failedStream = false;
      if (o.status === 200) {
        if (c.stream) {
          const end = sseEnd(c.endpoint, o.text);
          t.ok(end.clean || end.failed, `the stream ends with the dialect's end or its in-stream error: ${o.text.slice(-300)}`);
          failedStream = end.failed;
          if (end.failed && c.endpoint !== 'messages') t.ok(end.errorCode === undefined || documentedPair(c.endpoint, 503, end.errorCode) || documentedPair(c.endpoint, 500, end.errorCode) || documentedPair(c.endpoint, 429, end.errorCode), `in-stream code ${end.errorCode} is documented`);
          if (want === 'clean') t.ok(end.clean, `failover before anything reached the client: a clean answer: ${o.text.slice(0, 300)}`);
        } else {
          t.doesNotThrow(() => JSON.parse(o.text), 'a JSON answer');
        }
      } else {
        if (want === 'clean') t.fail(`failover before anything reached the client: 200 expected, got ${o.status}: ${o.text.slice(0, 300)}`);
        const err = readError(c.endpoint, o.status, o.text);
        if (typeof err === 'string') t.fail(err);
        else {
          t.ok(documentedPair(c.endpoint, o.status, err.code), `${o.status} ${err.code} is documented for ${c.endpoint}: ${err.message?.slice(0, 200)}`);
          if (c.endpoint === 'messages') t.equal(err.requestId, o.headers.get('request-id'), 'request_id equals the request-id header');
        }
        if (c.alone && c.endpoint !== 'messages' && c.fault !== IN_BAND && (RETRYABLE_STATUS.has(c.fault) || c.fault === 'reset-before' || c.fault === 'slow')) {
          t.equal(o.status, 503, 'every deployment failed: the spec\'s 503 provider_unavailable');
        }
      }
      t.ok(row, `a usage record for ${reqId}`);
      if (!row) return;
      if (o.status !== 200) t.equal(row.cost, 0, 'an error answer costs nothing');
      else if (failedStream && c.endpoint !== 'messages') {
        t.equal(row.cost, 0, 'a failed Chat/Responses stream costs nothing');
        t.ok(row.error_code, 'the failed stream is recorded with its error code');
      } else {
        t.equal(row.cost, expectedCost(PRICING, rowUsage(row)), 'the cost is the recorded (validated) usage at the model\'s prices');
        if (failedStream) t.ok(row.error_code, 'the failed stream is recorded with its error code');
        else t.ok(row.output_tokens > 0, 'a clean answer records its usage');
      }
    });
  }
  t.same(ledger.reservations(), [], 'no open reservation afterwards');
  const org = ledger.org('acme');
  t.equal(org.reserved, 0, 'nothing held');
  t.equal(org.spent, spentByRecords, 'the organisation spent exactly the sum of the usage records');
  const figure = `fault matrix: ${cases.length} cases = (${FAULT_KINDS.length} fault kinds × ${ENDPOINTS.length} endpoints × ${PROTOCOLS.length} upstream protocols + a recorded in-band error × ${ENDPOINTS.length} endpoints) × stream/JSON × failover/alone; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${Date.now() - started} ms`;
  t.comment(figure);
  console.log(`# ${figure}`);
});
