import { defineConfig } from 'vitest/config';

/**
 * Tests that run on PostgreSQL whichever journal the pass gives the in-process
 * apps (they start their own processes or journals on it), or on no journal
 * at all (stored journals folded through the machines): the second pass
 * (`LEGALWORK_TEST_JOURNAL=postgres`, see package.json) would only repeat them.
 */
const ON_POSTGRES_ALREADY = ['test/journal/postgres*.test.ts', 'test/scale-out*.test.ts', 'test/cluster.test.ts', 'test/journals.replay.test.ts'];

/**
 * The tests that load or time the service at scale (issues 16 and 17): a
 * restart over a million events answers within 1 s, a hundred crash cycles,
 * a hundred thousand fuzzed requests. They run on their own, one file at a
 * time, after the two passes (`LEGALWORK_TEST_ALONE=1`, the last step of
 * `npm test`), so no file beside them takes the cores they time or load.
 */
const ALONE = ['test/journal/postgres.restart.test.ts', 'test/crash-cycles.test.ts', 'test/fuzz.test.ts'];
const aloneOnly = process.env.LEGALWORK_TEST_ALONE === '1';

export default defineConfig({
  test: {
    include: aloneOnly ? ALONE : ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(aloneOnly ? [] : ALONE), ...(process.env.LEGALWORK_TEST_JOURNAL === 'postgres' ? ON_POSTGRES_ALREADY : [])],
    fileParallelism: !aloneOnly,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every reply a test produces is held to its route's declared schema (src/http/reply-check.ts).
    env: { LEGALWORK_REPLY_CHECK: '1' },
  },
});
