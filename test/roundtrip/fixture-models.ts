// The recorded upstream answers of fixtures/upstream/{anthropic,openai-chat,openai-responses} as
// catalog models of a test gateway: one simulated provider per recording (it replays that file for
// whatever it is asked) and one model served by it under the recorded model name, so the answer
// passes the gateway's model check. Used by the round-trip property test.
import { readdirSync, readFileSync } from 'node:fs';
import { fixture } from '../helpers/paths.js';

export type UpstreamDialect = 'anthropic' | 'openai-chat' | 'openai-responses';

export interface Recording {
  from: UpstreamDialect;
  /** file name, e.g. `tool-use-parallel.sse` */
  name: string;
  /** the catalog id the test asks for */
  modelId: string;
  /** a streamed recording answers streamed requests only, a JSON one the others */
  stream: boolean;
  /** function tools the recording calls (the request declares them) */
  toolNames: string[];
}

const DIALECTS: UpstreamDialect[] = ['anthropic', 'openai-chat', 'openai-responses'];
/** recordings that are not an answer (an error, a router preamble without a model) */
const NOT_ANSWERS = /^(error-|azure-model-router)/;
/** server-side tools of the recordings: run by the provider, never declared as functions */
const HOSTED = new Set(['web_search', 'web_fetch', 'code_execution', 'bash_code_execution', 'text_editor_code_execution', 'code_interpreter']);

function recordedModel(text: string): string | undefined {
  return /"model"\s*:\s*"([^"]+)"/.exec(text)?.[1];
}

function calledTools(from: UpstreamDialect, text: string): string[] {
  const pattern = from === 'anthropic' ? /"type"\s*:\s*"tool_use"[^}]*?"name"\s*:\s*"([\w-]+)"/g : /"name"\s*:\s*"([\w-]+)"/g;
  const names = new Set<string>();
  for (const m of text.matchAll(pattern)) if (!HOSTED.has(m[1]!)) names.add(m[1]!);
  return [...names];
}

export function recordings(): Recording[] {
  const out: Recording[] = [];
  for (const from of DIALECTS) {
    for (const name of readdirSync(fixture('upstream', from)).sort()) {
      if (!/\.(sse|json)$/.test(name) || NOT_ANSWERS.test(name)) continue;
      const text = readFileSync(fixture('upstream', from, name), 'utf8');
      if (recordedModel(text) === undefined) continue;
      out.push({ from, name, modelId: `fx/${from}/${name.replace('.', '-')}`, stream: name.endsWith('.sse'), toolNames: calledTools(from, text) });
    }
  }
  return out;
}

/** Providers and models serving each recording. */
export function recordingCatalog(list: Recording[]): { providers: Record<string, unknown>[]; models: Record<string, unknown>[] } {
  const providers: Record<string, unknown>[] = [];
  const models: Record<string, unknown>[] = [];
  list.forEach((r, i) => {
    const text = readFileSync(fixture('upstream', r.from, r.name), 'utf8');
    const provider = `fx-${i}`;
    providers.push({ id: provider, protocol: r.from === 'anthropic' ? 'anthropic' : 'openai', simulated: true, timeoutMs: 5000, headers: { 'x-sim-model': `fixture:${r.from}/${r.name}` } });
    const api = r.from === 'openai-chat' ? { api: 'chat' } : r.from === 'openai-responses' ? { api: 'responses' } : {};
    models.push({
      id: r.modelId,
      family: r.from === 'anthropic' ? 'anthropic' : 'openai',
      deployments: [{ provider, model: recordedModel(text), ...api }],
      pricing: { input: 1, output: 2 },
      input: ['text', 'image'],
      maxOutputTokens: 32000,
      reasoning: true,
    });
  });
  return { providers, models };
}
