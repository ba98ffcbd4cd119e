// Fixture replay (`fixture:<path>` model names) serves the recorded bytes exactly.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';
import type { SimProvider } from '../../lib/sim/server.js';
import { anthropic, chat, startSim, type J } from './util.js';

const UPSTREAM = join(FIXTURES, 'upstream');

function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(p).isDirectory()) out.push(...walk(p, r));
    else if (/\.(sse|json)$/.test(name)) out.push(r);
  }
  return out;
}

const FILES = walk(UPSTREAM);

function ask(sim: SimProvider, model: string, stream: boolean): Promise<Response> {
  return model.includes('anthropic')
    ? anthropic(sim, { model, max_tokens: 10, stream, messages: [{ role: 'user', content: 'x' }] })
    : chat(sim, { model, stream, messages: [{ role: 'user', content: 'x' }] });
}

t.test('fixtures were copied with SOURCES.md', async (t) => {
  t.ok(FILES.length >= 60, `${FILES.length} recorded files`);
  t.ok(statSync(join(UPSTREAM, 'SOURCES.md')).isFile());
});

t.test('every recorded success body replays byte-identical', async (t) => {
  const sim = await startSim(t);
  for (const rel of FILES.filter((f) => !(f.startsWith('errors/') && f.endsWith('.json')))) {
    const res = await ask(sim, `fixture:${rel}`, rel.endsWith('.sse'));
    t.equal(res.status, 200, rel);
    t.equal(res.headers.get('content-type'), rel.endsWith('.sse') ? 'text/event-stream' : 'application/json', `${rel} content-type`);
    const got = Buffer.from(await res.arrayBuffer());
    t.ok(got.equals(readFileSync(join(UPSTREAM, rel))), `${rel} bytes`);
  }
});

t.test('extension chosen by stream flag, single file served either way', async (t) => {
  const sim = await startSim(t);
  const sse = readFileSync(join(UPSTREAM, 'anthropic/text-basic.sse'));
  const json = readFileSync(join(UPSTREAM, 'anthropic/text-basic.json'));
  t.ok(Buffer.from(await (await ask(sim, 'fixture:anthropic/text-basic', true)).arrayBuffer()).equals(sse));
  t.ok(Buffer.from(await (await ask(sim, 'fixture:anthropic/text-basic', false)).arrayBuffer()).equals(json));
  const only = await ask(sim, 'fixture:anthropic/tool-use-single', false);
  t.equal(only.headers.get('content-type'), 'text/event-stream', 'only the .sse exists');
  t.ok(Buffer.from(await only.arrayBuffer()).equals(readFileSync(join(UPSTREAM, 'anthropic/tool-use-single.sse'))));
});

t.test('chunk and delay options keep the bytes identical', async (t) => {
  const sim = await startSim(t);
  const res = await ask(sim, 'fixture:openai-chat/text-usage;chunk=7;delay=1', true);
  t.ok(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(UPSTREAM, 'openai-chat/text-usage.sse'))));
  const crlf = await chat(sim, { model: 'fixture:openai-transcriptions/gpt-4o-transcribe-stream;chunk=3', stream: true, messages: [] });
  t.ok(Buffer.from(await crlf.arrayBuffer()).equals(readFileSync(join(UPSTREAM, 'openai-transcriptions/gpt-4o-transcribe-stream.sse'))));
});

t.test('recorded errors: status, headers that matter, raw body', async (t) => {
  const sim = await startSim(t);
  for (const rel of FILES.filter((f) => f.startsWith('errors/') && f.endsWith('.json'))) {
    const rec = JSON.parse(readFileSync(join(UPSTREAM, rel), 'utf8')) as { status: number; headers: Record<string, unknown> | null; body: string };
    const res = await ask(sim, `fixture:${rel.replace(/\.json$/, '')}`, true);
    t.equal(res.status, rec.status, `${rel} status`);
    t.equal(await res.text(), rec.body, `${rel} body`);
    for (const h of ['retry-after', 'request-id', 'x-request-id', 'content-type', 'x-should-retry']) {
      const v = rec.headers?.[h];
      if (typeof v === 'string') t.equal(res.headers.get(h), v, `${rel} ${h}`);
    }
  }
  const r401 = await ask(sim, 'fixture:errors/anthropic-401-authentication_error', true);
  t.equal(r401.headers.get('request-id'), 'req_011CWdMFGmmtqDd5uETFt98k');
  t.equal(r401.headers.get('x-should-retry'), 'false');
  await r401.arrayBuffer();
});

t.test('missing or escaping fixture paths are 404', async (t) => {
  const sim = await startSim(t);
  for (const model of ['fixture:anthropic/nope', 'fixture:../package', 'fixture:']) {
    const res = await ask(sim, model, false);
    t.equal(res.status, 404, model);
    t.match((await res.json()) as J, { error: { message: /no fixture/ } });
  }
});
