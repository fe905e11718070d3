/**
 * Module boundaries (STYLE.md points 13 and 14), checked by `npm run lint:deps`
 * (scripts/lint-deps.mjs) in CI. test/lint/boundaries.test.ts shows each rule failing on a bad import.
 *
 * A module is a folder src/modules/<m>/; its door is src/modules/<m>/index.ts. src/app.ts,
 * src/cli.ts and src/server.ts are the composition root: they assemble modules, through their
 * doors like everybody else.
 */

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'module-through-entry',
      comment:
        'A module imports another module only through its entry file src/modules/<other>/index.ts, ' +
        'never its repository.ts or any other file of it.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'outside-through-entry',
      comment:
        'Code outside src/modules reaches a module only through its entry file. The one exception is ' +
        "src/db/schema.ts, which assembles the Database type from the modules' *.table.ts files (types only).",
      severity: 'error',
      from: { path: '^(src|web)/', pathNot: ['^src/modules/', '^src/db/schema\\.ts$'] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'db-schema-table-types-only',
      comment: 'src/db/schema.ts reads only the types of the modules\' *.table.ts files.',
      severity: 'error',
      from: { path: '^src/db/schema\\.ts$' },
      to: {
        path: '^src/modules/',
        pathNot: '^src/modules/[^/]+/[^/]+\\.table\\.ts$',
      },
    },
    {
      name: 'db-schema-table-type-imports',
      comment: 'src/db/schema.ts imports the *.table.ts files with `import type`, so nothing of a module runs.',
      severity: 'error',
      from: { path: '^src/db/schema\\.ts$' },
      to: { path: '^src/modules/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles, between modules or anywhere else: they make load order matter (TDZ errors).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'migrations-frozen',
      comment:
        'A migration holds its own SQL and imports nothing from src/modules: editing live code must not ' +
        'change what an old migration does.',
      severity: 'error',
      from: { path: '^src/db/migrations/', },
      to: { path: '^src/modules/' },
    },
    {
      name: 'web-above-modules',
      comment:
        'The web storefront (web/) is a view over the modules: nothing in src/ imports it but the composition ' +
        'root (src/app.ts), which mounts it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/app\\.ts$' },
      to: { path: '^web/' },
    },
    {
      name: 'infrastructure-below-modules',
      comment:
        'src/http, src/db, src/schemas, src/security, src/storage and src/config.ts sit below the modules: ' +
        'they import none of them (src/db/schema.ts reads table types, see above).',
      severity: 'error',
      from: {
        path: '^src/(http|db|schemas|security|storage)/|^src/config\\.ts$',
        pathNot: ['^src/db/schema\\.ts$'],
      },
      to: { path: '^src/modules/' },
    },
    {
      name: 'admin-is-browser-code',
      comment:
        'The admin (web/admin/src) runs in the browser and reaches the server only through the owner API: it ' +
        'imports nothing of src/ or the storefront but src/shared (code both run); its types come from the ' +
        'OpenAPI document (schema.d.ts).',
      severity: 'error',
      from: { path: '^web/admin/src/' },
      to: { path: '^(src|web/storefront)/', pathNot: '^src/shared/' },
    },
    {
      name: 'shared-is-browser-safe',
      comment:
        'src/shared is code the server and the admin bundle both run: it imports nothing else of the project.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^(src|web)/', pathNot: '^src/shared/' },
    },
    {
      name: 'shared-no-node-builtins',
      comment: 'src/shared runs in the browser too: no Node built-in modules.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '^web/admin/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
