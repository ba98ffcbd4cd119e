// A seeded fuzzer over the four endpoints (Messages, Chat Completions, Responses, transcriptions)
// through the real bin/gateway, seeded from the requests real clients sent (./seeds.ts): each input
// is a captured body with one to three mutations (a field deleted, retyped, made huge, filled with
// awkward unicode or nested deeply). Every answer must be a 2xx, or a 4xx in the endpoint's
// envelope with a documented status/code pair that names the offending field, never a 5xx; a 4xx is
// never charged, and no reservation stays open. Quick by default (a few hundred inputs);
// GATEWAY_RELIABILITY_FULL=1 runs thousands. GATEWAY_FUZZ_SEED picks another seed.
import t from 'tap';
import { fileStoreConfig, LedgerView, TEST_KEY } from '../helpers/billing.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { documentedPair, gatewayRequestId, readError } from './documented.js';
import { mutate, pick, prng, type Json } from './mutate.js';
import { loadSeeds, PATHS, type FuzzEndpoint, type Seed } from './seeds.js';

const FULL = process.env.GATEWAY_RELIABILITY_FULL === '1';
const INPUTS = FULL ? 4000 : 320;
const SEED = Number(process.env.GATEWAY_FUZZ_SEED ?? 18);
const ENDPOINTS: readonly FuzzEndpoint[] = ['messages', 'chat', 'responses', 'transcriptions'];
/** served models: the seeds' own names mostly do not exist here (an unknown model is only a 400) */
const MODELS: Record<Exclude<FuzzEndpoint, 'transcriptions'>, readonly string[]> = {
  messages: ['anthropic/claude-sonnet-5', 'openai/gpt-5'],
  chat: ['openai/gpt-5', 'anthropic/claude-sonnet-5'],
  responses: ['openai/gpt-5', 'anthropic/claude-sonnet-5'],
};

const store = fileStoreConfig([], { orgs: [{ id: 'acme', credits: 10000, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }] });

interface Input {
  index: number;
  endpoint: FuzzEndpoint;
  label: string;
  what: string[];
  init: RequestInit;
}

