/**
 * A Matter's answer kept as a row (issue 37, item 2; `src/http/stored-answers.ts`),
 * on the pass's journal (SQLite, or PostgreSQL in the postgres project). Each app
 * is restarted before the reads that matter, so the Matter is not in memory
 * and its GET is answered from the row, or built from the journal when the
 * row is missing, stale, another build's or damaged. A Matter answered from
 * its row is not made resident (the built path loads it): that is how each
 * test tells the two paths apart. Whatever the path, the bytes and the ETag
 * are the ones the built path sends for the same state.
 */
import { describe, expect, it, vi } from 'vitest';
import { call, issueKey, workspace, type TestApp } from './helpers/app.ts';
import { journalled, type Store } from './helpers/pass-store.ts';
import { MAX_ROW_BYTES } from '../src/http/stored-answers.ts';

/** A Matter's GET as the route builds it from the entity in memory (its journal read first loads it). */
async function built(app: TestApp, path: string) {
  await call(app, 'GET', `${path}/journal`);
  const res = await call(app, 'GET', path);
  expect(res.status, res.raw).toBe(200);
  return res;
}

/**
 * A GET of a Matter not in memory, which must be answered from its row (the
 * Matter still not in memory after it) or, its row unusable, built from the
 * journal (the Matter loaded to answer).
 */
async function coldRead(app: TestApp, path: string, id: string, from: 'row' | 'journal') {
  expect(app.services.supervisor.isResident(id)).toBe(false);
  const res = await call(app, 'GET', path);
  expect(res.status, res.raw).toBe(200);
  expect(app.services.supervisor.isResident(id), from === 'row' ? 'answered from the row, nothing loaded' : 'built from the journal').toBe(from === 'journal');
  return res;
}
const fromRow = (app: TestApp, path: string, id: string) => coldRead(app, path, id, 'row');
const rebuilt = (app: TestApp, path: string, id: string) => coldRead(app, path, id, 'journal');

/** Opens a Matter in a workspace and advances it once; its path, id and Asset. */
async function advancedMatter(app: TestApp) {
  const ws = await workspace(app);
  const created = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Lovelace' }, asset: { title: 'Difference engine' } });
  expect(created.status, created.raw).toBe(201);
  const id: string = created.body.matter.id;
  expect((await call(app, 'POST', `${ws}/matters/${id}/advance`)).status).toBe(200);
  return { ws, id, path: `${ws}/matters/${id}`, assetId: created.body.asset.id as string };
}

/** Restarts on the same journal: the old app closed first (its rows written), the new one holding nothing in memory. */
async function restart(app: TestApp, start: () => Promise<TestApp>, damage?: (store: Store) => Promise<void>, store?: Store) {
  await app.close();
  if (damage) await damage(store!);
  return start();
}

describe("a Matter's answer kept as a row", () => {
  it('answers a Matter not in memory from the row its commits kept: the bytes and ETag the route builds, a 304 to that ETag, nothing loaded', async () => {
    const { start } = journalled();
    const first = await start();
    const { path, id } = await advancedMatter(first);
    // Never read before the restart: the row is the one the commits wrote (serialized as the route would).
    const second = await restart(first, start);
    const cold = await fromRow(second, path, id);
    const again = await call(second, 'GET', path, undefined, { 'if-none-match': String(cold.headers.etag) });
    expect(again.status).toBe(304);
    expect(second.services.supervisor.isResident(id)).toBe(false);
    const warm = await built(second, path);
    expect(cold.raw).toBe(warm.raw);
    expect(cold.headers.etag).toBe(warm.headers.etag);
    expect(cold.headers['content-type']).toBe(warm.headers['content-type']);
  });

  it('answers a top-level Matter from its row to any key, as a read by id does', async () => {
    const { start } = journalled();
    const first = await start();
    const owner = await issueKey(first, 'owner@legalwork.test');
    const created = await call(first, 'POST', '/matters', { matterType: 'patent_provisional', client: { name: 'Ada Lovelace' }, asset: { title: 'Analytical engine' } }, owner.headers);
    expect(created.status, created.raw).toBe(201);
    const id: string = created.body.matter.id;
    const second = await restart(first, start);
    const other = await issueKey(second, 'other@legalwork.test');
    const cold = await fromRow(second, `/matters/${id}`, id);
    expect(cold.body.provenance).toBeUndefined();
    const warm = await built(second, `/matters/${id}`);
    expect(cold.raw).toBe(warm.raw);
    // The same bytes to another key: nothing of the caller is in them.
    const third = await restart(second, start);
    expect((await fromRow(third, `/matters/${id}`, id)).raw).toBe(warm.raw);
    expect((await call(third, 'GET', `/matters/${id}`, undefined, other.headers)).raw).toBe(warm.raw);
  });

  it("never sends a sandbox Matter's row to another grain: another workspace is answered 404, as when built", async () => {
    const { start } = journalled();
    const first = await start();
    const { id } = await advancedMatter(first);
    const second = await restart(first, start);
    const elsewhere = await workspace(second);
    const res = await call(second, 'GET', `${elsewhere}/matters/${id}`);
    expect(res.status).toBe(404);
    expect(res.raw).not.toContain('Ada Lovelace');
  });

  it("builds the answer when a fact on the Matter's ladder made its row stale, and keeps the new one", async () => {
    const { start } = journalled();
    const first = await start();
    const { ws, path, id, assetId } = await advancedMatter(first);
    const second = await restart(first, start);
    const before = await fromRow(second, path, id);
    expect((await call(second, 'POST', `${ws}/deadlines/${assetId}/tick`, { days: 1 })).status).toBe(200);
    const third = await restart(second, start);
    const after = await rebuilt(third, path, id);
    expect(after.body.asset.deadlineLadder.daysUntilDeadline).toBe(before.body.asset.deadlineLadder.daysUntilDeadline - 1);
    // The bytes that read sent were kept: the next process answers from them.
    const fourth = await restart(third, start);
    expect((await fromRow(fourth, path, id)).raw).toBe(after.raw);
  });

  it("builds the answer when the Matter moved on, and never sends the row of another build's views", async () => {
    const { store, start } = journalled();
    const first = await start();
    const { path, id } = await advancedMatter(first);
    const second = await restart(first, start, (s) => s.sql("UPDATE answers SET tag = 'GET /matters/{id} another-build'"), store);
    const built2 = await rebuilt(second, path, id);
    expect((await call(second, 'POST', `${path}/advance`)).status).toBe(200);
    const third = await restart(second, start);
    const moved = await fromRow(third, path, id);
    expect(moved.body.matter.stage).not.toBe(built2.body.matter.stage);
    expect(moved.raw).toBe((await built(third, path)).raw);
  });

  it('never sends damaged bytes: a row whose bytes changed where they are stored is built again from the journal', async () => {
    const { store, start } = journalled();
    const first = await start();
    const { path, id } = await advancedMatter(first);
    const second = await restart(first, start, (s) => s.sql("UPDATE answers SET body = replace(body, 'Difference engine', 'Different engines')"), store);
    const res = await rebuilt(second, path, id);
    expect(res.raw).toContain('Difference engine');
    expect(res.raw).not.toContain('Different engines');
    const third = await restart(second, start);
    expect((await fromRow(third, path, id)).raw).toBe(res.raw);
  });
});

