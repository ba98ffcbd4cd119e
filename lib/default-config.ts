// The built-in default configuration: no network, no real keys. A simulated provider (started in
// process) serves a demo catalog over both upstream protocols; a demo key with demo credits is
// printed at start, and a simulated search backend (Brave's API, on loopback) answers the web searches
// the gateway runs. `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` in the environment switch the matching
// models to the real provider (and the demo key becomes a random one, under its own id: see below).
// `GATEWAY_ANTHROPIC_BASE_URL` / `GATEWAY_OPENAI_BASE_URL` point those real providers elsewhere (a
// proxy, or bin/sim-provider in tests); not ANTHROPIC_BASE_URL, which Claude Code reads to find the
// gateway itself.
import { randomBytes } from 'node:crypto';

export const DEMO_KEY = 'sk-gw-demo-0000';

/** The key's id when every provider is simulated. */
export const DEMO_KEY_ID = 'demo';
/**
 * The key's id once a real provider is in use: another id, so real spend never lands in the demo
 * key's history (and the store's reconciliation disables the other one at start).
 */
export const LOCAL_KEY_ID = 'local';

interface Env {
  ANTHROPIC_API_KEY?: string;
  OPENAI_API_KEY?: string;
  GATEWAY_ANTHROPIC_BASE_URL?: string;
  GATEWAY_OPENAI_BASE_URL?: string;
}

function claude(id: string, aliases: string[], price: [number, number, number, number], maxOut: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const name = id.slice('anthropic/'.length);
  return {
    id,
    family: 'anthropic',
    displayName: name,
    created: '2026-10-15T00:00:00Z',
    aliases,
    deployments: [{ provider: 'anthropic', model: name.replace(/\.(\d+)$/, '-$1') }],
    pricing: { input: price[0], output: price[1], cacheRead: price[2], cacheWrite: price[3] },
    input: ['text', 'image'],
    contextWindow: 200000,
    maxOutputTokens: maxOut,
    reasoning: true,
    tools: true,
    // Anthropic hosts run the hosted web search tool themselves: search-only requests may go here
    webSearch: true,
    ...extra,
  };
}

export function defaultConfig(env: Env = process.env as Env): { config: Record<string, unknown>; demoKey: string; simulatedOnly: boolean } {
  const realAnthropic = Boolean(env.ANTHROPIC_API_KEY);
  const realOpenAi = Boolean(env.OPENAI_API_KEY);
  const providers: Record<string, unknown>[] = [
    realAnthropic
      ? { id: 'anthropic', protocol: 'anthropic', baseUrl: env.GATEWAY_ANTHROPIC_BASE_URL || 'https://api.anthropic.com', apiKey: '${ANTHROPIC_API_KEY}' }
      : { id: 'anthropic', protocol: 'anthropic', simulated: true },
    realOpenAi
      ? { id: 'openai', protocol: 'openai', baseUrl: env.GATEWAY_OPENAI_BASE_URL || 'https://api.openai.com/v1', apiKey: '${OPENAI_API_KEY}' }
      : { id: 'openai', protocol: 'openai', simulated: true },
  ];
  const simulatedOnly = !realAnthropic && !realOpenAi;
  const demoKey = simulatedOnly ? DEMO_KEY : `sk-gw-${randomBytes(18).toString('base64url')}`;
  const config = {
    listen: { host: '127.0.0.1', port: 8787 },
    store: 'sqlite:data/gateway.db',
    providers,
    models: [
      claude('anthropic/claude-opus-5.5', ['claude-opus-5-5', 'opus'], [5, 25, 0.5, 6.25], 64000, { speeds: ['standard', 'fast'], advisor: true }),
      claude('anthropic/claude-sonnet-5.5', ['claude-sonnet-5-5', 'sonnet'], [3, 15, 0.3, 3.75], 64000),
      claude('anthropic/claude-haiku-5.5', ['claude-haiku-5-5', 'haiku'], [1, 5, 0.1, 1.25], 32000),
      claude('anthropic/claude-opus-5', [], [5, 25, 0.5, 6.25], 64000, { speeds: ['standard', 'fast'], advisor: true, snapshots: { 'claude-opus-5-20261015': 'anthropic/claude-opus-5' } }),
      claude('anthropic/claude-sonnet-5', [], [3, 15, 0.3, 3.75], 64000),
      claude('anthropic/claude-fable-5', ['fable'], [1, 5, 0.1, 1.25], 32000),
      claude('anthropic/claude-opus-4.8', [], [5, 25, 0.5, 6.25], 32000, { speeds: ['standard', 'fast'] }),
      {
        id: 'openai/gpt-5',
        family: 'openai',
        aliases: ['gpt-5'],
        deployments: [{ provider: 'openai', model: 'gpt-5', api: 'chat' }],
        pricing: { input: 1.25, output: 10, cacheRead: 0.125 },
        input: ['text', 'image'],
        contextWindow: 400000,
        maxOutputTokens: 128000,
        reasoning: true,
        // the gateway runs web search for it (decisions §11): search-only requests may go here
        webSearch: true,
      },
      {
        id: 'openai/gpt-5-mini',
        family: 'openai',
        aliases: ['gpt-5-mini'],
        deployments: [{ provider: 'openai', model: 'gpt-5-mini', api: 'responses' }],
        pricing: { input: 0.25, output: 2, cacheRead: 0.025 },
        input: ['text', 'image'],
        contextWindow: 400000,
        maxOutputTokens: 128000,
        reasoning: true,
      },
      {
        id: 'openai/gpt-4o-transcribe',
        family: 'openai',
        deployments: [{ provider: 'openai', model: 'gpt-4o-transcribe', api: 'transcriptions' }],
        pricing: { input: 2.5, output: 10 },
        input: ['audio'],
      },
      {
        id: 'openai/gpt-4o-mini-transcribe',
        family: 'openai',
        deployments: [{ provider: 'openai', model: 'gpt-4o-mini-transcribe', api: 'transcriptions' }],
        pricing: { input: 1.25, output: 5 },
        input: ['audio'],
      },
    ],
    transcription: { defaultModel: 'openai/gpt-4o-transcribe' },
    // web search run by the gateway, answered by the simulated search backend started on loopback
    webSearch: { backends: [{ type: 'brave', simulated: true }] },
    router: { candidates: ['anthropic/claude-sonnet-5.5', 'anthropic/claude-opus-5.5', 'openai/gpt-5'] },
    anthropicVersions: ['2026-10-21'],
    orgs: [{ id: 'demo', credits: 100, projects: [{ id: 'default', environments: [{ id: 'development' }] }] }],
    keys: [{ id: simulatedOnly ? DEMO_KEY_ID : LOCAL_KEY_ID, key: demoKey, org: 'demo', project: 'default', environment: 'development' }],
  };
  return { config, demoKey, simulatedOnly };
}
