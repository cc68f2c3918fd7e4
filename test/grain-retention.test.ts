/**
 * Expired sandbox grains purged (engine/grain-retention.ts) through the
 * service: a workspace, a Tenant and a firm driven through their doors
 * (Matters advanced under Idempotency-Keys, a webhook endpoint with its
 * attempts, Offers, Enrollments) are purged once their grace period has
 * passed, and nothing they wrote is left; their doors answer as an expired
 * grain's do; a grain still in its grace period, a live one and the top
 * level are untouched. On PostgreSQL, one process sweeps at a time, and
 * another process that cached the grain serves nothing of it. Both journals
 * run here, whichever project of the suite runs the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeAfterOf, RETENTION_LEASE } from '../src/engine/grain-retention.ts';
import { createApp } from '../src/compose.ts';
import { PostgresJournal } from '../src/journal/postgres.ts';
import { rmSync } from 'node:fs';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalStore } from '../src/journal/store.ts';
import { call, tempDir, topLevelHeaders, type TestApp } from './helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './helpers/postgres.ts';
import { until } from './helpers/wait.ts';

const TTL = 60;
const GRACE = 3600;
/** A receiver that refuses every connection: each delivery attempt fails and is journaled. */
const DEAD_RECEIVER = 'http://127.0.0.1:9/hook';
const OFFERS = [{ id: 'of_letter', title: 'Demand letter', priceUsd: 80, matterType: 'demand_letter' }];

/** Drives one of each sandbox grain through its doors; answers each grain's prefix and the records it wrote. */
async function driveGrains(app: TestApp) {
  const ws = `/workspaces/${(await call(app, 'POST', '/workspaces')).body.workspace.id}`;
  const tn = `/tenants/${(await call(app, 'POST', '/tenants')).body.tenant.id}`;
  const fm = `/firms/${(await call(app, 'POST', '/firms')).body.firm.id}`;
  expect((await call(app, 'POST', `${ws}/webhooks`, { url: DEAD_RECEIVER, events: ['*'] })).status).toBe(201);
  const matter = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' } }, { 'idempotency-key': 'open-1' });
  expect(matter.status).toBe(201);
  const mt = matter.body.matter.id as string;
  for (let i = 0; i < 5; i++) await call(app, 'POST', `${ws}/matters/${mt}/advance`, {}, { 'idempotency-key': `advance-${i}` });
  expect((await call(app, 'PUT', `${tn}/offers`, OFFERS)).status).toBe(200);
  expect((await call(app, 'POST', `${tn}/matters`, { offer: 'of_letter' })).status).toBe(201);
  expect((await call(app, 'POST', `${fm}/enrollments`, { memberId: 'mb_fixture_eligible' })).status).toBe(201);
  return { ws, tn, fm, mt, grains: [ws, tn, fm].map((prefix) => prefix.split('/')[2]) };
}

/** Every door a grain's caller would knock on, with what an expired grain answers. */
async function expectGone(app: TestApp, { ws, tn, fm, mt }: { ws: string; tn: string; fm: string; mt: string }) {
  for (const [url, code, fix] of [
    [ws, 'WORKSPACE_NOT_FOUND', 'POST /workspaces'],
    [`${ws}/matters`, 'WORKSPACE_NOT_FOUND', 'POST /workspaces'],
    [`${ws}/matters/${mt}`, 'WORKSPACE_NOT_FOUND', 'POST /workspaces'],
    [`${ws}/events?after=0`, 'WORKSPACE_NOT_FOUND', 'POST /workspaces'],
    [`${ws}/webhooks`, 'WORKSPACE_NOT_FOUND', 'POST /workspaces'],
    [tn, 'TENANT_NOT_FOUND', 'POST /tenants'],
    [`${tn}/matters`, 'TENANT_NOT_FOUND', 'POST /tenants'],
    [fm, 'FIRM_NOT_FOUND', 'POST /firms'],
    [`${fm}/roster`, 'FIRM_NOT_FOUND', 'POST /firms'],
  ]) {
    const res = await call(app, 'GET', url);
    expect(res.status, url).toBe(404);
    expect(res.body, url).toMatchObject({ type: 'EMPTY', code, results: [] });
    expect(res.body.fix, url).toContain(fix);
  }
  expect((await call(app, 'POST', `${ws}/matters/${mt}/advance`, {})).status).toBe(404);
}

/** The facts held for these grains in the grains no route serves (their Idempotency-Key records, their webhook endpoints and attempts, the outbox's records of their Gig posts). */
async function heldFor(app: TestApp, grains: string[]) {
  const held: Array<{ kind: string }> = [];
  for (const shared of ['idempotency', 'webhooks', 'outbox']) {
    const tail = await app.services.journal.readTail(shared, { after: 0, limit: 10_000, feed: 'timeline' });
    const streams = new Set(tail.filter((e) => grains.includes(e.data.heldBy as string)).map((e) => e.stream));
    held.push(...tail.filter((e) => streams.has(e.stream)));
  }
  return held;
}

/** Every fact the journal holds of these grains, or held for them. */
async function factsOf(app: TestApp, grains: string[], streams: string[]) {
  const journal = app.services.journal;
  const found: unknown[] = [];
  for (const grain of grains) found.push(...(await journal.readTail(grain, { after: 0, limit: 1000, feed: 'timeline' })), ...(await journal.readStream(grain)));
  for (const stream of streams) found.push(...(await journal.readStream(stream)));
  return [...found, ...(await heldFor(app, grains))];
}

