// Builds a RequestContext without HTTP: a finalized config, a seeded in-memory store, the catalog,
// an in-process rate limiter and a silent logger, so stages can be driven directly in tests.
import { pino, type Logger } from 'pino';
import { Catalog } from '../../lib/catalog.js';
import type { CanonicalRequest, DialectName, RoutedRequest } from '../../lib/chunks.js';
import { finalizeConfig, type Config } from '../../lib/config.js';
import type { EndpointName, RequestContext } from '../../lib/context.js';
import { InProcessRateLimiter, type RateLimiter } from '../../lib/rate-limit.js';
import type { Services } from '../../lib/services.js';
import { Store } from '../../lib/store/store.js';

/** A small config: one simulated provider, priced models, an org with a project and environment, keys. */
export function testConfig(overrides: Record<string, unknown> = {}): Config {
  return finalizeConfig(
    {
      store: 'sqlite::memory:',
      logLevel: 'silent',
      providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
      models: [
        {
          id: 'anthropic/claude-opus-5',
          deployments: [{ provider: 'sim', model: 'claude-opus-5' }],
          pricing: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
          maxOutputTokens: 64000,
        },
        { id: 'anthropic/claude-fable-5', deployments: [{ provider: 'sim', model: 'claude-fable-5' }], pricing: { input: 0.8, output: 4 }, maxOutputTokens: 8192 },
      ],
      orgs: [
        { id: 'acme', credits: 100, projects: [{ id: 'web', spendCap: 50, environments: [{ id: 'production', spendCap: 40 }] }] },
        { id: 'poor', credits: 0.01 },
      ],
      keys: [
        { id: 'key_acme', key: 'sk-test-acme-0001', org: 'acme', project: 'web', environment: 'production', spendCap: 10, rateLimit: { rpm: 600, tpm: 2_000_000 } },
        { id: 'key_free', key: 'sk-test-free-0002', org: 'acme' },
        { id: 'key_poor', key: 'sk-test-poor-0003', org: 'poor' },
      ],
      ...overrides,
    },
    {},
  );
}

export interface TestServices extends Services {
  store: Store;
}

export function makeServices(config: Config = testConfig(), rateLimiter: RateLimiter = new InProcessRateLimiter()): TestServices {
  const store = new Store('sqlite::memory:');
  store.seed(config);
  return {
    store,
    catalog: new Catalog(config),
    // stages under test here never call a provider
    providers: {} as unknown as Services['providers'],
    rateLimiter,
  };
}

export interface ContextOptions {
  config?: Config;
  services?: TestServices;
  /** the presented key (seeded in the config); null leaves ctx.key unset */
  key?: string | null;
  endpoint?: EndpointName;
  dialect?: DialectName;
  log?: Logger;
  reqId?: string;
}

let counter = 0;

/** A request context whose store is the SQLite one tests read synchronously. */
export type TestContext = Omit<RequestContext, 'services'> & { readonly services: TestServices };

export function makeContext(opts: ContextOptions = {}): TestContext {
  const config = opts.config ?? testConfig();
  const services = opts.services ?? makeServices(config);
  const controller = new AbortController();
  const presented = opts.key === undefined ? 'sk-test-acme-0001' : opts.key;
  const key = presented === null ? null : (services.store.findKey(presented) ?? null);
  if (presented !== null && key === null) throw new Error(`test key ${presented} is not seeded`);
  const log = opts.log ?? pino({ level: 'silent' });
  return {
    reqId: opts.reqId ?? `req_test_${++counter}`,
    log,
    logsInfo: log.isLevelEnabled('info'),
    signal: controller.signal,
    abort: (reason?: unknown) => controller.abort(reason),
    config,
    services,
    endpoint: opts.endpoint ?? 'messages',
    dialect: opts.dialect ?? 'anthropic',
    method: 'POST',
    path: '/v1/messages',
    headers: {},
    rawHeaders: [],
    query: new URLSearchParams(),
    startedAt: Date.now(),
    key,
    anthropic: null,
    responseHeaders: {},
  };
}

export interface RoutedOptions {
  model?: string | null;
  inputTokenBound?: number;
  maxTokens?: number | null;
  hostedToolUses?: number;
  labels?: CanonicalRequest['labels'];
}

/** A routed request to `modelId` with the given bounds. */
export function makeRouted(modelId: string, opts: RoutedOptions = {}): RoutedRequest {
  const request: CanonicalRequest = {
    source: 'anthropic',
    body: {},
    model: opts.model === undefined ? modelId : opts.model,
    stream: true,
    maxTokens: opts.maxTokens ?? null,
    needs: { modalities: new Set(['text']), tools: false, reasoning: false, signedThinking: false },
    inputTokenBound: opts.inputTokenBound ?? 1000,
    hostedToolUses: opts.hostedToolUses ?? 0,
    labels: opts.labels ?? {},
    forward: { betas: [], headers: {} },
  };
  return {
    request,
    modelId,
    deployments: [],
    routed: false,
    routingLatencyMs: null,
    maxTokens: opts.maxTokens ?? null,
    modelMaxOutputTokens: 64000,
    modelReasoning: true,
    maxTokensCappedTo: null,
    thinkingBudget: null,
  };
}
