/**
 * A large PostgreSQL journal, fast: the restart figures on PostgreSQL (the
 * test `test/journal/postgres.restart.test.ts`) need a schema holding a
 * million events of realistic Matter streams, and writing them through
 * `PostgresJournal.append` (one plpgsql call per batch, a row at a time)
 * takes minutes. So:
 *
 * 1. `PostgresJournal.connect` creates the schema, exactly as the service
 *    would (every table, index, trigger and migration of this build), and an
 *    API key is issued through the real `Keys` service on it: the Matters are
 *    that key's top-level records, so its holder can page their grain's tail.
 * 2. The journal is closed, and the Matter copies of `bench/restart.ts`
 *    (`matterBatches`) are bulk-loaded, 25,000 rows per `INSERT ... SELECT`
 *    (the columns sent as JSON arrays, zipped back into rows), row for row
 *    what `journal_append_batch` writes: the columns of `journal/rows.ts`,
 *    each grain's seq gap-free after its head, each stream's versions 1..n.
 *    `grain_heads` is then set to each grain's last seq.
 * 3. The secondary indexes of `events` are dropped for the load and built
 *    again after it from their own definitions (read from the catalog, so a
 *    later migration's indexes come back too): one sort each instead of a
 *    million random inserts. The primary key and the triggers stay.
 *
 * About 20 s for a million events on the 2-core machine (the service's own
 * appends would take minutes).
 */
import pg from 'pg';
import { createServices } from '../../src/compose.ts';
import { ownGrainOf } from '../../src/engine/grains.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { matterBatches, templates, type Template } from '../restart.ts';

export interface FilledJournal {
  /** The API key whose grain holds the Matters (`Authorization: Bearer <key>` pages its tail). */
  key: string;
  grain: string;
  /** Events loaded (all grains: the Matters' and the outbox's delivery records) and how many of them in the Matters' grain. */
  events: number;
  grainEvents: number;
  matters: number;
  /** The first Matter loaded (its events are the first of the grain's tail) and the template it copies. */
  oldest: { id: string; template: Template };
  seconds: number;
}

/** Rows per INSERT statement. */
const CHUNK = 25_000;

/** The columns as JSON arrays, one a parameter, zipped back into rows (a JSON text is much cheaper to send and parse than a text[] literal of JSON bodies). */
const INSERT = `INSERT INTO events (grain, seq, stream, version, at, kind, actor, body)
  SELECT grain, seq::bigint, stream, version::integer, at, kind, actor, body
  FROM ROWS FROM (json_array_elements_text($1::json), json_array_elements_text($2::json), json_array_elements_text($3::json), json_array_elements_text($4::json),
                  json_array_elements_text($5::json), json_array_elements_text($6::json), json_array_elements_text($7::json), json_array_elements_text($8::json))
    AS r (grain, seq, stream, version, at, kind, actor, body)`;

class Columns {
  grain: string[] = [];
  seq: number[] = [];
  stream: string[] = [];
  version: number[] = [];
  at: string[] = [];
  kind: string[] = [];
  actor: Array<string | null> = [];
  body: string[] = [];
  get length() {
    return this.seq.length;
  }
  params() {
    return [this.grain, this.seq, this.stream, this.version, this.at, this.kind, this.actor, this.body].map((column) => JSON.stringify(column));
  }
}

/** Fills the (new or empty) journal in `schema` with at least `target` events of Matter streams. */
export async function fillPostgresJournal({ url, schema, target, connections = 1 }: { url: string; schema: string; target: number; connections?: number }): Promise<FilledJournal> {
  const started = performance.now();
  const journal = await PostgresJournal.connect({ url, schema });
  let issued: Awaited<ReturnType<ReturnType<typeof createServices>['keys']['issue']>>;
  try {
    issued = await createServices({ journal }).keys.issue({ email: 'restart@legalwork.test' });
  } finally {
    await journal.close();
  }
  const grain = ownGrainOf(issued.record.id);

  const options = `-c search_path=${schema} -c synchronous_commit=off -c maintenance_work_mem=256MB`;
  const pool = new pg.Pool({ connectionString: url, max: connections, options });
  try {
    const heads = new Map<string, number>();
    const headOf = async (g: string) => {
      let head = heads.get(g);
      if (head === undefined) {
        const { rows } = await pool.query<{ seq: string }>('SELECT seq FROM grain_heads WHERE grain = $1', [g]);
        head = Number(rows[0]?.seq ?? 0);
        heads.set(g, head);
      }
      return head;
    };
    // The secondary indexes are built once after the load (a sort each), not row by row: the same definitions, read back from the catalog.
    const { rows: indexes } = await pool.query<{ name: string; definition: string }>(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = 'events'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = i.indexrelid)`,
    );
    for (const { name } of indexes) await pool.query(`DROP INDEX ${pg.escapeIdentifier(name)}`);
    let events = 0;
    let matters = 0;
    let oldest: FilledJournal['oldest'] | undefined;
    let rows = new Columns();
    const inflight = new Set<Promise<unknown>>();
    const send = async (chunk: Columns) => {
      // At most `connections` statements at once; the next chunk is built while they run.
      while (inflight.size >= connections) await Promise.race(inflight);
      const sent: Promise<unknown> = pool.query(INSERT, chunk.params()).finally(() => inflight.delete(sent));
      inflight.add(sent);
      // Its failure is thrown by the race or the final wait; never unhandled meanwhile.
      sent.catch(() => undefined);
    };
    for (const batch of matterBatches(await templates(), target)) {
      oldest ??= batch.matters[0];
      for (const w of batch.writes) {
        const g = w.grain ?? grain;
        let seq = await headOf(g);
        let version = w.expectedVersion;
        for (const e of w.events) {
          rows.grain.push(g);
          rows.seq.push(++seq);
          rows.stream.push(w.stream);
          rows.version.push(++version);
          rows.at.push(e.at);
          rows.kind.push(e.kind);
          rows.actor.push(e.actor);
          rows.body.push(e.body);
        }
        heads.set(g, seq);
        if (rows.length >= CHUNK) {
          await send(rows);
          rows = new Columns();
        }
      }
      events += batch.events;
      matters += batch.matters.length;
    }
    if (rows.length) await send(rows);
    await Promise.all(inflight);
    for (const { definition } of indexes) await pool.query(definition);
    for (const [g, seq] of heads) await pool.query('INSERT INTO grain_heads (grain, seq) VALUES ($1, $2) ON CONFLICT (grain) DO UPDATE SET seq = excluded.seq', [g, seq]);
    // Fresh statistics, as autovacuum would gather them soon after a load like this one.
    await pool.query('ANALYZE events');
    await pool.query('ANALYZE grain_heads');
    return { key: issued.key, grain, events, grainEvents: heads.get(grain)!, matters, oldest: oldest!, seconds: (performance.now() - started) / 1000 };
  } finally {
    await pool.end();
  }
}
