// What the config and the admin API share about their JSON Schema validators: loading the standalone
// code scripts/compile-schemas.mjs generated at build time (refused when built from other schemas:
// one edited without `npm run build`), and turning an ajv error into the field path a user reads.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';

/**
 * The module `file` (relative to `from`, an import.meta.url) generated at build time; `shaMember`
 * names its export holding the SHA-256 of the schemas it was compiled from, which must be `sha`.
 */
export function loadPrebuiltValidators<T>(from: string, file: string, shaMember: string, sha: string, built: string): T {
  const loaded = createRequire(from)(file) as T & Record<string, unknown>;
  if (loaded[shaMember] !== sha) throw new Error(`${fileURLToPath(new URL(file, from))} was built from ${built}: run npm run build`);
  return loaded;
}

/**
 * An ajv error's field as a path (`/models/0/pricing` → `models[0].pricing`), the unknown or missing
 * member included (`rateLimit.rpm`, `scopes[1]`); '' for the document itself.
 */
export function schemaErrorPath(err: ErrorObject): string {
  const parts = err.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  const member =
    err.keyword === 'additionalProperties' ? (err.params as { additionalProperty: string }).additionalProperty
    : err.keyword === 'required' ? (err.params as { missingProperty: string }).missingProperty
    : undefined;
  if (member !== undefined) out = out ? `${out}.${member}` : member;
  return out;
}
