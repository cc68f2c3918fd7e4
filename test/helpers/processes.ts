/**
 * Two (or more) real service processes on one PostgreSQL journal (issue 16,
 * "many processes, one journal"), as an operator runs them: `node
 * bin/legalwork.js serve` with LEGALWORK_DATABASE_URL and a schema of their
 * own, each on its own port and data directory. The pair also reads the
 * database directly (`query`), which is the ground truth the tests hold the
 * processes' answers to. A database that cannot be reached fails the test:
 * it is never skipped.
 */
import pg from 'pg';
import { removeDir, spawnService, tempDataDir, type Child } from '../../bench/lib/service.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './postgres.ts';

export type ProcessName = 'a' | 'b';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** A JSON request over a real socket; a body that is not JSON is kept as text. */
export async function send(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), body: parsed };
}

/** Fails at once, naming the URL, when PostgreSQL does not answer. */
export async function expectDatabase(): Promise<void> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await db.connect();
    await db.query('SELECT 1');
  } catch (error) {
    throw new Error(`PostgreSQL is unreachable at ${TEST_DATABASE_URL} (these tests need it; npm test finds or starts one): ${String(error)}`);
  } finally {
    await db.end().catch(() => undefined);
  }
}

export class ServicePair {
  readonly schema = freshSchema();
  readonly env = { LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: this.schema };
  private readonly children = new Map<ProcessName, Child>();
  private readonly dirs: string[] = [];
  private db?: pg.Client;

  /** A and B, started at once (as `cluster` would: the schema is made under a lock), each on a data directory of its own. */
  static async start(): Promise<ServicePair> {
    await expectDatabase();
    const pair = new ServicePair();
    const started = await Promise.allSettled([pair.spawn('a'), pair.spawn('b')]);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await pair.close();
      throw failed.reason;
    }
    return pair;
  }

  get a(): Child {
    return this.child('a');
  }

  get b(): Child {
    return this.child('b');
  }

  child(name: ProcessName): Child {
    const c = this.children.get(name);
    if (!c) throw new Error(`process ${name} is not running`);
    return c;
  }

  url(name: ProcessName): string {
    return this.child(name).url;
  }

  /** Starts process `name` (again, after a kill: a new process, a new port). */
  async spawn(name: ProcessName): Promise<Child> {
    const dir = tempDataDir(`legalwork-scale-${name}-`);
    this.dirs.push(dir);
    const child = await spawnService(dir, this.env);
    this.children.set(name, child);
    return child;
  }

  /** SIGKILL: no drain, no flush. */
  async kill(name: ProcessName): Promise<void> {
    const c = this.children.get(name);
    this.children.delete(name);
    await c?.kill();
  }

  /** What the processes wrote on stderr (for failure messages). */
  stderr(): string {
    return [...this.children].map(([name, c]) => `--- ${name} ---\n${c.stderr()}`).join('\n');
  }

  /** A query on the shared database, in the pair's schema. */
  async query<T extends pg.QueryResultRow = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (!this.db) {
      this.db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${this.schema}` });
      await this.db.connect();
    }
    return (await this.db.query<T>(sql, params)).rows;
  }

  /** Every seq a grain's journal holds, in order: what a tail read must neither skip nor repeat. */
  async grainSeqs(grain: string): Promise<number[]> {
    return (await this.query<{ seq: string }>('SELECT seq FROM events WHERE grain = $1 ORDER BY seq', [grain])).map((r) => Number(r.seq));
  }

  /** Streams of a grain whose versions are not exactly 1..n, with the versions they hold. */
  async streamsWithGaps(grain: string): Promise<Array<{ stream: string; versions: number[] }>> {
    const rows = await this.query<{ stream: string; versions: number[] }>('SELECT stream, array_agg(version ORDER BY version) AS versions FROM events WHERE grain = $1 GROUP BY stream', [grain]);
    return rows.filter((r) => r.versions.some((v, i) => v !== i + 1));
  }

  async close(): Promise<void> {
    await Promise.all([...this.children.values()].map((c) => c.kill()));
    this.children.clear();
    for (const dir of this.dirs.splice(0)) removeDir(dir);
    await this.db?.end().catch(() => undefined);
    this.db = undefined;
    await dropSchema(this.schema);
  }
}
