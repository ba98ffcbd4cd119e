// Sealing (lib/search/seal.ts): what one gateway process sealed opens in another with the same
// webSearch.sealKey, or without one in any worker of the same gateway (the primary's random key comes
// through the environment); never under another key, as another kind, or once changed.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { PROCESS_SEAL_KEY_ENV, createSealer, processSealKey } from '../../lib/search/seal.js';

const SEAL_URL = new URL('../../lib/search/seal.js', import.meta.url).href;

/** Seals `payload` in a fresh node process (another gateway process) and returns the sealed value. */
function sealElsewhere(sealKey: string | null, env: NodeJS.ProcessEnv = {}): string {
  const code = `import(${JSON.stringify(SEAL_URL)}).then((m) => process.stdout.write(m.createSealer(${JSON.stringify(sealKey ?? undefined)}).seal('web_search_result', { url: 'https://a.example/' })))`;
  const childEnv = { ...process.env, ...env };
  if (!(PROCESS_SEAL_KEY_ENV in env)) delete childEnv[PROCESS_SEAL_KEY_ENV];
  return execFileSync(process.execPath, ['-e', code], { env: childEnv, encoding: 'utf8' });
}

t.test('the same sealKey opens across processes; another key, kind or a changed value does not', async (t) => {
  const key = 'a shared seal key 0123456789';
  const sealed = sealElsewhere(key);
  t.match(sealed, /^gws1_[A-Za-z0-9_-]+$/);
  t.same(createSealer(key).open('web_search_result', sealed), { url: 'https://a.example/' });
  t.equal(createSealer('another key 0123456789').open('web_search_result', sealed), null);
  t.equal(createSealer(key).open('web_search_result_location', sealed), null, 'bound to its kind');
  for (let i = 5; i < sealed.length; i += 7) {
    const c = sealed[i] === 'A' ? 'B' : 'A';
    if (createSealer(key).open('web_search_result', sealed.slice(0, i) + c + sealed.slice(i + 1)) !== null) t.fail(`changed at ${i} still opens`);
  }
  t.equal(createSealer(key).open('web_search_result', sealed.slice(0, -2)), null, 'cut');
  t.not(createSealer(key).seal('web_search_result', { a: 1 }), createSealer(key).seal('web_search_result', { a: 1 }), 'a fresh IV each time');
});

t.test('without a sealKey: a worker uses its primary’s random key, another gateway cannot open it', async (t) => {
  const primary = processSealKey();
  t.match(primary, /^[0-9a-f]{64}$/);
  const fromWorker = sealElsewhere(null, { [PROCESS_SEAL_KEY_ENV]: primary });
  t.same(createSealer(undefined).open('web_search_result', fromWorker), { url: 'https://a.example/' }, 'the worker sealed with the primary’s key');
  t.equal(createSealer(undefined).open('web_search_result', sealElsewhere(null)), null, 'another gateway process drew its own key');
});
