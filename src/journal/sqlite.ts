/**
 * The embedded journal: SQLite through better-sqlite3, WAL, `synchronous=FULL`
 * (the WAL is fsync'd at every commit). Appends that arrive while a commit is
 * being prepared or written are grouped into one transaction (group commit):
 * one fsync serves many requests, and no append resolves before its
 * transaction is durable.
 *
 * The event loop decides (expected versions, seqs, the rows of each append);
 * a writer thread with its own connection inserts and commits, so neither the
 * inserts nor the fsync stall request handling. One transaction is in flight
 * at a time. Reads run on the event loop's own connection: in WAL mode a
 * commit becomes visible only after its fsync, so nothing is read, nor
 * answered, before it is durable.
 *
 * Append-only is enforced by the database itself: triggers abort any UPDATE or
 * DELETE on the events table (a DELETE of a purged sandbox grain's rows
 * aside: `sqlite-retention.ts`).
 */
import { Database, SQLITE_DRIVER_PATH } from './sqlite-driver.ts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RecentMap } from '../lib/recent-map.ts';
import { groupCommitted } from './journal-metrics.ts';
import { edgeCounts, enteredOf, IN_STATE_SELECT, inStateOf, LEDGER_SELECT, ledgerOf, populationSelect, snapshotOf, snapshotRow, SNAPSHOT_SELECT, statesOf, type PopulationRow } from './population-rows.ts';
import { eventOf, rangeEventOf, EVENT_COLUMNS, headOf, HEAD_SELECT, rowOf, streamHeadOf, type EventRow, type HeadRow, type PendingAppend } from './rows.ts';
import { checksumOf, intact, listedItem } from './answer-rows.ts';
import { GRAIN_SEQ, PURGE_STATEMENTS, RETENTION_SCHEMA, SPACE_PRAGMA, SqliteRetention, type PurgeWork } from './sqlite-retention.ts';
import { ANSWER_INSERT, STALE_DEPS, WRITER_SOURCE, type KeptAnswer, type PopulationReset, type WriterAnswer, type WriterBatch, type WriterData } from './sqlite-writer.ts';
import { DELIVERY_KIND, INTENT_KINDS, VersionConflict, type IntentCursor, type JournalEvent, type JournalStore, type PopulationCounts, type PopulationMachine, type PopulationRows, type StreamSnapshot, type StreamWrite, type TailQuery, type TailFrame, type AnswerRow, wholePage } from './store.ts';

/** Work beside the appends, waiting for the next transaction: a snapshot rewritten outside an append, a rebuilt population's counts, an answer kept, or a step of a purge. */
type Work = { rewrite: unknown[] } | { reset: PopulationReset; atSeq: number } | { answer: KeptAnswer } | { purge: PurgeWork };
type PendingWork = Work & {
  resolve: (done: boolean) => void;
  reject: (error: unknown) => void;
};

/** The intents' kinds as an SQL list: the partial index and the query that reads through it name the same ones. */
const INTENT_KINDS_SQL = INTENT_KINDS.map((k) => `'${k}'`).join(', ');

/**
 * Records, for the answer row of `stream`, each stream its deps name (`rows` lists the deps as `d`): what lets an
 * append find the rows it outdates. (Within a trigger the outer statement's conflict policy overrides an
 * `OR IGNORE`, so this names its own.)
 */
const recordDeps = (rows: string, stream: string) =>
  `INSERT INTO answer_deps (dep, stream) SELECT json_extract(d.value, '$[0]'), ${stream} FROM ${rows} WHERE true ON CONFLICT DO NOTHING`;

