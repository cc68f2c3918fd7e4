/**
 * The Matter doors on the PostgreSQL journal beside the same doors on the
 * embedded SQLite journal, in one run (the "vs SQLite" column): create,
 * advance (3 stage commits and 1 escalation per Matter) and GET, 50
 * connections, one service process each. The database is the local one
 * (LEGALWORK_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test),
 * in a schema of its own that is dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { drive, type Figures } from './lib/load.ts';
import { removeDir, spawnService, tempDataDir } from './lib/service.ts';
import { pairTable, type Pair } from './lib/table.ts';
import { ADVANCE_BODY, collectMatterIds, CREATE_BODY, openWorkspace } from './matters.ts';

const URL = process.env.LEGALWORK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Create, advance and GET on one service process. */
async function doors(env: Record<string, string>, seconds: number, label: string): Promise<Figures[]> {
  const dir = tempDataDir();
  const service = await spawnService(dir, env);
  try {
    const prefix = await openWorkspace(service.url);
    const pool: string[] = [];
    const create = (s: number) => drive({ title: `POST /matters (${label})`, url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, duration: s, onResponse: collectMatterIds(pool) });
    await create(2);
    const created = await create(seconds);
    const n = Math.min(pool.length, 8_000);
    const ids = pool.slice(-n);
    const advanced = await drive({ title: `POST /matters/:id/advance (${label})`, url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${ids[i % n]}/advance`, body: () => ADVANCE_BODY, amount: 4 * n, duration: seconds });
    const read = await drive({ title: `GET /matters/:id (${label})`, url: service.url, server: service, method: 'GET', path: (i) => `${prefix}/matters/${ids[(i * 7919) % n]}`, duration: seconds });
    return [created, advanced, read];
  } finally {
    await service.stop();
    removeDir(dir);
  }
}

export async function bench(): Promise<string[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const schema = `lw_bench_${randomBytes(4).toString('hex')}`;
  const onSqlite = await doors({}, seconds, 'SQLite');
  let onPostgres: Figures[];
  try {
    onPostgres = await doors({ LEGALWORK_DATABASE_URL: URL, LEGALWORK_DATABASE_SCHEMA: schema }, seconds, 'PostgreSQL');
  } finally {
    const db = new pg.Client({ connectionString: URL });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await db.end();
  }
  const pairs: Pair[] = onPostgres.map((door, i) => ({ door, bare: onSqlite[i] }));
  return ['The Matter doors on PostgreSQL (one process, the local server) beside the same doors on SQLite, one run; the "vs bare" column is PostgreSQL against SQLite', ...pairTable(pairs)];
}
