/**
 * What the population reads (the snapshot rows' standing, the ledger, the
 * transition counts) is a cache of the journal (issue 36; ARCHITECTURE.md,
 * "Growing it (2026-11-27)"): whatever happens to it (rows deleted, a path
 * garbled, rows behind or ahead of their streams, another build's rows, the
 * ledger or the counts deleted or off, an edge the machine lacks), a service
 * started on the journal answers exactly what it answered before, and the
 * kept rows and counts check out again after it answered. And a database an
 * earlier build made, without any of it, opens and answers the same. On both
 * SQL adapters.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/compose.ts';
import { snapshotMachine } from '../src/engine/entity.ts';
import { KINDS, shapeOf, unsound, type PopulationKind } from '../src/engine/population.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { Database } from '../src/journal/sqlite-driver.ts';
import { PostgresJournal } from '../src/journal/postgres.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalStore } from '../src/journal/store.ts';
import { call, tempDir, type TestApp } from './helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL, UNDO_RETENTION_MIGRATION } from './helpers/postgres.ts';

/** One journal, opened again for each start, and plain SQL on it. */
interface Store {
  open(): Promise<JournalStore>;
  sql(statement: string): Promise<void>;
  /** The statements that take the database back to what the build before the population made. */
  earlierBuild: string[];
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
    earlierBuild: [
      'DROP INDEX snapshots_population',
      ...['grain', 'path', 'facets', 'since_seq', 'since'].map((c) => `ALTER TABLE snapshots DROP COLUMN ${c}`),
      'DROP TABLE population_ledger',
      'DROP TABLE transition_counts',
    ],
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
    // Schema 3: migrations 4 and after undone (4's append function is replaced again when migration 4 runs).
    earlierBuild: [
      UNDO_RETENTION_MIGRATION,
      'DROP TRIGGER events_outbox ON events; DROP FUNCTION outbox_track; DROP TABLE outbox_pending; DROP TABLE leases; DROP TABLE answers',
      'DELETE FROM schema_version WHERE version > 4',
      'DROP INDEX snapshots_population',
      'ALTER TABLE snapshots DROP COLUMN grain, DROP COLUMN path, DROP COLUMN facets, DROP COLUMN since_seq, DROP COLUMN since',
      'DROP TABLE population_ledger',
      'DROP TABLE transition_counts',
      'DELETE FROM schema_version WHERE version = 4',
    ],
    drop: () => dropSchema(schema),
  };
}

const KINDS_READ: Array<[PopulationKind, 'ws' | 'firm']> = [['matter', 'ws'], ['deadline-ladder', 'ws'], ['enrollment', 'firm']];

/** Every population answer of the workspace and the firm, and every state's page. */
async function answers(app: TestApp, ws: string, firm: string) {
  const out: Record<string, unknown> = {};
  for (const [kind, where] of KINDS_READ) {
    const base = `${where === 'ws' ? ws : firm}/inspection/${KINDS[kind].collection}`;
    const res = await call(app, 'GET', base);
    expect(res.status, `${base}: ${res.raw}`).toBe(200);
    // The ages move with the clock; everything else must not.
    const { asOf: _asOf, ...population } = res.body.population;
    for (const s of population.states) delete s.oldest?.ageSeconds;
    out[base] = population;
    for (const s of population.states) {
      const page = await call(app, 'GET', `${base}/states/${s.path}?limit=500`);
      out[`${base}/states/${s.path}`] = (page.body.results ?? []).map((r: { id: string; seq: number; version: number }) => [r.id, r.seq, r.version]);
    }
  }
  return out;
}

/** A damage, as SQL given the grains and today's tags of the three machines. */
type Damage = (g: { ws: string; firm: string }, tag: Record<PopulationKind, string>) => string[];

const DAMAGE: Array<[string, Damage]> = [
  ['the ledger deleted', () => ['DELETE FROM population_ledger']],
  ['the transition counts deleted', () => ['DELETE FROM transition_counts']],
  ['a count one off', ({ ws }, tag) => [`UPDATE transition_counts SET n = n + 1 WHERE grain = '${ws}' AND machine = '${tag.matter}' AND edge = 'open.intake ADVANCE [consentSatisfied] -> open.prepare'`]],
  ['a count of an edge the machine lacks, with the ledger agreeing', ({ ws }, tag) => [
    `INSERT INTO transition_counts (grain, machine, edge, n) VALUES ('${ws}', '${tag.matter}', 'open.intake WARP -> fulfilled', 2)`,
    `UPDATE transition_counts SET n = n - 2 WHERE grain = '${ws}' AND machine = '${tag.matter}' AND edge = 'open.intake ADVANCE [consentSatisfied] -> open.prepare'`,
  ]],
  ['a row deleted', ({ ws }, tag) => [`DELETE FROM snapshots WHERE stream = (SELECT min(stream) FROM snapshots WHERE grain = '${ws}' AND machine = '${tag.matter}')`]],
  ['a path garbled', ({ ws }, tag) => [`UPDATE snapshots SET path = 'nowhere' WHERE stream = (SELECT min(stream) FROM snapshots WHERE grain = '${ws}' AND machine = '${tag.matter}')`]],
  ['a row moved to another state (and the ledger none the wiser)', ({ ws }, tag) => [`UPDATE snapshots SET path = 'open.sign', version = version - 1 WHERE stream = (SELECT min(stream) FROM snapshots WHERE grain = '${ws}' AND machine = '${tag.matter}' AND version > 2)`]],
  ['rows behind their streams, at their opening', ({ ws }, tag) => [`UPDATE snapshots SET version = 1, path = 'open.intake' WHERE grain = '${ws}' AND machine = '${tag.matter}'`]],
  ['rows ahead of their streams', ({ ws }, tag) => [`UPDATE snapshots SET version = version + 3 WHERE grain = '${ws}' AND machine = '${tag['deadline-ladder']}'`]],
  ['another build\'s rows and counts (every tag changed)', () => [
    "UPDATE snapshots SET machine = machine || '0'",
    "UPDATE population_ledger SET machine = machine || '0'",
    "UPDATE transition_counts SET machine = machine || '0'",
  ]],
  ['every standing cleared (rows as an earlier build wrote them)', () => ['UPDATE snapshots SET grain = NULL, path = NULL, facets = NULL, since_seq = NULL, since = NULL']],
  ['the firm\'s counts and rows of the Enrollments deleted', ({ firm }) => [`DELETE FROM population_ledger WHERE grain = '${firm}'`, `DELETE FROM snapshots WHERE grain = '${firm}'`]],
];

