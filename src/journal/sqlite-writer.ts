/**
 * The embedded journal's writer thread (`sqlite.ts` hands it each batch): it
 * commits a batch (rebuilt population counts, rewritten snapshot rows, the
 * appends' event rows, their snapshot rows and their population counts) in one
 * transaction on a connection of its own and answers `{ ok }` or
 * `{ error, code }` (a failed transaction wrote nothing).
 *
 * Type-checked here, and run from its source text (`WRITER_SOURCE`)
 * evaluated as CommonJS in a worker, so it loads the same way under tsx,
 * node or a bundler, and inherits no loader from the process: it reaches
 * its modules through the `load` it is given (the worker's `require`, which
 * no bundler rewrites as a parameter), and imports nothing.
 */
import type Database from 'better-sqlite3';

/** A batch as the event loop stages it: rows in the column order of the statements below, applied in this order. */
export interface WriterBatch {
  /** Rebuilt population counts (`PopulationReset`), first: the appends of the batch add to them. */
  resets: PopulationReset[];
  /** Snapshot rows rewritten outside an append (`SNAPSHOT_COLUMNS`, the grain read from the stream): never over a later version the stream has reached. */
  rewrites: unknown[][];
  events: unknown[][];
  /** The tail entries kept beside the events (grain, seq, entry: `NewEvent.entry`). */
  entries: unknown[][];
  /** The snapshot rows the appends wrote (`SNAPSHOT_COLUMNS`): each is its stream's newest. */
  snapshots: unknown[][];
  /** What the appends add to the population's ledger (grain, machine, streams, events, transitions) and transition counts (grain, machine, edge, n). */
  ledger: unknown[][];
  edges: unknown[][];
  /** Answers kept (`AnswerRow`): each only while its deps stand where it says, after this batch's appends too. */
  answers: KeptAnswer[];
  /** Steps of purges (`sqlite-retention.ts`), last: each a few statements of `WriterData.purgeStatements` by name. */
  purges: Array<Array<[name: string, params: Record<string, unknown> | null]>>;
}

/** An answer row as the writer inserts it: its deps as JSON text, its bytes' checksum beside them. */
export interface KeptAnswer {
  stream: string;
  grain: string;
  tag: string;
  deps: string;
  /** The record's own version (its dep): what its list item is current at. */
  version: number;
  etag: string;
  crc: number;
  body: string;
  item: string;
  itemCrc: number;
}

/** True when one of the streams a row's deps (JSON text `[[stream, version], ...]`) names has moved off its version: the row is stale. */
export const STALE_DEPS = (deps: string) =>
  `EXISTS (SELECT 1 FROM json_each(${deps}) d WHERE coalesce((SELECT max(version) FROM events WHERE stream = json_extract(d.value, '$[0]')), 0) <> json_extract(d.value, '$[1]'))`;

/** A machine's population counts in a grain, rebuilt: every build's counts and other builds' rows are replaced. */
export interface PopulationReset {
  grain: string;
  /** `<machine id>@`: what every build's tag begins with. */
  prefix: string;
  tag: string;
  ledger: [streams: number, events: number, transitions: number];
  edges: Array<[edge: string, n: number]>;
}

export type WriterAnswer = { ok: true } | { error: string; code?: string };

/** What the thread is started with (`workerData`). */
export interface WriterData {
  /** Where better-sqlite3 resolves from the journal's module. */
  driver: string;
  file: string;
  /** The statement that keeps an answer (`ANSWER_INSERT`). */
  answerInsert: string;
  /** The statements a purge's steps run, by name (`PURGE_STATEMENTS`). */
  purgeStatements: Record<string, string[]>;
}

/** Keeps an answer row (named parameters of `KeptAnswer`), unless one of its deps has moved on. */
export const ANSWER_INSERT = `INSERT INTO answers (stream, grain, tag, deps, version, etag, crc, body, item, item_crc)
  SELECT @stream, @grain, @tag, @deps, @version, @etag, @crc, @body, @item, @itemCrc WHERE NOT ${STALE_DEPS('@deps')}
  ON CONFLICT (stream) DO UPDATE SET grain = excluded.grain, tag = excluded.tag, deps = excluded.deps, version = excluded.version,
    etag = excluded.etag, crc = excluded.crc, body = excluded.body, item = excluded.item, item_crc = excluded.item_crc`;

