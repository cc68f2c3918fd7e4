/**
 * Idempotency-Key on every POST and PUT (issue 14, decisions.md "Retries and
 * races"), over a real listening port: a retry under the same key gets the
 * first answer byte for byte, with `Idempotent-Replayed: true`, and writes
 * nothing; the same key on another request is 422; a retry while the first
 * runs is 409; a malformed key, or one no caller can keep, is 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../../src/domain/fixtures.ts';
import { IDEMPOTENCY_GRAIN } from '../../src/engine/idempotency.ts';
import { issueKey, listeningApp, type IssuedKey, type TestApp } from '../helpers/app.ts';
import { rawClient } from '../helpers/raw-client.ts';

let app: TestApp;
let url: string;
let k: IssuedKey;

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  k = await issueKey(app, 'retries@legalwork.test');
});
afterAll(async () => app.close());

interface Sent {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const res = await fetch(`${url}${path}`, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed, headers: res.headers };
}

let counter = 0;
const freshKey = () => `retry-${process.pid}-${++counter}-${Math.random().toString(36).slice(2)}`;

/** Every event of every grain but the idempotency records': what a retry must not add to. */
async function journalSize(grains: string[]): Promise<number> {
  let n = 0;
  for (const grain of grains) n += await app.services.journal.latestSeq(grain);
  return n;
}

const workspace = async () => `/workspaces/${(await send('POST', '/workspaces', undefined)).body.workspace.id}`;

/** Sends a write, then retries it under the same key: the retry answers the first answer again, writing nothing. */
async function retried(method: string, path: string, body: unknown, grains: string[], headers: Record<string, string> = {}) {
  const key = freshKey();
  const first = await send(method, path, body, { ...headers, 'idempotency-key': key });
  expect(first.headers.get('idempotent-replayed'), path).toBeNull();
  const size = await journalSize(grains);
  const records = await app.services.journal.latestSeq(IDEMPOTENCY_GRAIN);
  const again = await send(method, path, body, { ...headers, 'idempotency-key': key });
  expect(again.status, path).toBe(first.status);
  expect(again.text, path).toBe(first.text);
  expect(again.headers.get('idempotent-replayed'), path).toBe('true');
  expect(again.headers.get('etag'), path).toBe(first.headers.get('etag'));
  expect(await journalSize(grains), `${path}: a replay writes nothing`).toBe(size);
  expect(await app.services.journal.latestSeq(IDEMPOTENCY_GRAIN), `${path}: a replay keeps nothing new`).toBe(records);
  return { key, first };
}

