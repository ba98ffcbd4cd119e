// Copies the JSON assets that lib/ reads at run time (JSON Schemas, the built-in catalog) next to
// the compiled files in dist/, so `node dist/...` finds them with the same relative paths.
import { cpSync, readdirSync, statSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}
for (const file of walk('lib')) {
  const dest = join('dist', file);
  mkdirSync(dirname(dest), { recursive: true });
  cpSync(file, dest);
}

// The dashboard's page and style sheet beside its compiled modules (dashboard/tsconfig.json puts
// those in dist/dashboard/), where lib/endpoints/dashboard.ts serves them from.
for (const name of readdirSync('dashboard')) {
  if (!/\.(html|css|svg|png|ico)$/.test(name)) continue;
  mkdirSync(join('dist', 'dashboard'), { recursive: true });
  cpSync(join('dashboard', name), join('dist', 'dashboard', name));
}
