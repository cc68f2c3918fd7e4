/**
 * PostgreSQL for the tests: LEGALWORK_TEST_DATABASE_URL, which `npm test`
 * sets to the machine's own server or to one it started for the run
 * (scripts/test-services.ts); a file run on its own without it uses the
 * machine's (127.0.0.1:5432, trust auth, database `test`).
 * Each test makes a schema of its own and drops it, so parallel test files
 * never share state. A database that cannot be reached fails the test: it is
 * never skipped.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_DATABASE_URL } from '../../scripts/test-services.ts';

export const TEST_DATABASE_URL = process.env.LEGALWORK_TEST_DATABASE_URL ?? DEFAULT_DATABASE_URL;

export const freshSchema = () => `lw_test_${randomBytes(6).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await db.end();
  }
}

/**
 * Migrations 10 (the tail's entries kept in the events' rows) and 9 (retention, `src/journal/postgres-retention.ts`)
 * undone: what a test that takes a schema back to an earlier build runs first.
 */
export const UNDO_RETENTION_MIGRATION = `
ALTER TABLE events DROP COLUMN entry; DELETE FROM schema_version WHERE version = 10;
DROP TRIGGER events_no_delete ON events; DROP FUNCTION journal_delete_only_purged();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION journal_is_append_only();
DROP TRIGGER grain_heads_purged ON grain_heads; DROP FUNCTION journal_refuse_purged();
DROP INDEX events_expiry; DROP INDEX events_held;
ALTER TABLE grain_heads DROP COLUMN purged; DROP TABLE purged_grains;
DELETE FROM schema_version WHERE version = 9;`;
