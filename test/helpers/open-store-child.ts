// A child process that opens and seeds a store (argv: store URL), as a gateway does at start; exit 0
// when it could, 1 with the error on stdout. Used to start several processes on one new store at once.
import { finalizeConfig } from '../../lib/config.js';
import { openStore } from '../../lib/store/open-store.js';

const url = process.argv[2]!;
const config = finalizeConfig(
  {
    store: url,
    providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
    models: [{ id: 'sim/m', deployments: [{ provider: 'sim', model: 'm' }], pricing: { input: 1, output: 1 } }],
    orgs: [{ id: 'acme', credits: 1 }],
    keys: [{ id: 'k', key: 'sk-child-0000000000', org: 'acme' }],
  },
  {},
);
try {
  const store = await openStore(config);
  await store.seed(config);
  await store.close();
  process.exit(0);
} catch (err) {
  process.stdout.write(`${(err as Error).message}\n`);
  process.exit(1);
}