function jsonInput(seed: Seed, rand: () => number, index: number): Input {
  const body = structuredClone(seed.body) as Record<string, Json>;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) body.model = pick(rand, MODELS[seed.endpoint as keyof typeof MODELS]);
  const { body: mutated, what } = mutate(body, rand);
  const headers: Record<string, string> =
    seed.endpoint === 'messages'
      ? { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY, ...seed.headers }
      : { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` };
  return { index, endpoint: seed.endpoint, label: seed.label, what, init: { method: 'POST', headers, body: JSON.stringify(mutated) } };
}

const FIELD_VALUES = ['', ' ', 'x'.repeat(70_000), '\ud800', '{"call_name": 5}', '{not json', '-1', '1e999', 'NaN', 'json', 'text', 'srt', 'verbose_json', '[]', 'gateway-auto', 'whisper-1', 'no-such-model'];
const FIELD_NAMES = ['model', 'response_format', 'language', 'prompt', 'temperature', 'gateway', 'metadata', 'stream', 'timestamp_granularities[]', 'unknown_field'];

/** A transcription form: fields changed, deleted, repeated or added, the file dropped, emptied or renamed. */
function formInput(seed: Seed, rand: () => number, index: number): Input {
  const fields = seed.fields!.map(([k, v]) => [k, v] as [string, string]);
  let file: { name: string; bytes: Buffer } | undefined = seed.file;
  const what: string[] = [];
  for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
    const op = Math.floor(rand() * 6);
    const name = pick(rand, FIELD_NAMES);
    const value = pick(rand, FIELD_VALUES);
    if (op === 0) fields.splice(fields.findIndex(([k]) => k === name) >>> 0, 1), what.push(`delete ${name}`);
    else if (op === 1) fields.push([name, value]), what.push(`add ${name}=${value.slice(0, 20)}`);
    else if (op === 2) {
      const i = fields.findIndex(([k]) => k === name);
      if (i >= 0) fields[i] = [name, value];
      else fields.push([name, value]);
      what.push(`${name} := ${value.slice(0, 20)}`);
    } else if (op === 3) (file = undefined), what.push('no file');
    else if (op === 4) file && ((file = { ...file, bytes: Buffer.alloc(0) }), what.push('empty file'));
    else file && ((file = { ...file, name: pick(rand, ['a.exe', 'noext', '', 'a.WAV', '\u202e.mp3', 'x'.repeat(300) + '.wav']) }), what.push(`file name ${file.name.slice(0, 20)}`));
  }
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  if (file) form.append('file', new Blob([file.bytes]), file.name);
  return { index, endpoint: 'transcriptions', label: seed.label, what, init: { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form } };
}

/**
 * A 4xx names the offending field: in `param`, as the path its message starts with, or (a body the
 * JSON reader refused, e.g. nested past its depth limit) in parentheses after the byte offset.
 */
function namesField(message: string | undefined, param: string | undefined): boolean {
  if (param !== undefined && param !== '') return true;
  if (message === undefined) return false;
  return /^(capability_rejected: )?[A-Za-z_][\w.[\]\-]*(\s\([^)]*\))?: /.test(message) || /^The request body is not valid JSON: at byte \d+ \([A-Za-z_][\w.[\]]*/.test(message);
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

t.test('fuzzed client requests: a 2xx or a documented 4xx naming the field, never a 5xx or a charge for a 4xx', async (t) => {
  const seeds = await loadSeeds();
  const byEndpoint = new Map(ENDPOINTS.map((e) => [e, seeds.filter((s) => s.endpoint === e)]));
  for (const e of ENDPOINTS) t.ok(byEndpoint.get(e)!.length > 0, `seeds for ${e}`);
  const rand = prng(SEED);
  const inputs: Input[] = [];
  for (let i = 0; i < INPUTS; i++) {
    const endpoint = ENDPOINTS[i % ENDPOINTS.length]!;
    const seed = pick(rand, byEndpoint.get(endpoint)!);
    inputs.push(endpoint === 'transcriptions' ? formInput(seed, rand, i) : jsonInput(seed, rand, i));
  }
  const started = Date.now();
  const violations: string[] = [];
  const statuses = new Map<string, number>();
  const refused: { id: string; input: Input }[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputs.length) {
      const input = inputs[next++]!;
      const where = `#${input.index} ${input.endpoint} ${input.label} [${input.what.join('; ')}]`;
      const res = await fetch(`${gw.url}${PATHS[input.endpoint]}`, input.init);
      const text = await res.text();
      statuses.set(`${input.endpoint} ${res.status}`, (statuses.get(`${input.endpoint} ${res.status}`) ?? 0) + 1);
      const id = gatewayRequestId(res.headers);
      if (id === null) violations.push(`${where}: no request id`);
      if (res.status >= 500) violations.push(`${where}: ${res.status} ${text.slice(0, 200)}`);
      else if (res.status >= 400) {
        const err = readError(input.endpoint === 'messages' ? 'messages' : input.endpoint, res.status, text);
        if (typeof err === 'string') violations.push(`${where}: ${res.status} ${err}`);
        else {
          if (!documentedPair(input.endpoint, res.status, err.code)) violations.push(`${where}: ${res.status} ${err.code} is not documented`);
          if (res.status === 400 && !namesField(err.message, err.param)) violations.push(`${where}: 400 names no field: ${err.message?.slice(0, 160)}`);
        }
        if (id !== null) refused.push({ id, input });
      } else if (res.status < 200 || res.status >= 300) violations.push(`${where}: status ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  // every refused request: no usage record, or one that cost nothing
  for (const { id, input } of refused) {
    const row = ledger.usage('acme').find((r) => r.request_id === id);
    if (row && row.cost !== 0) violations.push(`#${input.index} ${input.endpoint}: a 4xx was charged ${row.cost}`);
  }
  t.same(violations.slice(0, 25), [], `no violation (${violations.length} in all)`);
  const health = await fetch(`${gw.url}/api/hello`, { method: 'HEAD' });
  t.equal(health.status, 204, 'the gateway still answers');
  const org = ledger.org('acme');
  t.equal(org.reserved, 0, 'nothing held');
  t.same(ledger.reservations(), [], 'no open reservation');
  t.equal(org.spent, ledger.usage('acme').reduce((s, r) => s + r.cost, 0), 'spent is the sum of the usage records');
  const figure = `fuzz: ${inputs.length} inputs fuzzed from ${seeds.length} captured client requests (seed ${SEED}) over ${ENDPOINTS.length} endpoints; answers ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ${Date.now() - started} ms`;
  t.comment(figure);
  console.log(`# ${figure}`);
});
