/**
 * Keys rolled and revoked (issue 38, item 1), in one process on the pass's
 * journal: `GET /keys/self`, `POST /keys/self/roll` and
 * `POST /keys/self/revoke`.
 *
 * - a successor owns its predecessor's records, spend ceiling and committed
 *   spend; the rolled key is honoured until the expiry its holder chose, then
 *   refused 401 KEY_EXPIRED on every door, naming the successor; a revoked
 *   one 401 KEY_REVOKED at once; nothing either sends after that is written;
 * - the races, made deterministic by holding a request between its
 *   authentication and its write: a key revoked there writes nothing (its
 *   write fails its check inside the journal's transaction), a key rolled
 *   there still writes, a key whose grace ends there writes nothing;
 * - a roll's answer kept under an Idempotency-Key never holds the successor,
 *   yet its replay (presenting the rolled key) shows the same one;
 * - the last use is journaled at most once an hour per key and process.
 *
 * The wall clock is the app's injected one (`sandboxNow`), so an expiry is
 * crossed by moving it, not by waiting.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/compose.ts';
import { Keys, KEYS_GRAIN, useGrainOf } from '../src/engine/keys.ts';
import { call, listeningApp, tempDir, testApp, testJournal, workspace, type TestApp } from './helpers/app.ts';
import { send } from './helpers/processes.ts';
import { until } from './helpers/wait.ts';
import { burst, count, expectAdmitted, nextWindow } from './helpers/bursts.ts';

const order = { mint: 'acme', offer: 'provisional', title: 'Self-folding map', inventor: 'Ada Inventor', listFeeUsd: 199 };
const HOUR = 60 * 60 * 1000;

/** A wall clock the test moves. */
function clock(start = Date.parse('2026-12-01T09:00:00.000Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms), at: (ms: number) => void (now = ms) };
}

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(options: Parameters<typeof testApp>[0] = {}): Promise<TestApp> {
  const app = await testApp(options);
  apps.push(app);
  return app;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function issue(app: TestApp, body: Record<string, unknown> = { email: 'ada@example.com' }) {
  const res = await call(app, 'POST', '/keys', body);
  expect(res.status).toBe(201);
  return { key: res.body.key as string, id: res.body.keyId as string, auth: bearer(res.body.key) };
}

async function roll(app: TestApp, auth: Record<string, string>, body?: Record<string, unknown>) {
  const res = await call(app, 'POST', '/keys/self/roll', body, auth);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { key: res.body.key as string, id: res.body.keyId as string, auth: bearer(res.body.key), body: res.body };
}

async function openMatter(app: TestApp, auth: Record<string, string>): Promise<string> {
  const res = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, auth);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.matter.id as string;
}

/** What a refused key must meet on every door a key reaches: a top-level write, a top-level list, a read by id, a sandbox write, the key doors. */
async function refusedEverywhere(app: TestApp, auth: Record<string, string>, code: string, matterId: string) {
  const ws = await workspace(app);
  const doors: Array<[string, string, unknown?]> = [
    ['POST', '/matters', { matterType: 'patent_provisional' }],
    ['POST', `/matters/${matterId}/advance`, {}],
    ['GET', '/matters'],
    ['GET', `/matters/${matterId}`],
    ['POST', `${ws}/matters`, { matterType: 'patent_provisional' }],
    ['GET', '/keys/self'],
    ['POST', '/keys/self/roll', {}],
    ['POST', '/keys/self/revoke'],
  ];
  for (const [method, url, body] of doors) {
    const res = await call(app, method, url, body, auth);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(401);
    expect(res.body.code, `${method} ${url}`).toBe(code);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  }
}

describe('GET /keys/self', () => {
  it('says the key\'s state, its last use and its owner\'s ceiling and spend; without a key, 401 KEY_REQUIRED', async () => {
    const wall = clock();
    const app = await start({ sandboxNow: wall.now });
    const { id, auth } = await issue(app, { email: 'ada@example.com', building: 'a filing agent', spendCeilingUsd: 500 });
    expect((await call(app, 'POST', '/orders', order, auth)).status).toBe(201);
    wall.advance(1000);
    const self = await call(app, 'GET', '/keys/self', undefined, auth);
    expect(self.status).toBe(200);
    expect(self.headers['cache-control']).toBe('no-store');
    expect(self.body).toEqual({
      type: 'OK',
      key: { id, state: 'active', issuedAt: expect.any(String), expiresAt: null, revokedAt: null, lastUsedAt: new Date(wall.now()).toISOString(), successorId: null, predecessorId: null },
      owner: { id, email: 'ada@example.com', building: 'a filing agent', spendCeilingUsd: 500, committedUsd: 199 },
    });
    expect(JSON.stringify(self.body)).not.toContain(auth.authorization.slice('Bearer '.length));
    const keyless = await call(app, 'GET', '/keys/self');
    expect(keyless.status).toBe(401);
    expect(keyless.body).toMatchObject({ code: 'KEY_REQUIRED', fix: 'POST /keys' });
  });
});

describe('POST /keys/self/roll', () => {
  it('issues a successor that owns the records, the ceiling and the spend; the rolled key is honoured until the expiry chosen, then refused on every door naming the successor', async () => {
    const wall = clock();
    const app = await start({ sandboxNow: wall.now });
    const old = await issue(app, { email: 'ada@example.com', spendCeilingUsd: 3 * 199 });
    const matter = await openMatter(app, old.auth); // 199
    const next = await roll(app, old.auth, { expiresInSeconds: 3600 });
    expect(next.key).toMatch(/^lwk_[A-Za-z0-9_-]{43}$/);
    expect(next.key).not.toBe(old.key);
    const rolledUntil = new Date(wall.now() + 3600 * 1000).toISOString();
    expect(next.body).toMatchObject({
      type: 'OK',
      shownOnce: true,
      tier: 'identified',
      rolled: { id: old.id, state: 'rolled', expiresAt: rolledUntil, successorId: next.id },
      owner: { id: old.id, spendCeilingUsd: 597, committedUsd: 199 },
    });

    // The successor: the same records (listed, written), the same ceiling and spend.
    const listed = await call(app, 'GET', '/matters', undefined, next.auth);
    expect(listed.body.results.map((m: { id: string }) => m.id)).toEqual([matter]);
    expect((await call(app, 'POST', `/matters/${matter}/advance`, {}, next.auth)).status).toBe(200);
    expect((await openMatter(app, next.auth)).length).toBeGreaterThan(0); // 398
    const self = await call(app, 'GET', '/keys/self', undefined, next.auth);
    expect(self.body).toMatchObject({
      key: { id: next.id, state: 'active', predecessorId: old.id, successorId: null },
      predecessor: { id: old.id, state: 'rolled', expiresAt: rolledUntil, successorId: next.id },
      owner: { id: old.id, spendCeilingUsd: 597, committedUsd: 398 },
    });

    // The rolled key, within its grace: honoured, one ceiling between the two (a third act lands, a fourth is past it).
    expect((await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, old.auth)).status).toBe(201); // 597
    const past = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, next.auth);
    expect(past.status).toBe(403);
    expect(past.body).toMatchObject({ code: 'SPEND_CEILING', committedUsd: 597, spendCeilingUsd: 597 });

    // Past its expiry: refused everywhere, naming the successor; nothing it sends is written.
    wall.at(Date.parse(rolledUntil) - 1);
    expect((await call(app, 'GET', '/keys/self', undefined, old.auth)).body.key.state).toBe('rolled');
    wall.at(Date.parse(rolledUntil));
    const grain = old.id;
    const before = await app.services.journal.latestSeq(grain);
    await refusedEverywhere(app, old.auth, 'KEY_EXPIRED', matter);
    const expired = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, old.auth);
    expect(expired.body).toMatchObject({ code: 'KEY_EXPIRED', keyId: old.id, successorId: next.id, endedAt: rolledUntil });
    expect(expired.body.error).toContain(next.id);
    expect(expired.body.fix).toContain(next.id);
    expect(expired.body.fix).toContain('GET /keys/self');
    expect(await app.services.journal.latestSeq(grain)).toBe(before);
    expect((await call(app, 'GET', '/keys/self', undefined, next.auth)).body.predecessor.state).toBe('expired');
  });

  it('with expiresInSeconds 0 ends the rolled key at once; the default grace is a day, at most 7 days; a key rolls once, its successor in turn', async () => {
    const wall = clock();
    const app = await start({ sandboxNow: wall.now });
    const first = await issue(app);
    const matter = await openMatter(app, first.auth);
    const second = await roll(app, first.auth, { expiresInSeconds: 0 });
    await refusedEverywhere(app, first.auth, 'KEY_EXPIRED', matter);

    const third = await roll(app, second.auth);
    expect(third.body.rolled.expiresAt).toBe(new Date(wall.now() + 24 * HOUR).toISOString());
    const again = await call(app, 'POST', '/keys/self/roll', {}, second.auth);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'KEY_ALREADY_ROLLED', keyId: second.id, successorId: third.id });
    // The third key owns the first key's records.
    expect((await call(app, 'POST', `/matters/${matter}/advance`, {}, third.auth)).status).toBe(200);
    expect((await call(app, 'GET', '/keys/self', undefined, third.auth)).body.owner.id).toBe(first.id);

    for (const expiresInSeconds of [-1, 604801, 1.5, '60']) {
      const res = await call(app, 'POST', '/keys/self/roll', { expiresInSeconds }, third.auth);
      expect(res.status, String(expiresInSeconds)).toBe(422);
    }
    expect((await call(app, 'POST', '/keys/self/roll', { expiresInSeconds: 604800 }, third.auth)).status).toBe(201);
  });

  it('keeps no key in the journal, yet a retry under the same Idempotency-Key, presenting the rolled key, is shown the same successor', async () => {
    const app = await start();
    const old = await issue(app);
    const headers = { ...old.auth, 'idempotency-key': 'roll-1' };
    const first = await call(app, 'POST', '/keys/self/roll', { expiresInSeconds: 600 }, headers);
    expect(first.status).toBe(201);
    const replay = await call(app, 'POST', '/keys/self/roll', { expiresInSeconds: 600 }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await call(app, 'GET', '/keys/self', undefined, bearer(first.body.key))).body.key.id).toBe(first.body.keyId);
    // The successor as the journal keeps it: its hash and the roll's secret, never the key (nor the rolled one).
    const kept = JSON.stringify(await everyEvent(app));
    expect(kept).not.toContain(first.body.key);
    expect(kept).not.toContain(old.key);
  });

  it('holds one ceiling between a key and its successor when paid acts race the roll', async () => {
    const app = await start();
    const old = await issue(app, { email: 'ada@example.com', spendCeilingUsd: 3 * 199 });
    const rolling = call(app, 'POST', '/keys/self/roll', { expiresInSeconds: 3600 }, old.auth);
    const racing = Array.from({ length: 4 }, () => call(app, 'POST', '/orders', order, old.auth));
    const next = await rolling;
    expect(next.status).toBe(201);
    const after = Array.from({ length: 4 }, (_, i) => call(app, 'POST', '/orders', order, i % 2 ? old.auth : bearer(next.body.key)));
    const answers = await Promise.all([...racing, ...after]);
    expect(answers.filter((a) => a.status === 201), JSON.stringify(answers.map((a) => [a.status, a.body.code, a.body.error]))).toHaveLength(3);
    expect(answers.filter((a) => a.status === 403).map((a) => a.body.code)).toEqual(Array(5).fill('SPEND_CEILING'));
    expect((await call(app, 'GET', '/keys/self', undefined, bearer(next.body.key))).body.owner.committedUsd).toBe(597);
  });
});

