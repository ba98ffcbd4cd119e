// Anthropic pads its signature_delta frames with spaces before the last `}`. Their layout admits JSON
// whitespace there and only there: a recorded padded frame is recognised (no strict parse) and gives
// the strict parser's object; whitespace anywhere else, or a character JSON does not count as
// whitespace, steps aside to the strict parser (which decodes or refuses it, as before).
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { recogniseFrame } from '../../../lib/dialects/anthropic/frame-layouts.js';
import { decodeAnthropicSse } from '../../../lib/dialects/anthropic/events.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { fixture } from '../../helpers/paths.js';

const EVENT = 'content_block_delta';
const frame = (signature: string, pad = ''): string => `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":${JSON.stringify(signature)}}${pad}}`;

function recordedSignatureFrames(): string[] {
  const dir = fixture('upstream', 'anthropic');
  return readdirSync(dir).filter((f) => f.endsWith('.sse')).flatMap((f) =>
    readFileSync(`${dir}/${f}`, 'utf8').split('\n').filter((l) => l.startsWith('data: ') && l.includes('"signature_delta"')).map((l) => l.slice(6)),
  );
}

t.test('recorded padded signature_delta frames are recognised as the strict parser parses them', async (t) => {
  const frames = recordedSignatureFrames();
  t.ok(frames.length >= 4, `${frames.length} recorded signature_delta frames`);
  t.ok(frames.some((f) => / +\}$/.test(f)), 'the recordings are padded');
  for (const data of frames) {
    const got = recogniseFrame(EVENT, data);
    t.not(got, null, `recognised: ${data.slice(-40)}`);
    t.equal(JSON.stringify(got), JSON.stringify(parseStrict(data)), 'the same object');
    const [ev] = decodeAnthropicSse({ event: EVENT, data });
    t.equal(ev?.type, 'signature-delta');
  }
});

t.test('JSON whitespace before the last brace only; anything else takes the strict parser', async (t) => {
  for (const pad of ['', ' ', '      ', '\t', ' \t  ']) {
    const data = frame('EusB/+==', pad);
    t.same(recogniseFrame(EVENT, data), parseStrict(data), `padding ${JSON.stringify(pad)} recognised`);
  }
  const valid = [
    frame('EusB', ' ') + ' ', // after the last brace
    frame('EusB').replace('{"type":"signature_delta"', '{ "type":"signature_delta"'),
    frame('EusB').replace('"signature":', '"signature": '),
    frame('EusB').replace('"}}', '" }}'),
    ` ${frame('EusB')}`,
  ];
  for (const data of valid) {
    t.equal(recogniseFrame(EVENT, data), null, `strict parser's turn: ${data.slice(-50)}`);
    t.equal(decodeAnthropicSse({ event: EVENT, data })[0]?.type, 'signature-delta', 'which decodes it');
  }
  const invalid = [frame('EusB', '\u00a0'), frame('EusB', '\f'), frame('EusB', '\v'), frame('EusB', ' x'), frame('EusB', ' }'), frame('EusB', ',')];
  for (const data of invalid) {
    t.equal(recogniseFrame(EVENT, data), null, `not recognised: ${JSON.stringify(data.slice(-12))}`);
    t.throws(() => decodeAnthropicSse({ event: EVENT, data }), { code: 'GW_ERR_INTEGRITY' }, 'and the strict parser refuses it');
  }
});
