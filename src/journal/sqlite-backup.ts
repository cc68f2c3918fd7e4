/**
 * Backing up and restoring the embedded journal (issue 46; the commands are
 * `legalwork journal backup|restore|vacuum`, `src/cli/commands/journal.ts`).
 *
 * - **A backup is SQLite's online backup API** (better-sqlite3's
 *   `db.backup`), never a file copy: a copy of `journal.db` taken while the
 *   service writes can miss the WAL or tear a page. Every page is copied in
 *   one step, inside one read transaction, so the copy is the journal as of
 *   one commit: every write acknowledged before the backup began is in it
 *   (a 2xx is sent only after its commit), and the service goes on writing
 *   meanwhile (in WAL mode a reader blocks no writer; the WAL only grows
 *   until the copy is done). The copy is then checked as a restore checks it.
 * - **A restore checks the copy before it replaces anything** (`checkJournal`):
 *   SQLite's `integrity_check`, then the journal's own invariants, each
 *   stream's versions 1, 2, 3 … with none missing, and each grain's seqs
 *   1, 2, 3 … (a grain a purge took rows from keeps its order with gaps:
 *   `grain_seq_floor`; a grain whose purge is under way is passed over).
 * - **A journal in use is never overwritten.** The service holds the
 *   journal open (its two connections, in WAL mode); a file SQLite will not
 *   take out of WAL mode is open elsewhere (`inUse`): the service, or any
 *   other program. A stopped service's journal is moved aside, not deleted
 *   (`journal.db.replaced-<instant>`), then the checked copy takes its place.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Database } from './sqlite-driver.ts';

export const JOURNAL_FILE = 'journal.db';

/** What a check found: the copy's size in rows, and what does not hold (empty: it checks out). */
export interface JournalCheck {
  events: number;
  grains: number;
  streams: number;
  problems: string[];
}

/** The first problems of each kind a check reports: enough to say what is wrong without listing a ruined file whole. */
const SHOWN = 5;

const hasTable = (db: Database, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** Checks a journal file (a backup, or one about to be restored): SQLite's integrity, then each stream's versions and each grain's seqs. */
export function checkJournal(file: string): JournalCheck {
  if (!existsSync(file)) return { events: 0, grains: 0, streams: 0, problems: [`${file} does not exist`] };
  let db: Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    return { events: 0, grains: 0, streams: 0, problems: [`${file} does not open as an SQLite database: ${(error as Error).message}`] };
  }
  try {
    const integrity = (() => {
      try {
        return db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
      } catch (error) {
        return [{ integrity_check: (error as Error).message }];
      }
    })();
    const broken = integrity.map((r) => r.integrity_check).filter((line) => line !== 'ok');
    if (broken.length) return { events: 0, grains: 0, streams: 0, problems: broken.slice(0, SHOWN).map((line) => `integrity_check: ${line}`) };
    if (!hasTable(db, 'events')) return { events: 0, grains: 0, streams: 0, problems: [`${file} holds no journal (no events table)`] };
    // A purge under way has deleted part of a grain and of the streams held for it: those are passed over.
    const purging = hasTable(db, 'purged_grains') ? "(SELECT grain FROM purged_grains WHERE done = 0)" : "(SELECT NULL WHERE false)";
    const floors = hasTable(db, 'grain_seq_floor') ? '(SELECT grain FROM grain_seq_floor)' : '(SELECT NULL WHERE false)';
    const held = hasTable(db, 'purged_grains') ? `AND stream NOT IN (SELECT stream FROM events WHERE version = 1 AND json_extract(body, '$.data.heldBy') IN ${purging})` : '';
    const streams = db.prepare(`SELECT stream, count(*) AS n, min(version) AS low, max(version) AS high FROM events WHERE grain NOT IN ${purging} ${held} GROUP BY stream HAVING n <> high OR low <> 1 LIMIT ${SHOWN}`).all() as Array<{ stream: string; n: number; low: number; high: number }>;
    const grains = db.prepare(`SELECT grain, count(*) AS n, min(seq) AS low, max(seq) AS high FROM events WHERE grain NOT IN ${purging} AND grain NOT IN ${floors} GROUP BY grain HAVING n <> high OR low <> 1 LIMIT ${SHOWN}`).all() as Array<{ grain: string; n: number; low: number; high: number }>;
    const counts = db.prepare('SELECT count(*) AS events, count(DISTINCT grain) AS grains, count(DISTINCT stream) AS streams FROM events').get() as Omit<JournalCheck, 'problems'>;
    return {
      ...counts,
      problems: [
        ...streams.map((s) => `stream ${s.stream} holds ${s.n} events at versions ${s.low} to ${s.high}: versions are missing`),
        ...grains.map((g) => `grain ${g.grain} holds ${g.n} events at seqs ${g.low} to ${g.high}: seqs are missing`),
      ],
    };
  } finally {
    db.close();
  }
}

