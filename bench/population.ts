/**
 * Where Matters gather, at scale (issue 36): one key's grain of 10,000,
 * 100,000 and 1,000,000 Matters (and their ladders), on SQLite and on
 * PostgreSQL, bulk-loaded as the service would have written them
 * (`bench/lib/population-fill.ts`: every snapshot row with its standing, the
 * ledger and the transition counts). For each:
 *
 * - the aggregate alone: `journal.population()` in this process (the one
 *   statement over `snapshots_population` with the ledger and counts), the
 *   median of 5 after a first;
 * - over HTTP, a service spawned on the journal: `GET /inspection/matters`
 *   (its first answer after start, then the median of 5), a page of 100 of
 *   one state (`…/states/open.waiting_on_signer?limit=100`), the ladders'
 *   population (`GET /inspection/deadlines`), and beside them one page of
 *   `GET /matters?limit=100` of the same run.
 *
 * Figures, never asserted. BENCH_POPULATION (default "10000,100000,1000000")
 * picks the sizes, BENCH_POPULATION_JOURNALS ("sqlite,postgres") the
 * journals; the database is LEGALWORK_BENCH_DATABASE_URL (default the local
 * one), in a schema of its own per size, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { KINDS, shapeOf } from '../src/engine/population.ts';
import { PostgresJournal } from '../src/journal/postgres.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalStore } from '../src/journal/store.ts';
import { fillPostgres, fillSqlite, populationTemplates, serviceTags, type FilledGrain } from './lib/population-fill.ts';
import { removeDir, spawnService, tempDataDir } from './lib/service.ts';
import { ms, num, table } from './lib/table.ts';

const URL = process.env.LEGALWORK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SIZES = (process.env.BENCH_POPULATION ?? '10000,100000,1000000').split(',').map((s) => Number(s.trim()));
const JOURNALS = (process.env.BENCH_POPULATION_JOURNALS ?? 'sqlite,postgres').split(',').map((s) => s.trim()) as Array<'sqlite' | 'postgres'>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

/** The first run, then the median of `runs` more. */
async function firstAndMedian(work: () => Promise<unknown>, runs = 5): Promise<{ first: number; median: number }> {
  const first = await timed(work);
  const rest: number[] = [];
  for (let i = 0; i < runs; i++) rest.push(await timed(work));
  return { first, median: median(rest) };
}

interface Row {
  journal: string;
  filled: FilledGrain;
  aggregate: { first: number; median: number };
  population: { first: number; median: number };
  page: { first: number; median: number };
  ladders: { first: number; median: number };
  matters: { first: number; median: number };
  total: number;
  waiting: number;
}

async function measure(journal: 'sqlite' | 'postgres', size: number, templates: Awaited<ReturnType<typeof populationTemplates>>, matterTag: string): Promise<Row> {
  const dir = tempDataDir('legalwork-population-');
  const schema = `lw_bench_${randomBytes(6).toString('hex')}`;
  try {
    const filled = journal === 'sqlite' ? await fillSqlite(dir, size, templates) : await fillPostgres(URL, schema, size, templates);
    // The aggregate alone, in this process.
    const store: JournalStore = journal === 'sqlite' ? new SqliteJournal(dir) : await PostgresJournal.connect({ url: URL, schema });
    // Under the service's tag (see population-fill.ts): the rows the service reads.
    const machine = { ...shapeOf(KINDS.matter.definition).machine, tag: matterTag };
    let aggregate: Row['aggregate'];
    try {
      aggregate = await firstAndMedian(() => store.population(filled.grain, machine));
    } finally {
      await store.close();
    }
    // The doors, over HTTP, on a service started on it.
    const service = await spawnService(dir, journal === 'postgres' ? { LEGALWORK_DATABASE_URL: URL, LEGALWORK_DATABASE_SCHEMA: schema } : {});
    try {
      const auth = { authorization: `Bearer ${filled.key}` };
      let body: any;
      const get = (path: string) => async () => {
        const res = await fetch(`${service.url}${path}`, { headers: auth });
        body = await res.json();
        if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      };
      const population = await firstAndMedian(get('/inspection/matters'));
      const total = body.population.total as number;
      const waiting = body.population.states.find((s: { path: string }) => s.path === 'open.waiting_on_signer').count as number;
      const page = await firstAndMedian(get('/inspection/matters/states/open.waiting_on_signer?limit=100'));
      const ladders = await firstAndMedian(get('/inspection/deadlines'));
      const matters = await firstAndMedian(get('/matters?limit=100'));
      return { journal: journal === 'sqlite' ? 'SQLite' : 'PostgreSQL', filled, aggregate, population, page, ladders, matters, total, waiting };
    } finally {
      await service.stop();
    }
  } finally {
    removeDir(dir);
    if (journal === 'postgres') {
      const db = new pg.Client({ connectionString: URL });
      await db.connect();
      await db.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
      await db.end();
    }
  }
}

export async function bench(): Promise<string[]> {
  const tags = await serviceTags();
  const templates = await populationTemplates(tags);
  const rows: Row[] = [];
  for (const journal of JOURNALS) for (const size of SIZES) rows.push(await measure(journal, size, templates, tags.get('matter')!));
  const both = (f: { first: number; median: number }) => `${ms(f.first)} / ${ms(f.median)}`;
  return [
    `one key's grain of N Matters (copies of ${templates.length} walks: ${templates.map((t) => t.name).join(', ')}), bulk-loaded with their rows and counts; each cell: first / median of 5 after it`,
    ...table(
      ['journal', 'Matters', 'events', 'load', 'aggregate (in process)', 'GET /inspection/matters', '…/states/open.waiting_on_signer?limit=100', 'GET /inspection/deadlines', 'GET /matters?limit=100'],
      rows.map((r) => [r.journal, num(r.total), num(r.filled.events), `${r.filled.seconds.toFixed(0)} s`, both(r.aggregate), both(r.population), both(r.page), both(r.ladders), both(r.matters)]),
    ),
    `(waiting on a Signer in each grain: ${rows.map((r) => `${r.journal} ${num(r.total)}: ${num(r.waiting)}`).join('; ')})`,
  ];
}
