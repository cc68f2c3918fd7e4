/**
 * Keys revoked and rolled across two real service processes on one
 * PostgreSQL journal (issue 38, item 1; test/helpers/processes.ts): each
 * process holds the key's record in memory, and neither may honour a key the
 * other revoked, nor run anything it sends after the revocation. The
 * database, read directly, is the ground truth.
 *
 * - a write B authenticated before A revoked its key (or within a rolled
 *   key's grace), whose body arrives only after the revocation (or the
 *   expiry): the write runs after it, and is refused having written nothing.
 *   B honoured the key in memory; the write's check in the journal's
 *   transaction is what refuses it;
 * - a revocation meeting a write of the key that another process is
 *   committing (its check passed, its transaction open: a trigger in the
 *   test's schema holds it) waits for it: the write is in the journal when
 *   the revocation is answered, never committed after it;
 * - a key revoked on A while both processes write with it: every write
 *   either committed (its Matter is in the journal, which holds nothing
 *   else of the key's) or was refused 401 KEY_REVOKED having written
 *   nothing; from then on both refuse it on every door;
 * - a key rolled on A: B honours the rolled key until its expiry and the
 *   successor at once, on the same records and one spend ceiling (paid acts
 *   racing the roll across both never pass it); past the expiry, both refuse
 *   the rolled key 401 KEY_EXPIRED naming the successor, and what it sends
 *   writes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { send, ServicePair, type Answer, type ProcessName } from './helpers/processes.ts';
import { rawClient, type RawClient } from './helpers/raw-client.ts';
import { HANG_MS, until } from './helpers/wait.ts';

/** A pair starts in seconds on a busy machine; each test then waits on a grace period of seconds too. */
const PAIR_TEST_MS = 120_000;
const order = { mint: 'acme', offer: 'provisional', title: 'Self-folding map', inventor: 'Ada Inventor', listFeeUsd: 199 };

let pair: ServicePair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const brief = (a: Answer) => `${a.status} ${a.body?.code ?? a.body?.matter?.id ?? ''}`.trim();

/** The Matters journaled in an owner's grain, by id. */
async function mattersOf(grain: string): Promise<string[]> {
  return (await pair!.query<{ stream: string }>(`SELECT stream FROM events WHERE grain = $1 AND kind = 'matter.opened' ORDER BY stream`, [grain])).map((r) => r.stream);
}

