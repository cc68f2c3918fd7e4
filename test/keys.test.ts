/**
 * Keys: issued by email (form or JSON), shown once, stored hashed in the
 * journal; Bearer auth on top-level writes; reads and sandbox grains keyless;
 * the caller's hard spend ceiling on paid acts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { ownGrainOf } from '../src/engine/grains.ts';
import { KEYS_GRAIN } from '../src/engine/keys.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import { acrossRestarts, call, tempDir, testApp, topLevelHeaders, workspace, type TestApp } from './helpers/app.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const order = { mint: 'acme', offer: 'provisional', title: 'Self-folding map', inventor: 'Ada Inventor', listFeeUsd: 199 };

/** Every byte the embedded journal holds on disk (its file and its write-ahead log), as text. */
function bytesOnDisk(journal: SqliteJournal): string {
  return [journal.file, `${journal.file}-wal`]
    .map((f) => {
      try {
        return readFileSync(f).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('');
}

async function issue(app: TestApp, body: Record<string, unknown> = { email: 'ada@example.com' }) {
  const res = await call(app, 'POST', '/keys', body);
  expect(res.status).toBe(201);
  return { key: res.body.key as string, auth: { authorization: `Bearer ${res.body.key}` }, body: res.body };
}

describe('POST /keys', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await testApp();
  });
  afterEach(async () => app.close());

  it('issues a key once, from JSON, with no-store caching', async () => {
    const res = await call(app, 'POST', '/keys', { email: 'ada@example.com', building: 'an agent that files provisionals', spendCeilingUsd: 500 });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ type: 'OK', shownOnce: true, tier: 'identified', email: 'ada@example.com', building: 'an agent that files provisionals', spendCeilingUsd: 500 });
    expect(res.body.key).toMatch(/^lwk_[A-Za-z0-9_-]{43}$/);
    const again = await call(app, 'POST', '/keys', { email: 'ada@example.com' });
    expect(again.body.key).not.toBe(res.body.key);
    expect(again.body.spendCeilingUsd).toBeNull();
  });

  it('issues a key from an HTML form, numbers and empty optional fields normalized', async () => {
    const res = await call(app, 'POST', '/keys', 'email=ada%40example.com&building=&spendCeilingUsd=250', FORM);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'ada@example.com', spendCeilingUsd: 250 });
    expect(res.body.building).toBeUndefined();
  });

  it.each([
    ['no email', {}, /email/],
    ['a malformed email', { email: 'not-an-email' }, /email/],
    ['an unknown field', { email: 'a@b.co', admin: true }, /unknown field "admin"/],
    ['a negative ceiling', { email: 'a@b.co', spendCeilingUsd: -1 }, /spendCeilingUsd/],
    ['a ceiling as a JSON string', { email: 'a@b.co', spendCeilingUsd: '100' }, /spendCeilingUsd/],
  ])('refuses %s with a worded 422', async (_name, body, message) => {
    const res = await call(app, 'POST', '/keys', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(message);
  });

  it('refuses a form whose ceiling is not a number', async () => {
    const res = await call(app, 'POST', '/keys', 'email=a%40b.co&spendCeilingUsd=lots', FORM);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/spendCeilingUsd/);
  });

  it('keeps forms to this door: other doors still answer 415 to a form', async () => {
    const res = await call(app, 'POST', '/workspaces/ws_x/matters', 'matterType=patent_provisional', FORM);
    expect([404, 415]).toContain(res.status);
    const top = await call(app, 'POST', '/matters', 'matterType=patent_provisional', { ...FORM, ...(await topLevelHeaders(app)) });
    expect(top.status).toBe(415);
  });

  it('stores the key hashed, in a grain no tail serves; the key itself is nowhere on disk', async () => {
    // On the embedded journal, whose bytes on disk the test reads (whichever journal the suite's pass runs on).
    const dir = tempDir();
    const app = await testApp({ journal: new SqliteJournal(dir) });
    onTestFinished(async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const { key } = await issue(app);
    const events = await app.services.journal.readTail(KEYS_GRAIN, { after: 0, limit: 100, feed: 'timeline' });
    const issued = events.find((e) => e.kind === 'key.issued')!;
    expect(issued.data.keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(events)).not.toContain(key);
    // Issuing writes nothing to the key's own records either: its grain's tail is empty.
    expect(await app.services.journal.latestSeq(ownGrainOf(issued.data.keyId as string))).toBe(0);
    const bytes = bytesOnDisk(app.services.journal as SqliteJournal);
    expect(bytes).toContain(issued.data.keyHash as string);
    expect(bytes).not.toContain(key);
  });
});

  it('keeps no issued key on disk when sent with a key under an Idempotency-Key, yet shows it again to a retry presenting that key, and to no other', async () => {
    const dir = tempDir();
    const app = await testApp({ journal: new SqliteJournal(dir) });
    onTestFinished(async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const caller = await issue(app);
    const headers = { ...caller.auth, 'idempotency-key': 'issue-1' };
    const first = await call(app, 'POST', '/keys', { email: 'ben@example.com' }, headers);
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^lwk_[A-Za-z0-9_-]{43}$/);
    expect((await call(app, 'GET', '/keys/self', undefined, { authorization: `Bearer ${first.body.key}` })).body.key.id).toBe(first.body.keyId);
    const replay = await call(app, 'POST', '/keys', { email: 'ben@example.com' }, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);

    // The kept answer and every other byte of the journal hold the key's hash, never the key.
    const bytes = bytesOnDisk(app.services.journal as SqliteJournal);
    expect(bytes).toContain(createHash('sha256').update(first.body.key).digest('hex'));
    expect(bytes).not.toContain(first.body.key);

    // The same retry sent with a successor of the caller's key (the same owner, so the same kept answer) is not shown the key.
    const successor = await call(app, 'POST', '/keys/self/roll', { expiresInSeconds: 600 }, caller.auth);
    const other = await call(app, 'POST', '/keys', { email: 'ben@example.com' }, { authorization: `Bearer ${successor.body.key}`, 'idempotency-key': 'issue-1' });
    expect(other.headers['idempotent-replayed']).toBe('true');
    expect(other.body.keyId).toBe(first.body.keyId);
    expect(other.body.key).toBe('lwk_ISSUED_KEY_SHOWN_ONCE_RETRY_WITH_CALLER_KEY');
  });