/** The app on a fresh journal of each adapter: the file runs both, whichever project of the suite runs it. */
const JOURNALS: Array<[string, () => Promise<{ journal: JournalStore; drop: () => Promise<void> }>]> = [
  ['sqlite', async () => {
    const dir = tempDir();
    return { journal: new SqliteJournal(dir), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }],
  ['postgres', async () => {
    const schema = freshSchema();
    return { journal: await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }), drop: () => dropSchema(schema) };
  }],
];

describe.each(JOURNALS)('expired sandbox grains on the %s journal, purged after their grace period', (_name, journalOf) => {
  let app: TestApp;
  let now = Date.now();
  beforeAll(async () => {
    const { journal, drop } = await journalOf();
    // Sweeps run when the test asks (the interval never comes round).
    app = await createApp({ journal, sandboxNow: () => now, sandboxTtlSeconds: TTL, retention: { purgeAfterSeconds: GRACE, intervalMs: 2 ** 30, budget: 50 }, webhooks: { timeScale: 0.0001 } });
    app.addHook('onClose', async () => {
      await journal.close();
      await drop();
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('deletes everything a grain wrote once its grace period is over, and its doors answer as an expired grain', async () => {
    const top = await topLevelHeaders(app);
    const topMatter = (await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, { ...top, 'idempotency-key': 'top-1' })).body.matter.id as string;
    const driven = await driveGrains(app);
    const streams = [driven.mt];
    expect((await factsOf(app, driven.grains, streams)).length).toBeGreaterThan(20);
    await until(async () => (await heldFor(app, driven.grains)).some((e) => e.kind === 'webhook.attempt'), 'a delivery attempt journaled');
    expect(new Set((await heldFor(app, driven.grains)).map((e) => e.kind))).toEqual(new Set(['idempotency.claimed', 'idempotency.answered', 'webhook.endpoint.created', 'webhook.attempt', 'outbox.delivered']));

    // Expired, in its grace period: 404, and kept.
    now += (TTL + GRACE - 10) * 1000;
    const later = await driveGrains(app);
    await expectGone(app, driven);
    expect(await app.services.retention.sweep()).toEqual([]);
    expect((await factsOf(app, driven.grains, streams)).length).toBeGreaterThan(20);

    // Past it: purged, oldest expiry first.
    now += 20 * 1000;
    expect((await app.services.retention.sweep()).sort()).toEqual([...driven.grains].sort());
    expect(await factsOf(app, driven.grains, streams)).toEqual([]);
    for (const grain of driven.grains) expect(await app.services.journal.isPurged(grain)).toBe(true);
    await expectGone(app, driven);
    // A retry under a key the grain's record kept (replayed while the grain was in its grace period) finds nothing now.
    expect((await call(app, 'POST', `${driven.ws}/matters/${driven.mt}/advance`, {}, { 'idempotency-key': 'advance-0' })).status).toBe(404);
    expect(await factsOf(app, driven.grains, streams)).toEqual([]);

    // The grains opened since, and the top level, are whole.
    expect((await call(app, 'GET', `${later.ws}/matters/${later.mt}`)).status).toBe(200);
    expect((await factsOf(app, later.grains, [later.mt])).length).toBeGreaterThan(20);
    expect((await call(app, 'GET', `/matters/${topMatter}`, undefined, top)).status).toBe(200);
    const replay = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, { ...top, 'idempotency-key': 'top-1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await app.services.retention.sweep()).toEqual([]);
  });
});

describe('the sweep on a PostgreSQL journal several processes share', () => {
  const schema = freshSchema();
  let now = Date.now();
  const apps: TestApp[] = [];
  const open = async () => {
    const journal = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    const app = await createApp({ journal, sandboxNow: () => now, sandboxTtlSeconds: TTL, retention: { purgeAfterSeconds: GRACE, intervalMs: 2 ** 30 } });
    app.addHook('onClose', async () => journal.close());
    await app.ready();
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
    await dropSchema(schema);
  });

  it('runs on one process at a time, and another process serves nothing of a grain once purged', async () => {
    const [first, second] = [await open(), await open()];
    const driven = await driveGrains(first);
    // The second process has read the grain and kept its pages and its Matter.
    expect((await call(second, 'GET', `${driven.ws}/matters`)).status).toBe(200);
    expect((await call(second, 'GET', `${driven.ws}/matters/${driven.mt}`)).status).toBe(200);
    now += (TTL + GRACE + 10) * 1000;

    // While the first holds the sweep's lease, the second leaves the sweep to it.
    expect((await first.services.journal.shared!.tryLeases([RETENTION_LEASE])).has(RETENTION_LEASE)).toBe(true);
    expect(await second.services.retention.sweep()).toEqual([]);
    expect(await second.services.journal.isPurged(driven.grains[0])).toBe(false);
    await first.services.journal.shared!.releaseLeases([RETENTION_LEASE]);

    expect((await second.services.retention.sweep()).sort()).toEqual([...driven.grains].sort());
    expect(await factsOf(first, driven.grains, [driven.mt])).toEqual([]);
    for (const app of [first, second]) await expectGone(app, driven);
  });
});

describe('LEGALWORK_SANDBOX_PURGE_AFTER', () => {
  it('takes seconds from 0 to a year, or off; anything else stops the start, worded', () => {
    expect(purgeAfterOf(undefined)).toBe(86_400);
    expect(purgeAfterOf('')).toBe(86_400);
    expect(purgeAfterOf('0')).toBe(0);
    expect(purgeAfterOf('3600.5')).toBe(3600.5);
    expect(purgeAfterOf('off')).toBeNull();
    for (const bad of ['-1', 'soon', 'Infinity', String(367 * 24 * 3600), 'NaN']) expect(() => purgeAfterOf(bad)).toThrow(/LEGALWORK_SANDBOX_PURGE_AFTER must be/);
  });
});
