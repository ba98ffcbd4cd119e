// The Content-Type rule of the OpenAI-style JSON endpoints (lib/openai/headers.ts), through bin/gateway:
// `application/json` exactly once, in any case, with parameters after a `;`; anything else, none, or
// two of them is refused before the body is read, and nothing reaches the provider.
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { errorOf, rawRequest } from '../helpers/http.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig());
});
t.teardown(async () => {
  await gw.stop();
});

const ENDPOINTS: [string, string][] = [
  ['/v1/chat/completions', JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hello' }] })],
  ['/v1/responses', JSON.stringify({ model: 'gpt-5', input: 'hello' })],
];

for (const [path, body] of ENDPOINTS) {
  t.test(`${path}: Content-Type application/json, in any case, parameters allowed`, async (t) => {
    for (const [name, value] of [
      ['content-type', 'application/json'],
      ['Content-Type', 'application/json'],
      ['CONTENT-TYPE', 'application/json'],
      ['content-type', 'Application/JSON'],
      ['content-type', 'application/json; charset=utf-8'],
      ['content-type', 'APPLICATION/JSON ;charset=utf-8'],
    ] as const) {
      const res = await rawRequest(`${gw.url}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}`, [name]: value }, body });
      t.equal(res.status, 200, `${name}: ${value}`);
    }
  });

  t.test(`${path}: any other media type, none, or two are refused, and nothing reaches the provider`, async (t) => {
    await gw.clearSim();
    const refused: [string, Record<string, string | string[]>][] = [
      ...['text/plain', 'application/jsonx', 'application/json-seq', 'json', 'application/x-www-form-urlencoded', ''].map((ct): [string, Record<string, string>] => [ct || '(empty)', { 'content-type': ct }]),
      ['missing', {}],
      ['twice', { 'content-type': ['application/json', 'application/json'] }],
    ];
    for (const [what, headers] of refused) {
      const res = await rawRequest(`${gw.url}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}`, ...headers }, body });
      t.equal(res.status, 400, what);
      t.match(errorOf(res.body).message, /content-type/i, `${what}: names the header`);
    }
    t.same(await gw.simRequests(), [], 'no provider call');
  });
}
