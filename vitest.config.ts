import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts'],
    // Fails the run when a test wrote into the real home directory or the checkout; starts a private
    // PostgreSQL for the run when AGENTD_TEST_POSTGRES_URL is unset and PostgreSQL is installed.
    globalSetup: ['./test/isolation-guard.ts', './test/postgres-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
