/**
 * The journal on PostgreSQL (node-postgres, `pg`): the same store as the
 * embedded SQLite journal, on a database several service processes can
 * share (decisions.md, "Scale-out").
 *
 * - Append-only in the database itself: triggers refuse UPDATE and DELETE.
 * - Expected versions: each append checks its streams' versions inside the
 *   transaction, and a unique (stream, version) index settles a race with
 *   another process, so exactly one writer of a version wins; the other's
 *   append is a VersionConflict and writes nothing.
 * - Group commit: appends that arrive while a transaction is being written
 *   go into the next one, each inside its own savepoint, so one refused
 *   append leaves the others of its batch whole. A transaction resolves its
 *   appends only once COMMIT returns with `synchronous_commit = on`.
 * - Tails never skip: a grain's seq comes from its row in `grain_heads`,
 *   incremented under that row's lock, which is held to COMMIT. A writer to
 *   the same grain waits until the one before it has committed, so seqs
 *   become visible in seq order: a reader that has seen seq N never later
 *   finds a committed seq below N. (The same guarantee the transaction-id
 *   watermark gives, by serializing each grain's seq assignment instead; a
 *   batch takes its grains' locks in name order, so two processes never
 *   deadlock on them.)
 * - The schema is created on start-up and versioned (`schema_version`), so a
 *   later change can migrate it.
 */
import pg from 'pg';
import { INTENT_KINDS, VersionConflict, type IntentCursor, type JournalEvent, type JournalStore, type NewEvent, type StreamWrite, type TailQuery } from './store.ts';

/** The schema this build writes and reads; `migrate` brings an older one up to it. */
export const SCHEMA_VERSION = 1;

const MIGRATIONS: Record<number, string> = {
  1: `
CREATE TABLE events (
  grain   text    NOT NULL,
  seq     bigint  NOT NULL,
  stream  text    NOT NULL,
  version integer NOT NULL,
  at      text    NOT NULL,
  kind    text    NOT NULL,
  actor   text,
  body    text    NOT NULL,
  PRIMARY KEY (grain, seq)
);
CREATE UNIQUE INDEX events_by_stream ON events (stream, version);
CREATE INDEX events_heads ON events (grain, kind, seq) WHERE version = 1;
CREATE INDEX events_reminders ON events (grain, seq) WHERE kind LIKE 'reminder.%';
CREATE INDEX events_with_actor ON events (grain, seq) WHERE actor IS NOT NULL;
CREATE INDEX events_intents ON events (grain, seq) WHERE kind IN (${INTENT_KINDS.map((k) => `'${k}'`).join(', ')});
CREATE TABLE grain_heads (grain text PRIMARY KEY, seq bigint NOT NULL);
CREATE FUNCTION journal_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'the journal is append-only: no %', lower(TG_OP); END $$;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION journal_is_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION journal_is_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION journal_is_append_only();
`,
};

interface Row {
  grain: string;
  seq: string | number;
  stream: string;
  version: number;
  at: string;
  kind: string;
  actor: string | null;
  body: string;
}

interface Pending {
  grain: string;
  writes: StreamWrite[];
  resolve: (events: JournalEvent[]) => void;
  reject: (error: unknown) => void;
}

function toEvent(row: Row): JournalEvent {
  const body = JSON.parse(row.body) as Omit<NewEvent, 'kind' | 'at' | 'actor'>;
  return { grain: row.grain, seq: Number(row.seq), stream: row.stream, version: row.version, at: row.at, kind: row.kind, ...(row.actor === null ? {} : { actor: row.actor }), ...body };
}

const FEED_PREDICATE = { timeline: '', reminders: "AND kind LIKE 'reminder.%'", time: 'AND actor IS NOT NULL' } as const;

export interface PostgresOptions {
  /** The connection string (LEGALWORK_DATABASE_URL). */
  url: string;
  /** A schema of its own (tests make and drop one each); default: the connection's search path. */
  schema?: string;
  /**
   * Hold the journal for this process alone (the service, until several
   * processes share the state they keep in memory today, issue 16): a
   * second process on the same database and schema is refused at start-up.
   */
  exclusive?: boolean;
}

export class PostgresJournal implements JournalStore {
  private pending: Pending[] = [];
  private writing = false;
  private closing: Promise<void> | null = null;

  private constructor(
    /** Reads. */
    private readonly pool: pg.Pool,
    /** The one connection that writes: one transaction at a time, each a batch of appends. */
    private readonly writer: pg.PoolClient,
  ) {}