describe('POST /keys/self/revoke', () => {
  it('refuses the key at once on every door, naming POST /keys (no successor) or the successor; its records stay readable by id', async () => {
    const app = await start();
    const lone = await issue(app);
    const matter = await openMatter(app, lone.auth);
    const revoked = await call(app, 'POST', '/keys/self/revoke', undefined, lone.auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ type: 'OK', key: { id: lone.id, state: 'revoked', revokedAt: expect.any(String) } });
    await refusedEverywhere(app, lone.auth, 'KEY_REVOKED', matter);
    const refused = await call(app, 'GET', '/matters', undefined, lone.auth);
    expect(refused.body).toMatchObject({ keyId: lone.id, fix: 'POST /keys', endedAt: revoked.body.key.revokedAt });
    expect(refused.body.successorId).toBeUndefined();
    expect((await call(app, 'GET', `/matters/${matter}`)).status).toBe(200);

    // A rolled key revoked within its grace: refused, naming its successor, which keeps the records.
    const old = await issue(app);
    const owned = await openMatter(app, old.auth);
    const next = await roll(app, old.auth, { expiresInSeconds: 3600 });
    expect((await call(app, 'POST', '/keys/self/revoke', undefined, old.auth)).status).toBe(200);
    const named = await call(app, 'POST', `/matters/${owned}/advance`, {}, old.auth);
    expect(named.body).toMatchObject({ code: 'KEY_REVOKED', successorId: next.id });
    expect(named.body.fix).toContain(next.id);
    expect((await call(app, 'POST', `/matters/${owned}/advance`, {}, next.auth)).status).toBe(200);
    expect((await call(app, 'GET', '/keys/self', undefined, next.auth)).body.predecessor).toMatchObject({ id: old.id, state: 'revoked' });
  });

  it('journals each key\'s issue, roll and revocation, in the keys grain no route serves', async () => {
    const app = await start();
    const old = await issue(app);
    const next = await roll(app, old.auth);
    await call(app, 'POST', '/keys/self/revoke', undefined, next.auth);
    const kinds = (await app.services.journal.readTail(KEYS_GRAIN, { after: 0, limit: 100, feed: 'timeline' })).map((e) => `${e.kind} ${e.data.keyId}`);
    expect(kinds).toEqual([`key.issued ${old.id}`, `key.rolled ${old.id}`, `key.issued ${next.id}`, `key.revoked ${next.id}`]);
  });
});