/**
 * Whether another connection holds the journal open (the service, or any
 * program): SQLite takes a database out of WAL mode only when no other
 * connection has it open. Answers false, leaving the file in WAL mode with
 * its WAL checkpointed into it, when nobody does.
 */
export function inUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    try {
      db.pragma('journal_mode = DELETE');
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return true;
      throw error;
    }
    db.pragma('journal_mode = WAL');
    return false;
  } finally {
    db.close();
  }
}

/** Copies the journal in `dataDir` to `file` with the online backup API, while the service may write, and checks the copy. */
export async function backupJournal(dataDir: string, file: string): Promise<JournalCheck & { pages: number }> {
  const source = join(dataDir, JOURNAL_FILE);
  if (!existsSync(source)) throw new Error(`no journal at ${source}: name the journal's directory with --data (or LEGALWORK_DATA)`);
  if (existsSync(file)) throw new Error(`${file} exists: a backup never overwrites a file; name a new one`);
  const db = new Database(source, { fileMustExist: true });
  let pages: number;
  try {
    // Every page in one step: one read transaction, so the copy is one commit's journal (see above).
    pages = (await db.backup(file, { progress: () => 0x7fffffff })).totalPages;
  } finally {
    db.close();
  }
  syncFile(file);
  return { ...checkJournal(file), pages };
}

/**
 * Puts a checked copy in place of the journal in `dataDir`: refused while
 * the journal is open anywhere, or when the copy does not check out.
 * Answers the check, and where the journal it replaced was moved.
 */
export function restoreJournal(file: string, dataDir: string, now = new Date()): { check: JournalCheck; replaced: string | null; refused?: 'in_use' | 'check' } {
  const target = join(dataDir, JOURNAL_FILE);
  if (inUse(target)) return { check: { events: 0, grains: 0, streams: 0, problems: [] }, replaced: null, refused: 'in_use' };
  const check = checkJournal(file);
  if (check.problems.length) return { check, replaced: null, refused: 'check' };
  const staged = `${target}.restoring`;
  copyFileSync(file, staged);
  syncFile(staged);
  let replaced: string | null = null;
  if (existsSync(target)) {
    replaced = `${target}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, replaced);
  }
  // A WAL or shared-memory file left beside the old journal belongs to it, never to the copy.
  for (const side of ['-wal', '-shm']) rmSync(`${target}${side}`, { force: true });
  renameSync(staged, target);
  syncFile(dirname(target));
  return { check, replaced };
}

/** Rewrites a stopped journal so it gives freed pages back from now on (`auto_vacuum = INCREMENTAL`), and gives back those it holds. */
export function vacuumJournal(dataDir: string): { refused?: 'in_use'; before: number; after: number } {
  const target = join(dataDir, JOURNAL_FILE);
  if (!existsSync(target)) throw new Error(`no journal at ${target}: name the journal's directory with --data (or LEGALWORK_DATA)`);
  if (inUse(target)) return { refused: 'in_use', before: 0, after: 0 };
  const db = new Database(target, { fileMustExist: true });
  try {
    const size = () => (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    const before = size();
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
    return { before, after: size() };
  } finally {
    db.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
