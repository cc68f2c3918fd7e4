/**
 * The snapshot rows beside entity streams are a cache of the journal, never
 * its truth (issue 25): whatever happens to them (deleted, garbled, written
 * by another machine, ahead of or behind their stream), a service started
 * on the journal answers exactly what it answered before, and rewrites the
 * rows it could not use. On both SQL adapters.
 */
import { Database } from '../src/journal/sqlite-driver.ts';
import pg from 'pg';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/compose.ts';
import { createActor } from 'xstate';
import { LADDER, ladderStreamOf } from '../src/engine/ladders.ts';
import { MATTER } from '../src/engine/matters.ts';
import { snapshotMachine, type EntityDefinition } from '../src/engine/entity.ts';
import { PostgresJournal } from '../src/journal/postgres.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalStore, StreamSnapshot } from '../src/journal/store.ts';
import { call, tempDir, workspace, type TestApp } from './helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './helpers/postgres.ts';

/** One journal, opened again for each start, and plain SQL on its snapshot rows. */
interface Store {
  open(): Promise<JournalStore>;
  sql(statement: string): Promise<void>;
  drop(): Promise<void>;
}

function sqliteStore(): Store {
  const dir = tempDir();
  return {
    open: async () => new SqliteJournal(dir),
    sql: async (statement) => {
      const db = new Database(join(dir, 'journal.db'));
      db.exec(statement);
      db.close();
    },
    drop: async () => undefined,
  };
}

function postgresStore(): Store {
  const schema = freshSchema();
  return {
    open: () => PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }),
    sql: async (statement) => {
      const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await db.connect();
      await db.query(`SET search_path TO ${schema}`);
      await db.query(statement);
      await db.end();
    },
    drop: () => dropSchema(schema),
  };
}

/** What the service answers about every Matter and ladder of the workspace: the reads a snapshot serves. */
async function answers(app: TestApp, ws: string, matters: string[], assets: string[]) {
  const read = async (url: string) => {
    const res = await call(app, 'GET', url);
    expect(res.status, `${url}: ${res.raw}`).toBe(200);
    return res.body;
  };
  return {
    page: await read(`${ws}/matters?limit=100`),
    matters: await Promise.all(matters.map((id) => read(`${ws}/matters/${id}`))),
    ladders: await Promise.all(assets.map((id) => read(`${ws}/deadlines/${id}`))),
  };
}

/** A row made wrong, given the row and the stream's opening state (which differs from its current one); null deletes it. */
type Damage = (row: StreamSnapshot, opening: string) => StreamSnapshot | null;

const DAMAGE: Array<[string, Damage]> = [
  ['deleted', () => null],
  ['garbled', (row) => ({ ...row, state: '{"value": ' })],
  ['not an object', (row) => ({ ...row, state: '42' })],
  ['a state the machine does not have', (row) => ({ ...row, state: '{"status":"active","value":"nowhere","context":{}}' })],
  // Each of these holds the stream's opening state: read as its current state, an answer would change.
  ['written by another machine', (row, opening) => ({ ...row, machine: row.machine.replace('#', '#0'), state: opening })],
  ['ahead of its stream', (row, opening) => ({ ...row, version: row.version + 5, state: opening })],
  ['behind its stream (at its opening)', (row, opening) => ({ ...row, version: 1, state: opening })],
];

/**
 * Applies a damage to the snapshot row of each stream. The answer rows (a
 * cache above the snapshot rows: `src/http/stored-answers.ts`) are removed,
 * so the reads go through the rows under test.
 */
async function damage(journal: JournalStore, store: Store, streams: Array<[string, EntityDefinition]>, how: Damage): Promise<void> {
  await store.sql('DELETE FROM answers');
  for (const [stream, definition] of streams) {
    const row = await journal.readSnapshot(stream);
    expect(row, `${stream} has a row`).not.toBeNull();
    const input = (await journal.readStream(stream))[0].cause!.input;
    const opening = JSON.stringify(createActor(definition.machine, { input } as never).getPersistedSnapshot());
    const damaged = how(row!, opening);
    if (damaged) await journal.putSnapshot(stream, damaged);
    else await store.sql(`DELETE FROM snapshots WHERE stream = '${stream}'`);
  }
}

describe.each([
  ['SQLite', sqliteStore],
  ['PostgreSQL', postgresStore],
])('snapshot rows on %s', (_name, make) => {
  const store = make();
  afterAll(() => store.drop());

  const start = async () => {
    const journal = await store.open();
    const app = await createApp({ journal });
    app.addHook('onClose', () => journal.close());
    return { app, journal };
  };

  it('are a cache: deleted, garbled, of another machine, ahead or behind, the answers stay the same and the rows are rewritten', async () => {
    // Matters in several states, and a ladder that has moved.
    let { app } = await start();
    const ws = await workspace(app);
    const matters: string[] = [];
    const assets: string[] = [];
    for (const advances of [0, 2, 4, 6]) {
      const created = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_utility' });
      expect(created.status).toBe(201);
      const id = created.body.matter.id;
      matters.push(id);
      assets.push(created.body.matter.assetId);
      for (let i = 0; i < advances; i++) await call(app, 'POST', `${ws}/matters/${id}/advance`, {});
    }
    expect((await call(app, 'POST', `${ws}/matters/${matters[0]}/terminal`, { outcome: 'withdrawn', byClient: true })).status).toBe(200);
    expect((await call(app, 'POST', `${ws}/deadlines/${assets[1]}/tick`, { days: 26 })).status).toBe(200);
    const before = await answers(app, ws, matters, assets);
    expect(new Set(before.matters.map((m) => m.matter.status)).size).toBeGreaterThan(2);
    await app.close();

    const streams: Array<[string, EntityDefinition]> = [...matters.map((id): [string, EntityDefinition] => [id, MATTER]), ...assets.map((id): [string, EntityDefinition] => [ladderStreamOf(id), LADDER])];
    for (const [what, how] of DAMAGE) {
      const journal = await store.open();
      await damage(journal, store, streams, how);
      await journal.close();
      ({ app } = await start());
      expect(await answers(app, ws, matters, assets), what).toEqual(before);
      await app.close();
      // The start rewrote every row it could not use: each is current again, and written by today's machines.
      const after = await store.open();
      for (const [stream, definition] of streams) {
        expect(await after.readSnapshot(stream), `${what}: ${stream}`).toMatchObject({ version: await after.streamVersion(stream), machine: snapshotMachine(definition) });
      }
      await after.close();
    }

    // And a write after all that lands on the state the journal holds.
    ({ app } = await start());
    const advanced = await call(app, 'POST', `${ws}/matters/${matters[1]}/advance`, {});
    expect(advanced.status).toBe(200);
    expect(advanced.body.matter.version).toBe(before.matters[1].matter.version + 1);
    await app.close();
  });
});
