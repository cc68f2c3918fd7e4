import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { usesPassJournal } from './test/journal-passes.ts';

/**
 * `npm test` runs three passes (scripts/test.ts):
 * - sqlite: every test file but the ALONE ones, the in-process apps on the embedded journal;
 * - postgres (`LEGALWORK_TEST_JOURNAL=postgres`): the files whose apps run on the
 *   pass's journal (test/journal-passes.ts reads which from the code), on PostgreSQL.
 *   The rest would only repeat themselves: pure units and properties, the machines,
 *   tests that spawn the service or pick their journals themselves;
 * - alone (`LEGALWORK_TEST_ALONE=1`): the tests that load the service at scale
 *   (a restart over a million events, a hundred crash cycles, a hundred thousand
 *   fuzzed requests), one file at a time, so no file beside them takes the cores
 *   they load.
 */
const ALONE = ['test/journal/postgres.restart.test.ts', 'test/crash-cycles.test.ts', 'test/fuzz.test.ts'];
const pass = process.env.LEGALWORK_TEST_ALONE === '1' ? 'alone' : process.env.LEGALWORK_TEST_JOURNAL === 'postgres' ? 'postgres' : 'sqlite';

const ALL = readdirSync('test', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`).sort();
const include = { alone: ALONE, postgres: ALL.filter((f) => !ALONE.includes(f) && usesPassJournal(f)), sqlite: ['test/**/*.test.ts'] }[pass];

export default defineConfig({
  test: {
    include,
    exclude: ['**/node_modules/**', ...(pass === 'sqlite' ? ALONE : [])],
    fileParallelism: pass !== 'alone',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every reply a test produces is held to its route's declared schema (src/http/reply-check.ts).
    env: { LEGALWORK_REPLY_CHECK: '1' },
  },
});
