/**
 * The direction of dependencies (STYLE.md, Layers): features may use the shared plumbing;
 * the plumbing never imports a feature, so a feature can be added, moved or removed without
 * touching it. `npm run lint:deps` checks it, and CI runs that.
 */
const PLUMBING = '^src/(common|config|database|redis|openapi|idempotency|invalidation|rate-limit|events|lifecycle|logging|health|mail|jobs|generated)/';

/** The event catalogue (src/events/event-catalogue.ts) maps each webhook event to a feature's response type. */
const CATALOGUE = '^src/events/event-catalogue\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'plumbing-imports-no-feature',
      severity: 'error',
      comment:
        'Shared plumbing (common/, config/, database/ and the infrastructure modules) must not depend on a feature, on the app module or on an entry point.',
      from: { path: PLUMBING, pathNot: CATALOGUE },
      to: { path: '^src/', pathNot: PLUMBING },
    },
    {
      name: 'catalogue-imports-feature-types-only',
      severity: 'error',
      comment: "The event catalogue names each event's payload, a feature's response type: it may import that type, nothing that runs.",
      from: { path: CATALOGUE },
      to: { path: '^src/', pathNot: PLUMBING, dependencyTypesNot: ['type-only'] },
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
