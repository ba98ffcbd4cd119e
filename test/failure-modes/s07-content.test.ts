// FAILURE-MODES.md §7 — images, PDFs and other content through translation.
import t from 'tap';
import { send } from './clients.js';
import { anthropicStream, chatSse, delta, modelId, startFm, usageChunk, type Api, type Script } from './upstream.js';

// a 1×1 PNG and the first bytes of a JPEG: the media type is read from these bytes
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]).toString('base64');

const script: Script = {
  'a-echo': { body: anthropicStream('a-echo', [{ type: 'text', text: 'ok' }], 'end_turn') },
  'c-echo': { body: chatSse('c-echo', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) },
};
const models: { name: string; api: Api }[] = [
  { name: 'a-echo', api: 'messages' },
  { name: 'c-echo', api: 'chat' },
  { name: 'a-text-only', api: 'messages' },
];
script['a-text-only'] = script['a-echo']!;

const chatImage = (url: string): Record<string, unknown> => ({ model: modelId('a-echo'), messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url } }] }] });

t.test('failure modes §7', async (t) => {
  const { up, gw } = await startFm(t, script, models);
  const lastBody = (m: string): any => up.calls(m).at(-1)?.body;
  const imageSent = (): any => lastBody('a-echo').messages[0].content.find((b: any) => b.type === 'image');

  t.test('F51 image media types: image/jpg normalised, bytes win over a wrong label, SVG refused up front', async (t) => {
    const jpg = await send(gw, 'chat', chatImage(`data:image/jpg;base64,${JPEG}`));
    if (jpg.status === 200) t.equal(imageSent().source.media_type, 'image/jpeg', 'image/jpg → image/jpeg');
    else t.match(jpg.json.error.message, /image\/jpeg/, `refused with the accepted types named: ${jpg.text.slice(0, 200)}`);
    const wrong = await send(gw, 'chat', chatImage(`data:image/png;base64,${JPEG}`));
    if (wrong.status === 200) t.equal(imageSent().source.media_type, 'image/jpeg', 'declared png, bytes jpeg → jpeg');
    else t.equal(wrong.status, 400, 'or refused up front, never sent to fail upstream');
    const before = up.calls('a-echo').length;
    const svg = await send(gw, 'chat', chatImage(`data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`));
    t.equal(svg.status, 400, svg.text.slice(0, 200));
    t.equal(up.calls('a-echo').length, before, 'not sent upstream');
  });

  t.test('F52 a data URI becomes a base64 source, an https URL a url source (never stringified)', async (t) => {
    await send(gw, 'chat', chatImage(`data:image/png;base64,${PNG}`));
    t.same(imageSent().source, { type: 'base64', media_type: 'image/png', data: PNG });
    await send(gw, 'chat', chatImage('https://example.com/cat.png'));
    t.same(imageSent().source, { type: 'url', url: 'https://example.com/cat.png' });
    await send(gw, 'messages', { model: modelId('c-echo'), max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: '?' }] }] });
    const part = lastBody('c-echo').messages[0].content.find((p: any) => p.type === 'image_url');
    t.equal(part.image_url.url, `data:image/png;base64,${PNG}`, 'Messages base64 → Chat data URI');
  });

  t.test('F53 images inside tool_result are not dropped on the way to Chat', async (t) => {
    const a = await send(gw, 'messages', {
      model: modelId('c-echo'),
      max_tokens: 50,
      tools: [{ name: 'screenshot', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'take a screenshot' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_s', name: 'screenshot', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_s', content: [{ type: 'text', text: 'here' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }] },
      ],
    });
    if (a.status !== 200) {
      t.equal(a.status, 400, 'refused explicitly');
      t.match(a.json.error.message, /image/);
      return;
    }
    const sent = JSON.stringify(lastBody('c-echo').messages);
    t.ok(sent.includes(PNG), 'the image reaches the Chat upstream');
    const tool = lastBody('c-echo').messages.find((m: any) => m.role === 'tool');
    t.ok(tool, 'the tool message is there');
  });

  t.test('F54 document blocks are refused explicitly, at their path, never dropped', async (t) => {
    for (const m of ['a-echo', 'c-echo']) {
      const before = up.calls(m).length;
      const a = await send(gw, 'messages', { model: modelId(m), max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }, { type: 'text', text: 'summarise' }] }] });
      t.equal(a.status, 400, `${m}: ${a.text.slice(0, 200)}`);
      t.match(a.json.error.message, /messages\.0\.content\.0|messages\[0\]\.content\[0\]|document/);
      t.equal(up.calls(m).length, before, 'not sent upstream');
    }
  });

  t.test('F55 no silently dropped parameters or parts: n=2, audio to a text model', async (t) => {
    const n = await send(gw, 'chat', { model: modelId('a-echo'), n: 2, messages: [{ role: 'user', content: 'hi' }] });
    t.ok(n.status === 400 || n.json?.choices?.length === 2, `n=2 is refused or honoured, never one choice with 200: ${n.status}`);
    const audio = await send(gw, 'chat', { model: modelId('a-text-only'), messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }] });
    t.equal(audio.status, 400, `audio to a model without audio input: ${audio.text.slice(0, 200)}`);
    await send(gw, 'chat', { model: modelId('a-echo'), temperature: 0.5, top_p: 0.9, messages: [{ role: 'user', content: 'hi' }] });
    t.match(lastBody('a-echo'), { temperature: 0.5, top_p: 0.9 }, 'top_p kept beside temperature');
  });
});
