/**
 * `GET /events/stream` over a real listening port with a real HTTP client:
 * the JSON descriptor without the Accept header, the backlog then live frames,
 * resume with Last-Event-ID, the keep-alive, feeds, a thousand concurrent
 * subscribers, a slow subscriber dropped without holding writers, and a close
 * that does not wait on open streams.
 */
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import type { AppOptions } from '../src/compose.ts';
import { call, listeningApp, topLevelHeaders, type TestApp } from './helpers/app.ts';
import { SseClient } from './helpers/sse-client.ts';
import { HANG_MS, within } from './helpers/wait.ts';

let current: { app: TestApp; url: string } | undefined;
const clients: SseClient[] = [];

async function serve(options: Partial<AppOptions> = {}) {
  current = await listeningApp({ creationBound: { limit: 1_000_000 }, ...options });
  return current;
}

function subscribe(url: string, headers?: Record<string, string>, agent?: http.Agent) {
  const client = new SseClient(url, headers, agent);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await current?.app.close();
  current = undefined;
});

async function workspaceWithLadder(app: TestApp, title = `${FIXTURE.noticeEvePrefix} widget`) {
  const ws = await call(app, 'POST', '/workspaces');
  const prefix = `/workspaces/${ws.body.workspace.id}`;
  const created = await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional', asset: { title } });
  return { prefix, assetId: created.body.matter.assetId as string };
}

