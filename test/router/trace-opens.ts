// Preloaded (node --import) into the training script by train.long.test.ts: records every path the
// process opens through node:fs, and writes the list to $TRACE_OPENS_FILE at exit.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const opened: string[] = [];
const record = (p: unknown): void => void opened.push(p instanceof URL ? p.pathname : String(p));
const writeFileSync = fs.writeFileSync;
type AnyFn = (...args: unknown[]) => unknown;
const patch = (obj: Record<string, unknown>, name: string): void => {
  const orig = obj[name] as AnyFn;
  obj[name] = function (this: unknown, p: unknown, ...rest: unknown[]) {
    if (typeof p !== 'number') record(p);
    return orig.call(this, p, ...rest);
  };
};
for (const name of ['openSync', 'open', 'readFileSync', 'readFile', 'createReadStream', 'readdirSync', 'opendirSync']) patch(fs as unknown as Record<string, unknown>, name);
for (const name of ['open', 'readFile', 'opendir', 'readdir']) patch(fs.promises as unknown as Record<string, unknown>, name);
syncBuiltinESMExports();
process.on('exit', () => writeFileSync(process.env.TRACE_OPENS_FILE!, opened.join('\n')));
