/** Integration tests against real PostgreSQL, Redis and gRPC servers (see test/setup). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/client'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' }, sourceMaps: 'inline' },
    ],
  },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // The longest files first, also on a fresh clone that has no durations recorded yet.
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  testTimeout: 60_000,
  maxWorkers: 2,
};