describe('the rate limit', () => {
  it('counts a key and its successor as one caller, and a revoked key as the address it comes from', async () => {
    const LIMIT = 5;
    // Over a real socket, as the rate limit's own tests count it.
    const { app, url } = await listeningApp({ rateLimit: { perSecond: LIMIT } });
    apps.push(app);
    const old = await issue(app);
    const next = await roll(app, old.auth);
    await nextWindow();
    const both = await burst(4 * LIMIT, (i) => send(url, 'GET', '/matters', undefined, i % 2 ? old.auth : next.auth));
    expectAdmitted(both, count(both.answers, 200), LIMIT);
    expect(both.answers.find((a) => a.status === 429)!.body.rateLimit.caller).toBe('api key');

    await nextWindow();
    expect((await send(url, 'POST', '/keys/self/revoke', undefined, old.auth)).status).toBe(200);
    await nextWindow();
    const revoked = await burst(4 * LIMIT, () => send(url, 'GET', '/matters', undefined, old.auth));
    expectAdmitted(revoked, count(revoked.answers, 401), LIMIT);
    expect(revoked.answers.find((a) => a.status === 429)!.body.rateLimit.caller).toBe('address');
    // The owner's allowance is untouched by it: the successor is served.
    expect((await send(url, 'GET', '/matters', undefined, next.auth)).status).toBe(200);
  });
});

