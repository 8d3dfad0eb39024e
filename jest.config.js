/** @returns {Promise<import('jest').Config>} */
module.exports = async () => ({
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['reflect-metadata'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
  },
  // Probes once for redis-server and Chromium; the reporter ends the run with one line per
  // group of tests skipped because one is missing (see test/support/tools.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // Kills a child process (redis-server) a test file never stopped, and fails the run naming it.
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/skip-reporter.mjs'],
  testTimeout: 20000,
});
