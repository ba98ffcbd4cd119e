// `npm run test:postgres`: starts one PostgreSQL server (test/helpers/postgres.ts), runs the given
// tap files with GATEWAY_TEST_STORE=postgres and GATEWAY_TEST_PG_URL naming it (each test makes its
// own database there), then stops it. Arguments are passed to tap.
import { spawn } from 'node:child_process';
import { PG_URL_ENV, startPostgres, STORE_ENV } from './postgres.js';

const pg = await startPostgres();
process.stderr.write(`PostgreSQL for the store tests: ${pg.url.replace(/:[^:@/]*@/, ':***@')}\n`);
const tap = spawn('npx', ['tap', ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, [STORE_ENV]: 'postgres', [PG_URL_ENV]: pg.url } });
const code = await new Promise<number>((resolve) => tap.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
await pg.stop();
process.exit(code);
