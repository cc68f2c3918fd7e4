/**
 * PostgreSQL for the tests: the database every machine of this project runs
 * (127.0.0.1:5432, trust auth, database `test`), or LEGALWORK_TEST_DATABASE_URL.
 * Each test makes a schema of its own and drops it, so parallel test files
 * never share state. A database that cannot be reached fails the test: it is
 * never skipped.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.LEGALWORK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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
