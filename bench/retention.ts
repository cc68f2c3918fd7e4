/**
 * Retention (issue 46): a week of sandbox churn in fast time, and what a
 * purge costs the writes beside it. In-process (the app over its journal,
 * `createApp`), because the sandbox clock is moved by `sandboxNow`; on the
 * embedded journal and on PostgreSQL.
 *
 * 1. **A week of churn.** Every simulated hour, `GRAINS_PER_HOUR` workspaces
 *    are opened (TTL 24 h, the default) and driven as an agent rehearses:
 *    a Matter walked to `fulfilled` (the fulfilling fixture Client: five
 *    advances, each under an Idempotency-Key), a document recorded, the
 *    list read; then the sweep runs (grace 24 h, the default), as the
 *    service's timer would. The journal's size is printed at the end of
 *    each simulated day: flat from the third day (a grain opened on day 1
 *    expires on day 2 and is purged on day 3), while the rows purged equal
 *    the rows written. SQLite: the database's pages (`page_count`, free
 *    pages given back by the purge's incremental vacuum) and the file.
 *    PostgreSQL: the schema's relations with their indexes and TOAST
 *    (`pg_total_relation_size`), after a plain `VACUUM` at each day's end,
 *    what autovacuum does in the day of real time a simulated day stands
 *    for.
 * 2. **Advances during a purge.** `PURGE_GRAINS` expired workspaces of ten
 *    walked Matters each are purged while `CONCURRENCY` clients advance live
 *    Matters; then the same load runs with no purge. Throughput and p99 of
 *    the advance in each window, and how fast the purge went.
 *
 * BENCH_RETENTION_JOURNALS (default "sqlite,postgres"), BENCH_RETENTION_GRAINS_PER_HOUR
 * (default 12), BENCH_RETENTION_DAYS (default 7), BENCH_RETENTION_PURGE_GRAINS (default 300).
 */
import { statSync } from 'node:fs';
import pg from 'pg';
import { createApp } from '../src/compose.ts';
import { PostgresJournal } from '../src/journal/postgres.ts';
import { Database } from '../src/journal/sqlite-driver.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalStore } from '../src/journal/store.ts';
import { quantile } from './lib/stats.ts';
import { removeDir, tempDataDir } from './lib/service.ts';
import { mib, ms, num, table } from './lib/table.ts';

