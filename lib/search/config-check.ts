// What the JSON Schema cannot say about `webSearch` (decisions §11): a vendor with a key needs one,
// and SearXNG, which has no public host, needs its instance's baseUrl. Errors name the field.
import type { WebSearchConfig } from './types.js';

const NEEDS_KEY = new Set(['brave', 'tavily', 'exa']);

export function checkWebSearchConfig(ws: WebSearchConfig | undefined, fail: (message: string) => Error): void {
  ws?.backends.forEach((b, i) => {
    const at = `webSearch.backends[${i}]`;
    if (b.simulated === true) return; // the simulated backend gets its URL and key at start
    if (NEEDS_KEY.has(b.type) && !b.apiKey) throw fail(`${at}.apiKey: is required for a "${b.type}" backend (it may be "\${ENV_VAR}")`);
    if (b.type === 'searxng' && !b.baseUrl) throw fail(`${at}.baseUrl: is required for a "searxng" backend (the instance's URL)`);
  });
}
