// The gateway the POST /v1/responses tests share: the default test catalog plus a Responses
// deployment, a redacted-thinking model and fixture/fault models; `post` sends a body with the test
// key, `sse` reads a named-SSE answer.
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { parseSse } from '../helpers/messages.js';

export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const config = withModels(baseConfig(), [
  { id: 'openai/gpt-5-mini', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text', 'image'], reasoning: true, family: 'openai' },
  { id: 'test/redacted', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'claude-sonnet-5;redacted' }], pricing: { input: 3, output: 15 }, input: ['text'], reasoning: true },
  { id: 'fx/max-tokens', family: 'anthropic', deployments: [{ provider: 'fx-max-tokens', model: 'claude-sonnet-4-20250514' }], pricing: { input: 3, output: 15 } },
  { id: 'fx/incomplete', family: 'openai', deployments: [{ provider: 'fx-incomplete', model: 'gpt-4o-2024-08-06', api: 'responses' }], pricing: { input: 3, output: 15 } },
  { id: 'fx/reset-mid', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'fault:reset-mid' }], pricing: { input: 3, output: 15 } },
  { id: 'fx/fault-400', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'fault:400' }], pricing: { input: 3, output: 15 } },
]);
config.providers = [
  ...(config.providers as Obj[]),
  { id: 'fx-max-tokens', protocol: 'anthropic', simulated: true, timeoutMs: 5000, headers: { 'x-sim-model': 'fixture:anthropic/max-tokens.sse' } },
  { id: 'fx-incomplete', protocol: 'openai', simulated: true, timeoutMs: 5000, headers: { 'x-sim-model': 'fixture:openai-responses/incomplete-max-output-tokens.json' } },
];

export interface Ev {
  event: string | undefined;
  data: Obj;
}

export interface ResponsesHarness {
  /** the running gateway (set before the first test) */
  gw: RunningGateway;
  post(body: Obj): Promise<{ status: number; text: string; headers: Headers }>;
  sse(text: string): Ev[];
}

/** Start the gateway before this file's tests and stop it after them. */
export function responsesGateway(): ResponsesHarness {
  const h: ResponsesHarness = {
    gw: undefined as unknown as RunningGateway,
    async post(body) {
      const r = await fetch(`${h.gw.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, text: await r.text(), headers: r.headers };
    },
    sse(text) {
      return parseSse(text).map((f) => ({ event: f.event, data: JSON.parse(f.data) as Obj }));
    },
  };
  t.before(async () => {
    h.gw = await startGateway(config);
  });
  t.teardown(() => h.gw?.stop());
  return h;
}
