import t from 'tap';
import { findInvalidUtf8, formatPath, parseStrict } from '../../lib/json/strict-parse.js';
import { bytes, catchError, hasLoneSurrogate, label, sameJson } from './json-assert.js';

t.test('formatPath', async (t) => {
  t.equal(formatPath(['messages', 3, 'content', 0]), 'messages[3].content[0]');
  t.equal(formatPath([]), '');
  t.equal(formatPath(['a b']), '["a b"]');
  t.equal(formatPath([0, 'x', '$y', '_z1']), '[0].x.$y._z1');
  t.equal(formatPath(['x', 'a-b', 1, '1a', '', 'q"']), 'x["a-b"][1]["1a"][""]["q\\""]');
});

const VALID = [
  '0', '-0', '1.5e3', '1E+2', '-1e-2', '0.000001', '1e-400', '123456789012345678901234567890', '-9007199254740993',
  '1.7976931348623157e308', '5e-324', '999999999999999', '-999999999999999', '9999999999999999', 'true', 'false', 'null',
  '""', '"x"', '"\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t"', '"\\ud800"', '"\\uDFFF x"', '"\\ud83d\\ude00"', '"日本😀 é"', '"\\u0000"',
  '[]', '{}', ' \t\r\n[ 1 , 2 ]\n ', '{"a":{"b":[true,false,null,{}]}}', '{"1":1,"a":2,"0":3,"b":[]}',
  '{"constructor":1,"toString":2,"hasOwnProperty":3,"valueOf":{}}', '{"a":"x\\"","b":"\\\\"}', '[[[[[]]]]]',
  '{"":0," ":1}', '"\u2028\u2029"', '"\ud800 raw lone surrogate in a string input"',
];

t.test('valid inputs match JSON.parse, as strings and as UTF-8 bytes', async (t) => {
  for (const text of VALID) {
    t.ok(sameJson(parseStrict(text), JSON.parse(text)), `string ${label(text)}`);
    if (!hasLoneSurrogate(text)) t.ok(sameJson(parseStrict(Buffer.from(text)), JSON.parse(text)), `bytes ${label(text)}`);
  }
  const deep = '['.repeat(512) + ']'.repeat(512);
  t.ok(sameJson(parseStrict(deep), JSON.parse(deep)), 'depth 512 is allowed');
  t.ok(sameJson(parseStrict(new Uint8Array(Buffer.from('{"a":[1]}'))), { a: [1] }), 'plain Uint8Array');
});

// [input, expected path, reason pattern]
const INVALID: [string, string, RegExp][] = [
  ['{"messages":[{},{},{},{"content":[{"type":"text","type":"image"}]}]}', 'messages[3].content[0].type', /duplicate key "type"/],
  ['{"a":1,"a":2}', 'a', /duplicate key/],
  ['{"a b":{"x":1,"y":2,"x":3}}', '["a b"].x', /duplicate key "x"/],
  ['{"__proto__":1,"__proto__":2}', '__proto__', /duplicate key/],
  ['{"x":NaN}', 'x', /NaN/], ['[Infinity]', '[0]', /Infinity/], ['-Infinity', '', /Infinity/],
  ['{"n":01}', 'n', /leading zero/], ['-01', '', /leading zero/], ['00', '', /leading zero/],
  ['+1', '', /\+/], ['.5', '', /\./], ['1.', '', /decimal point/], ['[1.e5]', '[0]', /decimal point/],
  ['0x1F', '', /hexadecimal/], ['1e', '', /exponent/], ['[2,1e+]', '[1]', /exponent/], ['-', '', /digit/],
  ['1e400', '', /not finite/], ['{"x":[-1e400]}', 'x[0]', /not finite/],
  ["{'a':1}", '', /double quotes/], ['{"a":\'x\'}', 'a', /double quotes/],
  ['{"a":1 /* c */}', '', /expected "," or "}"/], ['// c\n1', '', /comments/], ['[1,//x\n2]', '[1]', /comments/],
  ['{/*c*/"a":1}', '', /comments/],
  ['[1,2,]', '', /trailing comma/], ['{"a":[1,],"b":2}', 'a', /trailing comma/], ['{"a":1,}', '', /trailing comma/],
  ['{"o":{"a":1 , }}', 'o', /trailing comma/], ['[,]', '[0]', /unexpected character ","/], ['{,}', '', /expected a string key/],
  ['{"s":"a\tb"}', 's', /control character U\+0009/], ['["\u0001"]', '[0]', /control character/],
  ['{"a\nb":1}', '', /control character/], ['["a\\"\n"]', '[0]', /control character/],
  ['"\\x41"', '', /invalid escape "\\x"/], ['"\\u12G4"', '', /hex digits/], ['"\\\'"', '', /invalid escape/],
  ['{"a":["ok","\\a"]}', 'a[1]', /invalid escape/], ['"\\U0041"', '', /invalid escape/],
  ['{} x', '', /after the JSON value/], ['1 2', '', /after the JSON value/], ['[1]]', '', /after the JSON value/],
  ['"a""b"', '', /after the JSON value/], ['{}\u00a0', '', /after the JSON value/], ['1\f', '', /after the JSON value/],
  ['', '', /end of input/], ['   ', '', /end of input/], ['\ufeff{}', '', /byte order mark/],
  ['{"a" 1}', 'a', /expected ":"/], ['[1 2]', '', /expected "," or "]"/], ['{"a":1 "b":2}', '', /expected "," or "}"/],
  ['{"a":"abc', 'a', /unterminated string/], ['{"a":"ab\\"', 'a', /unterminated string/], ['[1,2', '', /end of input/],
  ['{"a":', 'a', /end of input/], ['{', '', /expected a string key/], ['[', '[0]', /end of input/],
  ['tru', '', /expected "true"/], ['[nul]', '[0]', /expected "null"/], ['True', '', /unexpected character "T"/],
  ['{"a":[{"b":undefined}]}', 'a[0].b', /unexpected character "u"/], ['[1,,2]', '[1]', /unexpected character ","/],
];