describe('Bearer authentication', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await testApp();
  });
  afterEach(async () => app.close());

  it('refuses a top-level write without a key: 401 naming POST /keys, nothing written', async () => {
    for (const [url, body] of [['/matters', { matterType: 'patent_provisional' }], ['/orders', order], ['/matters/mt_x/advance', {}]] as const) {
      const res = await call(app, 'POST', url, body);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'KEY_REQUIRED', fix: 'POST /keys' });
      expect(res.body.error).toContain('POST /keys');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    }
    expect((await call(app, 'GET', '/matters')).body.type).toBe('EMPTY');
  });

  it('accepts the same write with a key', async () => {
    const { auth } = await issue(app);
    const res = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, auth);
    expect(res.status).toBe(201);
  });

  it.each([
    ['a non-Bearer scheme', 'Basic YWRhOnNlY3JldA==', 'KEY_MALFORMED'],
    ['an empty Bearer', 'Bearer ', 'KEY_MALFORMED'],
    ['a malformed key', 'Bearer not-a-key', 'KEY_UNKNOWN'],
    ['a well-formed key never issued', `Bearer lwk_${'A'.repeat(43)}`, 'KEY_UNKNOWN'],
  ])('answers 401 to %s, on writes and on reads alike', async (_name, header, code) => {
    for (const [method, url] of [['POST', '/matters'], ['GET', '/matters']] as const) {
      const res = await call(app, method, url, method === 'POST' ? { matterType: 'patent_provisional' } : undefined, { authorization: header });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe(code);
      expect(res.body.fix).toBe('POST /keys');
    }
  });

  it('keeps reads keyless', async () => {
    expect((await call(app, 'GET', '/matters')).status).toBe(200);
    expect((await call(app, 'GET', '/assets')).status).toBe(200);
  });

  it('keeps everything inside a sandbox grain keyless', async () => {
    const ws = await workspace(app);
    const opened = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    expect(opened.status).toBe(201);
    expect((await call(app, 'POST', `${ws}/matters/${opened.body.matter.id}/advance`, {})).status).toBe(200);
    expect((await call(app, 'POST', `${ws}/orders`, order)).status).toBe(201);
  });

  it('carries X-Actor and X-Mandate as provenance, never as proof', async () => {
    const res = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, { 'x-actor': 'client', 'x-mandate': 'grant:everything' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/X-Mandate header is carried as provenance only/);
    const tooLong = await call(app, 'GET', '/matters', undefined, { 'x-actor': 'a'.repeat(201) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.code).toBe('INVALID_PROVENANCE');
  });

  it('survives a restart: keys are journaled, not held in memory', async () => {
    await acrossRestarts(async (start) => {
      const first = await start();
      const { auth } = await issue(first);
      await first.close();
      const second = await start();
      expect((await call(second, 'POST', '/matters', { matterType: 'patent_provisional' }, auth)).status).toBe(201);
      await second.close();
    });
  });
});

