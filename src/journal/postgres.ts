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
 *   go into the next one, written by one call of a database function
 *   (`journal_append_batch`: one round trip), each append in a
 *   subtransaction of its own, so one refused append leaves the others of
 *   its batch whole. Appends resolve only once COMMIT returns with
 *   `synchronous_commit = on`.
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
import { ADMISSIONS_MIGRATION, PostgresAdmissions } from './postgres-admissions.ts';
import { PostgresClock } from './postgres-clock.ts';
import { HOLDER_SETTING, leaseHolder, LEASES_MIGRATION, PostgresLeases } from './postgres-leases.ts';
import { OUTBOX_LEASE_MIGRATION, OUTBOX_MIGRATION, PENDING_SELECT } from './postgres-outbox.ts';
import { PostgresSession } from './postgres-session.ts';
import { PostgresRetention, purgedRefusal, RETENTION_MIGRATION } from './postgres-retention.ts';
import { groupCommitted } from './journal-metrics.ts';
import { checksumOf, intact, listedItem } from './answer-rows.ts';
import { IN_STATE_SELECT, inStateOf, ledgerOf, populationColumns, populationSelect, snapshotOf, SNAPSHOT_COLUMNS, SNAPSHOT_SELECT, statesOf, type PopulationRow } from './population-rows.ts';
import { columnsOf, eventOf, rangeEventOf, EVENT_COLUMNS, headOf, HEAD_SELECT, rowOf, streamHeadOf, type EventRow, type HeadRow, type PendingAppend } from './rows.ts';
import { INTENT_KINDS, VersionConflict, type IntentCursor, type JournalEvent, type JournalStore, type PopulationCounts, type PopulationMachine, type PopulationRows, type StreamSnapshot, type StreamWrite, type TailQuery, type TailFrame, type AnswerRow, type NewEvent, wholePage } from './store.ts';

/** The schema this build writes and reads; `migrate` brings an older one up to it. */
export const SCHEMA_VERSION = 10;

/** True when one of the streams a row's deps (`[[stream, version], ...]`) names has moved off its version: the row is stale. */
const STALE_DEPS = (deps: string) =>
  `EXISTS (SELECT 1 FROM jsonb_array_elements(${deps}) d WHERE coalesce((SELECT max(version) FROM events WHERE stream = d->>0), 0) <> (d->>1)::integer)`;

/** A snapshot row's columns set from the row offered (`excluded`). */
const SNAPSHOT_UPDATE = SNAPSHOT_COLUMNS.split(', ').slice(1).map((c) => `${c} = excluded.${c}`).join(', ');

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
${appendBatch(1)}
`,
  // The creation bound's admissions, shared by every process on this database.
  2: ADMISSIONS_MIGRATION,
  // Each entity stream's snapshot (store.ts, StreamSnapshot), written by the append
  // that produced it: a cache of the journal, so, unlike the events, updated in place.
  3: `
CREATE TABLE snapshots (stream text PRIMARY KEY, version integer NOT NULL, machine text NOT NULL, state text NOT NULL);
${appendBatch(3)}
`,
  // The population (population-rows.ts): each snapshot row's standing as indexed columns (null on the
  // rows schema 3 wrote: the engine folds those streams again and rewrites them), and the ledger and
  // transition counts every entity write adds to in its subtransaction.
  4: `
ALTER TABLE snapshots ADD COLUMN grain text, ADD COLUMN path text, ADD COLUMN facets integer, ADD COLUMN since_seq bigint, ADD COLUMN since text;
CREATE INDEX snapshots_population ON snapshots (grain, machine, path, since_seq) INCLUDE (version, facets);
CREATE TABLE population_ledger (grain text, machine text, streams bigint NOT NULL, events bigint NOT NULL, transitions bigint NOT NULL, PRIMARY KEY (grain, machine));
CREATE TABLE transition_counts (grain text, machine text, edge text, n bigint NOT NULL, PRIMARY KEY (grain, machine, edge));
${appendBatch(4)}
`,
  // The leases of work one process holds (webhook endpoints, outbox intents), with their holder and expiry.
  5: LEASES_MIGRATION,
  // The outbox's unsettled intents, kept by a trigger with the intents and the records that settle them.
  6: OUTBOX_MIGRATION,
  // An intent is born leased to the process whose append writes it.
  7: OUTBOX_LEASE_MIGRATION,
  // Answers kept as rows (AnswerRow in store.ts): a cache of the journal, written after the facts
  // they show and read only while every stream in deps stands where it says.
  8: `CREATE TABLE answers (stream text PRIMARY KEY, grain text NOT NULL, tag text NOT NULL, deps jsonb NOT NULL, version integer NOT NULL,
    etag text NOT NULL, item_crc bigint NOT NULL, item text NOT NULL, crc bigint NOT NULL, body text NOT NULL)`,
  // Retention (postgres-retention.ts): expired sandbox grains purged, their tombstones kept.
  9: RETENTION_MIGRATION,
  // Each event as a page of its grain's tail shows it, its seq in front of the entry the append was given
  // (NewEvent.entry in store.ts), kept in its row: a page of the timeline is one range read. Null on the rows
  // earlier schemas wrote (their pages are built).
  10: `
