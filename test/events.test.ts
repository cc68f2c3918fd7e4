/**
 * `GET /events`: each grain's own tail, append-only, ordered by seq, cursored
 * with `after`; the three feeds; the page limits; the typed envelopes; the
 * refusals. The SSE wire is in `sse.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { call, listeningApp, testApp, workspace, type TestApp } from './helpers/app.ts';
import { rawClient } from './helpers/raw-client.ts';
import { HANG_MS } from './helpers/wait.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

type Entry = { seq: number; kind: string; subject: string; summary: string; at: string; actor?: string; deliverTo?: string; data: Record<string, unknown> };

async function page(prefix: string, query = '') {
  const res = await call(app, 'GET', `${prefix}/events${query ? `?${query}` : ''}`);
  expect(res.status, res.raw).toBe(200);
  return res.body as { type: 'OK' | 'EMPTY'; appendOnly: true; latestSeq: number; results: Entry[]; nextAfter: number; message?: string };
}

/** A workspace with a busy tail: Matters, a consent, a direction, ladder moves and reminders. */
async function busyWorkspace() {
  const prefix = await workspace(app);
  const b2a2d = await call(app, 'POST', `${prefix}/matters`, { matterType: 'contract_review', consumerPattern: 'B2A2D', asset: { title: `${FIXTURE.noticeEvePrefix} supply agreement` } });
  const matterId = b2a2d.body.matter.id as string;
  const assetId = b2a2d.body.matter.assetId as string;
  expect((await call(app, 'POST', `${prefix}/matters/${matterId}/consent`, { actor: 'client', scope: 'engagement' })).status).toBe(200);
  expect((await call(app, 'POST', `${prefix}/matters/${matterId}/client-direction`, { instruction: 'hold the indemnity cap at 1x fees' })).status).toBe(200);
  expect((await call(app, 'POST', `${prefix}/deadlines/${assetId}/monitor`, { signerId: 'platform' })).status).toBe(200);
  expect((await call(app, 'POST', `${prefix}/deadlines/${assetId}/tick`, { days: 26 })).status).toBe(200);
  expect((await call(app, 'POST', `${prefix}/deadlines/${assetId}/ack`, { actor: 'Dana Reviewer' })).status).toBe(200);
  for (let i = 0; i < 4; i++) expect((await call(app, 'POST', `${prefix}/matters`, { matterType: 'demand_letter' })).status).toBe(201);
  return { prefix, matterId, assetId };
}

describe('GET /events', () => {
  it('answers {type: OK, appendOnly: true, latestSeq, results[]} in seq order, gap-free from 1', async () => {
    const { prefix } = await busyWorkspace();
    const all = await page(prefix, 'limit=500');
    expect(all).toMatchObject({ type: 'OK', appendOnly: true });
    expect(all.results.map((e) => e.seq)).toEqual(Array.from({ length: all.latestSeq }, (_, i) => i + 1));
    for (const e of all.results) {
      expect(Object.keys(e).sort()).toEqual(expect.arrayContaining(['at', 'data', 'kind', 'seq', 'subject', 'summary']));
      // The tail shows facts, not the engine's bookkeeping.
      for (const internal of ['cause', 'grain', 'stream', 'version']) expect(e).not.toHaveProperty(internal);
    }
  });

  it('pages with after and limit (default 100, at most 500) without skipping or repeating', async () => {
    const { prefix } = await busyWorkspace();
    const all = (await page(prefix, 'limit=500')).results.map((e) => e.seq);
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const p = await page(prefix, `after=${after}&limit=3`);
      if (p.type === 'EMPTY') break;
      expect(p.results.length).toBeLessThanOrEqual(3);
      seen.push(...p.results.map((e) => e.seq));
      expect(p.nextAfter).toBe(p.results[p.results.length - 1].seq);
      after = p.nextAfter;
    }
    expect(seen).toEqual(all);
    // The default page is 100 events.
    for (let i = 0; i < 40; i++) await call(app, 'POST', `${prefix}/matters`, { matterType: 'demand_letter' });
    expect((await page(prefix)).results).toHaveLength(100);
    expect((await page(prefix, 'limit=500')).results.length).toBeGreaterThan(100);
  });

  it('answers a typed EMPTY after the last event, naming where the tail ends', async () => {
    const { prefix } = await busyWorkspace();
    const { latestSeq } = await page(prefix);
    const empty = await page(prefix, `after=${latestSeq}`);
    expect(empty).toMatchObject({ type: 'EMPTY', appendOnly: true, latestSeq, results: [] });
    expect(empty.message).toContain(String(latestSeq));
    expect((await page(prefix, 'after=999999')).type).toBe('EMPTY');
  });

  it('refuses a feed off the enum and malformed cursors or limits with 422', async () => {
    const prefix = await workspace(app);
    for (const query of ['feed=everything', 'feed=', 'limit=0', 'limit=501', 'limit=ten', 'after=-1', 'after=1.5', 'cursor=3']) {
      const res = await call(app, 'GET', `${prefix}/events?${query}`);
      expect(res.status, query).toBe(422);
      expect(typeof res.body.error, query).toBe('string');
    }
  });

  it('reminders: only reminder.* events of ladder rungs, each addressed to the owner or marked vacant', async () => {
    const { prefix, assetId } = await busyWorkspace();
    const vacantAsset = (await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional', asset: { title: `${FIXTURE.ackDuePrefix} gadget` } })).body.matter.assetId as string;
    await call(app, 'POST', `${prefix}/deadlines/${vacantAsset}/tick`, { days: 1 });
    const reminders = (await page(prefix, 'feed=reminders')).results;
    expect(reminders.map((e) => [e.kind, e.subject, e.data.atDaysRemaining])).toEqual([
      ['reminder.notice', assetId, 30],
      ['reminder.ack_missed', assetId, 7],
      ['reminder.ack_missed', assetId, 6],
      ['reminder.ack_due', assetId, 5],
      ['reminder.ack_missed', vacantAsset, 5],
      ['reminder.ack_due', vacantAsset, 4],
    ]);
    for (const r of reminders) {
      if (r.subject === assetId) expect(r).toMatchObject({ deliverTo: 'platform', data: { alarm: 'nominal' } });
      else expect(r.deliverTo === undefined && r.data.alarm === 'vacant').toBe(true);
    }
  });

  it('time: only events with a named actor (acks, consents, client directions, attestation outcomes)', async () => {
    const { prefix } = await busyWorkspace();
    const fulfilled = await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient } });
    for (let i = 0; i < 6; i++) await call(app, 'POST', `${prefix}/matters/${fulfilled.body.matter.id}/advance`, {});
    const time = (await page(prefix, 'feed=time&limit=500')).results;
    expect(time.every((e) => typeof e.actor === 'string' && e.actor.length > 0)).toBe(true);
    const kinds = new Set(time.map((e) => e.kind));
    for (const kind of ['consent', 'client.direction', 'ladder.acked', 'stage']) expect(kinds, kind).toContain(kind);
    expect(time.find((e) => e.kind === 'stage')?.actor).toBe(FIXTURE.eligibleSigner);
    const timeline = (await page(prefix, 'limit=500')).results;
    expect(time.map((e) => e.seq)).toEqual(timeline.filter((e) => e.actor !== undefined).map((e) => e.seq));
  });

  it('gives each grain its own tail: top level, workspaces, tenants and firms never see each other', async () => {
    const a = await busyWorkspace();
    const b = await workspace(app);
    const tenant = (await call(app, 'POST', '/tenants')).body.tenant.id as string;
    const firm = (await call(app, 'POST', '/firms')).body.firm.id as string;
    const tails = {
      a: await page(a.prefix, 'limit=500'),
      b: await page(b, 'limit=500'),
      tenant: await page(`/tenants/${tenant}`, 'limit=500'),
      firm: await page(`/firms/${firm}`, 'limit=500'),
      root: await page('', 'limit=500'),
    };
    for (const [name, tail] of Object.entries(tails)) {
      expect(tail.results.map((e) => e.seq), name).toEqual(Array.from({ length: tail.results.length }, (_, i) => i + 1));
    }
    expect(tails.b.results.map((e) => e.kind)).toEqual(['workspace.opened']);
    expect(tails.tenant.results.map((e) => e.kind)).toEqual(['tenant.opened']);
    expect(tails.firm.results.map((e) => e.kind)).toEqual(['firm.opened']);
    const subjectsOfA = new Set(tails.a.results.map((e) => e.subject));
    for (const other of [tails.b, tails.tenant, tails.firm, tails.root]) for (const e of other.results) expect(subjectsOfA.has(e.subject)).toBe(false);
    expect((await call(app, 'GET', '/workspaces/ws_0000000000000000000000000/events')).status).toBe(404);
  });
});

