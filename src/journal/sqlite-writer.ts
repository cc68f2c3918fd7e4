/**
 * The embedded journal's writer thread (`sqlite.ts` hands it each batch): it
 * commits a batch (its event rows, then its snapshot rows) in one
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

/** A batch as the event loop stages it: rows in the column order of the inserts below. */
export interface WriterBatch {
  events: unknown[][];
  snapshots: unknown[][];
}

export type WriterAnswer = { ok: true } | { error: string; code?: string };

/** What the thread is started with (`workerData`). */
export interface WriterData {
  /** Where better-sqlite3 resolves from the journal's module. */
  driver: string;
  file: string;
}

export function writerThread(load: (id: string) => unknown): void {
  const { parentPort, workerData } = load('node:worker_threads') as typeof import('node:worker_threads');
  const { driver, file } = workerData as WriterData;
  const Sqlite = load(driver) as typeof Database;
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare('INSERT INTO events (grain, seq, stream, version, at, kind, actor, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const snapshot = db.prepare('INSERT INTO snapshots (stream, version, machine, state) VALUES (?, ?, ?, ?) ON CONFLICT (stream) DO UPDATE SET version = excluded.version, machine = excluded.machine, state = excluded.state');
  const write = db.transaction(({ events, snapshots }: WriterBatch) => {
    for (const r of events) insert.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    for (const r of snapshots) snapshot.run(r[0], r[1], r[2], r[3]);
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