t.test('rejections carry the exact path', async (t) => {
  for (const [text, path, reason] of INVALID) {
    const err = catchError(() => parseStrict(text));
    t.equal(err.path, path, `path of ${label(text)}`);
    t.match(err.reason, reason, `reason of ${label(text)}: ${label(err.reason)}`);
    t.ok(err.offset >= 0 && err.offset <= Buffer.byteLength(text), `offset of ${label(text)}`);
    const viaBytes = catchError(() => parseStrict(Buffer.from(text)));
    t.same([viaBytes.path, viaBytes.reason, viaBytes.offset], [err.path, err.reason, err.offset], `same error for bytes of ${label(text)}`);
  }
});

t.test('error fields and message', async (t) => {
  const text = '{"messages":[{},{},{},{"content":[{"type":"text","type":"image"}]}]}';
  const err = catchError(() => parseStrict(text));
  t.equal(err.name, 'JsonSyntaxError');
  t.ok(err instanceof Error);
  t.equal(err.offset, text.lastIndexOf('"type"'));
  t.equal(err.message, `at byte ${err.offset} (messages[3].content[0].type): duplicate key "type"`);
  t.equal(catchError(() => parseStrict('[1,]')).message, 'at byte 2 (root): trailing comma in array');
  // offsets are UTF-8 byte offsets, also for string input
  t.equal(catchError(() => parseStrict('{"é😀":1,}')).offset, Buffer.byteLength('{"é😀":1'));
  t.equal(catchError(() => parseStrict(Buffer.from('["日本", 01]'))).offset, Buffer.byteLength('["日本", '));
});

t.test('depth limit', async (t) => {
  const tooDeep = catchError(() => parseStrict('['.repeat(513) + ']'.repeat(513)));
  t.equal(tooDeep.path, '[0]'.repeat(512));
  t.match(tooDeep.reason, /nesting deeper than 512/);
  t.equal(catchError(() => parseStrict('[[1]]', { maxDepth: 1 })).path, '[0]');
  t.equal(catchError(() => parseStrict('{"a":{"b":{}}}', { maxDepth: 2 })).path, 'a.b');
  t.same(parseStrict('{"a":{"b":{}}}', { maxDepth: 3 }), { a: { b: {} } });
  t.equal(parseStrict('1', { maxDepth: 0 }), 1);
  const n = 300_000;
  t.ok(catchError(() => parseStrict('['.repeat(n) + ']'.repeat(n), { maxDepth: Infinity })), 'stack overflow becomes a JsonSyntaxError');
});

