// examples/replicas.config.json, the config examples/docker-compose.yml runs (the compose file itself
// is not run in CI): it validates, names a PostgreSQL store and Redis limits, and keeps every secret
// in the environment.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { loadConfigFile } from '../../lib/config.js';

const file = join(ROOT, 'examples/replicas.config.json');

t.test('the replicas example config validates with its secrets from the environment', async (t) => {
  const config = loadConfigFile(file, { POSTGRES_PASSWORD: 'pw', ANTHROPIC_API_KEY: 'sk-ant-x', GATEWAY_KEY: 'sk-gw-0123456789' });
  t.match(config.store, /^postgres:\/\/gateway:pw@postgres:5432\/gateway$/);
  t.equal(config.limits, 'redis://redis:6379');
  const text = readFileSync(file, 'utf8');
  t.notMatch(text, /sk-|pw@/, 'no secret in the file');
  t.throws(() => loadConfigFile(file, {}), /environment variable POSTGRES_PASSWORD is not set/);
});
