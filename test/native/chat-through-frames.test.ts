// Chat → Chat: the first frame (which gains the `gateway` object) and the finish frame are
// recognised by layout (frame-layouts.ts) and written as the upstream's bytes with only the model
// spliced in (and `gateway` appended to the first), not re-serialised: an escape the serialiser would
// never write, put in the upstream's `obfuscation` padding, is still there in the client's frames, and
// the frames say the same as the re-serialised ones (the model the client is served as, the gateway
// object on the first).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { fixture } from '../helpers/paths.js';

const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };

t.test('the first and the finish frames keep the upstream\'s bytes', async (t) => {
  const text = readFileSync(fixture('upstream', 'openai-chat', 'text-usage.sse'), 'utf8')
    .replace('"obfuscation":"wfQTBsUs"', '"obfuscation":"wfQ\\u0054BsUs"') // the first frame
    .replace(/("finish_reason":"stop"\}\],"usage":null,"obfuscation":")([^"]+)"/, '$1\\u0041$2"'); // the finish frame
  const out = replay(Buffer.from(text), { served }).text;
  const chunks = out.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => f.slice(6));
  const first = chunks[0]!;
  t.match(first, '"obfuscation":"wfQ\\u0054BsUs","gateway":{', 'the first frame: the upstream\'s bytes, then the gateway object');
  t.match(JSON.parse(first), { model: 'openai/served-model', choices: [{ delta: { role: 'assistant', content: '' } }], gateway: { routed: false } });
  const finish = chunks.find((c) => c.includes('"finish_reason":"stop"'))!;
  t.match(finish, '"obfuscation":"\\u0041', 'the finish frame: the upstream\'s bytes');
  t.match(JSON.parse(finish), { model: 'openai/served-model' });
  t.notMatch(replay(Buffer.from(text), { served, reencode: true }).text, '\\u0054', 're-encoded on the old path');
});
