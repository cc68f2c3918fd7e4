import { defineConfig } from 'vitest/config';

/**
 * Tests that run on PostgreSQL whichever journal the pass gives the in-process
 * apps (they start their own processes or journals on it): the second pass
 * (`LEGALWORK_TEST_JOURNAL=postgres`, see package.json) would only repeat them.
 */
const ON_POSTGRES_ALREADY = ['test/journal/postgres*.test.ts', 'test/scale-out*.test.ts', 'test/cluster.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(process.env.LEGALWORK_TEST_JOURNAL === 'postgres' ? ON_POSTGRES_ALREADY : [])],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every reply a test produces is held to its route's declared schema (src/http/reply-check.ts).
    env: { LEGALWORK_REPLY_CHECK: '1' },
  },
});