t.test('__proto__ becomes an own property', async (t) => {
  const text = '{"a":1,"__proto__":{"polluted":true},"b":2}';
  const v = parseStrict(text) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(v), Object.prototype);
  t.ok(Object.hasOwn(v, '__proto__'));
  t.equal(v['polluted'], undefined);
  t.same(Object.keys(v), ['a', '__proto__', 'b']);
  t.equal(JSON.stringify(v), text);
  t.ok(sameJson(v, JSON.parse(text)));
  t.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

const BAD_SEQUENCES: [string, number[]][] = [
  ['invalid byte FF', [0xff]], ['overlong 2-byte', [0xc0, 0x80]], ['overlong C1', [0xc1, 0xbf]], ['overlong 3-byte', [0xe0, 0x80, 0x80]],
  ['overlong 4-byte', [0xf0, 0x80, 0x80, 0x80]], ['lone continuation', [0x80]], ['truncated 3-byte', [0xe2, 0x82]],
  ['truncated 4-byte', [0xf0, 0x9f, 0x98]], ['encoded surrogate', [0xed, 0xa0, 0x80]], ['encoded low surrogate', [0xed, 0xbf, 0xbf]],
  ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]], ['F5 lead', [0xf5, 0x80, 0x80, 0x80]], ['2-byte lead then ASCII', [0xc3, 0x41]],
];

t.test('invalid UTF-8 in bytes gives the path and byte offset of the value', async (t) => {
  const head = '{"messages":[{"role":"user","content":"é日😀 ab';
  for (const [name, seq] of BAD_SEQUENCES) {
    t.equal(findInvalidUtf8(bytes(head, seq)), Buffer.byteLength(head), `findInvalidUtf8: ${name}`);
    const err = catchError(() => parseStrict(bytes(head, seq, '"}]}')));
    t.same([err.path, err.offset, err.reason], ['messages[0].content', Buffer.byteLength(head), 'invalid UTF-8'], name);
    t.equal(err.message, `at byte ${Buffer.byteLength(head)} (messages[0].content): invalid UTF-8`);
  }
  const cases: [Buffer, string, number][] = [
    [bytes(head, [0xe2, 0x82]), 'messages[0].content', Buffer.byteLength(head)], // truncated at end of input
    [bytes([0xff], '{}'), '', 0],
    [bytes('{"a":{"k', [0xff], '":1}}'), 'a', 8],
    [bytes('[1, ', [0x80], ']'), '[1]', 4],
    [bytes('[12', [0x80], ']'), '', 3],
    [bytes('{} ', [0xc0, 0xaf]), '', 3],
    [bytes('{"a":tr', [0xff], 'ue}'), 'a', 7],
    [bytes('{"a":"\\u00', [0xff], '"}'), 'a', 10],
    [bytes('[-', [0xff], ']'), '[0]', 2],
  ];
  for (const [buf, path, offset] of cases) {
    const err = catchError(() => parseStrict(buf));
    t.same([err.path, err.offset, err.reason], [path, offset, 'invalid UTF-8'], buf.toString('hex'));
  }
  // an earlier syntax error is reported first
  const early = catchError(() => parseStrict(bytes('[01, "', [0xff], '"]')));
  t.same([early.path, early.offset], ['[0]', 1]);
  t.match(early.reason, /leading zero/);
  const bom = catchError(() => parseStrict(bytes([0xef, 0xbb, 0xbf], '{}')));
  t.same([bom.path, bom.offset], ['', 0]);
  t.match(bom.reason, /byte order mark/);
  t.same(parseStrict(bytes('"', [0xef, 0xbb, 0xbf], '"')), '\ufeff', 'U+FEFF inside a string is fine');
});

/** mulberry32 */
function realisticBody(): string {
  const messages: unknown[] = [];
  const body = { model: 'claude-sonnet-4-5', max_tokens: 32000, stream: true, system: 'You are Claude Code.\n'.repeat(50), messages };
  const file = 'const s = "naïve — 日本語 😀";\n\tif (a < b && c > d) { return `x\\y`; }\n';
  for (let i = 0; JSON.stringify(body).length < 200 * 1024; i++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `Fix bug #${i}, please.` }] });
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `/src/f${i}.ts`, offset: i * 10, limit: 2000, ratio: i / 7 } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: file.repeat(6), is_error: false }] });
  }
  return JSON.stringify(body, null, 1);
}

t.test('a 200 KB realistic body', async (t) => {
  const text = realisticBody();
  t.ok(sameJson(parseStrict(text), JSON.parse(text)), 'string input');
  t.ok(sameJson(parseStrict(Buffer.from(text)), JSON.parse(text)), 'byte input');
  const dup = text.replace('"tool_use_id": "toolu_40",', '"tool_use_id": "toolu_40", "type": "x",');
  const err = catchError(() => parseStrict(Buffer.from(dup)));
  t.equal(err.path, 'messages[122].content[0].type');
  t.equal(err.offset, Buffer.byteLength(dup.slice(0, dup.indexOf('"type": "x"'))));
});