async function eventsIn(grain: string): Promise<number> {
  return Number((await pair!.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE grain = $1', [grain]))[0].n);
}

/** The uses of a key the processes journaled (each notes its first use of a key in the hour): how a test sees that a process has honoured it. */
async function usesOf(keyId: string): Promise<number> {
  return Number((await pair!.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE grain = $1', [`keyuse:${keyId}`]))[0].n);
}

const BODY = JSON.stringify({ matterType: 'patent_provisional' });

/**
 * A write whose headers arrive now and whose body arrives only when the test
 * says (`finish`): the service authenticates the key as the headers come
 * (onRequest), and runs the write once the body is whole. So the key can be
 * changed, on the other process, between the two.
 */
async function slowWrite(base: string, key: string): Promise<{ client: RawClient; finish: () => Promise<{ status: number; body: any }> }> {
  const client = await rawClient(base);
  const { host } = new URL(base);
  client.write(`POST /matters HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY.slice(0, 5)}`);
  return {
    client,
    finish: async () => {
      client.write(BODY.slice(5));
      await client.until(() => client.response() !== undefined, HANG_MS, 'the write\'s answer');
      const { status, body } = client.response()!;
      return { status, body: JSON.parse(body) };
    },
  };
}

describe('keys across two service processes on one PostgreSQL journal', () => {
  it('a write B authenticated before A revoked its key, whose body (and so the write) comes after: refused 401 KEY_REVOKED, nothing written', async () => {
    pair = await ServicePair.start();
    const { a, b } = pair;
    const issued = await send(a.url, 'POST', '/keys', { email: 'held@legalwork.test' });
    const keyId = issued.body.keyId as string;
    // B's first use of the key is the held write: once B journals that use, B has honoured the key for it.
    const held = await slowWrite(b.url, issued.body.key);
    await until(async () => (await usesOf(keyId)) === 1, 'B honouring the key for the held write');
    const revoked = await send(a.url, 'POST', '/keys/self/revoke', undefined, bearer(issued.body.key));
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const answer = await held.finish();
    held.client.destroy();
    expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    expect(answer.body).toMatchObject({ code: 'KEY_REVOKED', keyId });
    expect(await eventsIn(keyId)).toBe(0);
  }, PAIR_TEST_MS);

  it('a write B authenticated within a rolled key\'s grace, whose body comes after its expiry: refused 401 KEY_EXPIRED naming the successor, nothing written', async () => {
    pair = await ServicePair.start();
    const { a, b } = pair;
    const issued = await send(a.url, 'POST', '/keys', { email: 'grace@legalwork.test' });
    const keyId = issued.body.keyId as string;
    const rolled = await send(a.url, 'POST', '/keys/self/roll', { expiresInSeconds: 2 }, bearer(issued.body.key));
    expect(rolled.status).toBe(201);
    const expiresAt = Date.parse(rolled.body.rolled.expiresAt);
    // The roll was A's use of the key; the held write is B's.
    await until(async () => (await usesOf(keyId)) === 1, 'A noting the roll as a use');
    const held = await slowWrite(b.url, issued.body.key);
    await until(async () => (await usesOf(keyId)) === 2, 'B honouring the rolled key for the held write');
    expect(Date.now(), 'B honoured it within the grace (a machine slower than this cannot tell)').toBeLessThan(expiresAt);
    await until(() => Date.now() > expiresAt, 'the rolled key\'s expiry', 2000 + HANG_MS);
    const answer = await held.finish();
    held.client.destroy();
    expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    expect(answer.body).toMatchObject({ code: 'KEY_EXPIRED', keyId, successorId: rolled.body.keyId });
    expect(await eventsIn(keyId)).toBe(0);
  }, PAIR_TEST_MS);


  it('a revocation on A meets a write of the key B is committing (past its check, not yet committed): it waits, and the write commits before it, never after', async () => {
    pair = await ServicePair.start();
    const { a, b } = pair;
    const issued = await send(a.url, 'POST', '/keys', { email: 'inflight@legalwork.test' });
    const key = bearer(issued.body.key);
    const keyId = issued.body.keyId as string;
    // In this schema only: a Matter's opening fact takes a second and a half to insert, so B's write holds its
    // transaction open (its check passed, its grain's head locked) for that long.
    await pair.query(`CREATE FUNCTION slow_opening() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$`);
    await pair.query(`CREATE TRIGGER slow_opening BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.kind = 'matter.opened') EXECUTE FUNCTION slow_opening()`);
    const sleeping = async () => Number((await pair!.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%journal_append_batch%'`))[0].n) > 0;

    const write = send(b.url, 'POST', '/matters', { matterType: 'patent_provisional' }, key);
    await until(sleeping, 'B\'s write inside its transaction');
    let visibleWhenRevoked: string[] | undefined;
    const revoked = await send(a.url, 'POST', '/keys/self/revoke', undefined, key).then(async (answer) => {
      visibleWhenRevoked = await mattersOf(keyId);
      return answer;
    });
    const written = await write;
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    // The write committed before the revocation: it was in the journal when the revocation was answered.
    expect(visibleWhenRevoked).toEqual([written.body.matter.id]);
    expect(await mattersOf(keyId)).toEqual([written.body.matter.id]);
  }, PAIR_TEST_MS);

  it('a key revoked on A, while A and B write with it: each write committed before the revocation or wrote nothing, and from then on both refuse it on every door', async () => {
    pair = await ServicePair.start();
    const { a, b } = pair;
    const issued = await send(a.url, 'POST', '/keys', { email: 'leak@legalwork.test' });
    expect(issued.status).toBe(201);
    const key = bearer(issued.body.key);
    const grain = issued.body.keyId as string;
    // Both processes hold the key's record before the race: either may be the one whose memory is behind.
    for (const p of [a, b]) expect((await send(p.url, 'GET', '/matters', undefined, key)).status).toBe(200);

    // Writes keep leaving from both processes until the revocation is answered, then a few more; the revocation goes
    // out once some have landed, so it meets writes in flight.
    const writes: Array<{ on: ProcessName; answer: Promise<Answer> }> = [];
    let revoked: Answer | undefined;
    let atRevocation: string[] | undefined;
    const write = (on: ProcessName) => writes.push({ on, answer: send(pair!.url(on), 'POST', '/matters', { matterType: 'patent_provisional' }, key) });
    for (let i = 0; i < 6; i++) write(i % 2 ? 'a' : 'b');
    await writes[0].answer;
    const revocation = send(a.url, 'POST', '/keys/self/revoke', undefined, key).then(async (answer) => {
      revoked = answer;
      // What the journal holds the moment the revocation is answered: nothing may join it afterwards.
      atRevocation = await mattersOf(grain);
    });
    for (let i = 0; !revoked && i < 200; i++) {
      write(i % 2 ? 'a' : 'b');
      await new Promise((r) => setTimeout(r, 2));
    }
    await revocation;
    expect(revoked!.status, JSON.stringify(revoked!.body)).toBe(200);
    const answers = await Promise.all(writes.map((w) => w.answer));
    const summary = answers.map((x, i) => `${writes[i].on}:${brief(x)}`).join(', ');

    const landed = answers.filter((x) => x.status === 201);
    const refused = answers.filter((x) => x.status !== 201);
    for (const x of refused) expect(x.status, summary).toBe(401);
    for (const x of refused) expect(x.body.code, summary).toBe('KEY_REVOKED');
    // The race was run: writes landed, and writes already sent were refused.
    expect(landed.length, summary).toBeGreaterThan(0);
    expect(refused.length, summary).toBeGreaterThan(0);

    // Every acknowledged write was in the journal when the revocation was answered; none committed after it; a refused one wrote nothing.
    const final = await mattersOf(grain);
    expect(final, summary).toEqual(atRevocation);
    expect(final, summary).toEqual(landed.map((x) => x.body.matter.id as string).sort());

    // From now on, both refuse it at once, on every door, and nothing it sends is written.
    const before = await eventsIn(grain);
    for (const p of ['a', 'b'] as const) {
      for (const [method, path, body] of [['POST', '/matters', { matterType: 'patent_provisional' }], ['POST', `/matters/${final[0]}/advance`, {}], ['GET', '/matters'], ['GET', '/keys/self'], ['POST', '/keys/self/roll', {}]] as const) {
        const res = await send(pair.url(p), method, path, body, key);
        expect(res.status, `${p} ${method} ${path}: ${JSON.stringify(res.body)}`).toBe(401);
        expect(res.body).toMatchObject({ code: 'KEY_REVOKED', keyId: grain, fix: 'POST /keys' });
      }
    }
    expect(await eventsIn(grain)).toBe(before);
    const journaled = await pair.query<{ kind: string }>(`SELECT kind FROM events WHERE grain = 'keys' AND body::jsonb->'data'->>'keyId' = $1 ORDER BY seq`, [grain]);
    expect(journaled.map((r) => r.kind)).toEqual(['key.issued', 'key.revoked']);
  }, PAIR_TEST_MS);

  it('a key rolled on A: B honours it until its expiry and the successor at once, on one ceiling; past the expiry both refuse it naming the successor, and it writes nothing', async () => {
    pair = await ServicePair.start();
    const { a, b } = pair;
    const PRICE = 199;
    const K = 3;
    const issued = await send(a.url, 'POST', '/keys', { email: 'roll@legalwork.test', spendCeilingUsd: K * PRICE });
    const old = bearer(issued.body.key);
    const owner = issued.body.keyId as string;
    const opened = await send(a.url, 'POST', '/matters', { matterType: 'patent_provisional' }, old);
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const matter = opened.body.matter.id as string;
    const committedBefore = PRICE; // the Matter's Product Fee
    for (const p of [a, b]) expect((await send(p.url, 'GET', '/keys/self', undefined, old)).body.key.state).toBe('active');

    // The roll on A races paid acts of the rolled key on B: one ceiling between them.
    const GRACE_SECONDS = 8;
    const racing = Array.from({ length: 3 }, () => send(b.url, 'POST', '/orders', order, old));
    const rolled = await send(a.url, 'POST', '/keys/self/roll', { expiresInSeconds: GRACE_SECONDS }, old);
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(201);
    const next = bearer(rolled.body.key);
    const successor = rolled.body.keyId as string;
    const expiresAt = Date.parse(rolled.body.rolled.expiresAt);

    // Within the grace, on B: the rolled key is honoured (and says so), the successor owns the same records.
    const onB = await send(b.url, 'GET', '/keys/self', undefined, old);
    expect(Date.now(), 'answered within the grace (a machine slower than this cannot tell)').toBeLessThan(expiresAt);
    expect(onB.body.key).toMatchObject({ id: owner, state: 'rolled', successorId: successor, expiresAt: rolled.body.rolled.expiresAt });
    expect((await send(b.url, 'POST', `/matters/${matter}/advance`, {}, next)).status).toBe(200);
    expect((await send(b.url, 'GET', '/matters', undefined, next)).body.results.map((m: { id: string }) => m.id)).toContain(matter);
    const more = [
      ...Array.from({ length: 3 }, (_, i) => send(pair!.url(i % 2 ? 'a' : 'b'), 'POST', '/orders', order, next)),
      ...Array.from({ length: 2 }, (_, i) => send(pair!.url(i % 2 ? 'b' : 'a'), 'POST', '/orders', order, old)),
    ];
    const paid = await Promise.all([...racing, ...more]);
    const summary = paid.map(brief).join(', ');
    // The ceiling admits K Product Fees in all: the Matter opened first, then K - 1 orders, whichever key sent them.
    expect(paid.filter((x) => x.status === 201), summary).toHaveLength(K - 1);
    for (const x of paid.filter((x) => x.status !== 201)) expect(x.body, summary).toMatchObject({ code: 'SPEND_CEILING', spendCeilingUsd: K * PRICE });
    for (const p of ['a', 'b'] as const) expect((await send(pair.url(p), 'GET', '/keys/self', undefined, next)).body.owner).toMatchObject({ id: owner, committedUsd: committedBefore + (K - 1) * PRICE });

    // Past the expiry: both refuse the rolled key on every door, naming the successor; nothing it sends is written.
    await until(() => Date.now() > expiresAt, 'the rolled key\'s expiry', (GRACE_SECONDS + 5) * 1000 + HANG_MS);
    const before = await eventsIn(owner);
    for (const p of ['a', 'b'] as const) {
      for (const [method, path, body] of [['POST', `/matters/${matter}/advance`, {}], ['POST', '/orders', order], ['GET', '/matters'], ['GET', '/keys/self']] as const) {
        const res = await send(pair.url(p), method, path, body, old);
        expect(res.status, `${p} ${method} ${path}: ${JSON.stringify(res.body)}`).toBe(401);
        expect(res.body).toMatchObject({ code: 'KEY_EXPIRED', keyId: owner, successorId: successor, endedAt: rolled.body.rolled.expiresAt });
        expect(res.body.fix).toContain(successor);
      }
    }
    expect(await eventsIn(owner)).toBe(before);
    // The successor still writes the same records, on both.
    for (const p of ['a', 'b'] as const) expect((await send(pair.url(p), 'POST', `/matters/${matter}/advance`, {}, next)).status).toBe(200);
    expect((await send(b.url, 'GET', '/keys/self', undefined, next)).body.predecessor).toMatchObject({ id: owner, state: 'expired' });
  }, PAIR_TEST_MS);
});