describe('a retry under the same Idempotency-Key', () => {
  it('answers the first create, order, advance, document, gig-result, tenant Offer and firm enrollment byte for byte, writing once', async () => {
    // Top level, keyed: create and order.
    const created = await retried('POST', '/matters', { matterType: 'patent_provisional', asset: { title: 'Retried' } }, [k.grain], k.headers);
    expect(created.first.status).toBe(201);
    const order = await retried('POST', '/orders', { mint: 'acme', offer: 'provisional', title: 'Self-folding map', inventor: 'Ada Inventor', listFeeUsd: 199 }, [k.grain], k.headers);
    expect(order.first.status).toBe(201);
    const id = created.first.body.matter.id as string;
    const advanced = await retried('POST', `/matters/${id}/advance`, {}, [k.grain], k.headers);
    expect(advanced.first.status).toBe(200);
    const doc = await retried('POST', `/matters/${id}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: 'a'.repeat(64) }, [k.grain], k.headers);
    expect(doc.first.status).toBe(201);

    // A sandbox workspace: the Signer's answer to a pending Gig.
    const ws = await workspace();
    const grain = ws.split('/')[2];
    const opened = await send('POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    const mid = opened.body.matter.id as string;
    for (let i = 0; i < 4; i++) expect((await send('POST', `${ws}/matters/${mid}/advance`, {})).status).toBe(200);
    const gigId = (await send('GET', `${ws}/matters/${mid}`, undefined)).body.matter.pendingGigId as string;
    expect(gigId).toMatch(/^gig_/);
    const attestation = { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'c'.repeat(64)}` };
    const answered = await retried('POST', `${ws}/matters/${mid}/gig-result`, { gigId, outcome: 'attested', attestation }, [grain]);
    expect(answered.first.status).toBe(200);

    // A Tenant's Offers, and a firm's enrollment.
    const tenant = (await send('POST', '/tenants', undefined)).body.tenant.id as string;
    const offers = await retried('PUT', `/tenants/${tenant}/offers`, [{ id: 'of_letter', title: 'Demand letter', priceUsd: 80 }], [tenant]);
    expect(offers.first.status).toBe(200);
    const firm = (await send('POST', '/firms', undefined)).body.firm.id as string;
    const enrolled = await retried('POST', `/firms/${firm}/enrollments`, { memberId: 'mb_fixture_eligible' }, [firm]);
    expect(enrolled.first.status).toBe(201);
  });

  it('keeps a keyed create\'s and stage advance\'s answer in the command\'s own transaction: one record row, holding the very bytes sent and what the command wrote', async () => {
    const ws = await workspace();
    const grain = ws.split('/')[2];
    // Each step: the journal's grain and the records' tail before, the write under a fresh key, then what each gained.
    const keyed = async (path: string, body: unknown) => {
      const seq = await app.services.journal.latestSeq(grain);
      const records = await app.services.journal.latestSeq(IDEMPOTENCY_GRAIN);
      const sent = await send('POST', path, body, { 'idempotency-key': freshKey() });
      const kept = await app.services.journal.readTail(IDEMPOTENCY_GRAIN, { after: records, limit: 10, feed: 'timeline' });
      const facts = await app.services.journal.readTail(grain, { after: seq, limit: 100, feed: 'timeline' });
      return { sent, kept, facts };
    };
    const create = await keyed(`${ws}/matters`, { matterType: 'patent_provisional', asset: { title: 'One row' } });
    expect(create.sent.status).toBe(201);
    const id = create.sent.body.matter.id as string;
    expect(create.kept.map((r) => r.kind)).toEqual(['idempotency.answered']);
    expect(create.kept[0].data.answer).toEqual({ status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, payload: create.sent.text });
    expect(create.kept[0].data.wrote).toEqual(expect.arrayContaining([...new Set(create.facts.map((e) => e.stream))]));
    // The answer shows the seqs its own transaction gave (the Asset's docket): the bytes sent are the Matter's as a read answers it after.
    const read = await send('GET', `${ws}/matters/${id}`, undefined);
    expect(read.body.asset).toEqual(create.sent.body.asset);
    const advance = await keyed(`${ws}/matters/${id}/advance`, {});
    expect(advance.sent.status).toBe(200);
    expect(advance.sent.headers.get('etag')).toBe('"2"');
    expect(advance.kept.map((r) => r.kind)).toEqual(['idempotency.answered']);
    expect(advance.kept[0].data.answer).toEqual({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8', etag: '"2"' }, payload: advance.sent.text });
    expect(advance.kept[0].data.wrote).toEqual([id]);
    // The same advance sent without a key answers the same shape (another stage, the next version).
    const plain = await send('POST', `${ws}/matters/${id}/advance`, {});
    expect(Object.keys(plain.body)).toEqual(Object.keys(advance.sent.body));
    expect(Object.keys(plain.body.matter)).toEqual(Object.keys(advance.sent.body.matter));
  });

  it('keeps a refusal too: the retry gets the same 4xx, even once the state would let it through', async () => {
    const ws = await workspace();
    const created = await send('POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    const id = created.body.matter.id as string;
    const key = freshKey();
    // A refusal from the door itself (an unknown Matter) is kept as answered.
    const first = await send('POST', `${ws}/matters/mt_0000000000000000000000000/advance`, {}, { 'idempotency-key': key });
    expect(first.status).toBe(404);
    const again = await send('POST', `${ws}/matters/mt_0000000000000000000000000/advance`, {}, { 'idempotency-key': key });
    expect(again.status).toBe(404);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // A stale If-Match is kept as answered: the retry does not re-decide against the Matter as it is now.
    const key2 = freshKey();
    const stale = await send('POST', `${ws}/matters/${id}/advance`, {}, { 'idempotency-key': key2, 'if-match': '"9"' });
    expect(stale.status).toBe(412);
    const staleAgain = await send('POST', `${ws}/matters/${id}/advance`, {}, { 'idempotency-key': key2, 'if-match': '"9"' });
    expect(staleAgain.text).toBe(stale.text);
    expect(staleAgain.headers.get('idempotent-replayed')).toBe('true');
  });

  it('compares bodies by their canonical digest: key order and whitespace do not matter', async () => {
    const ws = await workspace();
    const key = freshKey();
    const first = await send('POST', `${ws}/matters`, '{"matterType":"patent_provisional","asset":{"title":"T","kind":"patent"}}', { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const again = await send('POST', `${ws}/matters`, '{ "asset" : { "kind" : "patent", "title" : "T" },\n "matterType" : "patent_provisional" }', { 'idempotency-key': key });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('a retry is claimed or replayed before any route-specific preparation', () => {
  it('replays a Tenant mint retried after the Tenant\'s Offers changed (same status and body), never judging it again as 422 UNKNOWN_OFFER', async () => {
    const tenant = (await send('POST', '/tenants', undefined)).body.tenant.id as string;
    const T = `/tenants/${tenant}`;
    expect((await send('PUT', `${T}/offers`, [{ id: 'of_a', title: 'A', priceUsd: 150, matterType: 'patent_provisional' }])).status).toBe(200);
    const key = freshKey();
    const first = await send('POST', `${T}/matters`, { offer: 'of_a' }, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    // The Offer the mint named is gone: a new request naming it is refused...
    expect((await send('PUT', `${T}/offers`, [{ id: 'of_b', title: 'B', priceUsd: 150, matterType: 'patent_provisional' }])).status).toBe(200);
    expect((await send('POST', `${T}/matters`, { offer: 'of_a' }, { 'idempotency-key': freshKey() })).body).toMatchObject({ code: 'UNKNOWN_OFFER' });
    // ...but the retry under the first key gets the first answer, writing nothing.
    const size = await journalSize([tenant]);
    const again = await send('POST', `${T}/matters`, { offer: 'of_a' }, { 'idempotency-key': key });
    expect(again.status, again.text).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await journalSize([tenant])).toBe(size);
  });
});

describe('the same key on another request, or on a request still running', () => {
  it('refuses another body, path or method under the same key with 422 IDEMPOTENCY_KEY_REUSED, writing nothing', async () => {
    const ws = await workspace();
    const grain = ws.split('/')[2];
    const key = freshKey();
    const first = await send('POST', `${ws}/matters`, { matterType: 'patent_provisional' }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const size = await journalSize([grain]);
    for (const [method, path, body] of [
      ['POST', `${ws}/matters`, { matterType: 'patent_provisional', asset: { title: 'another' } }],
      ['POST', `${ws}/orders`, { mint: 'acme', offer: 'provisional', title: 'Self-folding map', inventor: 'Ada Inventor', listFeeUsd: 199 }],
      ['POST', `${ws}/matters/${first.body.matter.id}/advance`, {}],
    ] as const) {
      const res = await send(method, path, body, { 'idempotency-key': key });
      expect(res.status, path).toBe(422);
      expect(res.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(res.body.error).toMatch(/another request/);
      expect(res.body.fix).toMatch(/new Idempotency-Key/);
    }
    expect(await journalSize([grain])).toBe(size);
  });

  it('runs exactly one of 20 concurrent requests under one key; the others answer 409 IDEMPOTENCY_KEY_IN_USE or replay it', async () => {
    const ws = await workspace();
    const grain = ws.split('/')[2];
    const key = freshKey();
    const before = await app.services.journal.countStreams(grain, 'matter.opened');
    const answers = await Promise.all(Array.from({ length: 20 }, () => send('POST', `${ws}/matters`, { matterType: 'patent_provisional' }, { 'idempotency-key': key })));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    }
    expect(await app.services.journal.countStreams(grain, 'matter.opened')).toBe(before + 1);
  });
});

describe('a key that cannot be kept', () => {
  it('refuses a malformed key with 400, before anything runs', async () => {
    const ws = await workspace();
    const grain = ws.split('/')[2];
    const size = await journalSize([grain]);
    for (const [key, why] of [
      ['x'.repeat(256), /256 characters/],
      ['tab\there', /printable ASCII/],
      ['é', /printable ASCII/],
    ] as const) {
      const res = await send('POST', `${ws}/matters`, { matterType: 'patent_provisional' }, { 'idempotency-key': key });
      expect(res.status, key).toBe(400);
      expect(res.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_INVALID' });
      expect(res.body.error).toMatch(why);
    }
    expect((await send('POST', `${ws}/matters`, { matterType: 'patent_provisional' }, { 'idempotency-key': 'x'.repeat(255) })).status).toBe(201);
    expect(await journalSize([grain])).toBe(size + 3);
  });

  it('refuses a key on a top-level write without an API key (no caller to keep it for) with 400, and ignores it on reads', async () => {
    const res = await send('POST', '/workspaces', undefined, { 'idempotency-key': freshKey() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_UNSCOPED' });
    expect(res.body.fix).toMatch(/Authorization: Bearer/);
    const keyed = await send('POST', '/workspaces', undefined, { 'idempotency-key': 'ws-1', ...k.headers });
    expect(keyed.status).toBe(201);
    const again = await send('POST', '/workspaces', undefined, { 'idempotency-key': 'ws-1', ...k.headers });
    expect(again.text).toBe(keyed.text);
    expect((await send('GET', '/healthz', undefined, { 'idempotency-key': freshKey() })).status).toBe(200);
    // A path no route serves answers as it would without the key.
    expect((await send('POST', '/no-such-door', {}, { 'idempotency-key': freshKey() })).body.code).toBe('ROUTE_NOT_FOUND');
    expect((await send('PUT', '/matters', {}, { 'idempotency-key': freshKey() })).body.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('keeps a key per caller: the same key under another API key or in another grain is another request', async () => {
    const other = await issueKey(app, 'other@legalwork.test');
    const key = freshKey();
    const mine = await send('POST', '/matters', { matterType: 'patent_provisional' }, { ...k.headers, 'idempotency-key': key });
    const theirs = await send('POST', '/matters', { matterType: 'patent_provisional' }, { ...other.headers, 'idempotency-key': key });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.matter.id).not.toBe(mine.body.matter.id);
  });
});

describe('a refusal of the first request under a key', () => {
  it('keeps a schema refusal too: the retry replays the 422 INVALID_REQUEST, and the same key on a valid body is another request', async () => {
    const ws = await workspace();
    const key = freshKey();
    const first = await send('POST', `${ws}/matters`, { matterType: 'patent_provisional', asset: { title: 7 } }, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(422);
    expect(first.body).toMatchObject({ code: 'INVALID_REQUEST' });
    const again = await send('POST', `${ws}/matters`, { matterType: 'patent_provisional', asset: { title: 7 } }, { 'idempotency-key': key });
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await send('POST', `${ws}/matters`, { matterType: 'patent_provisional' }, { 'idempotency-key': key })).body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });
});

describe('a repeated Idempotency-Key header', () => {
  it('refuses two Idempotency-Key headers on one request with 400 IDEMPOTENCY_KEY_INVALID, writing nothing, whether the values differ or not', async () => {
    const ws = await workspace();
    const grain = ws.split('/')[2];
    const size = await journalSize([grain]);
    const records = await app.services.journal.latestSeq(IDEMPOTENCY_GRAIN);
    const body = '{"matterType":"patent_provisional"}';
    for (const [a, b] of [
      [freshKey(), freshKey()],
      ['same-key', 'same-key'],
    ]) {
      // Sent raw: a client library would join the two into one header ("a, b"), which is the case Node hides.
      const client = await rawClient(url);
      try {
        client.write(`POST ${ws}/matters HTTP/1.1\r\nHost: legalwork.test\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nIdempotency-Key: ${a}\r\nIdempotency-Key: ${b}\r\n\r\n${body}`);
        await client.until(() => client.response() !== undefined, 5000, 'the answer');
        const res = client.response()!;
        expect(res.status, res.body).toBe(400);
        expect(res.headers['request-id']).toMatch(/^rq_/);
        expect(JSON.parse(res.body)).toMatchObject({ code: 'IDEMPOTENCY_KEY_INVALID', error: expect.stringMatching(/more than once/) });
      } finally {
        client.destroy();
      }
    }
    expect(await journalSize([grain])).toBe(size);
    expect(await app.services.journal.latestSeq(IDEMPOTENCY_GRAIN)).toBe(records);
    // One key whose value holds a comma is one key, not two.
    expect((await send('POST', `${ws}/matters`, JSON.parse(body), { 'idempotency-key': `${freshKey()},x` })).status).toBe(201);
  });
});

describe('the spend ceiling', () => {
  it('counts a retried paid act once: a ceiling of two Product Fees still admits a second Matter after a retried first', async () => {
    const issued = await send('POST', '/keys', { email: 'ceiling@legalwork.test', spendCeilingUsd: 2 * 199 });
    const headers = { authorization: `Bearer ${issued.body.key}` };
    const key = freshKey();
    const first = await send('POST', '/matters', { matterType: 'patent_provisional' }, { ...headers, 'idempotency-key': key });
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await send('POST', '/matters', { matterType: 'patent_provisional' }, { ...headers, 'idempotency-key': key })).text).toBe(first.text);
    expect((await app.services.keys.lookup(issued.body.key))!.owner.committedUsd).toBe(199);
    expect((await send('POST', '/matters', { matterType: 'patent_provisional' }, { ...headers, 'idempotency-key': freshKey() })).status).toBe(201);
    const third = await send('POST', '/matters', { matterType: 'patent_provisional' }, { ...headers, 'idempotency-key': freshKey() });
    expect(third.status).toBe(403);
    expect(third.body.code).toBe('SPEND_CEILING');
  });
});