ALTER TABLE events ADD COLUMN entry text;
${appendBatch(10)}
`,
};





/**
 * One batch of appends in one round trip: each append in a subtransaction of
 * its own (a refused one leaves the others whole), its versions checked as
 * it writes, its seqs taken from its grains' heads, which the batch locks
 * first in name order. Answers, per append, its rows' positions or the
 * conflict that refused it. From schema 3 it also keeps each write's
 * snapshot, in the same subtransaction as its events; from schema 4 the
 * snapshot's standing (the entering fact's seq and instant, given or taken
 * from the event the standing names) and the write's share of its grain's
 * population ledger and transition counts. Those rows are only ever written
 * under the grain's head lock (here, and by `resetPopulation`), so they add
 * no lock order of their own. Each version's text is kept as it was applied.
 */
function appendBatch(schema: 1 | 3 | 4 | 10): string {
  const snapshots = schema >= 3;
  const entries = schema >= 10;
  const standing = schema >= 4;
  return `
CREATE ${snapshots ? 'OR REPLACE ' : ''}FUNCTION journal_append_batch(batch jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  answers jsonb := '[]';
  app jsonb;
  w jsonb;
  e jsonb;
  positions jsonb;
  grain_name text;
  actual integer;
  position_seq bigint;
  position_version integer;${standing ? `
  s jsonb;
  i integer;
  entered_event integer;
  entered_seq bigint;
  entered_at text;` : ''}
BEGIN
  INSERT INTO grain_heads (grain, seq)
    SELECT DISTINCT coalesce(x->>'grain', a->>'grain'), 0 FROM jsonb_array_elements(batch) a, jsonb_array_elements(a->'writes') x
    ON CONFLICT DO NOTHING;
  PERFORM 1 FROM grain_heads WHERE grain IN (SELECT coalesce(x->>'grain', a->>'grain') FROM jsonb_array_elements(batch) a, jsonb_array_elements(a->'writes') x) ORDER BY grain FOR UPDATE;
  FOR app IN SELECT value FROM jsonb_array_elements(batch) LOOP
    BEGIN
      positions := '[]';
      FOR w IN SELECT value FROM jsonb_array_elements(app->'writes') LOOP
        SELECT coalesce(max(version), 0) INTO actual FROM events WHERE stream = w->>'stream';
        IF actual <> (w->>'expectedVersion')::integer THEN
          RAISE EXCEPTION USING MESSAGE = json_build_object('stream', w->>'stream', 'expected', (w->>'expectedVersion')::integer, 'actual', actual)::text, ERRCODE = 'P0409';
        END IF;
        grain_name := coalesce(w->>'grain', app->>'grain');
        position_version := actual;${standing ? `
        s := w->'snapshot';
        entered_event := (s->'standing'->'entered'->>'event')::integer;
        entered_seq := (s->'standing'->'entered'->>'seq')::bigint;
        entered_at := s->'standing'->'entered'->>'at';
        i := 0;` : ''}
        FOR e IN SELECT value FROM jsonb_array_elements(w->'events') LOOP
          UPDATE grain_heads SET seq = seq + 1 WHERE grain = grain_name RETURNING seq INTO position_seq;
          position_version := position_version + 1;
          INSERT INTO events (grain, seq, stream, version, at, kind, actor, body${entries ? ', entry' : ''})
            VALUES (grain_name, position_seq, w->>'stream', position_version, e->>'at', e->>'kind', e->>'actor', e->>'body'${entries ? `, '{"seq":' || position_seq || (e->>'entry')` : ''});${standing ? `
          IF i = entered_event THEN entered_seq := position_seq; entered_at := e->>'at'; END IF;
          i := i + 1;` : ''}
          positions := positions || jsonb_build_array(jsonb_build_array(grain_name, position_seq, position_version));
        END LOOP;${snapshots && !standing ? `
        IF w ? 'snapshot' THEN
          INSERT INTO snapshots (stream, version, machine, state) VALUES (w->>'stream', position_version, w->'snapshot'->>'machine', w->'snapshot'->>'state')
            ON CONFLICT (stream) DO UPDATE SET version = excluded.version, machine = excluded.machine, state = excluded.state;
        END IF;` : ''}${standing ? `
        IF s IS NOT NULL THEN
          INSERT INTO snapshots (${SNAPSHOT_COLUMNS})
            VALUES (w->>'stream', position_version, s->>'machine', s->>'state', grain_name,
                    CASE WHEN entered_seq IS NULL THEN NULL ELSE s->'standing'->>'path' END,
                    CASE WHEN entered_seq IS NULL THEN NULL ELSE (s->'standing'->>'facets')::integer END, entered_seq, entered_at)
            ON CONFLICT (stream) DO UPDATE SET ${SNAPSHOT_UPDATE};
          INSERT INTO population_ledger (grain, machine, streams, events, transitions)
            VALUES (grain_name, s->>'machine', CASE WHEN actual = 0 THEN 1 ELSE 0 END, jsonb_array_length(w->'events'), jsonb_array_length(coalesce(w->'transitions', '[]')))
            ON CONFLICT (grain, machine) DO UPDATE SET streams = population_ledger.streams + excluded.streams, events = population_ledger.events + excluded.events, transitions = population_ledger.transitions + excluded.transitions;
          INSERT INTO transition_counts (grain, machine, edge, n)
            SELECT grain_name, s->>'machine', t, count(*) FROM jsonb_array_elements_text(coalesce(w->'transitions', '[]')) t GROUP BY t
            ON CONFLICT (grain, machine, edge) DO UPDATE SET n = transition_counts.n + excluded.n;
        END IF;` : ''}
      END LOOP;
      answers := answers || jsonb_build_array(jsonb_build_object('positions', positions));
    EXCEPTION
      WHEN SQLSTATE 'P0409' THEN answers := answers || jsonb_build_array(jsonb_build_object('conflict', SQLERRM::jsonb));
      -- Another process wrote one of these versions between the check and the insert.
      WHEN unique_violation THEN answers := answers || jsonb_build_array(jsonb_build_object('conflict', json_build_object('stream', null)));
    END;
  END LOOP;
  RETURN answers;
END $$;`;
}

/** The events an append wrote, at the positions the database gave them, as they read back. */
function eventsOf(p: PendingAppend, positions: Array<[string, string | number, number]>): JournalEvent[] {
  const events: JournalEvent[] = [];
  let i = 0;
  for (const w of p.writes) {
    for (const e of w.events) {
      const [grain, seq, version] = positions[i++];
      events.push(eventOf(rowOf(grain, Number(seq), w.stream, version, e)));
    }
  }
  return events;
}

/** A completing write of the append at `at` in its batch, and the events it made. */
interface Completed {
  at: number;
  write: StreamWrite;
  events: NewEvent[];
}

type BatchAnswer = { positions: Array<[string, string, number]> } | { conflict: unknown };

/**
 * Each completing write's events, committed, taken into its append's answer after the others' (as
 * `eventsOf` reads them). A completion the database refused is not met (the first call checked its
 * stream's version and held its grain's head to the COMMIT); were it, its append is answered without it.
 */
function takeCompleted(completed: Completed[], answers: BatchAnswer[], made: BatchAnswer[]): void {
  for (const [i, { at, write, events }] of completed.entries()) {
    const answer = made[i];
    const into = answers[at];
    if ('conflict' in answer || 'conflict' in into) continue;
    write.events = events;
    into.positions.push(...answer.positions);
  }
}

const FEED_PREDICATE = { timeline: '', reminders: "AND kind LIKE 'reminder.%'", time: 'AND actor IS NOT NULL' } as const;

export interface PostgresOptions {
  /** The connection string (LEGALWORK_DATABASE_URL). */
  url: string;
  /** A schema of its own (tests make and drop one each); default: the connection's search path. */
  schema?: string;
}

export class PostgresJournal implements JournalStore {
  private pending: PendingAppend[] = [];
  private writing = false;
  private readonly puts = new Set<Promise<void>>();
  private closing: Promise<void> | null = null;
  /** Expired sandbox grains purged (`postgres-retention.ts`). */
  private readonly retention: PostgresRetention;

  private constructor(
    /** Reads. */
    private readonly pool: pg.Pool,
    /**
     * The one connection that writes: one transaction at a time, each a
     * batch of appends. Replaced when it breaks (the database restarted):
     * the batch it held failed whole, and the next batch takes a new one.
     */
    private writer: pg.PoolClient | null,
    /** Other processes' commits, heard; this process's leases. */
    readonly shared: PostgresSession,
  ) {
    this.retention = new PostgresRetention(pool);
  }

  expiredGrains(before: string, limit: number) {
    return this.retention.expiredGrains(before, limit);
  }

  purgeGrain(grain: string, budget: number) {
    return this.retention.purgeGrain(grain, budget);
  }

  isPurged(grain: string) {
    return this.retention.isPurged(grain);
  }

  /** Connects, creates or migrates the schema, and keeps a connection for writes. */
  static async connect(options: PostgresOptions): Promise<PostgresJournal> {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`the journal's schema must be a plain lower-case identifier (letters, digits, _), got ${JSON.stringify(schema)}`);
    // Set at connection start-up, on every connection: durable before the reply (the default, made explicit), and the schema.
    // And this process's lease holder, which the database gives the intents its appends write (migration 7).
    const holder = leaseHolder();
    const startup = `-c synchronous_commit=on${schema ? ` -c search_path=${schema}` : ''} -c ${HOLDER_SETTING}=${holder}`;
    // Named, so an operator sees in pg_stat_activity which connections are the journal's (and of which schema).
    const named = (role: string) => ({ connectionString: options.url, options: startup, application_name: `legalwork ${role} ${schema ?? ''}`.trim() });
    const pool = new pg.Pool({ ...named('journal'), max: POOL_SIZE });
    // An idle connection the database dropped: the pool replaces it, and the next query says what failed.
    pool.on('error', () => undefined);
    const writer = await writerOf(pool);
    let session: PostgresSession | undefined;
    try {
      await migrate(writer, schema);
      const { rows } = await writer.query<{ schema: string }>('SELECT current_schema() AS schema');
      const clock = new PostgresClock(pool);
      session = new PostgresSession(named('session'), `legalwork_journal:${rows[0].schema}`, new PostgresLeases(pool, { holder }), clock);
      await clock.sample();
      await session.open();
    } catch (error) {
      await session?.close();
      writer.release();
      await pool.end();
      throw error;
    }
    return new PostgresJournal(pool, writer, session);
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
        await this.writeBatch(batch);
      }
    } finally {
      this.writing = false;
    }
  }

  /**
   * The writer's connection with a transaction begun. A BEGIN that fails has
   * written nothing, so it is tried again on a new connection: after the
   * database dropped its connections (a restart, a failover) the pool may
   * still hand out idle ones that are dead, one after another.
   */
  private async begin(): Promise<pg.PoolClient> {
    for (let attempt = 1; ; attempt++) {
      const db = (this.writer ??= await writerOf(this.pool));
      try {
        await db.query('BEGIN');
        return db;
      } catch (error) {
        db.release(true);
        this.writer = null;
        if (attempt === BEGIN_ATTEMPTS) throw error;
      }
    }
  }

  /** One transaction: the batch in one call of `journal_append_batch`, then COMMIT; each append resolves only after it. */
  private async writeBatch(batch: PendingAppend[]): Promise<void> {
    const started = performance.now();
    let db: pg.PoolClient | undefined;
    let answers: Array<{ positions: Array<[string, string, number]> } | { conflict: { stream: string | null; expected?: number; actual?: number; purged?: string } }>;
    try {
      db = await this.begin();
      const payload = batch.map((p) => ({
        grain: p.grain,
        writes: p.writes.map((w) => ({ stream: w.stream, ...(w.grain !== undefined ? { grain: w.grain } : {}), expectedVersion: w.expectedVersion, events: w.events.map(columnsOf), ...(w.snapshot ? { snapshot: w.snapshot } : {}), ...(w.transitions?.length ? { transitions: w.transitions } : {}) })),
      }));
      answers = (await db.query<{ answers: typeof answers }>('SELECT journal_append_batch($1::jsonb) AS answers', [JSON.stringify(payload)])).rows[0].answers;
      const completions = this.completionsOf(batch, answers);
      if ('refused' in completions) {
        // A completion threw: its append is refused, and the others are written again without it, in a transaction of their own.
        await db.query('ROLLBACK');
        for (const [p, error] of completions.refused) p.reject(error);
        const refused = new Set(completions.refused.map(([p]) => p));
        const rest = batch.filter((p) => !refused.has(p));
        if (rest.length) await this.writeBatch(rest);
        return;
      }
      // The completing writes (an Idempotency-Key's record, made from the positions just given) and the notices go out with the
      // COMMIT, in the same round trip, and are delivered only if it commits. Their streams' versions were checked, and their grains'
      // heads locked, by the call above (each with no events yet): no other process appends to them before this COMMIT.
      const results = await db.query(`${completions.sql}${this.noticesOf(answers)}COMMIT`);
      if (completions.sql) takeCompleted(completions.completed, answers, ((Array.isArray(results) ? results[0] : results) as pg.QueryResult<{ answers: typeof answers }>).rows[0].answers);
    } catch (error) {
      // The transaction failed (a disk error, the database went away): nothing of it was written, or, when
      // the connection broke during COMMIT, it is unknown whether it was. Either way no append is answered
      // as a success; the writers drop their actors and read the journal again, and a retry under an
      // Idempotency-Key finds out which (its record commits with the command, or not at all).
      if (db && !(await db.query('ROLLBACK').then(() => true, () => false))) {
        db.release(true);
        this.writer = null;
      }
      for (const p of batch) p.reject(error);
      return;
    }
    groupCommitted('postgresql', batch.length, () => batch.reduce((n, p) => n + p.writes.reduce((m, w) => m + w.events.length, 0), 0), started);
    for (const [i, p] of batch.entries()) {
      const answer = answers[i];
      if ('conflict' in answer) p.reject(await this.conflictOf(p, answer.conflict));
      else p.resolve(eventsOf(p, answer.positions));
    }
  }

  /**
   * The completing writes of a batch's accepted appends (`StreamWrite.completes`), made from the events the
   * first call placed, as one more call of `journal_append_batch` to send ahead of the COMMIT (`sql`, empty
   * when there are none); or the appends whose completion threw.
   */
  private completionsOf(batch: PendingAppend[], answers: BatchAnswer[]): { sql: string; completed: Completed[] } | { refused: Array<[PendingAppend, unknown]> } {
    const completed: Completed[] = [];
    const refused: Array<[PendingAppend, unknown]> = [];
    for (const [i, p] of batch.entries()) {
      const write = p.writes[p.writes.length - 1];
      const answer = answers[i];
      if (!write?.completes || 'conflict' in answer) continue;
      try {
        completed.push({ at: i, write, events: write.completes(eventsOf(p, answer.positions)) });
      } catch (error) {
        refused.push([p, error]);
      }
    }
    if (refused.length) return { refused };
    if (!completed.length) return { sql: '', completed };
    const payload = completed.map(({ at, write, events }) => ({ grain: batch[at].grain, writes: [{ stream: write.stream, ...(write.grain !== undefined ? { grain: write.grain } : {}), expectedVersion: write.expectedVersion, events: events.map(columnsOf) }] }));
    return { sql: `SELECT journal_append_batch(${pg.escapeLiteral(JSON.stringify(payload))}::jsonb) AS answers; `, completed };
  }



  /**
   * `pg_notify` of each grain the batch wrote, with the last seq it took
   * there (a simple-protocol statement, so it rides with the COMMIT): other
   * processes' SSE subscribers and webhook workers wake on it and read the
   * journal.
   */
  private noticesOf(answers: Array<{ positions: Array<[string, string, number]> } | { conflict: unknown }>): string {
    const last = new Map<string, number>();
    for (const answer of answers) if ('positions' in answer) for (const [grain, seq] of answer.positions) last.set(grain, Math.max(last.get(grain) ?? 0, Number(seq)));
    if (last.size === 0) return '';
    const notices = [...last].map(([grain, seq]) => pg.escapeLiteral(this.shared.notice(grain, seq)));
    return `SELECT pg_notify(${pg.escapeLiteral(this.shared.channel)}, n) FROM unnest(ARRAY[${notices.join(', ')}]::text[]) n; `;
  }

  /** The VersionConflict a refused append names: the stream the batch found moved, or (a race at insert) the first that has. */
  private async conflictOf(p: PendingAppend, conflict: { stream: string | null; expected?: number; actual?: number; purged?: string }): Promise<Error> {
    const purged = purgedRefusal(conflict);
    if (purged) return purged;
    if (conflict.stream !== null) return new VersionConflict(conflict.stream, conflict.expected!, conflict.actual!);
    for (const w of p.writes) {
      const now = await this.streamVersionOn(this.pool, w.stream);
      if (now !== w.expectedVersion) return new VersionConflict(w.stream, w.expectedVersion, now);
    }
    return new VersionConflict(p.writes[0].stream, p.writes[0].expectedVersion, p.writes[0].expectedVersion + 1);
  }

  private async streamVersionOn(db: pg.Pool | pg.PoolClient, stream: string): Promise<number> {
    const { rows } = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM events WHERE stream = $1', [stream]);
    return Number(rows[0].v ?? 0);
  }

  /** Rows as arrays, in the order the select names its columns (`EventRow`, `HeadRow`). */
  private async rows<R extends unknown[]>(text: string, values: unknown[]): Promise<R[]> {
    return (await this.pool.query<R>({ text, values, rowMode: 'array' })).rows;
  }

  async readStream(stream: string) {
    return (await this.rows<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream = $1 ORDER BY version`, [stream])).map(eventOf);
  }

  async readSnapshot(stream: string) {
    const { rows } = await this.pool.query<Parameters<typeof snapshotOf>[0]>(`${SNAPSHOT_SELECT} WHERE stream = $1`, [stream]);
    return rows[0] ? snapshotOf(rows[0]) : null;
  }

  async readHead(stream: string) {
    const [row] = await this.rows<HeadRow>(`${HEAD_SELECT} WHERE e.stream = $1 AND e.version = 1`, [stream]);
    return row ? headOf(row) : null;
  }

  putSnapshot(stream: string, { version, machine, state, standing }: StreamSnapshot): Promise<void> {
    if (this.closing) return Promise.reject(new Error('the journal is closed'));
    // The grain is the stream's own; one statement, one row: it waits on no lock while holding another.
    const entered = standing && 'seq' in standing.entered ? standing.entered : null;
    const put = this.pool.query(
      `INSERT INTO snapshots (${SNAPSHOT_COLUMNS}) VALUES ($1, $2, $3, $4, (SELECT grain FROM events WHERE stream = $1 AND version = 1), $5, $6, $7, $8)
       ON CONFLICT (stream) DO UPDATE SET ${SNAPSHOT_UPDATE}
       WHERE excluded.version >= snapshots.version OR snapshots.version > (SELECT max(version) FROM events WHERE stream = excluded.stream)`,
      [stream, version, machine, state, entered ? standing!.path : null, entered ? standing!.facets : null, entered?.seq ?? null, entered?.at ?? null],
    ).then(() => undefined);
    return this.kept(put);
  }

  /** A close waits for the rewrites under way (snapshots, answers), as it does for the appends. */
  private kept(put: Promise<void>): Promise<void> {
    this.puts.add(put);
    void put.catch(() => undefined).finally(() => this.puts.delete(put));
    return put;
  }

  async readAnswer(stream: string, tag: string) {
    const [row] = await this.rows<[grain: string, etag: string, body: string, crc: string]>(`SELECT grain, etag, body, crc FROM answers a WHERE stream = $1 AND tag = $2 AND NOT ${STALE_DEPS('a.deps')}`, [stream, tag]);
    return row ? intact(...row) : null;
  }

  putAnswer({ stream, grain, tag, deps, etag, body, item }: AnswerRow): Promise<void> {
    if (this.closing) return Promise.reject(new Error('the journal is closed'));
    // One statement: its deps are checked as of its own snapshot, and a commit racing it makes the row stale, never wrong.
    const put = this.pool.query(
      `INSERT INTO answers (stream, grain, tag, deps, version, etag, crc, body, item, item_crc)
       SELECT $1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10 WHERE NOT ${STALE_DEPS('$4::jsonb')}
       ON CONFLICT (stream) DO UPDATE SET grain = excluded.grain, tag = excluded.tag, deps = excluded.deps, version = excluded.version,
         etag = excluded.etag, crc = excluded.crc, body = excluded.body, item = excluded.item, item_crc = excluded.item_crc`,
      [stream, grain, tag, JSON.stringify(deps), deps[0][1], etag, checksumOf(body), body, item, checksumOf(item)],
    ).then(() => undefined);
    return this.kept(put);
  }

  async listItems(grain: string, kind: string, tag: string, after: number, limit: number) {
    const rows = await this.rows<[string, string, string | null, string | null]>(
      `SELECT e.stream, e.seq, a.item, a.item_crc FROM events e
       LEFT JOIN answers a ON a.stream = e.stream AND a.tag = $1 AND a.version = (SELECT max(x.version) FROM events x WHERE x.stream = e.stream)
       WHERE e.grain = $2 AND e.kind = $3 AND e.version = 1 AND e.seq > $4 ORDER BY e.seq LIMIT $5`,
      [tag, grain, kind, after, limit],
    );
    return rows.map((row) => listedItem(...row));
  }

  async readTail(grain: string, { after, limit, feed }: TailQuery) {
    return (await this.rows<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE grain = $1 AND seq > $2 ${FEED_PREDICATE[feed]} ORDER BY seq LIMIT $3`, [grain, after, limit])).map(rangeEventOf);
  }

  async readTailEntries(grain: string, after: number, limit: number, frame: TailFrame) {
    // The grain's head is read in the same statement: the page and the seq it is checked against, as of one snapshot.
    const [[count, kept, first, last, items, latest]] = await this.rows<[number, number, string | null, string | null, string | null, string | null]>(
      // A served grain's seqs are gap-free: the page is the seqs after the cursor up to the limit, read by the primary key's range.
      `SELECT count(*)::int, count(entry)::int, min(seq), max(seq), string_agg(entry, ',' ORDER BY seq), (SELECT seq FROM grain_heads WHERE grain = $1)
        FROM events WHERE grain = $1 AND seq > $2 AND seq <= $3`,
      [grain, after, after + limit],
    );
    if (kept !== count || !wholePage(after, limit, Number(latest ?? 0), count, Number(first ?? 0), Number(last ?? 0))) return null;
    const [head, tail] = frame(Number(latest), Number(last));
    return `${head}${items}${tail}`;
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
    return rows.map((r) => streamHeadOf(r.stream, r.seq, r.body));
  }

  async entityHeads(grain: string, kind: string, after: number, limit: number) {
    return (await this.rows<HeadRow>(`${HEAD_SELECT} WHERE e.grain = $1 AND e.kind = $2 AND e.version = 1 AND e.seq > $3 ORDER BY e.seq LIMIT $4`, [grain, kind, after, limit])).map(headOf);
  }

  async countStreams(grain: string, kind: string) {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE grain = $1 AND kind = $2 AND version = 1', [grain, kind]);
    return Number(rows[0].n);
  }

  async readIntents(after: IntentCursor | null, limit: number) {
    return (await this.rows<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE kind = ANY($1) AND (grain, seq) > ($2, $3) ORDER BY grain, seq LIMIT $4`, [INTENT_KINDS, after?.grain ?? '', after?.seq ?? 0, limit])).map(rangeEventOf);
  }

  async pendingIntents(after: IntentCursor | null, limit: number) {
    return (await this.rows<EventRow>(PENDING_SELECT(EVENT_COLUMNS), [after?.grain ?? '', after?.seq ?? 0, limit])).map(rangeEventOf);
  }

  async population(grain: string, machine: PopulationMachine): Promise<PopulationRows> {
    // One statement, so the rows, the ledger and the counts are read as of one snapshot: read apart,
    // a commit between them would fail the checks and rebuild the grain for nothing.
    const columns = populationColumns(machine.facets).map((c) => `p.${c}`).join(', ');
    const { rows } = await this.pool.query<{ states: PopulationRow[]; ledger: Parameters<typeof ledgerOf>[0] | null; edges: Array<[string, number]> }>(
      `SELECT (SELECT coalesce(json_agg(json_build_array(${columns})), '[]') FROM (${populationSelect((name) => (name === 'grain' ? '$1' : '$2'), machine.facets)}) p) AS states,
              (SELECT row_to_json(l) FROM (SELECT streams, events, transitions FROM population_ledger WHERE grain = $1 AND machine = $2) l) AS ledger,
              (SELECT coalesce(json_agg(json_build_array(edge, n) ORDER BY edge), '[]') FROM transition_counts WHERE grain = $1 AND machine = $2) AS edges`,
      [grain, machine.tag],
    );
    const [{ states, ledger, edges }] = rows;
    return { states: statesOf(states), ledger: ledgerOf(ledger ?? undefined), transitions: edges.map(([edge, n]) => ({ edge, count: Number(n) })) };
  }

  async streamsInState(grain: string, tag: string, path: string, after: number, limit: number) {
    const { rows } = await this.pool.query<Parameters<typeof inStateOf>[0]>(`${IN_STATE_SELECT} WHERE grain = $1 AND machine = $2 AND path = $3 AND since_seq > $4 ORDER BY since_seq LIMIT $5`, [grain, tag, path, after, limit]);
    return rows.map(inStateOf);
  }

  /**
   * Under the grain's head lock, the lock every append to the grain holds
   * while it adds to these counts: an append waits for the reset, or the
   * reset finds the grain moved on and writes nothing.
   */
  async resetPopulation(grain: string, machine: PopulationMachine, atSeq: number, { ledger, transitions }: PopulationCounts): Promise<boolean> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      await db.query('INSERT INTO grain_heads (grain, seq) VALUES ($1, 0) ON CONFLICT DO NOTHING', [grain]);
      const { rows } = await db.query<{ seq: string }>('SELECT seq FROM grain_heads WHERE grain = $1 FOR UPDATE', [grain]);
      if (Number(rows[0].seq) !== atSeq) {
        await db.query('ROLLBACK');
        return false;
      }
      const prefix = `${machine.id}@`;
      await db.query('DELETE FROM population_ledger WHERE grain = $1 AND left(machine, length($2)) = $2', [grain, prefix]);
      await db.query('DELETE FROM transition_counts WHERE grain = $1 AND left(machine, length($2)) = $2', [grain, prefix]);
      await db.query('DELETE FROM snapshots WHERE grain = $1 AND left(machine, length($2)) = $2 AND machine <> $3', [grain, prefix, machine.tag]);
      await db.query('INSERT INTO population_ledger (grain, machine, streams, events, transitions) VALUES ($1, $2, $3, $4, $5)', [grain, machine.tag, ledger.streams, ledger.events, ledger.transitions]);
      await db.query('INSERT INTO transition_counts (grain, machine, edge, n) SELECT $1, $2, e, n FROM unnest($3::text[], $4::bigint[]) AS t (e, n)', [grain, machine.tag, transitions.map((t) => t.edge), transitions.map((t) => t.count)]);
      await db.query('COMMIT');
      return true;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.release();
    }
  }

  /** The creation bound's admissions, counted in this database so every process on it counts the same ones. */
  admissions(): PostgresAdmissions {
    return new PostgresAdmissions(this.pool);
  }

  /** Commits what is pending, then closes every connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.writing || this.pending.length) {
        if (!this.writing) void this.flush();
        await new Promise((r) => setTimeout(r, 5));
      }
      await Promise.allSettled([...this.puts]);
      this.writer?.release();
      await this.shared.close();
      await this.pool.end();
    })();
    return this.closing;
  }
}

/** A connection for the writer; its errors surface on its next query (an unheard 'error' would end the process). */
/** The journal's pool of connections: the writer's, the reads', the leases'. */
const POOL_SIZE = 8;
/** How many connections a transaction's BEGIN is tried on: every one the pool may hold idle, dead after a drop, and a new one. */
const BEGIN_ATTEMPTS = POOL_SIZE + 1;

async function writerOf(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  client.on('error', () => undefined);
  return client;
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
