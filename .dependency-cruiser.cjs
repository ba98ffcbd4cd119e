// The layering of the wire dialects, checked by `npm run lint:deps` (part of `npm test`):
//
//   lib/dialects/<name>/   one folder per dialect, peers: never import one another, the registry or
//                          a translator (only the shared reasoning conventions of lib/translate/)
//   lib/dialects/index.ts  the registry: the only door from generic code (lib/, stages/, bin/) to a dialect
//   lib/translate/         every translation between two dialects (may use any dialect folder)
//   lib/json/, lib/validate/, lib/openai/   neutral helpers the dialects share: import no dialect
//   stages/                never imported by lib/dialects/ or lib/translate/
//
// Type-only imports count too (tsPreCompilationDeps). test/ and bench/ may deep-import anything.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'dialect-folders-are-peers',
      comment: 'A dialect folder never imports another dialect folder: move what they share to lib/json, lib/validate or lib/openai, and translation to lib/translate.',
      severity: 'error',
      from: { path: '^lib/dialects/([^/]+)/' },
      to: { path: '^lib/dialects/[^/]+/', pathNot: '^lib/dialects/$1/' },
    },
    {
      name: 'dialects-do-not-translate',
      comment: 'A dialect folder never imports the registry or a translator (lib/translate/ may import dialects, not the other way round); only the reasoning conventions are shared.',
      severity: 'error',
      from: { path: '^lib/dialects/[^/]+/' },
      to: { path: ['^lib/dialects/(index|request-encoders|render-error)\\.ts$', '^lib/translate/'], pathNot: '^lib/translate/reasoning-(details|state)\\.ts$' },
    },
    {
      name: 'reasoning-conventions-are-leaves',
      comment: 'The reasoning conventions dialects share (lib/translate/reasoning-*.ts) import no dialect folder.',
      severity: 'error',
      from: { path: '^lib/translate/reasoning-(details|state)\\.ts$' },
      to: { path: '^lib/dialects/[^/]+/' },
    },
    {
      name: 'generic-code-uses-the-registry',
      comment: 'Generic code (lib/server.ts, lib/pipeline.ts, stages/*, the rest of lib/, bin/) reaches a dialect only through lib/dialects/index.ts.',
      severity: 'error',
      from: { path: '^(stages/|lib/|bin/)', pathNot: ['^lib/(dialects|translate)/'] },
      to: { path: '^lib/dialects/[^/]+/' },
    },
    {
      name: 'neutral-helpers-stay-neutral',
      comment: 'lib/json, lib/validate and lib/openai are shared by dialects and import none (the Dialect types in lib/dialects/dialect.ts excepted).',
      severity: 'error',
      from: { path: '^lib/(json|validate|openai)/' },
      to: { path: '^lib/(dialects|translate)/', pathNot: '^lib/dialects/dialect\\.ts$' },
    },
    {
      name: 'dialects-never-import-stages',
      comment: 'Dialect and translation code never imports a stage: what stages and encoders share (the cost of usage, lib/billing/cost.ts) lives in lib/.',
      severity: 'error',
      from: { path: '^lib/(dialects|translate)/' },
      to: { path: '^stages/' },
    },
    {
      name: 'imports-resolve',
      comment: 'Every relative import resolves: otherwise the rules above would pass unseen.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
