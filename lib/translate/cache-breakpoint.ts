// Prompt caching for Chat Completions and Responses clients served by Claude. OpenAI caches a
// prompt's prefix by itself, so those clients never ask for it; Claude caches only where the
// request says so, and without a breakpoint it re-bills the whole prefix at the full input price on
// every turn of an agent loop (FAILURE-MODES F46). The translated body gets Anthropic's top-level
// `cache_control` (automatic caching: the breakpoint sits on the last cacheable block, and the next
// turn finds the previous one by itself). Written as the first key of the JSON the translator
// produced, so the body stays the translator's bytes otherwise (and byte-stable across turns).
// Only when the body has no breakpoint of its own.
import type { RequestEncoder } from '../dialects/dialect.js';

const CACHE_CONTROL = '"cache_control":{"type":"ephemeral"},';

/** The encoder, with the automatic cache breakpoint added to each body it produces. */
export function withCacheBreakpoint(encoder: RequestEncoder): RequestEncoder {
  return (routed, deployment) => {
    const call = encoder(routed, deployment);
    const body = typeof call.body === 'string' ? call.body : call.body.toString('utf8');
    // a client that placed breakpoints of its own (OpenCode sends cache_control on Chat messages)
    // keeps exactly those: Anthropic takes at most four, the automatic one counting as one
    if (!body.startsWith('{') || body.includes('"cache_control"')) return call;
    return { ...call, body: '{' + CACHE_CONTROL + body.slice(1) };
  };
}