export function writerThread(load: (id: string) => unknown): void {
  const { parentPort, workerData } = load('node:worker_threads') as typeof import('node:worker_threads');
  const { driver, file, answerInsert, purgeStatements } = workerData as WriterData;
  const Sqlite = load(driver) as typeof Database;
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare('INSERT INTO events (grain, seq, stream, version, at, kind, actor, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const entry = db.prepare('INSERT INTO tail_entries (grain, seq, entry) VALUES (?, ?, ?)');
  const columns = 'stream, version, machine, state, grain, path, facets, since_seq, since';
  const update = 'version = excluded.version, machine = excluded.machine, state = excluded.state, grain = excluded.grain, path = excluded.path, facets = excluded.facets, since_seq = excluded.since_seq, since = excluded.since';
  const snapshot = db.prepare(`INSERT INTO snapshots (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (stream) DO UPDATE SET ${update}`);
  // A rewrite replaces a row of an earlier (or the same) version, or one ahead of its stream (damage); never a later one.
  const rewrite = db.prepare(`INSERT INTO snapshots (${columns}) VALUES (@stream, @version, @machine, @state, (SELECT grain FROM events WHERE stream = @stream AND version = 1), @path, @facets, @sinceSeq, @since)
    ON CONFLICT (stream) DO UPDATE SET ${update}
    WHERE excluded.version >= snapshots.version OR snapshots.version > (SELECT max(version) FROM events WHERE stream = excluded.stream)`);
  const ledger = db.prepare('INSERT INTO population_ledger (grain, machine, streams, events, transitions) VALUES (?, ?, ?, ?, ?) ON CONFLICT (grain, machine) DO UPDATE SET streams = streams + excluded.streams, events = events + excluded.events, transitions = transitions + excluded.transitions');
  const edge = db.prepare('INSERT INTO transition_counts (grain, machine, edge, n) VALUES (?, ?, ?, ?) ON CONFLICT (grain, machine, edge) DO UPDATE SET n = n + excluded.n');
  // The statement's text is built on the event loop's side (the thread imports nothing), and handed over with the file.
  const answer = db.prepare(answerInsert);
  const dropLedger = db.prepare('DELETE FROM population_ledger WHERE grain = @grain AND substr(machine, 1, length(@prefix)) = @prefix');
  const dropEdges = db.prepare('DELETE FROM transition_counts WHERE grain = @grain AND substr(machine, 1, length(@prefix)) = @prefix');
  const dropForeignRows = db.prepare('DELETE FROM snapshots WHERE grain = @grain AND substr(machine, 1, length(@prefix)) = @prefix AND machine <> @tag');
  // A purge's statements with parameters are prepared; one without (a pragma that steps through many rows) is run as a script.
  const prepared = new Map<string, ReturnType<typeof db.prepare>>();
  const purge = (name: string, params: Record<string, unknown> | null) => {
    for (const sql of purgeStatements[name]) {
      if (params === null) db.exec(sql);
      else {
        if (!prepared.has(sql)) prepared.set(sql, db.prepare(sql));
        prepared.get(sql)!.run(params);
      }
    }
  };
  const write = db.transaction(({ resets, rewrites, events, entries, snapshots, ledger: deltas, edges, answers, purges }: WriterBatch) => {
    for (const r of resets) {
      const named = { grain: r.grain, prefix: r.prefix };
      dropLedger.run(named);
      dropEdges.run(named);
      dropForeignRows.run({ ...named, tag: r.tag });
      ledger.run(r.grain, r.tag, r.ledger[0], r.ledger[1], r.ledger[2]);
      for (const [name, n] of r.edges) edge.run(r.grain, r.tag, name, n);
    }
    for (const r of rewrites) rewrite.run({ stream: r[0], version: r[1], machine: r[2], state: r[3], path: r[5], facets: r[6], sinceSeq: r[7], since: r[8] });
    for (const r of events) insert.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    for (const r of entries) entry.run(r[0], r[1], r[2]);
    for (const r of snapshots) snapshot.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]);
    for (const r of deltas) ledger.run(r[0], r[1], r[2], r[3], r[4]);
    for (const r of edges) edge.run(r[0], r[1], r[2], r[3]);
    for (const a of answers) {
      try {
        answer.run(a);
      } catch {
        // A cache's row: one that cannot be written is not kept (its statement alone is undone), never the batch's appends.
      }
    }
    for (const step of purges) for (const [name, params] of step) purge(name, params);
  });
  parentPort!.on('message', (message: WriterBatch | 'close') => {
    if (message === 'close') {
      db.close();
      parentPort!.close();
      return;
    }
    let answer: WriterAnswer;
    try {
      write(message);
      answer = { ok: true };
    } catch (error) {
      const failed = error as { message?: string; code?: string } | null;
      answer = { error: String((failed && failed.message) || error), code: failed?.code };
    }
    parentPort!.postMessage(answer);
  });
}

/**
 * The thread's program. tsx keeps function names by wrapping named functions
 * in esbuild's `__name` helper, which the worker does not define: it is
 * defined here as a no-op, so the writer may name its functions.
 */
export const WRITER_SOURCE = `const __name = (fn) => fn;\n(${writerThread.toString()})(require);\n`;