/** An answer row kept (or kept again): its deps recorded, and no longer outdated. */
const ANSWER_KEPT = `${recordDeps('json_each(new.deps) d', 'new.stream')};
    DELETE FROM answers_moved WHERE stream = new.stream;`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  grain   TEXT    NOT NULL,
  seq     INTEGER NOT NULL,
  stream  TEXT    NOT NULL,
  version INTEGER NOT NULL,
  at      TEXT    NOT NULL,
  kind    TEXT    NOT NULL,
  actor   TEXT,
  body    TEXT    NOT NULL,
  PRIMARY KEY (grain, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events (stream, version);
-- Listing a grain's Matters (or any kind of stream) reads their opening events only.
CREATE INDEX IF NOT EXISTS events_heads ON events (grain, kind, seq) WHERE version = 1;
-- Earlier builds indexed every event by kind; the partial index above replaces it.
DROP INDEX IF EXISTS events_by_kind;
-- The sparse feeds read through partial indexes: no scan of the timeline.
CREATE INDEX IF NOT EXISTS events_reminders ON events (grain, seq) WHERE kind GLOB 'reminder.*';
CREATE INDEX IF NOT EXISTS events_with_actor ON events (grain, seq) WHERE actor IS NOT NULL;
-- The outbox reader's intents (INTENT_KINDS in store.ts): a handful of rows, never a scan.
CREATE INDEX IF NOT EXISTS events_intents ON events (grain, seq) WHERE kind IN (${INTENT_KINDS_SQL});
-- Each entity stream's current snapshot (store.ts, StreamSnapshot): a cache of the
-- journal, written in the transaction of the events it reflects, and rewritten
-- in place; so, unlike the events, it may be updated.
CREATE TABLE IF NOT EXISTS snapshots (
  stream  TEXT    PRIMARY KEY,
  version INTEGER NOT NULL,
  machine TEXT    NOT NULL,
  state   TEXT    NOT NULL,
  grain     TEXT,
  path      TEXT,
  facets    INTEGER,
  since_seq INTEGER,
  since     TEXT
) WITHOUT ROWID;
-- The population (population-rows.ts): the snapshot rows' standing under one index,
-- and the ledger and transition counts every entity write adds to. Caches of the
-- journal too, rebuilt from it by src/engine/population.ts.
CREATE TABLE IF NOT EXISTS population_ledger (
  grain       TEXT    NOT NULL,
  machine     TEXT    NOT NULL,
  streams     INTEGER NOT NULL,
  events      INTEGER NOT NULL,
  transitions INTEGER NOT NULL,
  PRIMARY KEY (grain, machine)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS transition_counts (
  grain   TEXT    NOT NULL,
  machine TEXT    NOT NULL,
  edge    TEXT    NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (grain, machine, edge)
) WITHOUT ROWID;
-- The outbox's unsettled intents (pendingIntents in store.ts): a row inserted with each
-- intent and deleted with the record that settles it (DELIVERY_KIND, whose data.intent
-- names it), by triggers in the transaction of either, so a start reads these alone.
CREATE TABLE IF NOT EXISTS outbox_pending (
  grain TEXT    NOT NULL,
  seq   INTEGER NOT NULL,
  PRIMARY KEY (grain, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_outbox_enqueue AFTER INSERT ON events WHEN new.kind IN (${INTENT_KINDS_SQL})
  BEGIN INSERT OR IGNORE INTO outbox_pending (grain, seq) VALUES (new.grain, new.seq); END;
CREATE TRIGGER IF NOT EXISTS events_outbox_settle AFTER INSERT ON events WHEN new.kind = '${DELIVERY_KIND}'
  BEGIN DELETE FROM outbox_pending WHERE grain = json_extract(new.body, '$.data.intent.grain') AND seq = json_extract(new.body, '$.data.intent.seq'); END;
-- Answers kept as rows (AnswerRow in store.ts): a cache of the journal, written after the
-- facts they show and read only while every stream in deps stands where it says.
-- The body last: a page reads the small item, and a column after the body's overflow pages would be read through them.
CREATE TABLE IF NOT EXISTS answers (
  stream   TEXT    PRIMARY KEY,
  grain    TEXT    NOT NULL,
  tag      TEXT    NOT NULL,
  deps     TEXT    NOT NULL,
  version  INTEGER NOT NULL,
  etag     TEXT    NOT NULL,
  item_crc INTEGER NOT NULL,
  item     TEXT    NOT NULL,
  crc      INTEGER NOT NULL,
  body     TEXT    NOT NULL
);
-- What keeps an answer row's freshness known without checking any stream's head at a read: the streams
-- each row's deps name (answer_deps), and a mark an append leaves on every row it outdates, in its own
-- transaction (events_outdate_answers): whole when the fact is on the row's own stream (its body and
-- its item show that stream), the body alone when on another it names (its item shows its own stream
-- alone). Keeping the row again clears the mark. Sound because every write to this file is one
-- transaction after another: a row is kept only while each of its deps stands where it says
-- (ANSWER_INSERT's guard), and no append can land between the guard and the mark.
CREATE TABLE IF NOT EXISTS answer_deps (
  dep    TEXT NOT NULL,
  stream TEXT NOT NULL,
  PRIMARY KEY (dep, stream)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS answers_moved (
  stream TEXT    PRIMARY KEY,
  whole  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS answers_kept AFTER INSERT ON answers
  BEGIN ${ANSWER_KEPT} END;
CREATE TRIGGER IF NOT EXISTS answers_rekept AFTER UPDATE ON answers
  BEGIN ${ANSWER_KEPT} END;
CREATE TRIGGER IF NOT EXISTS events_outdate_answers AFTER INSERT ON events
  BEGIN
    INSERT INTO answers_moved (stream, whole) SELECT stream, stream = new.stream FROM answer_deps WHERE dep = new.stream
      ON CONFLICT (stream) DO UPDATE SET whole = max(whole, excluded.whole);
  END;
-- Each event as a page of its grain's tail shows it, its seq in front of the entry the append was given
-- (NewEvent.entry in store.ts): written with the event, gone with it (a purge), so a page of the timeline
-- is one range read of these alone.
CREATE TABLE IF NOT EXISTS tail_entries (
  grain TEXT    NOT NULL,
  seq   INTEGER NOT NULL,
  entry TEXT    NOT NULL,
  PRIMARY KEY (grain, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_drop_entries AFTER DELETE ON events
  BEGIN DELETE FROM tail_entries WHERE grain = old.grain AND seq = old.seq; END;
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'the journal is append-only: no update'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'the journal is append-only: no delete'); END;
`;

/**
 * The answer rows of a journal an earlier build wrote (before answer_deps was kept; its reads checked every
 * dep's head): the outdated ones dropped, the others' deps recorded as the insert trigger records them.
 */
const ANSWER_DEPS_FILL = `
DELETE FROM answers WHERE ${STALE_DEPS('answers.deps')};
${recordDeps('answers a, json_each(a.deps) d', 'a.stream')};
`;

/** The unsettled intents of a journal an earlier build wrote (before `outbox_pending` was kept): every intent no record settles. */
const OUTBOX_FILL = `
INSERT OR IGNORE INTO outbox_pending (grain, seq)
  SELECT e.grain, e.seq FROM events e INDEXED BY events_intents
  WHERE e.kind IN (${INTENT_KINDS_SQL})
    AND (e.grain, e.seq) NOT IN (SELECT json_extract(body, '$.data.intent.grain'), json_extract(body, '$.data.intent.seq') FROM events WHERE kind = '${DELIVERY_KIND}');
`;

/**
 * The standing's columns, added to a snapshots table an earlier build made
 * (its rows keep them null: an entity folds again and rewrites its row, and
 * the population rebuilds its grain's), then the index the population reads.
 */
const STANDING_COLUMNS: Array<[name: string, type: string]> = [['grain', 'TEXT'], ['path', 'TEXT'], ['facets', 'INTEGER'], ['since_seq', 'INTEGER'], ['since', 'TEXT']];
const POPULATION_INDEX = 'CREATE INDEX IF NOT EXISTS snapshots_population ON snapshots (grain, machine, path, since_seq, version, facets)';

/** Rows of `[...key, ...numbers]` with the same key (their first `keyLength` values) summed into one. */
function summed(rows: unknown[][], keyLength: number): unknown[][] {
  const sums = new Map<string, unknown[]>();
  for (const row of rows) {
    const key = JSON.stringify(row.slice(0, keyLength));
    const sum = sums.get(key);
    if (!sum) sums.set(key, [...row]);
    else for (let i = keyLength; i < row.length; i++) sum[i] = (sum[i] as number) + (row[i] as number);
  }
  return [...sums.values()];
}

/** What a read outside a flush has staged: nothing (never written to). */
const NO_STAGED: Map<string, number> = new Map();

/** Heads of streams (and of grains) kept in memory: far more than the resident actors, a few MiB at most. */
export const HEAD_CACHE_SIZE = 100_000;

export class SqliteJournal implements JournalStore {
  readonly file: string;
  /** The event loop's connection: schema, reads and head lookups. */
  private readonly db: Database;
  private readonly stmt;
  private readonly writer: Worker;
  /**
   * The last version of each stream (and seq of each grain) written, filled
   * as commits land and updated only after one, so an append checks its
   * expected version without a query. Bounded: a long-running process writes
   * to ever more streams (every Matter, every Idempotency-Key's record), and
   * unbounded maps of them grew the soak's RSS by about 200 MiB in 8 minutes.
   * A miss reads the index, as after a restart.
   */
  private readonly streamVersions: RecentMap<string, number>;
  private readonly grainSeqs: RecentMap<string, number>;
  private pending: PendingAppend[] = [];
  private pendingWork: PendingWork[] = [];
  private flushScheduled = false;
  /** The batch the writer is committing, with what it will make true once committed. */
  private inFlight: { staged: Array<{ p: PendingAppend; events: JournalEvent[] }>; work: Array<{ w: PendingWork; done: boolean }>; versions: Map<string, number>; seqs: Map<string, number>; started: number } | null = null;
  /** The writer thread died: nothing more can be made durable. */
  private broken: Error | null = null;
  private closing: Promise<void> | null = null;
  private idle: Array<() => void> = [];
  /** Expired sandbox grains purged (`sqlite-retention.ts`). */
  private readonly retention: SqliteRetention;

  constructor(dir: string, headCacheSize = HEAD_CACHE_SIZE) {
    this.streamVersions = new RecentMap(headCacheSize);
    this.grainSeqs = new RecentMap(headCacheSize);
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, 'journal.db');
    this.db = new Database(this.file);
    // Before any table exists (a new journal); a no-op on one that has them.
    this.db.pragma(SPACE_PRAGMA);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    const hasTable = (name: string) => this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    const outboxKept = hasTable('outbox_pending');
    const depsKept = hasTable('answer_deps');
    // One transaction: a journal an earlier build wrote gets the tables, their triggers, and what they would hold, together.
    this.db.transaction(() => {
      this.db.exec(SCHEMA);
      if (!outboxKept) this.db.exec(OUTBOX_FILL);
      if (!depsKept) this.db.exec(ANSWER_DEPS_FILL);
      this.db.exec(RETENTION_SCHEMA);
    })();
    const has = new Set((this.db.prepare('SELECT name FROM pragma_table_info(\'snapshots\')').pluck().all() as string[]));
    for (const [name, type] of STANDING_COLUMNS) if (!has.has(name)) this.db.exec(`ALTER TABLE snapshots ADD COLUMN ${name} ${type}`);
    this.db.exec(POPULATION_INDEX);
    // Rows are read as arrays (`EventRow`), in the column order the selects name.
    this.stmt = {
      streamVersion: this.db.prepare('SELECT max(version) AS v FROM events WHERE stream = ?').pluck(),
      grainSeq: this.db.prepare(GRAIN_SEQ).pluck(),
      readStream: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? ORDER BY version`).raw(),
      readSnapshot: this.db.prepare(`${SNAPSHOT_SELECT} WHERE stream = ?`),
      readHead: this.db.prepare(`${HEAD_SELECT} WHERE e.stream = ? AND e.version = 1`).raw(),
      // One statement per feed; the sparse ones state `inFeed`'s predicates in SQL.
      readTail: {
        timeline: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE grain = ? AND seq > ? ORDER BY seq LIMIT ?`).raw(),
        reminders: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events INDEXED BY events_reminders WHERE grain = ? AND seq > ? AND kind GLOB 'reminder.*' ORDER BY seq LIMIT ?`).raw(),
        time: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events INDEXED BY events_with_actor WHERE grain = ? AND seq > ? AND actor IS NOT NULL ORDER BY seq LIMIT ?`).raw(),
      },
      // The page whole, in one string SQLite builds: the envelope's head, the kept items joined as the primary key's range
      // yields them, in seq order (a served grain's seqs are gap-free, so the page is the seqs after the cursor up to the
      // limit, and a missing item shows in the count; an ORDER BY inside the aggregate sorted them again and tripled the
      // statement's time, a LIMIT subquery added a third), and its tail; as bytes: no UTF-8 decoding here, nor encoding
      // again as they are hashed and sent, and no copy to put them in their envelope.
      tailEntries: this.db.prepare(`SELECT count(*), min(seq), max(seq), CAST(? || group_concat(entry, ',') || ? AS BLOB) FROM tail_entries WHERE grain = ? AND seq > ? AND seq <= ?`).raw(),
      heads: this.db.prepare('SELECT stream, seq, body FROM events INDEXED BY events_heads WHERE grain = ? AND kind = ? AND version = 1 AND seq > ? ORDER BY seq LIMIT ?').raw(),
      listItems: this.db.prepare(`SELECT e.stream, e.seq, a.item, a.item_crc FROM events e INDEXED BY events_heads
        LEFT JOIN answers a ON a.stream = e.stream AND a.tag = ? AND NOT EXISTS (SELECT 1 FROM answers_moved m WHERE m.stream = e.stream AND m.whole)
        WHERE e.grain = ? AND e.kind = ? AND e.version = 1 AND e.seq > ? ORDER BY e.seq LIMIT ?`).raw(),
      entityHeads: this.db.prepare(`${HEAD_SELECT.replace('events e', 'events e INDEXED BY events_heads')} WHERE e.grain = ? AND e.kind = ? AND e.version = 1 AND e.seq > ? ORDER BY e.seq LIMIT ?`).raw(),
      countHeads: this.db.prepare('SELECT count(*) FROM events INDEXED BY events_heads WHERE grain = ? AND kind = ? AND version = 1').pluck(),
      pending: this.db.prepare(`SELECT ${EVENT_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')} FROM outbox_pending p JOIN events e ON e.grain = p.grain AND e.seq = p.seq WHERE (p.grain, p.seq) > (?, ?) ORDER BY p.grain, p.seq LIMIT ?`).raw(),
      intents: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events INDEXED BY events_intents WHERE kind IN (${INTENT_KINDS_SQL}) AND (grain, seq) > (?, ?) ORDER BY grain, seq LIMIT ?`).raw(),
      // A row no append has marked is current (events_outdate_answers).
      readAnswer: this.db.prepare('SELECT grain, etag, body, crc FROM answers a WHERE stream = ? AND tag = ? AND NOT EXISTS (SELECT 1 FROM answers_moved m WHERE m.stream = a.stream)').raw(),
      ledger: this.db.prepare(`${LEDGER_SELECT} WHERE grain = ? AND machine = ?`),
      edges: this.db.prepare('SELECT edge, n FROM transition_counts WHERE grain = ? AND machine = ? ORDER BY edge'),
      inState: this.db.prepare(`${IN_STATE_SELECT} INDEXED BY snapshots_population WHERE grain = ? AND machine = ? AND path = ? AND since_seq > ? ORDER BY since_seq LIMIT ?`),
    };
    // Plain CommonJS needs no loader: the writer does not inherit the process's (tsx, profilers).
    this.writer = new Worker(WRITER_SOURCE, { eval: true, execArgv: [], workerData: { driver: SQLITE_DRIVER_PATH, file: this.file, answerInsert: ANSWER_INSERT, purgeStatements: PURGE_STATEMENTS } satisfies WriterData });
    // The writer keeps the process alive only while it holds a batch.
    this.writer.unref();
    this.writer.on('message', (m: WriterAnswer) => this.settle(m));
    this.writer.on('error', (error) => this.fail(error));
    this.writer.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`the journal's writer thread exited (${code})`));
    });
    this.retention = new SqliteRetention(this.db, (purge) => this.work({ purge }));
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

  append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]> {
    return new Promise((resolve, reject) => {
      if (this.broken) return reject(this.broken);
      if (this.closing) return reject(new Error('the journal is closed'));
      this.pending.push({ grain, writes, resolve, reject });
      this.scheduleFlush();
    });
  }

  putSnapshot(stream: string, snapshot: StreamSnapshot): Promise<void> {
    // The grain is the stream's own, read as the row is written.
    const entered = snapshot.standing && enteredOf(snapshot, []);
    return this.work({ rewrite: snapshotRow(stream, snapshot.version, null, snapshot, entered ?? null) }).then(() => undefined);
  }

  resetPopulation(grain: string, machine: PopulationMachine, atSeq: number, { ledger, transitions }: PopulationCounts): Promise<boolean> {
    const reset: PopulationReset = { grain, prefix: `${machine.id}@`, tag: machine.tag, ledger: [ledger.streams, ledger.events, ledger.transitions], edges: transitions.map((t) => [t.edge, t.count]) };
    return this.work({ reset, atSeq });
  }

  putAnswer({ stream, grain, tag, deps, etag, body, item }: AnswerRow): Promise<void> {
    return this.work({ answer: { stream, grain, tag, deps: JSON.stringify(deps), version: deps[0][1], etag, crc: checksumOf(body), body, item, itemCrc: checksumOf(item) } }).then(() => undefined);
  }

  async listItems(grain: string, kind: string, tag: string, after: number, limit: number) {
    return (this.stmt.listItems.all(tag, grain, kind, after, limit) as Array<[string, number, string | null, number | null]>).map((row) => listedItem(...row));
  }

  async readAnswer(stream: string, tag: string) {
    const row = this.stmt.readAnswer.get(stream, tag) as [grain: string, etag: string, body: string, crc: number] | undefined;
    return row ? intact(...row) : null;
  }

  private work(item: Work): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.broken) return reject(this.broken);
      if (this.closing) return reject(new Error('the journal is closed'));
      this.pendingWork.push({ ...item, resolve, reject });
      this.scheduleFlush();
    });
  }

  private get waiting(): boolean {
    return this.pending.length > 0 || this.pendingWork.length > 0;
  }

  /** A flush runs on the next turn, and only once the previous batch is committed. */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.inFlight || !this.waiting) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private version(stream: string, staged: Map<string, number>): number {
    const v = staged.get(stream) ?? this.streamVersions.get(stream);
    return v ?? ((this.stmt.streamVersion.get(stream) as number | null) ?? 0);
  }

  private seq(grain: string, staged: Map<string, number>): number {
    const s = staged.get(grain) ?? this.grainSeqs.get(grain);
    return s ?? ((this.stmt.grainSeq.get(grain) as number | null) ?? 0);
  }

  /**
   * Places one append after everything staged before it in the batch. Every
   * expected version is checked first, so a refused append stages nothing and
   * an accepted one is written whole.
   */
  private stage(p: PendingAppend, versions: Map<string, number>, seqs: Map<string, number>, rows: unknown[][], out: Pick<WriterBatch, 'snapshots' | 'ledger' | 'edges' | 'entries'>): JournalEvent[] {
    const local = new Map<string, number>();
    for (const w of p.writes) {
      this.retention.refuse(w.grain ?? p.grain);
      const actual = local.get(w.stream) ?? this.version(w.stream, versions);
      if (actual !== w.expectedVersion) throw new VersionConflict(w.stream, w.expectedVersion, actual);
      local.set(w.stream, actual + w.events.length);
    }
    // An append with a completing write (an Idempotency-Key's record) may yet be refused by it: what it staged is then taken back.
    const undo = p.writes[p.writes.length - 1]?.completes ? this.undoPoint(p, seqs, rows, out) : null;
    const events: JournalEvent[] = [];
    for (const w of p.writes) {
      const grain = w.grain ?? p.grain;
      let seq = this.seq(grain, seqs);
      let version = w.expectedVersion;
      const first = events.length;
      let made = w.events;
      if (w.completes) {
        // Made from the events staged before it, their positions given.
        try {
          made = w.completes(events.slice());
        } catch (error) {
          undo!();
          throw error;
        }
        local.set(w.stream, w.expectedVersion + made.length);
      }
      for (const e of made) {
        seq += 1;
        version += 1;
        const row = rowOf(grain, seq, w.stream, version, e);
        rows.push(row);
        // Kept whole, its seq in front: a page joins the items as they are.
        if (e.entry !== undefined) out.entries.push([grain, seq, `{"seq":${seq}${e.entry}`]);
        // The caller gets the event as it reads back after a restart, sharing nothing with its input.
        events.push(eventOf(row));
      }
      seqs.set(grain, seq);
      if (w.snapshot) {
        out.snapshots.push(snapshotRow(w.stream, version, grain, w.snapshot, enteredOf(w.snapshot, events.slice(first))));
        const transitions = w.transitions ?? [];
        out.ledger.push([grain, w.snapshot.machine, w.expectedVersion === 0 ? 1 : 0, w.events.length, transitions.length]);
        for (const [edge, n] of edgeCounts(transitions)) out.edges.push([grain, w.snapshot.machine, edge, n]);
      }
    }
    for (const [s, v] of local) versions.set(s, v);
    return events;
  }

  /** Takes the batch back to where it stands now: what an append staged before its completion threw. */
  private undoPoint(p: PendingAppend, seqs: Map<string, number>, rows: unknown[][], out: Pick<WriterBatch, 'snapshots' | 'ledger' | 'edges' | 'entries'>): () => void {
    const marks = [rows.length, out.snapshots.length, out.ledger.length, out.edges.length, out.entries.length];
    const grains = [...new Set(p.writes.map((w) => w.grain ?? p.grain))].map((g) => [g, seqs.get(g)] as const);
    return () => {
      [rows.length, out.snapshots.length, out.ledger.length, out.edges.length, out.entries.length] = marks;
      for (const [g, s] of grains) if (s === undefined) seqs.delete(g);
      else seqs.set(g, s);
    };
  }

  /** Stages every pending append and hands the batch to the writer as one transaction. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.inFlight || !this.waiting) return;
    // Nothing is pending once the writer broke: `fail` rejected it, and `append` refuses.
    const batch = this.pending;
    this.pending = [];
    const pendingWork = this.pendingWork;
    this.pendingWork = [];
    const versions = new Map<string, number>();
    const seqs = new Map<string, number>();
    const staged: Array<{ p: PendingAppend; events: JournalEvent[] }> = [];
    const rows: unknown[][] = [];
    const out: WriterBatch = { resets: [], rewrites: [], events: rows, entries: [], snapshots: [], ledger: [], edges: [], answers: [], purges: [] };
    const work: Array<{ w: PendingWork; done: boolean }> = [];
    // What the batch checks (streams' versions, grains' seqs) is read in one read transaction: each statement outside
    // one is a transaction of its own, and SQLite drops this connection's page cache whenever the writer thread has
    // committed since its last, so every lookup read its index pages again.
    this.db.transaction(() => {
      // Rebuilt counts go first, checked against the grain's seq before this batch (its appends add to them);
      // so do rewritten snapshots: one an append of this batch writes for the same stream is newer.
      for (const w of pendingWork) {
        if ('rewrite' in w) out.rewrites.push(w.rewrite);
        else if ('answer' in w) out.answers.push(w.answer);
        else if ('purge' in w) out.purges.push(w.purge.writes);
        else if (this.seq(w.reset.grain, seqs) !== w.atSeq) {
          w.resolve(false);
          continue;
        } else out.resets.push(w.reset);
        work.push({ w, done: true });
      }
      for (const p of batch) {
        try {
          staged.push({ p, events: this.stage(p, versions, seqs, rows, out) });
        } catch (error) {
          p.reject(error);
        }
      }
    })();
    if (staged.length === 0 && work.length === 0) return this.settled();
    this.inFlight = { staged, work, versions, seqs, started: performance.now() };
    this.writer.ref();
    // A batch of many commits to one grain adds to its counts once.
    this.writer.postMessage({ ...out, ledger: summed(out.ledger, 2), edges: summed(out.edges, 3) });
  }

  /** The writer's answer for the batch in flight. */
  private settle(m: WriterAnswer): void {
    const batch = this.inFlight;
    if (!batch) return;
    this.inFlight = null;
    this.writer.unref();
    if ('ok' in m) {
      groupCommitted('sqlite', batch.staged.length, () => batch.staged.reduce((n, s) => n + s.events.length, 0), batch.started);
      for (const [s, v] of batch.versions) this.streamVersions.set(s, v);
      for (const [g, s] of batch.seqs) this.grainSeqs.set(g, s);
      // A purged stream's version is read again: an append that still expects it meets the stream as it now stands.
      for (const { w } of batch.work) if ('purge' in w) for (const s of w.purge.streams) this.streamVersions.delete(s);
    }
    // The next batch goes to the writer before this one's callers run: their
    // replies then overlap its commit instead of delaying it.
    this.flush();
    if ('ok' in m) {
      for (const { p, events } of batch.staged) p.resolve(events);
      for (const { w, done } of batch.work) w.resolve(done);
    } else {
      // The whole transaction failed (disk full, I/O error): nothing was written.
      const error = Object.assign(new Error(m.error), { code: m.code });
      for (const { p } of batch.staged) p.reject(error);
      for (const { w } of batch.work) w.reject(error);
    }
    this.settled();
  }

  private settled(): void {
    if (this.waiting) return this.scheduleFlush();
    if (!this.inFlight) for (const done of this.idle.splice(0)) done();
  }

  private fail(error: Error): void {
    this.broken ??= error;
    const batch = this.inFlight;
    this.inFlight = null;
    for (const { p } of batch?.staged ?? []) p.reject(this.broken);
    for (const { w } of batch?.work ?? []) w.reject(this.broken);
    for (const p of this.pending.splice(0)) p.reject(this.broken);
    for (const w of this.pendingWork.splice(0)) w.reject(this.broken);
    for (const done of this.idle.splice(0)) done();
  }

  async readStream(stream: string) {
    const events = (this.stmt.readStream.all(stream) as EventRow[]).map(eventOf);
    // Its version as read spares the append that follows (an Idempotency-Key's record, read before its command) a lookup
    // of its own. Read while a batch is in flight, it is the version before the batch: one that writes the stream sets
    // the version it makes as it commits (`settle`), and a purge drops it.
    this.streamVersions.set(stream, events.length ? events[events.length - 1].version : 0);
    return events;
  }

  async readSnapshot(stream: string) {
    const row = this.stmt.readSnapshot.get(stream) as Parameters<typeof snapshotOf>[0] | undefined;
    return row ? snapshotOf(row) : null;
  }

  async readHead(stream: string) {
    const row = this.stmt.readHead.get(stream) as HeadRow | undefined;
    return row ? headOf(row) : null;
  }

  async readTail(grain: string, { after, limit, feed }: TailQuery) {
    return (this.stmt.readTail[feed].all(grain, after, limit) as EventRow[]).map(rangeEventOf);
  }

  async readTailEntries(grain: string, after: number, limit: number, frame: TailFrame) {
    const latest = this.seq(grain, NO_STAGED);
    // The envelope is written for the page as it must be, whole: the seqs after the cursor up to the limit or the grain's last.
    const [head, tail] = frame(latest, Math.min(after + limit, latest));
    const [count, first, last, page] = this.stmt.tailEntries.get(head, tail, grain, after, after + limit) as [number, number | null, number | null, Buffer | null];
    return wholePage(after, limit, latest, count, first ?? 0, last ?? 0) ? page : null;
  }

  async latestSeq(grain: string) {
    return this.seq(grain, NO_STAGED);
  }

  async streamVersion(stream: string) {
    return this.version(stream, new Map());
  }

  async streamHeads(grain: string, kind: string, after: number, limit: number) {
    const rows = this.stmt.heads.all(grain, kind, after, limit) as Array<[stream: string, seq: number, body: string]>;
    return rows.map(([stream, seq, body]) => streamHeadOf(stream, seq, body));
  }

  async entityHeads(grain: string, kind: string, after: number, limit: number) {
    return (this.stmt.entityHeads.all(grain, kind, after, limit) as HeadRow[]).map(headOf);
  }

  async countStreams(grain: string, kind: string) {
    return this.stmt.countHeads.get(grain, kind) as number;
  }

  async pendingIntents(after: IntentCursor | null, limit: number) {
    return (this.stmt.pending.all(after?.grain ?? '', after?.seq ?? 0, limit) as EventRow[]).map(rangeEventOf);
  }

  async readIntents(after: IntentCursor | null, limit: number) {
    return (this.stmt.intents.all(after?.grain ?? '', after?.seq ?? 0, limit) as EventRow[]).map(rangeEventOf);
  }

  /**
   * In one read transaction, so the rows, the ledger and the counts are read
   * as of one commit: read apart, a commit the writer lands between them
   * would fail the checks and rebuild the grain for nothing.
   */
  async population(grain: string, machine: PopulationMachine): Promise<PopulationRows> {
    return this.db.transaction(() => this.readPopulation(grain, machine))();
  }

  private readPopulation(grain: string, machine: PopulationMachine): PopulationRows {
    const rows = this.populationStatement(machine.facets).all({ grain, tag: machine.tag }) as PopulationRow[];
    const edges = this.stmt.edges.all(grain, machine.tag) as Array<{ edge: string; n: number }>;
    return {
      states: statesOf(rows),
      ledger: ledgerOf(this.stmt.ledger.get(grain, machine.tag) as Parameters<typeof ledgerOf>[0]),
      transitions: edges.map(({ edge, n }) => ({ edge, count: n })),
    };
  }

  /** The population's aggregate, one statement per number of facets (prepared once). */
  private readonly populationStatements = new Map<number, ReturnType<Database['prepare']>>();
  private populationStatement(facets: number) {
    let statement = this.populationStatements.get(facets);
    if (!statement) {
      statement = this.db.prepare(populationSelect((name) => `@${name}`, facets)).raw();
      this.populationStatements.set(facets, statement);
    }
    return statement;
  }

  async streamsInState(grain: string, tag: string, path: string, after: number, limit: number) {
    return (this.stmt.inState.all(grain, tag, path, after, limit) as Array<Parameters<typeof inStateOf>[0]>).map(inStateOf);
  }

  /** Commits what is pending, stops the writer, then closes. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.waiting || this.inFlight) {
        await new Promise<void>((done) => {
          this.idle.push(done);
          this.scheduleFlush();
        });
      }
      if (!this.broken) {
        const exited = new Promise((done) => this.writer.once('exit', done));
        this.writer.ref();
        this.writer.postMessage('close');
        await exited;
      }
      this.db.close();
    })();
    return this.closing;
  }
}
