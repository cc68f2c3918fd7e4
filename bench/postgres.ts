/**
 * The Matter doors on the PostgreSQL journal beside the same doors on the
 * embedded SQLite journal, in one run (the "vs SQLite" column): create,
 * advance (3 stage commits and 1 escalation per Matter) and GET, 50
 * connections, one service process each. Then advance with two service
 * processes on one database schema (issue 16), the 50 connections split
 * 25 + 25, one autocannon run against each process at once, their figures
 * summed:
 *
 * - disjoint: each process advances the Matters it created itself (in a
 *   workspace of its own): throughput, no conflicts;
 * - shared: both processes advance the same Matters in the same order (each
 *   Matter twice from each process): every race is a version conflict that
 *   the losing process decides again on the journal.
 *
 * CPU per request counts every service process of the row; the database
 * server's CPU per request (every PostgreSQL process on the machine, read
 * from /proc) is a column of its own. The bare advance route
 * (`bench/bare-fastify.ts`) of the same run is the ceiling.
 *
 * Last, a restart over BENCH_EVENTS (default 1,000,000) events on PostgreSQL,
 * bulk-loaded by `bench/lib/postgres-fill.ts`: spawn to the first answers of
 * a GET of the oldest Matter and of its grain's tail (asked at once, as soon
 * as the service listens), twice, against the target of 1 s.
 * `test/journal/postgres.restart.test.ts` asserts only that this does not
 * grow with the journal; the target is this row's.
 *
 * The database is the local one (LEGALWORK_BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test), in a schema of its own per
 * measurement, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { drive, type Figures } from './lib/load.ts';
import { fillPostgresJournal } from './lib/postgres-fill.ts';
import { removeDir, spawnBare, spawnService, tempDataDir, type Child } from './lib/service.ts';
import { ms, num, pairTable, pct, table, us, verdict, type Pair } from './lib/table.ts';
import { ADVANCE_BODY, collectMatterIds, CREATE_BODY, openWorkspace } from './matters.ts';

const URL = process.env.LEGALWORK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Matters cycled through per process: fewer than the supervisor keeps resident (two entities a Matter: it and its ladder). */
const POOL_MAX = 8_000;

/** CPU time (user + system, seconds) of every PostgreSQL server process on this machine, from /proc (Linux): the database's share of a run. */
function databaseCpuSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** A run's figures with the database server's CPU per answer (µs; any status) beside them. */
type WithDatabase = Figures & { dbUs: number };

async function measured(run: () => Promise<Figures>): Promise<WithDatabase> {
  const before = databaseCpuSeconds();
  const figures = await run();
  const answers = figures.ok + figures.non2xx;
  return { ...figures, dbUs: ((databaseCpuSeconds() - before) * 1e6) / Math.max(1, answers) };
}

/** Runs `work` on a fresh schema's environment, and drops the schema after. */
async function onFreshSchema<T>(work: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const schema = `lw_bench_${randomBytes(4).toString('hex')}`;
  try {
    return await work({ LEGALWORK_DATABASE_URL: URL, LEGALWORK_DATABASE_SCHEMA: schema });
  } finally {
    const db = new pg.Client({ connectionString: URL });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await db.end();
  }
}

/** `count` service processes on one journal (`env`), each on a data directory of its own (unused on PostgreSQL). */
async function withServices<T>(env: Record<string, string>, count: number, work: (services: Child[]) => Promise<T>): Promise<T> {
  const dirs = Array.from({ length: count }, () => tempDataDir());
  const services: Child[] = [];
  try {
    // One after the other: the first creates the schema, the others find it.
    for (const dir of dirs) services.push(await spawnService(dir, env));
    return await work(services);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    for (const dir of dirs) removeDir(dir);
  }
}