describe('GET /events/stream without Accept: text/event-stream', () => {
  it('answers the subscription contract as JSON at once', async () => {
    const { app, url } = await serve();
    const { prefix } = await workspaceWithLadder(app);
    const res = await fetch(`${url}${prefix}/events/stream?feed=reminders`, { signal: AbortSignal.timeout(HANG_MS) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({ type: 'OK', latestSeq: 4, subscription: { accept: 'text/event-stream', feed: 'reminders', frame: { event: 'grain-event' }, keepAlive: { everySeconds: 15 } } });
  });

  it('refuses a feed off the enum and a malformed Last-Event-ID with 422, an unknown grain with 404', async () => {
    const { app, url } = await serve();
    const { prefix } = await workspaceWithLadder(app);
    for (const accept of ['text/event-stream', 'application/json']) {
      expect((await fetch(`${url}${prefix}/events/stream?feed=all`, { headers: { accept } })).status).toBe(422);
      const bad = await fetch(`${url}${prefix}/events/stream`, { headers: { accept, 'last-event-id': 'seven' } });
      expect(bad.status).toBe(422);
      expect((await bad.json()).code).toBe('INVALID_LAST_EVENT_ID');
    }
    expect((await fetch(`${url}/workspaces/ws_0000000000000000000000000/events/stream`, { headers: { accept: 'text/event-stream' } })).status).toBe(404);
  });
});

describe('the SSE wire', () => {
  it('sends the backlog after the cursor, then each new event as it commits', async () => {
    const { app, url } = await serve();
    const { prefix, assetId } = await workspaceWithLadder(app);
    const client = subscribe(`${url}${prefix}/events/stream`);
    await client.opened;
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(client.headers['request-id']).toMatch(/^rq_/);
    await client.until(() => client.frames.length === 4, HANG_MS, 'the backlog');
    const tail = (await call(app, 'GET', `${prefix}/events`)).body.results;
    expect(client.frames.map((f) => f.event)).toEqual(['grain-event', 'grain-event', 'grain-event', 'grain-event']);
    expect(client.ids()).toEqual([1, 2, 3, 4]);
    expect(client.frames.map((f) => JSON.parse(f.data!))).toEqual(tail);

    const tick = await call(app, 'POST', `${prefix}/deadlines/${assetId}/tick`, { days: 1 });
    expect(tick.status).toBe(200);
    await client.until(() => client.frames.length === 6, HANG_MS, 'the live events');
    expect(client.ids()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(JSON.parse(client.frames[5].data!)).toMatchObject({ seq: 6, kind: 'reminder.notice', subject: assetId, data: { atDaysRemaining: 30 } });
  });

  it('resumes right after Last-Event-ID, which wins over after', async () => {
    const { app, url } = await serve();
    const { prefix, assetId } = await workspaceWithLadder(app);
    await call(app, 'POST', `${prefix}/deadlines/${assetId}/tick`, { days: 3 });
    const resumed = subscribe(`${url}${prefix}/events/stream?after=1`, { 'last-event-id': '4' });
    const byQuery = subscribe(`${url}${prefix}/events/stream?after=2`);
    await resumed.until(() => resumed.frames.length === 2, HANG_MS, 'frames after 4');
    await byQuery.until(() => byQuery.frames.length === 4, HANG_MS, 'frames after 2');
    expect(resumed.ids()).toEqual([5, 6]);
    expect(byQuery.ids()).toEqual([3, 4, 5, 6]);
    await call(app, 'POST', `${prefix}/deadlines/${assetId}/monitor`, { signerId: 'platform' });
    await resumed.until(() => resumed.frames.length === 3, HANG_MS, 'the next live frame');
    expect(resumed.ids()).toEqual([5, 6, 7]);
  });

  it('streams only the chosen feed', async () => {
    const { app, url } = await serve();
    const { prefix, assetId } = await workspaceWithLadder(app);
    const reminders = subscribe(`${url}${prefix}/events/stream?feed=reminders`);
    const time = subscribe(`${url}${prefix}/events/stream?feed=time`);
    await Promise.all([reminders.opened, time.opened]);
    await call(app, 'POST', `${prefix}/deadlines/${assetId}/tick`, { days: 25 });
    await call(app, 'POST', `${prefix}/deadlines/${assetId}/ack`, { actor: 'Dana Reviewer' });
    await reminders.until(() => reminders.frames.length === 3, HANG_MS, 'the reminders');
    await time.until(() => time.frames.length === 1, HANG_MS, 'the ack');
    // 31 -> 6: the notice, day 7 passed without an ack, today's ack due.
    expect(reminders.frames.map((f) => JSON.parse(f.data!).kind)).toEqual(['reminder.notice', 'reminder.ack_missed', 'reminder.ack_due']);
    expect(reminders.ids()).toEqual([6, 7, 8]);
    expect(JSON.parse(time.frames[0].data!)).toMatchObject({ kind: 'ladder.acked', actor: 'Dana Reviewer' });
    expect(time.ids()).toEqual([9]);
  });

  it('sends a keep-alive comment at the configured interval', async () => {
    const { app, url } = await serve({ sseKeepAliveMs: 40 });
    const { prefix } = await workspaceWithLadder(app);
    const client = subscribe(`${url}${prefix}/events/stream`);
    // Three at the configured 40 ms come within a fraction of a second, even on a loaded core; at the default
    // interval (15 s) the first alone would take longer than this wait.
    await client.until(() => client.comments.filter((c) => c === 'keep-alive').length >= 3, 10_000, 'three keep-alives');
    expect(client.frames).toHaveLength(4);
  });

  it('fills a gap from the journal when an append did not pass through the bus', async () => {
    const { app, url } = await serve();
    const { prefix } = await workspaceWithLadder(app);
    const grain = prefix.split('/')[2];
    const client = subscribe(`${url}${prefix}/events/stream`);
    await client.until(() => client.frames.length === 4, HANG_MS, 'the backlog');
    const { supervisor, journal } = app.services;
    await journal.append(grain, [supervisor.factWrite('side-stream', 0, { kind: 'test.silent', by: 'test', data: {} })]);
    await supervisor.appendFact(grain, 'side-stream', 1, { kind: 'test.announced', by: 'test', data: {} });
    await client.until(() => client.frames.length === 6, HANG_MS, 'both events');
    expect(client.ids()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(client.frames.slice(4).map((f) => JSON.parse(f.data!).kind)).toEqual(['test.silent', 'test.announced']);
  });

  it("reads another process's commit once for all the grain's subscribers, not once each", async () => {
    const { app, url } = await serve();
    const { prefix } = await workspaceWithLadder(app);
    const grain = prefix.split('/')[2];
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const many = Array.from({ length: 100 }, () => subscribe(`${url}${prefix}/events/stream?after=4`, {}, agent));
    await Promise.all(many.map((c) => c.until(() => c.comments.length > 0, 30_000, 'the stream to open')));
    const { supervisor, journal, bus } = app.services;
    // Each subscriber first reads its backlog itself; once an announced event has reached every one, none is
    // reading the journal any more (a backlog read still under way would be counted below: seen on PostgreSQL).
    await supervisor.appendFact(grain, 'announced', 0, { kind: 'test.announced', by: 'test', data: {} });
    await Promise.all(many.map((c) => c.until(() => c.frames.length === 1, 30_000, 'the announced event')));
    // Two commits the bus never announced, as another process's are: heard as a grain and a seq only.
    await journal.append(grain, [supervisor.factWrite('elsewhere', 0, { kind: 'test.elsewhere', by: 'test', data: {} })]);
    await journal.append(grain, [supervisor.factWrite('elsewhere', 1, { kind: 'test.elsewhere', by: 'test', data: {} })]);
    const reads = vi.spyOn(journal, 'readTail');
    bus.emit('committedElsewhere', grain, 6);
    bus.emit('committedElsewhere', grain, 7);
    await Promise.all(many.map((c) => c.until(() => c.frames.length === 3, 30_000, 'both events')));
    for (const c of many) expect(c.ids()).toEqual([5, 6, 7]);
    // Of this grain's tail: on a shared journal the webhook engine also reads its own grain when a notice is unknown.
    const readsOfGrain = () => reads.mock.calls.filter(([read]) => read === grain).length;
    expect(readsOfGrain(), 'reads of the tail for 100 subscribers').toBeLessThanOrEqual(2);
    // Heard as unknown (the session reconnected): read once, to the tail's end.
    await journal.append(grain, [supervisor.factWrite('elsewhere', 2, { kind: 'test.elsewhere', by: 'test', data: {} })]);
    reads.mockClear();
    bus.emit('committedElsewhere', null, 0);
    await Promise.all(many.map((c) => c.until(() => c.frames.length === 4, 30_000, 'the unheard event')));
    for (const c of many) expect(c.ids()).toEqual([5, 6, 7, 8]);
    expect(readsOfGrain()).toBeLessThanOrEqual(1);
    agent.destroy();
  }, 60_000);

  it('delivers one event to 1,000 concurrent subscribers', async () => {
    const { app, url } = await serve();
    const { prefix, assetId } = await workspaceWithLadder(app);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const many = Array.from({ length: 1000 }, () => subscribe(`${url}${prefix}/events/stream?after=4`, {}, agent));
    await Promise.all(many.map((c) => c.until(() => c.comments.length > 0, 30_000, 'the stream to open')));
    const tick = await call(app, 'POST', `${prefix}/deadlines/${assetId}/tick`, { days: 2 });
    expect(tick.status).toBe(200);
    await Promise.all(many.map((c) => c.until(() => c.frames.length === 2, 30_000, 'the event')));
    for (const c of many) expect(c.ids()).toEqual([5, 6]);
    agent.destroy();
  }, 60_000);
});

describe('slow and dead subscribers', () => {
  it('drops a subscriber that stops reading, never holding writers or other subscribers; it resumes with Last-Event-ID', async () => {
    const { app, url } = await serve({ sseMaxBufferedBytes: 256 * 1024 });
    const { prefix } = await workspaceWithLadder(app);
    const grain = prefix.split('/')[2];
    const slow = subscribe(`${url}${prefix}/events/stream?after=4`);
    const healthy = subscribe(`${url}${prefix}/events/stream?after=4`);
    await Promise.all([slow.opened, healthy.opened]);
    slow.res!.pause();
    // 2,000 events of 4 KB (8 MB), committed 16 at a time: more than the socket
    // buffers (at most 4 MB here) plus the 256 KB allowance.
    const { supervisor } = app.services;
    const blob = 'x'.repeat(4 * 1024);
    const TOTAL = 2000;
    for (let round = 0; round < TOTAL / 16; round++) {
      await Promise.all(
        Array.from({ length: 16 }, (_, k) => {
          const i = round * 16 + k;
          return supervisor.openStream(grain, `bulk-${i}`, { kind: 'test.bulk', by: 'test', data: { i, blob } });
        }),
      );
    }
    await healthy.until(() => healthy.frames.length === TOTAL, 20_000, 'every bulk event');
    expect(healthy.ids()).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 5));
    // The slow one was cut off; what it had read is a prefix, and it resumes from there.
    slow.res!.resume();
    await slow.until(() => slow.ended, 10_000, 'the drop');
    const got = slow.ids();
    expect(got.length).toBeLessThan(TOTAL);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 5));
    const last = got.length ? got[got.length - 1] : 4;
    const resumed = subscribe(`${url}${prefix}/events/stream`, { 'last-event-id': String(last) });
    await resumed.until(() => resumed.frames.length === TOTAL + 4 - last, 20_000, 'the rest');
    expect(resumed.ids()).toEqual(Array.from({ length: TOTAL + 4 - last }, (_, i) => i + last + 1));
  }, 60_000);

  it('does not keep app.close() waiting on open streams', async () => {
    const { app, url } = await serve();
    const { prefix } = await workspaceWithLadder(app);
    const open = [subscribe(`${url}${prefix}/events/stream`), subscribe(`${url}/events/stream`, await topLevelHeaders(app))];
    await Promise.all(open.map((c) => c.until(() => c.comments.length > 0, HANG_MS, 'the stream')));
    // Left open, a stream never ends by itself (a keep-alive comment every 15 s, no timeout cuts it), so a close
    // that waited on it would wait for ever: that close returns at all, and the streams end, is the proof.
    await within(app.close(), 'app.close() with two event streams open');
    current = undefined;
    await within(Promise.all(open.map((c) => c.closed)), 'the open streams to end');
  });
});
