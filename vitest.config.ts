import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Each fork keeps its modules loaded from one test file to the next: importing the whole app for every
    // file took about 60% of the suite. Tests share no state but their own harness (each file starts and
    // closes its service and database), and the suite passes with its files in shuffled orders.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { WOS_LOG_LEVEL: process.env.WOS_LOG_LEVEL ?? 'silent' },
  },
});