describe('a request honoured before its key changes, writing after', () => {
  /**
   * An app whose requests to `path` wait, once authenticated, until the test
   * lets them go: the key changes in between, deterministically.
   */
  async function heldApp(path: string, wall = clock()) {
    const made = await testJournal(tempDir());
    const app = await createApp({ journal: made.journal, sandboxNow: wall.now });
    let release!: () => void;
    let arrived!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = new Promise<void>((r) => (arrived = r));
    app.addHook('preHandler', async (request) => {
      if (request.url !== path) return;
      arrived();
      await gate;
    });
    app.addHook('onClose', async () => {
      await made.journal.close();
      await made.drop();
    });
    await app.ready();
    apps.push(app);
    return { app, held, release, wall };
  }

  it('revoked there: its write fails its check inside the transaction and writes nothing', async () => {
    const { app, held, release } = await heldApp('/matters');
    const key = await issue(app);
    const pending = call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.auth);
    await held;
    // Revoked through a copy of the key's record of its own, as another process holds one: this process's copy does not know.
    const elsewhere = new Keys(app.services.supervisor);
    await elsewhere.revoke((await elsewhere.lookup(key.key))!);
    const moved = vi.spyOn(app.services.keys, 'moved');
    release();
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('KEY_REVOKED');
    // The write's check met the revocation in the journal, and was read again there.
    expect(moved).toHaveBeenCalledTimes(1);
    expect(await app.services.journal.latestSeq(key.id)).toBe(0);
    expect((await call(app, 'GET', '/matters', undefined, key.auth)).body.code).toBe('KEY_REVOKED');
  });

  it('rolled there: its write still commits (the rolled key is honoured), tried again on the key as it now stands', async () => {
    const { app, held, release, wall } = await heldApp('/matters');
    const key = await issue(app);
    const pending = call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.auth);
    await held;
    const elsewhere = new Keys(app.services.supervisor, { now: wall.now });
    await elsewhere.roll(key.key, (await elsewhere.lookup(key.key))!, 3600);
    const moved = vi.spyOn(app.services.keys, 'moved');
    release();
    expect((await pending).status).toBe(201);
    expect(moved).toHaveBeenCalledTimes(1);
    expect(await app.services.journal.latestSeq(key.id)).toBeGreaterThan(0);
  });

  it('its grace ending there: its write is refused KEY_EXPIRED and writes nothing', async () => {
    const { app, held, release, wall } = await heldApp('/orders');
    const key = await issue(app);
    const next = await roll(app, key.auth, { expiresInSeconds: 60 });
    const pending = call(app, 'POST', '/orders', order, key.auth);
    await held;
    wall.advance(60_000);
    release();
    const answer = await pending;
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'KEY_EXPIRED', successorId: next.id });
    expect(await app.services.journal.latestSeq(key.id)).toBe(0);
  });
});