describe('a Matter whose answer outgrew a row', () => {
  it('is not kept past MAX_ROW_BYTES (its whole journal would be rewritten at each commit): its reads build it, as before rows', async () => {
    const { start } = journalled();
    const first = await start();
    const { path, id } = await advancedMatter(first);
    let size = 0;
    for (let i = 0; size <= MAX_ROW_BYTES; i++) {
      const doc = await call(first, 'POST', `${path}/documents`, { name: `exhibit-${i}-${'x'.repeat(400)}.pdf`, kind: 'exhibit', sha256: 'a'.repeat(64) });
      expect(doc.status, doc.raw).toBe(201);
      if (i % 20 === 19) size = (await call(first, 'GET', path)).raw.length;
    }
    const second = await restart(first, start);
    const res = await rebuilt(second, path, id);
    expect(res.raw.length).toBeGreaterThan(MAX_ROW_BYTES);
  });
});

describe("a page of Matters from their kept items", () => {
  /** Every page of the workspace's Matters, `limit` at a time: unfiltered (kept items) or by matter type (built, as every filtered page is). */
  async function pages(app: TestApp, ws: string, limit: number, built: boolean) {
    const results: unknown[] = [];
    let after = 0;
    for (;;) {
      const res = await call(app, 'GET', `${ws}/matters?limit=${limit}&after=${after}${built ? '&tag=patent_provisional' : ''}`);
      expect(res.status, res.raw).toBe(200);
      results.push(...res.body.results);
      expect(res.body.provenance?.environment).toBe('sandbox');
      if (res.body.nextAfter === null) return results;
      after = res.body.nextAfter;
    }
  }

  it('answers each page in one statement from the items the commits kept: the Matters a built page lists, paging unchanged, no Matter read; an item whose bytes were damaged is built again', async () => {
    const { store, start } = journalled();
    const first = await start();
    const ws = await workspace(first);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await call(first, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Lovelace' }, asset: { title: `Engine ${i}` } });
      ids.push(created.body.matter.id);
      if (i % 2) expect((await call(first, 'POST', `${ws}/matters/${created.body.matter.id}/advance`)).status).toBe(200);
    }
    const second = await restart(first, start);
    const reads = vi.spyOn(second.services.supervisor, 'read');
    const kept = await pages(second, ws, 2, false);
    expect(reads).not.toHaveBeenCalled();
    expect(kept.map((m) => (m as { id: string }).id)).toEqual(ids);
    expect(kept).toEqual(await pages(second, ws, 2, true));
    // One item damaged where it is stored: that Matter alone is read and its item built, the page the same.
    const third = await restart(second, start, (s) => s.sql(`UPDATE answers SET item = replace(item, 'intake', 'outtake') WHERE stream = '${ids[2]}'`), store);
    const rebuilt = vi.spyOn(third.services.supervisor, 'read');
    expect(await pages(third, ws, 2, false)).toEqual(kept);
    expect(rebuilt.mock.calls.map((c) => c[1])).toEqual([ids[2]]);
  });

  it('builds the item of a Matter whose kept item is not at its stream\'s version, and lists it as it stands', async () => {
    const { start } = journalled();
    const first = await start();
    const { ws, id } = await advancedMatter(first);
    // Its row kept (a stop waits for the queued puts), the next commit's is never written (as by a crash between the two):
    // the kept item is left a version behind its stream.
    const second = await restart(first, start);
    vi.spyOn(second.services.journal, 'putAnswer').mockResolvedValue(undefined);
    expect((await call(second, 'POST', `${ws}/matters/${id}/advance`)).status).toBe(200);
    const before = (await pages(second, ws, 10, true))[0] as { stage: string };
    const third = await restart(second, start);
    const reads = vi.spyOn(third.services.supervisor, 'read');
    const after = (await pages(third, ws, 10, false))[0] as { stage: string };
    expect(reads.mock.calls.map((c) => c[1])).toEqual([id]);
    expect(after).toEqual(before);
  });
});
