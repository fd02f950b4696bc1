/** The widget in a real browser (Debian's chromium through playwright-core): `npm run test:browser`. */
const { projects } = require('./jest.config');
const e2e = projects.find((project) => project.displayName === 'e2e');

module.exports = {
  testTimeout: 60000,
  projects: [{ ...e2e, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'] }],
};