  /** Connects, creates or migrates the schema, and keeps a connection for writes. */
  static async connect(options: PostgresOptions): Promise<PostgresJournal> {
    const pool = new pg.Pool({ connectionString: options.url, max: 8 });
    const schema = options.schema;
    // An idle connection the database dropped: the pool replaces it, and the next query says what failed.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => {
      // Durable before the reply: a commit returns once it is flushed (the default, made explicit).
      void client.query(`SET synchronous_commit = on${schema ? `; SET search_path TO ${pg.escapeIdentifier(schema)}` : ''}`);
    });
    const writer = await pool.connect();
    try {
      await writer.query('SET synchronous_commit = on');
      await migrate(writer, schema);
      // A session lock, held by the writing connection for the journal's life: released when the process goes, however it goes.
      if (options.exclusive && !(await writer.query<{ held: boolean }>("SELECT pg_try_advisory_lock(7351991, hashtext(current_schema())) AS held")).rows[0].held) {
        throw new Error(`another legalwork process is serving this journal (schema ${schema ?? 'public'}): one process per database for now, until the state each process keeps in memory is shared (issue 16); stop the other, or use another database`);
      }
    } catch (error) {
      writer.release();
      await pool.end();
      throw error;
    }
    return new PostgresJournal(pool, writer);
  }

  append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]> {
    return new Promise((resolve, reject) => {
      if (this.closing) return reject(new Error('the journal is closed'));
      this.pending.push({ grain, writes, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  /** Writes everything pending as one transaction; then the next batch, until none is left. */
  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length) {
        const batch = this.pending;
        this.pending = [];
        await this.commit(batch);
      }
    } finally {
      this.writing = false;
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    const db = this.writer;
    const done: Array<{ p: Pending; events: JournalEvent[] }> = [];
    try {
      await db.query('BEGIN');
      // Every grain the batch writes, locked in name order: seqs are assigned one writer at a time, and never in a deadlock.
      const grains = [...new Set(batch.flatMap((p) => p.writes.map((w) => w.grain ?? p.grain)))].sort();
      await db.query('INSERT INTO grain_heads (grain, seq) SELECT unnest($1::text[]), 0 ON CONFLICT DO NOTHING', [grains]);
      await db.query('SELECT grain FROM grain_heads WHERE grain = ANY($1) ORDER BY grain FOR UPDATE', [grains]);
      for (const p of batch) {
        await db.query('SAVEPOINT append');
        try {
          done.push({ p, events: await this.stage(p) });
          await db.query('RELEASE SAVEPOINT append');
        } catch (error) {
          await db.query('ROLLBACK TO SAVEPOINT append');
          p.reject(error);
        }
      }
      await db.query('COMMIT');
    } catch (error) {
      // The transaction failed (the database went away, a disk error): nothing of it was written.
      await db.query('ROLLBACK').catch(() => undefined);
      for (const { p } of done) p.reject(error);
      return;
    }
    for (const { p, events } of done) p.resolve(events);
  }

  /** One append inside the batch's transaction: its versions checked, its seqs taken, its rows inserted. */
  private async stage(p: Pending): Promise<JournalEvent[]> {
    const db = this.writer;
    const streams = [...new Set(p.writes.map((w) => w.stream))];
    const { rows } = await db.query<{ stream: string; v: number }>('SELECT stream, max(version) AS v FROM events WHERE stream = ANY($1) GROUP BY stream', [streams]);
    const actual = new Map(rows.map((r) => [r.stream, Number(r.v)]));
    for (const w of p.writes) {
      const at = actual.get(w.stream) ?? 0;
      if (at !== w.expectedVersion) throw new VersionConflict(w.stream, w.expectedVersion, at);
      actual.set(w.stream, at + w.events.length);
    }
    const counts = new Map<string, number>();
    for (const w of p.writes) counts.set(w.grain ?? p.grain, (counts.get(w.grain ?? p.grain) ?? 0) + w.events.length);
    const next = new Map<string, number>();
    for (const [grain, n] of counts) {
      const { rows: head } = await db.query<{ seq: string }>('UPDATE grain_heads SET seq = seq + $2 WHERE grain = $1 RETURNING seq', [grain, n]);
      next.set(grain, Number(head[0].seq) - n);
    }
    const columns: unknown[][] = [[], [], [], [], [], [], [], []];
    const events: JournalEvent[] = [];
    for (const w of p.writes) {
      const grain = w.grain ?? p.grain;
      let version = w.expectedVersion;
      for (const e of w.events) {
        const seq = next.get(grain)! + 1;
        next.set(grain, seq);
        version += 1;
        const { kind, at, actor, ...rest } = e;
        const row: Row = { grain, seq, stream: w.stream, version, at, kind, actor: actor ?? null, body: JSON.stringify(rest) };
        [row.grain, row.seq, row.stream, row.version, row.at, row.kind, row.actor, row.body].forEach((value, i) => columns[i].push(value));
        events.push(toEvent(row));
      }
    }
    try {
      await db.query('INSERT INTO events (grain, seq, stream, version, at, kind, actor, body) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[])', columns);
    } catch (error) {
      // Another process wrote one of these versions first (between the check and the insert).
      if ((error as { code?: string }).code === '23505') {
        // This transaction is aborted until its savepoint is rolled back: the versions are read on another connection.
        for (const w of p.writes) {
          const now = await this.streamVersionOn(this.pool, w.stream);
          if (now !== w.expectedVersion) throw new VersionConflict(w.stream, w.expectedVersion, now);
        }
        throw new VersionConflict(p.writes[0].stream, p.writes[0].expectedVersion, p.writes[0].expectedVersion + 1);
      }
      throw error;
    }
    return events;
  }

  private async streamVersionOn(db: pg.Pool | pg.PoolClient, stream: string): Promise<number> {
    const { rows } = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM events WHERE stream = $1', [stream]);
    return Number(rows[0].v ?? 0);
  }

  async readStream(stream: string) {
    return (await this.pool.query<Row>('SELECT * FROM events WHERE stream = $1 ORDER BY version', [stream])).rows.map(toEvent);
  }

  async readTail(grain: string, { after, limit, feed }: TailQuery) {
    return (await this.pool.query<Row>(`SELECT * FROM events WHERE grain = $1 AND seq > $2 ${FEED_PREDICATE[feed]} ORDER BY seq LIMIT $3`, [grain, after, limit])).rows.map(toEvent);
  }

  async latestSeq(grain: string) {
    const { rows } = await this.pool.query<{ seq: string }>('SELECT seq FROM grain_heads WHERE grain = $1', [grain]);
    return Number(rows[0]?.seq ?? 0);
  }

  async streamVersion(stream: string) {
    return this.streamVersionOn(this.pool, stream);
  }

  async streamHeads(grain: string, kind: string, after: number, limit: number) {
    const { rows } = await this.pool.query<{ stream: string; seq: string; body: string }>('SELECT stream, seq, body FROM events WHERE grain = $1 AND kind = $2 AND version = 1 AND seq > $3 ORDER BY seq LIMIT $4', [grain, kind, after, limit]);
    return rows.map((r) => ({ stream: r.stream, seq: Number(r.seq), data: (JSON.parse(r.body) as { data: Record<string, unknown> }).data }));
  }

  async countStreams(grain: string, kind: string) {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE grain = $1 AND kind = $2 AND version = 1', [grain, kind]);
    return Number(rows[0].n);
  }

  async readIntents(after: IntentCursor | null, limit: number) {
    const { rows } = await this.pool.query<Row>('SELECT * FROM events WHERE kind = ANY($1) AND (grain, seq) > ($2, $3) ORDER BY grain, seq LIMIT $4', [INTENT_KINDS, after?.grain ?? '', after?.seq ?? 0, limit]);
    return rows.map(toEvent);
  }

  /** Commits what is pending, then closes every connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.writing || this.pending.length) {
        if (!this.writing) void this.flush();
        await new Promise((r) => setTimeout(r, 5));
      }
      this.writer.release();
      await this.pool.end();
    })();
    return this.closing;
  }
}

/** Creates the schema if asked, and brings it to `SCHEMA_VERSION`, one migration per transaction, under an advisory lock (several processes may start at once). */
async function migrate(db: pg.PoolClient, schema: string | undefined): Promise<void> {
  await db.query('SELECT pg_advisory_lock(7351990)');
  try {
    if (schema) {
      await db.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
      await db.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
    }
    await db.query('CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version');
    const current = rows[0].v ?? 0;
    if (current > SCHEMA_VERSION) throw new Error(`the journal's schema is version ${current}, newer than this build (${SCHEMA_VERSION}): run a newer build`);
    for (let v = current + 1; v <= SCHEMA_VERSION; v++) {
      await db.query('BEGIN');
      try {
        await db.query(MIGRATIONS[v]);
        await db.query('INSERT INTO schema_version (version) VALUES ($1)', [v]);
        await db.query('COMMIT');
      } catch (error) {
        await db.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await db.query('SELECT pg_advisory_unlock(7351990)');
  }
}
