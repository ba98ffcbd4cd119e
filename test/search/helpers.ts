// Shared by the web search tests: a runner config over the simulated search backend.
import type { SearchBackendConfig, WebSearchConfig } from '../../lib/search/index.js';

export function wsConfig(backends: SearchBackendConfig[], extra: Partial<WebSearchConfig> = {}): WebSearchConfig {
  return { backends, maxResults: 5, maxSearches: 5, maxRounds: 4, snippetChars: 1200, timeoutMs: 3000, ...extra };
}

/** One backend of each vendor, all pointing at `base`. */
export function vendorBackends(base: string): Record<SearchBackendConfig['type'], SearchBackendConfig> {
  return {
    brave: { type: 'brave', baseUrl: base, apiKey: 'brave-key-0001' },
    tavily: { type: 'tavily', baseUrl: base, apiKey: 'tvly-key-0002' },
    exa: { type: 'exa', baseUrl: base, apiKey: 'exa-key-0003' },
    searxng: { type: 'searxng', baseUrl: base },
  };
}
