/**
 * The PostgreSQL journal's backup and restore, as docs/postgres.md gives
 * it: `pg_dump` of the journal's schema while the service writes, and
 * `pg_restore` into a new database, where the service starts and answers
 * what it answered before, and goes on writing where the journal stood.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { call, issueKey, tempDir, type TestApp } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { until } from '../helpers/wait.ts';

const run = promisify(execFile);

/** The test server's URL with another database. */
const urlOf = (database: string) => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

async function serviceOn(url: string, schema: string): Promise<TestApp> {
  const journal = await PostgresJournal.connect({ url, schema });
  const app = await createApp({ journal });
  app.addHook('onClose', async () => journal.close());
  await app.ready();
  return app;
}

describe('pg_dump and pg_restore of the PostgreSQL journal', () => {
  const schema = freshSchema();
  const database = `lw_restore_${randomBytes(4).toString('hex')}`;
  const dir = tempDir();
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
    await admin.end();
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores a dump taken while the service writes into a new database, which serves the same answers and every write acknowledged before the dump began', async () => {
    const app = await serviceOn(TEST_DATABASE_URL, schema);
    const key = await issueKey(app);
    const ws = `/workspaces/${(await call(app, 'POST', '/workspaces')).body.workspace.id}`;
    const sandboxMatter = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' } })).body.matter.id;
    for (let i = 0; i < 5; i++) await call(app, 'POST', `${ws}/matters/${sandboxMatter}/advance`);
    const topMatter = (await call(app, 'POST', '/matters', { matterType: 'demand_letter' }, key.headers)).body.matter.id;
    await call(app, 'POST', `/matters/${topMatter}/advance`, {}, key.headers);
    const reads = [
      [`${ws}/matters/${sandboxMatter}`, {}],
      [`${ws}/events?after=0`, {}],
      [`/matters/${topMatter}`, key.headers],
      ['/matters', key.headers],
      ['/events?after=0', key.headers],
    ] as const;
    const answered = [];
    for (const [url, headers] of reads) answered.push((await call(app, 'GET', url, undefined, headers)).body);

    // The dump, as docs/postgres.md gives it: the journal's schema, in the custom format, while the service serves writes.
    // The load writes in a workspace of its own, so the answers above stand as they were.
    const busy = `/workspaces/${(await call(app, 'POST', '/workspaces')).body.workspace.id}`;
    const acked: string[] = [];
    let stop = false;
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const opened = await call(app, 'POST', `${busy}/matters`, { matterType: 'patent_provisional' });
        if (opened.status !== 201) throw new Error(`the load was refused: ${opened.raw}`);
        acked.push(opened.body.matter.id);
      }
    });
    await until(() => acked.length >= 20, 'the load under way');
    const ackedBefore = [...acked];
    const dump = join(dir, 'journal.dump');
    await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, TEST_DATABASE_URL]);
    const ackedDuring = acked.length - ackedBefore.length;
    stop = true;
    await Promise.all(writers);
    expect(ackedDuring).toBeGreaterThan(0);
    await app.close();

    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
    await admin.end();
    await run('pg_restore', ['--exit-on-error', `--dbname=${urlOf(database)}`, dump]);

    const restored = await serviceOn(urlOf(database), schema);
    for (const id of ackedBefore) expect((await call(restored, 'GET', `${busy}/matters/${id}`)).status).toBe(200);
    for (const [i, [url, headers]] of reads.entries()) {
      const read = await call(restored, 'GET', url, undefined, headers);
      expect(read.status, url).toBe(200);
      expect(read.body, url).toEqual(answered[i]);
    }
    // It writes where the journal stood: the same key, the grain's next seq.
    const advanced = await call(restored, 'POST', `/matters/${topMatter}/advance`, {}, key.headers);
    expect(advanced.status).toBe(200);
    const tail = (await call(restored, 'GET', '/events?after=0', undefined, key.headers)).body.results as Array<{ seq: number }>;
    expect(tail.map((e) => e.seq)).toEqual(tail.map((_, i) => i + 1));
    await restored.close();
  });
});
