/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['reflect-metadata'],
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }] },
  // inversify 8 is ESM-only; Jest 30's CommonJS runtime can require(esm) only on Node >= 24.9.
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs)/)'],
  testTimeout: 30000,
  // Jest's default is one worker less than the cores: on a 2-core CI machine that runs every suite in
  // band, while most suites wait on child processes, sockets and the disk. One per core halves the time.
  maxWorkers: '100%',
  // The builtin Grep engine runs this function's source in worker threads: instrumentation would break it.
  coveragePathIgnorePatterns: ['/node_modules/', '/src/tools/os/grep/grepWorker.ts', '/src/tools/web/extract/extractorWorker.ts'],
  globalSetup: '<rootDir>/tests/globalSetup.cjs',
};
