// upstreamInstructionsJson (client-encode-echo.ts) remembers whether the text it last tested is
// JSON.stringify's: over a seeded sequence of created frames echoing instructions written several
// ways, it gives what the test itself computes for each.
// toolsJson (client-encode-echo.ts): the tools a Responses client's Response echoes, as text, taken
// from the last tools echoed when the request's are the same JSON data. It must be exactly
// jsonOf(echoedTools(tools)) whatever came before: the same tools again (fresh objects), tools
// reordered, a key moved, a value changed by one character, numbers 0 and -0, values JSON.stringify
// writes otherwise (NaN, undefined, a Date, a toJSON), the request's objects changed after they were
// echoed, and seeded random sequences of these.
import t from 'tap';
import type { JsonValue } from '../../../lib/chunks.js';
import { echoedTools, jsonOf, sameJsonData, toolsJson, upstreamInstructionsJson } from '../../../lib/dialects/openai-responses/client-encode-echo.js';
import type { NativeFrame } from '../../../lib/chunks.js';
import { prng } from '../../json/json-gen.js';

const codex = (): JsonValue[] =>
  Array.from({ length: 10 }, (_, i) => ({
    type: 'function', name: `tool_${i}`, description: `Runs operation ${i}.\nUse it for "op ${i}" é 😀.`, strict: false,
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'Absolute path' }, limit: { type: 'integer', minimum: 0 } }, required: ['path'], additionalProperties: false },
  }));

/** tools like `base` changed one way (each a fresh value; the JSON data may or may not differ) */
const VARIANTS: [string, (base: JsonValue[]) => unknown[]][] = [
  ['the same, fresh objects', (b) => structuredClone(b)],
  ['two swapped', (b) => { const c = structuredClone(b); return [c[1], c[0], ...c.slice(2)]; }],
  ['one less', (b) => structuredClone(b).slice(0, -1)],
  ['a key moved', (b) => { const c = structuredClone(b) as Record<string, unknown>[]; const { name, ...rest } = c[0]!; return [{ ...rest, name }, ...c.slice(1)]; }],
  ['a description one character off', (b) => { const c = structuredClone(b) as Record<string, unknown>[]; c[3]!.description = `${c[3]!.description as string}.`; return c; }],
  ['strict missing (echoed false)', (b) => { const c = structuredClone(b) as Record<string, unknown>[]; delete c[0]!.strict; return c; }],
  ['-0 for 0', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties.limit.minimum = -0; return c; }],
  ['1 for 0', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties.limit.minimum = 1; return c; }],
  ['NaN', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties.limit.minimum = NaN; return c; }],
  ['Infinity', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties.limit.minimum = Infinity; return c; }],
  ['undefined', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties.limit.minimum = undefined; return c; }],
  ['a Date', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties.limit.minimum = new Date(0); return c; }],
  ['a toJSON', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.toJSON = () => 'x'; return c; }],
  ['a null-prototype object', (b) => { const c = structuredClone(b) as any[]; c[0].parameters = Object.assign(Object.create(null), c[0].parameters); return c; }],
  ['a hosted tool', (b) => [...structuredClone(b), { type: 'web_search' }]],
  ['an array for an object', (b) => { const c = structuredClone(b) as any[]; c[0].parameters.properties = []; return c; }],
  ['an empty list', () => []],
];

t.test('toolsJson is jsonOf(echoedTools(tools)) after any tools echoed before', async (t) => {
  const rand = prng(0x7001);
  let n = 0;
  let repeated = 0;
  let previous = '';
  const base = codex();
  for (let i = 0; i < 3000; i++) {
    const [name, make] = VARIANTS[Math.floor(rand() * VARIANTS.length)]!;
    const tools = make(base) as JsonValue[];
    const want = jsonOf(echoedTools(tools));
    const got = toolsJson(tools);
    n++;
    // the same text as the echo before: the remembered text's turn, when the data was the same too
    if (want === previous) repeated++;
    previous = want;
    if (got !== want) t.fail(`${name}: ${got.slice(0, 200)} against ${want.slice(0, 200)}`);
    // the request's objects changed after they were echoed: the next echo of other data is its own
    if (rand() < 0.2 && tools.length > 0 && typeof tools[0] === 'object' && tools[0] !== null) (tools[0] as Record<string, JsonValue>).name = 'changed';
  }
  t.ok(n === 3000 && repeated > 100, `${n} echoes compared, ${repeated} the same text as the one before`);
});

t.test('sameJsonData: equal JSON data only', async (t) => {
  t.ok(sameJsonData({ a: [1, 'x', null, true] }, { a: [1, 'x', null, true] }));
  t.ok(sameJsonData(0, -0), '0 and -0 are both written 0');
  t.notOk(sameJsonData({ a: 1, b: 2 }, { b: 2, a: 1 }), 'key order');
  t.notOk(sameJsonData(NaN, NaN));
  t.notOk(sameJsonData(undefined, undefined));
  t.notOk(sameJsonData(new Date(0), new Date(0)));
  t.notOk(sameJsonData([], {}));
  t.notOk(sameJsonData({}, []));
  t.notOk(sameJsonData([1], [1, 2]));
  t.notOk(sameJsonData('1', 1));
});

t.test('upstreamInstructionsJson: the created frame\'s text when it is JSON.stringify\'s, whatever was tested before', async (t) => {
  const rand = prng(0x7002);
  let rules = 'You are a coding agent.\n';
  for (let i = 0; rules.length < 12_500; i++) rules += `- Rule ${i}: read "the file" first; run \`npm test\`.\tNever guess.\n`;
  /** [value, its JSON text as an upstream may write it] */
  const texts: [string, string][] = [
    [rules, JSON.stringify(rules)],
    [rules, JSON.stringify(rules).replace('/', '\\/')],
    [`${rules}/`, JSON.stringify(`${rules}/`).replace(/\/(?=")/, '\\/')],
    [`${rules}é`, JSON.stringify(`${rules}é`).replace('é', '\\u00e9')],
    [`${rules}😀`, JSON.stringify(`${rules}😀`)],
    ['Be brief.', '"Be brief."'],
    ['', '""'],
  ];
  let given = 0;
  for (let i = 0; i < 2000; i++) {
    const [value, json] = texts[Math.floor(rand() * texts.length)]!;
    const data = `{"type":"response.created","sequence_number":0,"response":{"id":"r","instructions":${json},"tools":[]}}`;
    const from = data.indexOf(json);
    const created: NativeFrame = { dialect: 'openai-responses', event: 'response.created', data, parsed: JSON.parse(data) as never, through: undefined, kept: [from, from + json.length] };
    const want = /\\[u/]|[\ud800-\udfff]/.test(json) ? undefined : json;
    const asked = rand() < 0.1 ? 'other' : value;
    const got = upstreamInstructionsJson(created, asked);
    if (got !== (asked === value ? want : undefined)) t.fail(`${i}: ${String(got?.slice(-40))} for ${json.slice(-40)}`);
    if (got !== undefined) given++;
  }
  t.ok(given > 500, `${given} texts given, each as computed here`);
});
