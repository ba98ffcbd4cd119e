// Shared helpers for the simulated-provider tests (not a test file itself).
import { startSimProvider, type SimProvider } from '../../lib/sim/server.js';

export const AH: Record<string, string> = {
  'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json',
};
export const OH: Record<string, string> = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };

export type J = Record<string, unknown>;

export async function startSim(t: { teardown(fn: () => unknown): void }): Promise<SimProvider> {
  const sim = await startSimProvider({ port: 0 });
  t.teardown(() => sim.close());
  return sim;
}

export function post(sim: SimProvider, path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(sim.url + path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

export const anthropic = (sim: SimProvider, body: unknown): Promise<Response> => post(sim, '/v1/messages', body, AH);
export const chat = (sim: SimProvider, body: unknown): Promise<Response> => post(sim, '/v1/chat/completions', body, OH);
export const responses = (sim: SimProvider, body: unknown): Promise<Response> => post(sim, '/v1/responses', body, OH);

export function transcribe(sim: SimProvider, fields: Record<string, string>, bytes = 2500, filename = 'clip.wav'): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'audio/wav' }), filename);
  return fetch(`${sim.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer sk-test' }, body: form });
}

export interface SseEvent {
  event?: string;
  data: string;
}

export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const ev: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) ev.event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    ev.data = data.join('\n');
    out.push(ev);
  }
  return out;
}

/** Parsed data of every event, skipping `[DONE]`. */
export function dataOf(events: SseEvent[]): J[] {
  return events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as J);
}

/** Reads a body until it fails or ends; returns the text and the error, if any. */
export async function readAll(res: Response): Promise<{ text: string; error?: unknown }> {
  const reader = res.body?.getReader();
  if (!reader) return { text: '' };
  const dec = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += dec.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

export const msgs = (text: string): J[] => [{ role: 'user', content: text }];
export const tokensOf = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);
export const words = (s: string): number => s.trim().split(/\s+/).filter(Boolean).length;
