import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import HeaviestFirst from './scripts/heaviest-first.ts';

/**
 * Two commands (scripts/test.ts):
 *
 * `npm test`: one vitest run of three projects, their files dealt to the same
 * workers so none waits for another's slowest file, the heaviest started first
 * (scripts/heaviest-first.ts):
 * - sqlite: every test file but the LOAD and ISOLATED ones, the in-process
 *   apps on the embedded journal;
 * - isolated: the ISOLATED files, each in a process of its own;
 * - postgres (`LEGALWORK_TEST_JOURNAL=postgres`): the files below whose
 *   behaviour differs by adapter, their in-process apps on PostgreSQL. The
 *   adapters' own conformance suite (test/journal/store.test.ts) and every
 *   test that starts PostgreSQL journals, processes or a cluster itself run
 *   both journals, or the one they are about, in the sqlite project already;
 *   the rest (the pages, the CLI, the contract, the machines, the refusals,
 *   the edge) would run the same code on a different store and repeat
 *   themselves.
 *
 * `npm run test:load`: the tests that load the service (LOAD), one file at
 * a time, so no file beside them takes the cores they load.
 */
export const LOAD = ['test/journal/postgres.restart.test.ts', 'test/crash-cycles.test.ts', 'test/fuzz.test.ts'];

/** The files that run on PostgreSQL too, and why each does: what of its behaviour the adapter decides. */
export const ON_POSTGRES: Record<string, string> = {
  'test/concurrency.test.ts': 'a Matter\'s commands serialized: on PostgreSQL through the expected version across connections and the conflict retry',
  'test/events.test.ts': 'the tail\'s range reads and feeds are each adapter\'s own SQL',
  'test/events.prop.test.ts': 'paging the tail while writes land: PostgreSQL reads only below the oldest running transaction',
  'test/sse.test.ts': 'subscribers woken by commits: PostgreSQL\'s notices, and its tail reads',
  'test/http/lists.test.ts': 'a list\'s page is each adapter\'s own statement over stream heads and kept items',
  'test/http/kept-pages.test.ts': 'a kept page is checked against the grain\'s seq, which another process moves on PostgreSQL',
  'test/stored-answers.test.ts': 'answer rows: SQLite marks the ones an append outdates, PostgreSQL checks their deps at read',
  'test/http/answer-bytes.test.ts': 'kept answer bytes on a journal the supervisor does not hold alone (PostgreSQL checks a resident actor\'s version)',
  'test/population.prop.test.ts': 'the population is each adapter\'s aggregate over its standing rows, ledger and transition counts',
  'test/list-unreadable.test.ts': 'damaged rows written into each adapter\'s tables, read back by its own statements',
  'test/engine/keys-cache.test.ts': 'a key\'s spend reserved against the journal as it stands, re-read on a shared journal',
  'test/http/idempotency.test.ts': 'Idempotency-Key records are journal rows written in each adapter\'s transaction',
  'test/http/tail-entries.test.ts': 'the tail\'s entries are kept by each adapter beside its events, and read back by its own statement',
  'test/engine/outbox.test.ts': 'pending intents are each adapter\'s own table and trigger; PostgreSQL leases them',
  'test/http/webhooks.test.ts': 'deliveries under leases and the database\'s clock on PostgreSQL',
  'test/http/webhooks.bounds.test.ts': 'an expired grain\'s endpoints let go across a restart, the grain re-read on a shared journal',
  'test/grains.test.ts': 'sandbox grains\' TTL on the database\'s clock, their caches re-read on a shared journal, the creation bound counted in the database',
  'test/model/matter.model.test.ts': 'every transition of the Matter\'s machine (its shortest paths) appended with its snapshot and counts by the adapter',
  'test/ownership.prop.test.ts': 'every list and tail reads one grain by each adapter\'s own SQL: one key never sees another\'s records',
};

/**
 * The files that need a process of their own. Every other file shares its
 * worker's modules with the files run there before it (`isolate: false`), so
 * the service's modules are imported and its schemas and serializers
 * compiled once a worker, not once a file: that was a third of the suite's
 * CPU. A file belongs here when it leaves something in a module that the
 * next file would trip on.
 */
export const ISOLATED: Record<string, string> = {
  'test/telemetry/edge-metrics.test.ts': 'installs a metrics sink in its process, which takes one only',
  'test/telemetry/lease-handovers.test.ts': 'installs a metrics sink in its process, which takes one only',
};

const load = process.env.LEGALWORK_TEST_LOAD === '1';

/**
 * One file a core (two at least). Since the files share their workers'
 * modules the suite keeps every core busy, so a worker more than the cores
 * only adds imports and contention: on the 2-core machine (issue 44, nothing
 * else running) 2 workers took 716 and 742 s and 1,326 and
 * 1,377 CPU-seconds of the machine, 3 workers 739–782 s and 1,476, 4 workers
 * 797 s and 1,584.
 */
const WORKERS = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    // Hang guards, not speed bounds: files share the cores, so a heavy property or page takes longer than alone.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: load ? 1 : WORKERS,
    fileParallelism: !load,
    reporters: ['default', './scripts/slowest-files.ts'],
    sequence: { sequencer: HeaviestFirst },
    setupFiles: ['./test/setup/cpu-meter.ts'],
    // Every reply a test produces is held to its route's declared schema (src/http/reply-check.ts).
    env: { LEGALWORK_REPLY_CHECK: '1' },
    projects: load
      ? [{ extends: true, test: { name: 'load', include: LOAD } }]
      : [
          { extends: true, test: { name: 'sqlite', isolate: false, include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...LOAD, ...Object.keys(ISOLATED)] } },
          { extends: true, test: { name: 'isolated', include: Object.keys(ISOLATED) } },
          { extends: true, test: { name: 'postgres', isolate: false, include: Object.keys(ON_POSTGRES), env: { LEGALWORK_REPLY_CHECK: '1', LEGALWORK_TEST_JOURNAL: 'postgres' } } },
        ],
  },
});
