/**
 * A page survives one bad stream (issue 38, item 4). Streams are damaged
 * among many by writing rows straight into the journal's tables of the
 * pass's database (SQLite, or PostgreSQL in the postgres project): an event
 * body that is not JSON, an event the Matter's machine refuses, an opening
 * that does not read, and a snapshot row that does not parse (whose events
 * fold, so its Matter is served). Each list page then answers 200 with the
 * damaged record as an `UnreadableItem` (its id, the code, a worded error
 * and fix), the others exactly as before, and paging unchanged; the item
 * says nothing of what the stream holds; a read by id answers the declared
 * ENTITY_UNREADABLE. The app is restarted on the damaged journal, so no
 * state a process kept in memory hides the damage. The event tail answers
 * an event whose body does not read as an `UnreadableEntry` in its place,
 * on a page, on the event stream and to a webhook endpoint alike, and goes
 * on past it.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { call, PASS_JOURNAL, topLevelKey, workspace, type TestApp } from './helpers/app.ts';
import { journalled, type Store } from './helpers/pass-store.ts';
import { receiver } from './helpers/receiver.ts';
import { SseClient } from './helpers/sse-client.ts';

/** What a damaged stream must never show: a Client's name and the bytes of the body written into it. */
const SECRET = 'Ada Lovelace-Secret-Inventor';

/**
 * Appends one raw row to `stream` in `grain`, as no adapter would write it,
 * at the next seq of the grain and the next version of the stream (an
 * INSERT: the journal refuses UPDATE and DELETE of events).
 */
async function insertRow(store: Store, grain: string, stream: string, kind: string, body: string): Promise<void> {
  await store.sql(
    `INSERT INTO events (grain, seq, stream, version, at, kind, actor, body)
     SELECT ?, (SELECT coalesce(max(seq), 0) + 1 FROM events WHERE grain = ?), ?, (SELECT coalesce(max(version), 0) + 1 FROM events WHERE stream = ?), ?, ?, NULL, ?`,
    [grain, grain, stream, stream, '2026-11-27T12:00:00.000Z', kind, body],
  );
  // PostgreSQL keeps each grain's head seq in a row of its own (the next append takes the seq after it); SQLite reads it from the events.
  if (PASS_JOURNAL === 'postgres') await store.sql('UPDATE grain_heads SET seq = seq + 1 WHERE grain = ?', [grain]);
}

/** A list's last page names no next cursor; the tail's cursor always goes on, and its end is the EMPTY page. */
const LAST_OF_A_LIST = (body: Record<string, any>) => body.nextAfter === null || body.nextAfter === undefined;
const LAST_OF_A_TAIL = (body: Record<string, any>) => body.type === 'EMPTY';

/** Every item of a list (or a tail), page by page (`limit` each), following `nextAfter` to the last page. */
async function everyPage(app: TestApp, path: string, limit: number, headers: Record<string, string> = {}, isLast = LAST_OF_A_LIST) {
  const items: Array<Record<string, any>> = [];
  const pages: string[] = [];
  const cursors: Array<number | null> = [];
  let after = 0;
  for (;;) {
    const res = await call(app, 'GET', `${path}?limit=${limit}&after=${after}`, undefined, headers);
    expect(res.status, `${path} after ${after}: ${res.raw}`).toBe(200);
    pages.push(res.raw);
    items.push(...(res.body.results ?? []));
    cursors.push(res.body.nextAfter ?? null);
    if (isLast(res.body)) return { items, pages, cursors };
    after = res.body.nextAfter;
  }
}