/** Create, advance and GET on one service process. */
async function doors(env: Record<string, string>, seconds: number, label: string): Promise<[Figures, WithDatabase, Figures]> {
  return withServices(env, 1, async ([service]) => {
    const prefix = await openWorkspace(service.url);
    const pool: string[] = [];
    const create = (s: number) => drive({ title: `POST /matters (${label})`, url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, duration: s, onResponse: collectMatterIds(pool) });
    await create(2);
    const created = await create(seconds);
    const n = Math.min(pool.length, POOL_MAX);
    const ids = pool.slice(-n);
    const advanced = await measured(() => drive({ title: `POST /matters/:id/advance (${label}, 1 process)`, url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${ids[i % n]}/advance`, body: () => ADVANCE_BODY, amount: 4 * n, duration: seconds }));
    const read = await drive({ title: `GET /matters/:id (${label})`, url: service.url, server: service, method: 'GET', path: (i) => `${prefix}/matters/${ids[(i * 7919) % n]}`, duration: seconds });
    return [created, advanced, read];
  });
}

/** A Matter and the path prefix of the workspace it lives in. */
interface Owned {
  prefix: string;
  id: string;
}

/** Each process opens a workspace and creates Matters in it (all at once, 25 connections each): a warm-up, then the pool. */
async function createOnEach(services: Child[], seconds: number): Promise<Owned[][]> {
  return Promise.all(
    services.map(async (service) => {
      const prefix = await openWorkspace(service.url);
      const ids: string[] = [];
      const create = (s: number) => drive({ title: 'create', url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, connections: 25, duration: s, onResponse: collectMatterIds(ids) });
      await create(2);
      await create(seconds);
      return ids.slice(-POOL_MAX).map((id) => ({ prefix, id }));
    }),
  );
}

/** Figures of runs made at the same time against different processes, as one: answers summed over the longest run, latency the worse of them, CPU per answer over all their processes. */
function together(title: string, runs: Figures[]): Figures {
  const answers = (f: Figures) => f.ok + f.non2xx;
  const total = runs.reduce((n, f) => n + answers(f), 0);
  const seconds = Math.max(...runs.map((f) => f.seconds));
  const ok = runs.reduce((n, f) => n + f.ok, 0);
  const statuses: Record<string, number> = {};
  for (const f of runs) for (const [code, count] of Object.entries(f.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  return {
    title,
    connections: runs.reduce((n, f) => n + f.connections, 0),
    seconds,
    ok,
    rps: ok / seconds,
    p50: Math.max(...runs.map((f) => f.p50)),
    p99: Math.max(...runs.map((f) => f.p99)),
    max: Math.max(...runs.map((f) => f.max)),
    cpuUs: runs.reduce((n, f) => n + f.cpuUs * answers(f), 0) / Math.max(1, total),
    loopUs: runs.reduce((n, f) => n + f.loopUs * answers(f), 0) / Math.max(1, total),
    non2xx: runs.reduce((n, f) => n + f.non2xx, 0),
    errors: runs.reduce((n, f) => n + f.errors, 0),
    statuses,
  };
}

/** Advance with two processes on one journal: each on its own Matters, or both on the same ones. */
async function advanceOnTwo(seconds: number, mode: 'disjoint' | 'shared'): Promise<WithDatabase> {
  return onFreshSchema((env) =>
    withServices(env, 2, async (services) => {
      const pools = await createOnEach(services, seconds);
      // Disjoint: each process its own Matters, 4 advances each. Shared: every Matter, in one order, on both: 2 advances each from each.
      const all = pools.flat();
      const work = mode === 'disjoint' ? pools.map((pool) => ({ pool, amount: 4 * pool.length })) : services.map(() => ({ pool: all, amount: 2 * all.length }));
      return measured(async () => {
        const runs = await Promise.all(
          services.map((service, p) => {
            const { pool, amount } = work[p];
            const n = pool.length;
            return drive({ title: `process ${p + 1}`, url: service.url, server: service, method: 'POST', path: (i) => `${pool[i % n].prefix}/matters/${pool[i % n].id}/advance`, body: () => ADVANCE_BODY, connections: 25, amount, duration: seconds });
          }),
        );
        return together(`POST /matters/:id/advance (PostgreSQL, 2 processes, ${mode === 'disjoint' ? 'each its own Matters' : 'both the same Matters'})`, runs);
      });
    }),
  );
}

/** Restarts over a large journal (BENCH_EVENTS, default 1,000,000), as `bench/restart.ts` does on SQLite: spawn to the first answers of a GET of the oldest Matter and of its grain's tail, twice. */
async function restartOver(events: number): Promise<string[]> {
  return onFreshSchema(async (env) => {
    const filled = await fillPostgresJournal({ url: URL, schema: env.LEGALWORK_DATABASE_SCHEMA, target: events });
    const rows: string[][] = [];
    const firsts: Array<{ ms: number; ok: boolean }> = [];
    for (let i = 0; i < 2; i++) {
      const dir = tempDataDir();
      const child = await spawnService(dir, env);
      try {
        const answer = async (path: string, headers: Record<string, string> = {}) => {
          const res = await fetch(`${child.url}${path}`, { headers });
          await res.arrayBuffer();
          return { status: res.status, at: performance.now() };
        };
        const [matter, tail] = await Promise.all([answer(`/matters/${filled.oldest.id}`), answer('/events?limit=100', { authorization: `Bearer ${filled.key}` })]);
        const last = Math.max(matter.at, tail.at);
        firsts.push({ ms: last - child.spawnedAt, ok: matter.status === 200 && tail.status === 200 });
        rows.push([`#${i + 1} GET /matters/<oldest>, GET /events`, ms(child.listeningAt - child.spawnedAt), ms(last - child.listeningAt), ms(last - child.spawnedAt), `${matter.status}, ${tail.status}`]);
      } finally {
        await child.stop();
        removeDir(dir);
      }
    }
    const worst = Math.max(...firsts.map((f) => f.ms));
    return [
      `Restart on PostgreSQL: a journal of ${num(filled.events)} events (${num(filled.matters)} Matters, their Assets and ladders) bulk-loaded in ${filled.seconds.toFixed(1)} s, then the service spawned on it`,
      ...table(['restart', 'spawn -> listening', 'listening -> both answered', 'spawn -> both answered', 'status'], rows),
      `target first answers (the oldest Matter, its grain's tail) <= 1 s after spawn over 1,000,000 events: worst ${ms(worst)} -> ${verdict(worst <= 1000 && filled.events >= 1_000_000 && firsts.every((f) => f.ok))}`,
    ];
  });
}

/** The bare advance route: what Fastify alone answers on this machine in this run. */
async function bareAdvance(seconds: number): Promise<WithDatabase> {
  const bare = await spawnBare();
  try {
    return await measured(() => drive({ title: 'bare POST /echo/matters/:id/advance', url: bare.url, server: bare, method: 'POST', path: (i) => `/echo/matters/mt_${i % 8000}/advance`, body: () => ADVANCE_BODY, duration: seconds }));
  } finally {
    await bare.stop();
  }
}

export async function bench(): Promise<string[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const onSqlite = await doors({}, seconds, 'SQLite');
  const onPostgres = await onFreshSchema((env) => doors(env, seconds, 'PostgreSQL'));
  const disjoint = await advanceOnTwo(seconds, 'disjoint');
  const shared = await advanceOnTwo(seconds, 'shared');
  const bare = await bareAdvance(seconds);
  const restart = await restartOver(Number(process.env.BENCH_EVENTS ?? 1_000_000));
  const pairs: Pair[] = onPostgres.map((door, i) => ({ door, bare: onSqlite[i] }));
  const one = onPostgres[1];
  const advanceRow = (f: WithDatabase) => [f.title, num(f.rps), ms(f.p50), ms(f.p99), pct(f.rps / bare.rps), pct(f.rps / onSqlite[1].rps), pct(f.rps / one.rps), us(f.cpuUs), us(f.loopUs), us(f.dbUs), num(f.ok), num(f.non2xx)];
  return [
    'The Matter doors on PostgreSQL (one process, the local server) beside the same doors on SQLite, one run; the "vs bare" column is PostgreSQL against SQLite',
    ...pairTable(pairs),
    '',
    'Advance with 1 and 2 service processes on one PostgreSQL schema, 50 connections in all (2 processes: 25 each, at once, figures summed; p50/p99 the worse of the two; CPU/req over both service processes; DB CPU/req: every PostgreSQL server process of the machine, so other work on the database counts too)',
    ...table(
      ['door (50 connections)', 'req/s (2xx)', 'p50', 'p99', 'vs bare', 'vs SQLite', 'vs 1 PG process', 'CPU/req', 'loop/req', 'DB CPU/req', '2xx', 'non-2xx'],
      [advanceRow(onSqlite[1]), advanceRow(one), advanceRow(disjoint), advanceRow(shared), advanceRow(bare)],
    ),
    `the same Matters from both processes: ${Object.entries(shared.statuses).map(([code, count]) => `${num(count)} x ${code}`).join(', ')}`,
    '',
    ...restart,
  ];
}
