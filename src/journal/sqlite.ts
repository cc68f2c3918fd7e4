/**
 * The embedded journal: SQLite through better-sqlite3, WAL, `synchronous=FULL`
 * (the WAL is fsync'd at every commit). Appends that arrive while a commit is
 * being prepared are grouped into one transaction (group commit): one fsync
 * serves many requests, and no append resolves before its transaction commits.
 *
 * Append-only is enforced by the database itself: triggers abort any UPDATE or
 * DELETE on the events table.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { VersionConflict, type JournalEvent, type JournalStore, type NewEvent, type StreamWrite, type TailQuery } from './store.ts';

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
CREATE INDEX IF NOT EXISTS events_by_kind ON events (grain, kind, version, seq);
-- The sparse feeds read through partial indexes: no scan of the timeline.
CREATE INDEX IF NOT EXISTS events_reminders ON events (grain, seq) WHERE kind GLOB 'reminder.*';
CREATE INDEX IF NOT EXISTS events_with_actor ON events (grain, seq) WHERE actor IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'the journal is append-only: no update'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'the journal is append-only: no delete'); END;
`;

interface Row {
  grain: string;
  seq: number;
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
  return { grain: row.grain, seq: row.seq, stream: row.stream, version: row.version, at: row.at, kind: row.kind, ...(row.actor === null ? {} : { actor: row.actor }), ...body };
}

export class SqliteJournal implements JournalStore {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly stmt;
  /** Caches of the heads, filled lazily from the indexes; updated only after a commit. */
  private readonly streamVersions = new Map<string, number>();
  private readonly grainSeqs = new Map<string, number>();
  private pending: Pending[] = [];
  private flushScheduled = false;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, 'journal.db');
    this.db = new Database(this.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.stmt = {
      insert: this.db.prepare('INSERT INTO events (grain, seq, stream, version, at, kind, actor, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      streamVersion: this.db.prepare('SELECT max(version) AS v FROM events WHERE stream = ?').pluck(),
      grainSeq: this.db.prepare('SELECT max(seq) AS s FROM events WHERE grain = ?').pluck(),
      readStream: this.db.prepare('SELECT * FROM events WHERE stream = ? ORDER BY version'),
      readTail: {
        timeline: this.db.prepare('SELECT * FROM events WHERE grain = ? AND seq > ? ORDER BY seq LIMIT ?'),
        reminders: this.db.prepare("SELECT * FROM events INDEXED BY events_reminders WHERE grain = ? AND seq > ? AND kind GLOB 'reminder.*' ORDER BY seq LIMIT ?"),
        time: this.db.prepare('SELECT * FROM events INDEXED BY events_with_actor WHERE grain = ? AND seq > ? AND actor IS NOT NULL ORDER BY seq LIMIT ?'),
      },
      heads: this.db.prepare('SELECT stream, seq, body FROM events WHERE grain = ? AND kind = ? AND version = 1 AND seq > ? ORDER BY seq LIMIT ?'),
      countHeads: this.db.prepare('SELECT count(*) FROM events WHERE grain = ? AND kind = ? AND version = 1').pluck(),
    };
  }

  append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ grain, writes, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private version(stream: string, staged: Map<string, number>): number {
    const v = staged.get(stream) ?? this.streamVersions.get(stream);
    return v ?? ((this.stmt.streamVersion.get(stream) as number | null) ?? 0);
  }

  private seq(grain: string, staged: Map<string, number>): number {
    const s = staged.get(grain) ?? this.grainSeqs.get(grain);
    return s ?? ((this.stmt.grainSeq.get(grain) as number | null) ?? 0);
  }

  /** Commits every pending append in one transaction; each append is its own savepoint. */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.flushScheduled = false;
    const versions = new Map<string, number>();
    const seqs = new Map<string, number>();
    const outcomes: Array<{ events: JournalEvent[] } | { error: unknown }> = [];
    const appendOne = this.db.transaction((p: Pending) => {
      const localVersions = new Map<string, number>();
      let seq = this.seq(p.grain, seqs);
      const written: JournalEvent[] = [];
      for (const w of p.writes) {
        const actual = localVersions.get(w.stream) ?? this.version(w.stream, versions);
        if (actual !== w.expectedVersion) throw new VersionConflict(w.stream, w.expectedVersion, actual);
        let version = actual;
        for (const e of w.events) {
          seq += 1;
          version += 1;
          const { kind, at, actor, ...body } = e;
          this.stmt.insert.run(p.grain, seq, w.stream, version, at, kind, actor ?? null, JSON.stringify(body));
          written.push({ ...structuredClone(e), grain: p.grain, seq, stream: w.stream, version });
        }
        localVersions.set(w.stream, version);
      }
      return { written, localVersions, seq };
    });
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try {
            const { written, localVersions, seq } = appendOne(p);
            for (const [s, v] of localVersions) versions.set(s, v);
            seqs.set(p.grain, seq);
            outcomes.push({ events: written });
          } catch (error) {
            outcomes.push({ error });
          }
        }
      })();
    } catch (error) {
      // The whole transaction failed (disk full, I/O error): nothing was written.
      for (const p of batch) p.reject(error);
      return;
    }
    for (const [s, v] of versions) this.streamVersions.set(s, v);
    for (const [g, s] of seqs) this.grainSeqs.set(g, s);
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if ('error' in outcome) p.reject(outcome.error);
      else p.resolve(outcome.events);
    });
  }

  async readStream(stream: string) {
    return (this.stmt.readStream.all(stream) as Row[]).map(toEvent);
  }

  async readTail(grain: string, { after, limit, feed }: TailQuery) {
    return (this.stmt.readTail[feed].all(grain, after, limit) as Row[]).map(toEvent);
  }

  async latestSeq(grain: string) {
    return this.seq(grain, new Map());
  }

  async streamHeads(grain: string, kind: string, after: number, limit: number) {
    const rows = this.stmt.heads.all(grain, kind, after, limit) as Array<{ stream: string; seq: number; body: string }>;
    return rows.map((r) => ({ stream: r.stream, seq: r.seq, data: (JSON.parse(r.body) as { data: Record<string, unknown> }).data }));
  }

  async countStreams(grain: string, kind: string) {
    return this.stmt.countHeads.get(grain, kind) as number;
  }

  async close() {
    if (this.pending.length) this.flush();
    this.db.close();
  }
}