describe('HEAD /events/stream with Accept: text/event-stream, over a real socket', () => {
  it('answers a status line and headers, never SSE frames, and leaves the connection usable (kept alive) or closed (Connection: close)', async () => {
    // Keep-alive comments every 100 ms: a stream opened by mistake would show itself at once.
    const { app: listening, url } = await listeningApp({ sseKeepAliveMs: 100 });
    const clients: Awaited<ReturnType<typeof rawClient>>[] = [];
    try {
      const ws = ((await (await fetch(`${url}/workspaces`, { method: 'POST' })).json()) as { workspace: { id: string } }).workspace.id;
      const head = (extra = '') => `HEAD /workspaces/${ws}/events/stream HTTP/1.1\r\nHost: legalwork.test\r\nAccept: text/event-stream\r\n${extra}\r\n`;

      // Kept alive: the answer is headers only, and the next request on the connection is served.
      const kept = await rawClient(url);
      clients.push(kept);
      kept.write(head());
      await kept.until(() => kept.received.includes('\r\n\r\n'), HANG_MS, 'the HEAD answer');
      // A negative: four keep-alive periods in which a stream opened by mistake would have written. A loaded core can
      // only make the window show less, never fail it.
      await new Promise((r) => setTimeout(r, 400));
      expect(kept.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      const [headers, rest] = kept.received.split('\r\n\r\n');
      expect(headers).toMatch(/\r\ncontent-type: application\/json/i);
      expect(headers).not.toMatch(/text\/event-stream/i);
      expect(headers).toMatch(/\r\nrequest-id: rq_/i);
      expect(rest, 'nothing after the headers: no frames, no keep-alive comments').toBe('');
      expect(kept.isClosed).toBe(false);
      kept.write('GET /healthz HTTP/1.1\r\nHost: legalwork.test\r\n\r\n');
      await kept.until(() => (kept.received.match(/HTTP\/1\.1 /g) ?? []).length === 2 && kept.received.endsWith('}'), HANG_MS, 'the next answer on the same connection');
      expect(kept.received.slice(kept.received.lastIndexOf('HTTP/1.1 '))).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*"status":"live"/);

      // Connection: close: the answer is headers only, and the service closes the connection (no stream held open).
      const closing = await rawClient(url);
      clients.push(closing);
      closing.write(head('Connection: close\r\n'));
      await closing.until(() => closing.isClosed, HANG_MS, 'the service to close the connection');
      expect(closing.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(closing.received.split('\r\n\r\n')[1]).toBe('');
      expect(closing.received).not.toMatch(/^(event|id|data):|^:/m);
    } finally {
      for (const c of clients) c.destroy();
      await listening.close();
    }
  });
});