describe.each([
  ['SQLite', sqliteStore],
  ['PostgreSQL', postgresStore],
])('the population\'s rows and counts on %s', (_name, make) => {
  const store = make();
  afterAll(() => store.drop());

  const start = async () => {
    const journal = await store.open();
    const app = await createApp({ journal });
    app.addHook('onClose', () => journal.close());
    return { app, journal };
  };

  /** What the journal keeps for each machine of each grain checks out. */
  const expectSound = async (journal: JournalStore, grains: { ws: string; firm: string }, what: string) => {
    for (const [kind, where] of KINDS_READ) {
      const shape = shapeOf(KINDS[kind].definition);
      expect(unsound(await journal.population(grains[where], shape.machine), shape), `${what}: ${kind}`).toBeNull();
    }
  };

  it('are a cache: deleted, garbled, behind or ahead, another build\'s, counts off; the answers stay the same and what is kept checks out again', async () => {
    let { app, journal } = await start();
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    const open = async (body: Record<string, unknown>) => (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_utility', ...body })).body.matter;
    const matters = [await open({}), await open({ client: { name: FIXTURE.fulfillingClient } }), await open({ client: { name: FIXTURE.decliningClient } }), await open({ matterType: 'patent_maintenance' }), await open({})];
    for (const [i, advances] of [2, 5, 4, 1, 3].entries()) for (let k = 0; k < advances; k++) await call(app, 'POST', `${W}/matters/${matters[i].id}/advance`, {});
    expect((await call(app, 'POST', `${W}/matters/${matters[0].id}/terminal`, { outcome: 'withdrawn', byClient: true })).status).toBe(200);
    expect((await call(app, 'POST', `${W}/deadlines/${matters[1].assetId}/tick`, { days: 340 })).status).toBe(200);
    expect((await call(app, 'POST', `${W}/deadlines/${matters[3].assetId}/monitor`, { signerId: 'platform' })).status).toBe(200);
    const firm = (await call(app, 'POST', '/firms')).body.firm.id as string;
    expect((await call(app, 'POST', `/firms/${firm}/enrollments`, { memberId: 'mb_fixture_eligible', grants: ['roster'] })).status).toBe(201);
    expect((await call(app, 'POST', `/firms/${firm}/enrollments`, { memberId: 'mb_fixture_eligible', grants: ['routing'] })).status).toBe(201);
    expect((await call(app, 'POST', `/firms/${firm}/enrollments`, { memberId: 'mb_fixture_suspended', grants: ['roster'] })).status).toBe(201);
    expect((await call(app, 'POST', `/firms/${firm}/enrollments/mb_fixture_suspended/revoke`, {})).status).toBe(200);
    const grains = { ws, firm };
    const before = await answers(app, W, `/firms/${firm}`);
    const states = (before[`${W}/inspection/matters`] as { states: Array<{ count: number }> }).states;
    expect(states.filter((s) => s.count > 0).length, 'Matters in several states').toBeGreaterThan(3);
    await app.close();

    const tag = Object.fromEntries((Object.keys(KINDS) as PopulationKind[]).map((k) => [k, snapshotMachine(KINDS[k].definition)])) as Record<PopulationKind, string>;
    for (const [what, how] of DAMAGE) {
      for (const statement of how(grains, tag)) await store.sql(statement);
      // The damage is real: what is kept no longer checks out.
      const damaged = await store.open();
      const problems = await Promise.all(KINDS_READ.map(async ([kind, where]) => {
        const shape = shapeOf(KINDS[kind].definition);
        return unsound(await damaged.population(grains[where], shape.machine), shape);
      }));
      await damaged.close();
      expect(problems.filter((p) => p !== null), what).not.toEqual([]);
      ({ app, journal } = await start());
      expect(await answers(app, W, `/firms/${firm}`), what).toEqual(before);
      await expectSound(journal, grains, what);
      await app.close();
    }

    // A database the build before the population made (no standing, no ledger, no counts) opens and answers the same.
    for (const statement of store.earlierBuild) await store.sql(statement);
    ({ app, journal } = await start());
    expect(await answers(app, W, `/firms/${firm}`), 'an earlier build\'s database').toEqual(before);
    await expectSound(journal, grains, 'an earlier build\'s database');
    // And a write after it all lands on what the journal holds.
    expect((await call(app, 'POST', `${W}/matters/${matters[4].id}/advance`, {})).status).toBe(200);
    const after = await call(app, 'GET', `${W}/inspection/matters`);
    const count = (population: { states: Array<{ path: string; count: number }> }, path: string) => population.states.find((s) => s.path === path)!.count;
    expect(count(after.body.population, 'open.review')).toBe(count(before[`${W}/inspection/matters`] as never, 'open.review') - 1);
    expect(count(after.body.population, 'open.waiting_on_signer')).toBe(count(before[`${W}/inspection/matters`] as never, 'open.waiting_on_signer') + 1);
    await expectSound(journal, grains, 'after a write');
    await app.close();
  });
});
