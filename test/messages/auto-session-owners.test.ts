// Sticky `gateway-auto` sessions belong to one caller (issue #18): a session id is chosen by the
// client, so the pin one organisation's key made (under its own allowlist) must not route another
// organisation's, or another key's, request with the same session id to that model and its price.
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { msg, post } from '../helpers/messages.js';

const OPUS_RIVAL = 'sk-test-rival-opus-0000';
const OPUS_ACME = 'sk-test-acme-opus-0000';
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(
    baseConfig({
      orgs: [
        { id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
        { id: 'rival', credits: 100 },
      ],
      keys: [
        { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
        // router candidates are [sonnet, opus]: these keys may only use the dearer opus, so their pins name it
        { id: 'rival-opus', key: OPUS_RIVAL, org: 'rival', models: ['anthropic/claude-opus-5'] },
        { id: 'acme-opus', key: OPUS_ACME, org: 'acme', models: ['anthropic/claude-opus-5'] },
      ],
    }),
  );
});
t.teardown(() => gw?.stop());

async function routedModel(key: string, session: string): Promise<unknown> {
  const r = await post(gw, msg('gateway-auto'), { headers: { 'x-api-key': key, 'x-claude-code-session-id': session } });
  if (r.status !== 200) return `${r.status}: ${r.text.slice(0, 200)}`;
  return (JSON.parse(r.text) as { gateway?: { routed_model?: string } }).gateway?.routed_model;
}

t.test("another organisation's pin does not route this organisation's session", async (t) => {
  t.equal(await routedModel(OPUS_RIVAL, 'shared-session-1'), 'anthropic/claude-opus-5', 'rival pins the session to opus');
  t.equal(await routedModel(TEST_KEY, 'shared-session-1'), 'anthropic/claude-sonnet-5', "acme's request with the same session id takes the router's first fit");
  t.equal(await routedModel(OPUS_RIVAL, 'shared-session-1'), 'anthropic/claude-opus-5', "rival's own pin is untouched");
});

t.test("another key's pin in the same organisation does not either", async (t) => {
  t.equal(await routedModel(OPUS_ACME, 'shared-session-2'), 'anthropic/claude-opus-5');
  t.equal(await routedModel(TEST_KEY, 'shared-session-2'), 'anthropic/claude-sonnet-5');
});
