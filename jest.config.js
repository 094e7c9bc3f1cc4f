/**
 * Two projects. `unit` (test/unit): pure rules, no database, Redis or network, so it has no global
 * set-up. `integration` (every other test): against real PostgreSQL, Redis and gRPC servers, with
 * the run's template database made once by test/setup/global-setup.ts. Jest runs a project's global
 * set-up only when one of its files is in the run, so `npx jest test/unit` needs none of those.
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' }, sourceMaps: 'inline' }],
  },
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    {
      ...shared,
      displayName: 'integration',
      // Node's, with one stack per worker that the files borrow in turn (test/setup/stack-environment.js).
      testEnvironment: '<rootDir>/test/setup/stack-environment.js',
      roots: ['<rootDir>/test', '<rootDir>/client'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
  // The longest files first, also on a fresh clone that has no durations recorded yet.
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  testTimeout: 60_000,
  maxWorkers: 2,
};
