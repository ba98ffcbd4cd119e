// The round-trip rule (decisions §10) as a property: whatever the gateway answered, in whatever shape
// (text, parallel and argument-less tool calls, signed and redacted reasoning, refusals, citations
// and annotations, server tools, cut answers) and from whichever upstream dialect (every recording
// of fixtures/upstream/, plus the simulated demo models), taken as the official SDK returns it
// (`create`, or the helpers that add fields: `chat.completions.parse()` / `stream()`,
// `messages.parse()` / `stream().finalMessage()`, `responses.parse()` / `stream()`) and pushed back
// as history, is accepted as the next turn on the same endpoint (and by count_tokens on Messages),
// by the same model and by a model of each other upstream dialect. Cases are drawn by a seeded generator: GATEWAY_ROUNDTRIP_SEED and
// GATEWAY_ROUNDTRIP_CASES reproduce or widen a run; a failure names its seed and case.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { prng as generator } from '../helpers/replay.js';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { recordingCatalog, recordings, type Recording } from './fixture-models.js';
import { firstTurn, nextTurn, type ClientApi, type Clients, type Helper } from './sdk-turns.js';

const SEED = Number(process.env.GATEWAY_ROUNDTRIP_SEED ?? 20261126);
const CASES = Number(process.env.GATEWAY_ROUNDTRIP_CASES ?? 60);

const APIS: ClientApi[] = ['messages', 'chat', 'responses'];
const HELPERS: Helper[] = ['create', 'helper'];
/** the demo models of the three upstream dialects (they answer any stream mode) */
const DEMO = ['anthropic/claude-opus-5', 'openai/gpt-5', 'openai/gpt-5-mini'];

interface Source {
  model: string;
  /** a recording answers in one stream mode only; a demo model in both */
  stream: boolean | undefined;
  tools: string[];
  label: string;
}

const recorded = recordings();
const sources: Source[] = [
  ...recorded.map((r: Recording) => ({ model: r.modelId, stream: r.stream, tools: r.toolNames, label: `${r.from}/${r.name}` })),
  ...DEMO.flatMap((model) => [
    { model, stream: undefined, tools: [], label: `${model} (demo, text and reasoning)` },
    { model, stream: undefined, tools: ['get_weather'], label: `${model} (demo, a tool call)` },
  ]),
];

const catalog = recordingCatalog(recorded);
const config = withModels(baseConfig(), [
  { id: 'openai/gpt-5-mini', family: 'openai', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text', 'image'], reasoning: true },
  ...catalog.models,
]);
config.providers = [...(config.providers as Record<string, unknown>[]), ...catalog.providers];
config.orgs = [{ id: 'acme', credits: 100000, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }];

let gw: RunningGateway;
let clients: Clients;
t.before(async () => {
  gw = await startGateway(config);
  clients = {
    openai: new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, timeout: 20_000 }),
    anthropic: new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0, timeout: 20_000 }),
  };
});
t.teardown(() => gw?.stop());

/**
 * The simulated provider's refusal of reasoning state signed or encrypted for another model (as the
 * real providers refuse it): the history passed the gateway; switching models mid-conversation with
 * model-bound reasoning is a provider rule, not a validation of the gateway's.
 */
const MODEL_BOUND = /Invalid signature in thinking block|Invalid data in redacted_thinking block|encrypted content for item .* could not be verified/;

function describe(e: unknown): string {
  if (e instanceof OpenAI.APIError || e instanceof Anthropic.APIError) return `${e.status} ${JSON.stringify(e.error) ?? e.message}`;
  return e instanceof Error ? e.message : String(e);
}

t.test(`${CASES} seeded cases (seed ${SEED}) over ${sources.length} answer sources × ${APIS.length} endpoints`, async (t) => {
  const rand = generator(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  // every source is drawn at least once on every endpoint before the random draws
  const plan: { source: Source; api: ClientApi }[] = sources.flatMap((source) => APIS.map((api) => ({ source, api })));
  while (plan.length < CASES) plan.push({ source: pick(sources), api: pick(APIS) });
  for (let i = 0; i < plan.length; i++) {
    const { source, api } = plan[i]!;
    const helper = pick(HELPERS);
    const stream = source.stream ?? rand() < 0.5;
    const name = `case ${i} (seed ${SEED}): ${source.label} on ${api}, ${stream ? 'streamed' : 'JSON'}, ${helper}`;
    let turn;
    try {
      turn = await firstTurn(api, clients, source.model, stream, helper, source.tools);
    } catch (e) {
      t.fail(`${name}: the first turn failed: ${describe(e)}`);
      continue;
    }
    const targets = [{ model: source.model, stream }, ...DEMO.filter((m) => m !== source.model).map((model) => ({ model, stream: rand() < 0.5 }))];
    for (const target of targets) {
      const err = await nextTurn(api, clients, target.model, target.stream, turn.history, source.tools).then(() => undefined, describe);
      if (err !== undefined && target.model !== source.model && MODEL_BOUND.test(err)) {
        t.pass(`${name}: the gateway accepted it; ${target.model}'s provider refused another model's reasoning state`);
        continue;
      }
      t.equal(err, undefined, `${name}; ${turn.shape}; sent back to ${target.model}`);
    }
  }
});
