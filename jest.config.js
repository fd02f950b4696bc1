/** Unit tests live next to the code; e2e tests boot the real app over HTTP against a real database. */
// bench:compare builds older commits in bench/results/builds: their files are not this tree's.
const modulePathIgnorePatterns = ['<rootDir>/bench/results/'];
const transform = {
  // DTOs are compiled with the @nestjs/swagger CLI plugin, as `nest build` does (see the file).
  '\\.(dto|query)\\.ts$': '<rootDir>/test/support/openapi-plugin.transformer.js',
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
};

module.exports = {
  // PGlite boots take a few seconds on a loaded 2-core machine.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      transform,
      modulePathIgnorePatterns,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      transform,
      modulePathIgnorePatterns,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
