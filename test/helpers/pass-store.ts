/**
 * The pass's journal (SQLite, or PostgreSQL in the suite's postgres project) as a
 * test that damages it sees it: opened again at each start, and plain SQL on
 * its tables, so a test writes rows no adapter would and restarts on them.
 */
import { join } from 'node:path';
import pg from 'pg';
import { onTestFinished } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import type { AppOptions } from '../../src/compose.ts';
import { PASS_JOURNAL, tempDir, testApp, type TestApp } from './app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './postgres.ts';

/** The pass's journal, opened again at each start, and plain SQL on its tables. */
export interface Store {
  open(): Promise<JournalStore>;
  sql(statement: string, values?: unknown[]): Promise<void>;
  drop(): Promise<void>;
}

export function passStore(): Store {
  if (PASS_JOURNAL === 'sqlite') {
    const dir = tempDir();
    return {
      open: async () => new SqliteJournal(dir),
      sql: async (statement, values = []) => {
        const db = new Database(join(dir, 'journal.db'));
        try {
          db.prepare(statement).run(...values);
        } finally {
          db.close();
        }
      },
      drop: async () => undefined,
    };
  }
  const schema = freshSchema();
  return {
    open: () => PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }),
    sql: async (statement, values = []) => {
      const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await db.connect();
      try {
        await db.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
        // The same statements as SQLite's: `?` placeholders, numbered for pg.
        let n = 0;
        await db.query(statement.replace(/\?/g, () => `$${++n}`), values);
      } finally {
        await db.end();
      }
    },
    drop: () => dropSchema(schema),
  };
}

/** A store and a start on it: each start is an app on the same journal (close the one before it first). */
export function journalled() {
  const store = passStore();
  const started: TestApp[] = [];
  // When the test that made it ends (a hook of this module's would be registered by the first file to import it only, where modules are shared).
  onTestFinished(async () => {
    for (const app of started) await app.close();
    await store.drop();
  });
  const start = async (options: Partial<AppOptions> = {}) => {
    const app = await testApp({ ...options, journal: await store.open() });
    started.push(app);
    return app;
  };
  return { store, start };
}

