// The fuzzer's seeds: the requests real clients sent (fixtures/clients/*.jsonl, and the client
// probe's captures in /work/shared/clients/ when present), one per distinct body, for the four
// endpoints: Messages, Chat Completions, Responses (JSON) and transcriptions (multipart).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.js';
import type { Json } from './mutate.js';

export type FuzzEndpoint = 'messages' | 'chat' | 'responses' | 'transcriptions';

export const PATHS: Record<FuzzEndpoint, string> = {
  messages: '/v1/messages',
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  transcriptions: '/v1/audio/transcriptions',
};

export interface Seed {
  endpoint: FuzzEndpoint;
  label: string;
  /** JSON endpoints: the body */
  body?: Json;
  /** transcriptions: the form's text fields and its file */
  fields?: [string, string][];
  file?: { name: string; bytes: Buffer };
  /** headers worth keeping (`anthropic-beta`) */
  headers: Record<string, string>;
}

const DIRS = [join(ROOT, 'fixtures', 'clients'), '/work/shared/clients'];

interface Capture {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  bodyBase64?: string;
}

function endpointOf(path: string): FuzzEndpoint | undefined {
  return (Object.keys(PATHS) as FuzzEndpoint[]).find((e) => PATHS[e] === path);
}

async function formOf(c: Capture): Promise<Pick<Seed, 'fields' | 'file'> | undefined> {
  const type = c.headers?.['content-type'];
  if (c.bodyBase64 === undefined || type === undefined) return undefined;
  const form = await new Response(Buffer.from(c.bodyBase64, 'base64'), { headers: { 'content-type': type } }).formData();
  const fields: [string, string][] = [];
  let file: Seed['file'];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields.push([name, value]);
    else file = { name: value.name, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return file ? { fields, file } : undefined;
}

/** Every distinct captured POST to the four endpoints. */
export async function loadSeeds(): Promise<Seed[]> {
  const seen = new Set<string>();
  const out: Seed[] = [];
  for (const dir of DIRS) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const c = JSON.parse(line) as Capture;
        const endpoint = endpointOf(c.path);
        if (c.method !== 'POST' || endpoint === undefined) continue;
        const key = `${endpoint}\n${c.body ?? c.bodyBase64 ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const headers: Record<string, string> = {};
        const beta = c.headers?.['anthropic-beta'];
        if (endpoint === 'messages' && beta !== undefined) headers['anthropic-beta'] = beta;
        if (endpoint === 'transcriptions') {
          const form = await formOf(c);
          if (form) out.push({ endpoint, label: c.label, headers, ...form });
        } else if (c.body !== undefined) {
          out.push({ endpoint, label: c.label, headers, body: JSON.parse(c.body) as Json });
        }
      }
    }
  }
  return out;
}