const JOURNALS = (process.env.BENCH_RETENTION_JOURNALS ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const GRAINS_PER_HOUR = Number(process.env.BENCH_RETENTION_GRAINS_PER_HOUR ?? 12);
const DAYS = Number(process.env.BENCH_RETENTION_DAYS ?? 7);
const PURGE_GRAINS = Number(process.env.BENCH_RETENTION_PURGE_GRAINS ?? 300);
const CONCURRENCY = 16;
const LIVE_MATTERS = 600;
const DATABASE_URL = process.env.LEGALWORK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HOUR = 3600_000;
const FULFILLING = { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' } };
const PLAIN = { matterType: 'patent_provisional', client: { name: 'Ada Inventor' } };

type App = Awaited<ReturnType<typeof createApp>>;

interface Journal {
  journal: JournalStore;
  /** The journal's size on disk, in bytes, with a word on what was counted. */
  size(): Promise<{ bytes: number; detail: string }>;
  drop(): Promise<void>;
}

async function sqliteJournal(): Promise<Journal> {
  const dir = tempDataDir();
  const journal = new SqliteJournal(dir);
  return {
    journal,
    async size() {
      const db = new Database(journal.file, { readonly: true });
      try {
        const pages = db.pragma('page_count', { simple: true }) as number;
        const free = db.pragma('freelist_count', { simple: true }) as number;
        const bytes = pages * (db.pragma('page_size', { simple: true }) as number);
        const file = statSync(journal.file).size;
        return { bytes, detail: `${num(pages)} pages, ${num(free)} free; file ${mib(file)}` };
      } finally {
        db.close();
      }
    },
    drop: async () => removeDir(dir),
  };
}

async function postgresJournal(): Promise<Journal> {
  const schema = `lw_bench_retention_${process.pid}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const journal = await PostgresJournal.connect({ url: DATABASE_URL, schema });
  return {
    journal,
    async size() {
      for (const { name } of (await admin.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1", [schema])).rows) {
        await admin.query(`VACUUM ${schema}.${pg.escapeIdentifier(name)}`);
      }
      const { rows } = await admin.query<{ bytes: string; dead: string }>(
        `SELECT sum(pg_total_relation_size(c.oid)) AS bytes, (SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE schemaname = $1) AS dead
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      return { bytes: Number(rows[0].bytes), detail: `after VACUUM; ${num(Number(rows[0].dead ?? 0))} dead tuples left` };
    },
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

async function post(app: App, url: string, body: unknown = {}, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url, payload: body as never, headers });
  if (res.statusCode >= 300) throw new Error(`POST ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** One workspace as an agent rehearses in it: a Matter with a document walked to `fulfilled` under Idempotency-Keys, the list read. */
async function rehearse(app: App, n: number): Promise<void> {
  const ws = `/workspaces/${(await post(app, '/workspaces')).workspace.id}`;
  const id = (await post(app, `${ws}/matters`, FULFILLING, { 'idempotency-key': `open-${n}` })).matter.id;
  await post(app, `${ws}/matters/${id}/documents`, { name: 'memo.pdf', kind: 'exhibit', sha256: 'a'.repeat(64) });
  for (let i = 0; i < 5; i++) await post(app, `${ws}/matters/${id}/advance`, {}, { 'idempotency-key': `advance-${n}-${i}` });
  await app.inject({ method: 'GET', url: `${ws}/matters` });
}

async function week(kind: string, make: () => Promise<Journal>): Promise<string[]> {
  const made = await make();
  let now = Date.parse('2027-01-04T00:00:00.000Z');
  // No creation bound (one caller opens them all), and sweeps only when the simulated hour ends.
  const app = await createApp({ journal: made.journal, sandboxNow: () => now, creationBound: { limit: 1_000_000 }, retention: { intervalMs: 2 ** 30 } });
  await app.ready();
  const rows: string[][] = [];
  let purged = 0;
  let opened = 0;
  const started = performance.now();
  try {
    for (let day = 1; day <= DAYS; day++) {
      let sweepMs = 0;
      for (let hour = 0; hour < 24; hour++) {
        await Promise.all(Array.from({ length: GRAINS_PER_HOUR }, (_, i) => rehearse(app, opened + i)));
        opened += GRAINS_PER_HOUR;
        now += HOUR;
        const t = performance.now();
        purged += (await app.services.retention.sweep()).length;
        sweepMs += performance.now() - t;
      }
      const { bytes, detail } = await made.size();
      rows.push([`day ${day}`, num(opened), num(purged), mib(bytes), `${(sweepMs / 1000).toFixed(1)} s`, detail]);
    }
  } finally {
    await app.close();
    await made.journal.close();
    await made.drop();
  }
  return [
    `-- ${kind}: a week of sandbox churn, ${GRAINS_PER_HOUR} workspaces an hour (TTL 24 h, purged 24 h past expiry), in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    ...table(['end of', 'opened', 'purged', 'journal', 'sweeps that day', 'what was measured'], rows),
  ];
}