describe('lastUsedAt', () => {
  it('is journaled at most once an hour per key and process, and read back by another process', async () => {
    const wall = clock();
    const made = await testJournal(tempDir());
    const first = await createApp({ journal: made.journal, sandboxNow: wall.now });
    const key = await issue(first);
    const uses = async () => (await first.services.journal.readTail(useGrainOf(key.id), { after: 0, limit: 100, feed: 'timeline' })).map((e) => e.data.usedAt);
    const t0 = wall.now();
    for (let i = 0; i < 5; i++) {
      expect((await call(first, 'GET', '/matters', undefined, key.auth)).status).toBe(200);
      wall.advance(10 * 60 * 1000);
    }
    // Uses at t0, +10 … +40 min: the first is journaled; the first after the hour is the second.
    await until(async () => (await uses()).length === 1, 'the first use journaled');
    wall.at(t0 + HOUR);
    await call(first, 'GET', '/matters', undefined, key.auth);
    await until(async () => (await uses()).length === 2, 'the first use after the hour journaled');
    expect(await uses()).toEqual([new Date(t0).toISOString(), new Date(t0 + HOUR).toISOString()]);
    // Used again (to roll it) a minute later: known to this process only.
    wall.advance(60 * 1000);
    const next = await roll(first, key.auth);
    expect((await call(first, 'GET', '/keys/self', undefined, next.auth)).body.predecessor.lastUsedAt).toBe(new Date(t0 + HOUR + 60 * 1000).toISOString());
    expect(await uses()).toHaveLength(2);
    await first.close();

    // Another process knows what was journaled: the key was used at or after it, within the hour.
    const second = await createApp({ journal: made.journal, sandboxNow: wall.now });
    try {
      expect((await call(second, 'GET', '/keys/self', undefined, next.auth)).body.predecessor.lastUsedAt).toBe(new Date(t0 + HOUR).toISOString());
    } finally {
      await second.close();
      await made.journal.close();
      await made.drop();
    }
  });
});

async function everyEvent(app: TestApp) {
  const journal = app.services.journal;
  const out = [];
  for (const grain of [KEYS_GRAIN, 'idempotency']) out.push(...(await journal.readTail(grain, { after: 0, limit: 500, feed: 'timeline' })));
  return out;
}
