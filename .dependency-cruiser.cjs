/**
 * The direction of dependencies (STYLE.md, Layers): features may use the shared plumbing;
 * the plumbing never imports a feature, so a feature can be added, moved or removed without
 * touching it. `npm run lint:deps` checks it, and CI runs that.
 */
const PLUMBING = '^src/(common|config|database|redis|openapi|idempotency|invalidation|rate-limit|events|lifecycle|logging|health|mail|generated)/';

module.exports = {
  forbidden: [
    {
      name: 'plumbing-imports-no-feature',
      severity: 'error',
      comment:
        'Shared plumbing (common/, config/, database/ and the infrastructure modules) must not depend on a feature, on the app module or on an entry point.',
      from: { path: PLUMBING },
      to: { path: '^src/', pathNot: PLUMBING },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make modules impossible to load, test or move on their own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-entry-point-imports',
      severity: 'error',
      comment: 'Entry points (main.ts, cli/) are run, never imported.',
      from: {},
      to: { path: '^src/(main\\.ts|cli/)' },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'The service does not import test code.',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
