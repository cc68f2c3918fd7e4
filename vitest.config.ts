import { defineConfig } from 'vitest/config';

/**
 * Tests that run on PostgreSQL whichever journal the pass gives the in-process
 * apps (they start their own processes or journals on it): the second pass
 * (`LEGALWORK_TEST_JOURNAL=postgres`, see package.json) would only repeat them.
 */
const ON_POSTGRES_ALREADY = ['test/journal/postgres*.test.ts', 'test/scale-out*.test.ts', 'test/cluster.test.ts'];

/**
 * The one test that times the service (a restart over a million events
 * answers within 1 s, issue 16): run on its own, after the others
 * (`LEGALWORK_TEST_TIMED=1`, the last step of `npm test`), so the files
 * running beside it in a pass do not take the cores it is timing.
 */
const TIMED = ['test/journal/postgres.restart.test.ts'];
const timedOnly = process.env.LEGALWORK_TEST_TIMED === '1';

export default defineConfig({
  test: {
    include: timedOnly ? TIMED : ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(timedOnly ? [] : TIMED), ...(process.env.LEGALWORK_TEST_JOURNAL === 'postgres' ? ON_POSTGRES_ALREADY : [])],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every reply a test produces is held to its route's declared schema (src/http/reply-check.ts).
    env: { LEGALWORK_REPLY_CHECK: '1' },
  },
});