describe('the hard spend ceiling', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await testApp();
  });
  afterEach(async () => app.close());

  it('refuses the paid act that would pass the ceiling: 403 BLOCKED naming it, nothing written', async () => {
    const { auth } = await issue(app, { email: 'ada@example.com', spendCeilingUsd: 300 });
    expect((await call(app, 'POST', '/orders', order, auth)).status).toBe(201); // 199
    expect((await call(app, 'POST', '/matters', { matterType: 'entity_formation' }, auth)).status).toBe(201); // 99 -> 298
    const refused = await call(app, 'POST', '/orders', order, auth);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: 'BLOCKED', code: 'SPEND_CEILING', spendCeilingUsd: 300, committedUsd: 298, priceUsd: 199 });
    expect(refused.body.error).toMatch(/spend ceiling of 300 USD/);
    // The key's own list holds the two Matters it paid for; reads and sandbox work are never paid.
    const list = await call(app, 'GET', '/matters', undefined, auth);
    expect(list.status).toBe(200);
    expect(list.body.results).toHaveLength(2);
    const ws = await workspace(app);
    expect((await call(app, 'POST', `${ws}/orders`, order, auth)).status).toBe(201);
  });

  it('releases the reservation of a refused act', async () => {
    const { auth } = await issue(app, { email: 'ada@example.com', spendCeilingUsd: 199 });
    const refused = await call(app, 'POST', '/matters', { matterType: 'patent_provisional', listFeeUsd: 500, tenantGuardrails: { maxFeeUsd: 100 } }, auth);
    expect(refused.status).toBe(422);
    expect((await call(app, 'POST', '/orders', order, auth)).status).toBe(201);
  });

  it('holds under concurrency: the accepted acts never pass the ceiling', async () => {
    const { auth } = await issue(app, { email: 'ada@example.com', spendCeilingUsd: 500 });
    const results = await Promise.all(Array.from({ length: 6 }, () => call(app, 'POST', '/orders', order, auth)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403)).toHaveLength(4);
  });

  it('survives a restart: committed spend is folded from the journal', async () => {
    await acrossRestarts(async (start) => {
      const first = await start();
      const { auth } = await issue(first, { email: 'ada@example.com', spendCeilingUsd: 300 });
      expect((await call(first, 'POST', '/orders', order, auth)).status).toBe(201);
      await first.close();
      const second = await start();
      const res = await call(second, 'POST', '/orders', order, auth);
      expect(res.status).toBe(403);
      expect(res.body.committedUsd).toBe(199);
      await second.close();
    });
  });
});

describe('topLevelHeaders (the tests helper)', () => {
  it('returns a working Bearer header, one key per app', async () => {
    const app = await testApp();
    try {
      const a = await topLevelHeaders(app);
      expect(a.authorization).toMatch(/^Bearer lwk_/);
      expect(await topLevelHeaders(app)).toEqual(a);
      expect((await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, a)).status).toBe(201);
    } finally {
      await app.close();
    }
  });
});