/** Advances `matters` (three each, intake to review) from CONCURRENCY clients; answers throughput and latencies. */
async function advances(app: App, ws: string, matters: string[], until: () => boolean = () => false) {
  const work = matters.flatMap((id) => [id, id, id]);
  const times: number[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      // Each client takes the next Matter's next advance; one Matter's advances stay in order (its mailbox serializes them anyway).
      while (next < work.length && !until()) {
        const id = work[next++];
        const t = performance.now();
        await post(app, `${ws}/matters/${id}/advance`);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return { rps: times.length / elapsed, p50: quantile(times, 0.5), p99: quantile(times, 0.99), n: times.length, elapsed };
}

async function duringPurge(kind: string, make: () => Promise<Journal>): Promise<string[]> {
  const made = await make();
  // Each step timed as the sweep calls it: its transaction, and on SQLite the wait for the writer's batch it joins.
  const steps: Array<{ ms: number; rows: number }> = [];
  const purgeGrain = made.journal.purgeGrain.bind(made.journal);
  made.journal.purgeGrain = async (grain, budget) => {
    const began = performance.now();
    const step = await purgeGrain(grain, budget);
    steps.push({ ms: performance.now() - began, rows: step.removed });
    return step;
  };
  let now = Date.parse('2027-01-04T00:00:00.000Z');
  const app = await createApp({ journal: made.journal, sandboxNow: () => now, creationBound: { limit: 1_000_000 }, retention: { intervalMs: 2 ** 30 } });
  await app.ready();
  try {
    // The grains to purge: each with ten Matters walked to fulfilled.
    for (let g = 0; g < PURGE_GRAINS; g += CONCURRENCY) {
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, PURGE_GRAINS - g) }, async () => {
          const ws = `/workspaces/${(await post(app, '/workspaces')).workspace.id}`;
          for (let m = 0; m < 10; m++) {
            const id = (await post(app, `${ws}/matters`, FULFILLING)).matter.id;
            for (let i = 0; i < 5; i++) await post(app, `${ws}/matters/${id}/advance`);
          }
        }),
      );
    }
    const rowsBefore = (await made.size()).bytes;
    now += 49 * HOUR;
    // The live grain, opened after: its Matters take the advances.
    const ws = `/workspaces/${(await post(app, '/workspaces')).workspace.id}`;
    const open = async () => Promise.all(Array.from({ length: LIVE_MATTERS }, async () => (await post(app, `${ws}/matters`, PLAIN)).matter.id as string));
    const [quiet, busy] = [await open(), await open()];
    await advances(app, ws, (await open()).slice(0, 100));

    const t = performance.now();
    let purgeDone = false;
    const sweep = app.services.retention.sweep().then((grains) => {
      purgeDone = true;
      return grains;
    });
    const during = await advances(app, ws, busy, () => purgeDone);
    const grains = await sweep;
    const purgeSeconds = (performance.now() - t) / 1000;
    const without = await advances(app, ws, quiet.slice(0, Math.max(1, Math.ceil(during.n / 3))));
    const row = (label: string, r: typeof during) => [label, num(r.rps), ms(r.p50), ms(r.p99), num(r.n)];
    const stepMs = steps.map((x) => x.ms);
    const rows = steps.reduce((n, x) => n + x.rows, 0);
    return [
      `-- ${kind}: advances (${CONCURRENCY} clients) while ${num(grains.length)} expired workspaces of ten fulfilled Matters each (${mib(rowsBefore)} of journal) are purged in ${purgeSeconds.toFixed(1)} s (${num(grains.length / purgeSeconds, 1)} grains/s), then the same load with no purge`,
      ...table(['window', 'advances/s', 'p50', 'p99', 'advances'], [row('during the purge', during), row('no purge', without)]),
      `purge steps: ${num(steps.length)}, ${num(rows)} rows deleted (${num(rows / steps.length, 0)} a step); a step's wall time p50 ${ms(quantile(stepMs, 0.5))}, p99 ${ms(quantile(stepMs, 0.99))}, max ${ms(Math.max(...stepMs))}`,
    ];
  } finally {
    await app.close();
    await made.journal.close();
    await made.drop();
  }
}

export async function bench(): Promise<string[]> {
  const lines: string[] = [];
  const makers: Record<string, () => Promise<Journal>> = { sqlite: sqliteJournal, postgres: postgresJournal };
  for (const kind of JOURNALS) {
    lines.push(...(await week(kind, makers[kind])), '');
    lines.push(...(await duringPurge(kind, makers[kind])), '');
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await bench()).join('\n'));