describe('a list page with an unreadable stream on it', () => {
  it('answers 200 with the damaged Matters and Asset typed as unreadable, the others intact, paging unchanged, nothing of the stream shown', async () => {
    const { store, start } = journalled();
    const first = await start();
    const ws = await workspace(first);
    const grain = ws.split('/')[2];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call(first, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: SECRET }, asset: { title: `Map ${i}` } });
      expect(res.status).toBe(201);
      ids.push(res.body.matter.id);
      if (i % 2) await call(first, 'POST', `${ws}/matters/${res.body.matter.id}/advance`);
    }
    const before = await everyPage(first, `${ws}/matters`, 3);
    const assetsBefore = await everyPage(first, `${ws}/assets`, 3);
    await first.close();

    // Matter 1: an event body that is not JSON (and carries the Client's name in its bytes).
    await insertRow(store, grain, ids[1], 'stage', `{"subject":"${ids[1]}","data":{"client":{"name":"${SECRET}"}`);
    // Matter 4: valid JSON the machine refuses: a cause it has no transition for.
    await insertRow(store, grain, ids[4], 'stage', JSON.stringify({ subject: ids[4], summary: SECRET, by: 'agent', data: { client: { name: SECRET } }, cause: { type: 'WARP_TO_FILED' } }));
    // Matter 6: its snapshot row garbled; its events fold, so it is served as before.
    await store.sql('UPDATE snapshots SET state = ? WHERE stream = ?', [`{"not a state": "${SECRET}"`, ids[6]]);
    // A Matter and an Asset whose openings do not read, after every other record.
    const badMatter = 'mt_0badbadbadbadbadbadbadbad';
    const badAsset = 'as_0badbadbadbadbadbadbadbad';
    await insertRow(store, grain, badMatter, 'matter.opened', `{"data":{"client":{"name":"${SECRET}"}},`);
    await insertRow(store, grain, badAsset, 'asset.minted', `["${SECRET}"]`);

    const app = await start();
    const unreadable = new Set([ids[1], ids[4], badMatter]);
    for (const limit of [3, 100]) {
      const after = await everyPage(app, `${ws}/matters`, limit);
      // Every Matter in its place, oldest first; the new one last.
      expect(after.items.map((m) => m.id)).toEqual([...ids, badMatter]);
      for (const item of after.items) {
        if (unreadable.has(item.id)) {
          expect(item).toEqual({ id: item.id, unreadable: true, code: 'STREAM_UNREADABLE', error: expect.stringContaining(item.id), fix: expect.stringContaining(`${ws}/matters/${item.id}`) });
        } else {
          expect(item).toEqual(before.items.find((m) => m.id === item.id));
        }
      }
      // The attack angle: no page says anything the damaged streams hold.
      for (const raw of after.pages) {
        expect(raw).not.toContain('Lovelace');
        expect(raw).not.toContain('WARP_TO_FILED');
        expect(raw).not.toContain('not a state');
      }
    }
    // The cursors are the ones the clean journal gave: an unreadable Matter holds its place (the new one, last, only fills the last page).
    const paged = await everyPage(app, `${ws}/matters`, 3);
    expect(paged.cursors.slice(0, 2)).toEqual(before.cursors.slice(0, 2));

    // A filter by type keeps what it can read that matches, and the unreadable openings (it cannot say they do not match).
    const narrowed = await call(app, 'GET', `${ws}/matters?tag=patent_utility`);
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.results.map((m: { id: string }) => m.id)).toEqual([badMatter]);

    const assets = await everyPage(app, `${ws}/assets`, 3);
    expect(assets.items.slice(0, -1)).toEqual(assetsBefore.items);
    expect(assets.items.at(-1)).toEqual({ id: badAsset, unreadable: true, code: 'STREAM_UNREADABLE', error: expect.stringContaining(badAsset), fix: expect.stringContaining(`${ws}/assets/${badAsset}`) });
    for (const raw of assets.pages) expect(raw).not.toContain('Lovelace');
    const asset = await call(app, 'GET', `${ws}/assets/${badAsset}`);
    expect(asset.status, asset.raw).toBe(500);
    expect(asset.body).toMatchObject({ code: 'ENTITY_UNREADABLE', stream: badAsset, seq: expect.any(Number) });
    expect(asset.raw).not.toContain('Lovelace');

    // Read by id: the declared, worded ENTITY_UNREADABLE naming the stream and the seq, never the body.
    for (const id of unreadable) {
      const res = await call(app, 'GET', `${ws}/matters/${id}`);
      expect(res.status, res.raw).toBe(500);
      expect(res.body).toMatchObject({ code: 'ENTITY_UNREADABLE', stream: id, seq: expect.any(Number), fix: expect.any(String) });
      expect(res.raw).not.toContain('Lovelace');
    }
    // The Matter whose snapshot row was garbled reads by id as before.
    expect((await call(app, 'GET', `${ws}/matters/${ids[6]}`)).status).toBe(200);
  });

  it('at the top level, a key\'s own page answers its unreadable Matter the same way', async () => {
    const { store, start } = journalled();
    const first = await start();
    const key = await topLevelKey(first);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(first, 'POST', '/matters', { matterType: 'patent_provisional', client: { name: SECRET } }, key.headers);
      expect(res.status, res.raw).toBe(201);
      ids.push(res.body.matter.id);
    }
    await first.close();
    await insertRow(store, key.grain, ids[0], 'stage', `{"subject":"${ids[0]}","note":"${SECRET}`);

    const app = await start();
    const page = await call(app, 'GET', '/matters', undefined, key.headers);
    expect(page.status, page.raw).toBe(200);
    expect(page.body.results.map((m: { id: string; unreadable?: true }) => [m.id, m.unreadable ?? false])).toEqual([[ids[0], true], [ids[1], false], [ids[2], false]]);
    expect(page.body.results[0].fix).toContain(`GET /matters/${ids[0]}`);
    expect(page.raw).not.toContain('Lovelace');
  });

  it('a tail answers an event whose body does not read as an UnreadableEntry in its place, on every page, on the event stream and past it to a webhook endpoint', async () => {
    const { store, start } = journalled();
    const first = await start();
    const ws = await workspace(first);
    const grain = ws.split('/')[2];
    const hook = await receiver();
    expect((await call(first, 'POST', `${ws}/webhooks`, { url: hook.url, events: ['matter.escalated'] })).status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call(first, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: SECRET } })).body.matter.id);
    const before = await everyPage(first, `${ws}/events`, 2, {}, LAST_OF_A_TAIL);
    await first.close();

    await insertRow(store, grain, ids[1], 'stage', `{"subject":"${ids[1]}","data":{"client":{"name":"${SECRET}"}`);
    const badSeq = before.items.at(-1)!.seq + 1;

    const app = await start();
    // After the damage: a Matter walked to its first reserved act, which the endpoint is sent past the unreadable event.
    const escalated = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient } });
    expect(escalated.status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await call(app, 'POST', `${ws}/matters/${escalated.body.matter.id}/advance`, {})).status).toBe(200);
    for (const limit of [2, 100]) {
      const { items, pages } = await everyPage(app, `${ws}/events`, limit, {}, LAST_OF_A_TAIL);
      expect(items.map((e) => e.seq)).toEqual(Array.from({ length: items.length }, (_, i) => i + 1));
      expect(items.slice(0, before.items.length)).toEqual(before.items);
      expect(items[badSeq - 1]).toEqual({ seq: badSeq, at: '2026-11-27T12:00:00.000Z', subject: ids[1], unreadable: true, code: 'STREAM_UNREADABLE', error: expect.stringContaining(`seq ${badSeq}`), fix: expect.any(String) });
      expect(items.length).toBeGreaterThan(badSeq);
      for (const raw of pages) expect(raw).not.toContain('Lovelace');
    }

    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const stream = new SseClient(`${url}${ws}/events/stream?after=${badSeq - 1}`);
    await stream.until(() => stream.frames.length >= 2, undefined, 'the unreadable event and the one after it');
    stream.req.destroy();
    expect(JSON.parse(stream.frames[0].data!)).toMatchObject({ seq: badSeq, unreadable: true, code: 'STREAM_UNREADABLE' });
    expect(JSON.parse(stream.frames[1].data!).seq).toBe(badSeq + 1);
    expect(stream.frames.map((f) => f.data).join('')).not.toContain('Lovelace');

    // The endpoint's worker was not stopped by the event it cannot read: it delivered the escalation after it.
    await hook.until(1);
    expect(JSON.parse(hook.received[0].body)).toMatchObject({ type: 'matter.escalated', data: { matter: { id: escalated.body.matter.id } } });
    await hook.close();
  });

  it('a redelivery of an event whose fact no longer reads is refused 500 ENTITY_UNREADABLE naming its stream and seq, not answered 202 for an attempt that sends nothing', async () => {
    const { store, start } = journalled();
    const first = await start();
    const ws = await workspace(first);
    const hook = await receiver();
    const endpoint = (await call(first, 'POST', `${ws}/webhooks`, { url: hook.url, events: ['matter.escalated'] })).body.webhook.id;
    const created = await call(first, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient } });
    for (let i = 0; i < 5; i++) expect((await call(first, 'POST', `${ws}/matters/${created.body.matter.id}/advance`, {})).status).toBe(200);
    await hook.until(1);
    const [attempt] = (await call(first, 'GET', `${ws}/webhooks/${endpoint}/deliveries`)).body.results;
    await first.close();
    // The delivered fact's body damaged in place, past the journal's append-only guard (as a disk or a hand would; the next start puts it back).
    if (PASS_JOURNAL === 'sqlite') await store.sql('DROP TRIGGER events_no_update');
    else await store.sql('ALTER TABLE events DISABLE TRIGGER events_no_update');
    await store.sql(`UPDATE events SET body = ? WHERE grain = ? AND seq = ?`, [`{"data":{"client":{"name":"${SECRET}"}`, ws.split('/')[2], attempt.seq]);
    if (PASS_JOURNAL === 'postgres') await store.sql('ALTER TABLE events ENABLE TRIGGER events_no_update');

    const app = await start();
    const again = await call(app, 'POST', `${ws}/webhooks/${endpoint}/deliveries/${attempt.deliveryId}/redeliver`);
    expect(again.status, again.raw).toBe(500);
    expect(again.body).toMatchObject({ code: 'ENTITY_UNREADABLE', seq: attempt.seq });
    expect(again.raw).not.toContain('Lovelace');
    // A redelivery sends the same event id again: none was sent.
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.received.filter((r) => r.headers['webhook-id'] === attempt.eventId)).toHaveLength(1);
    await hook.close();
  });
});
