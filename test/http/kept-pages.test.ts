/**
 * Pages kept by their grain's seq (`src/http/kept-pages.ts`): a page of
 * `GET /matters`, `GET /assets` or the event tail read again while nothing
 * was written to its grain is sent as it was kept, with its ETag, reading no
 * row of the journal but the grain's seq; any write to the grain (another
 * app's on a shared PostgreSQL journal too) and the page is built again,
 * equal to what an app that never kept it builds. A tail page read from its
 * kept entries is one range read, and not kept (`src/http/tail-entries.ts`). On the pass's journal;
 * the two-app case on PostgreSQL always.
 */
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/compose.ts';
import { KeptPages } from '../../src/http/kept-pages.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { call, issueKey, workspace, type TestApp } from '../helpers/app.ts';
import { journalled } from '../helpers/pass-store.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';

const MATTER = { matterType: 'patent_provisional', client: { name: 'Ada Lovelace' }, asset: { title: 'Difference engine' } };

/** Counts the reads a built page makes (a kept one makes none of them). */
function pageReads(journal: JournalStore) {
  return [vi.spyOn(journal, 'listItems'), vi.spyOn(journal, 'streamHeads'), vi.spyOn(journal, 'readTail'), vi.spyOn(journal, 'entityHeads')];
}

/**
 * A tail page read from its kept entries (`src/http/tail-entries.ts`: one range read, as cheap as a kept page) is
 * not kept: its reads are counted apart.
 */
const entryReads = (journal: JournalStore) => (journal.readTailEntries ? vi.spyOn(journal as Required<JournalStore>, 'readTailEntries') : null);
const readsMade = (spies: ReturnType<typeof pageReads>) => spies.reduce((n, s) => n + s.mock.calls.length, 0);

/** The pages of a grain prefix this test reads. */
const pagesOf = (prefix: string) => [`${prefix}/matters?limit=2`, `${prefix}/matters?limit=100`, `${prefix}/assets`, `${prefix}/events?limit=5`, `${prefix}/events?after=2&limit=100`, `${prefix}/matters?tag=none`];

async function opened(app: TestApp, prefix: string, n: number, headers: Record<string, string> = {}) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(app, 'POST', `${prefix}/matters`, MATTER, headers);
    expect(res.status, res.raw).toBe(201);
    ids.push(res.body.matter.id);
  }
  return ids;
}

describe('pages kept by their grain seq', () => {
  it('sends a page read again as it was sent, with its ETag and a 304 to it, reading nothing but the seq; a write to the grain builds it again, as an app that kept nothing builds it', async () => {
    const { start } = journalled();
    const first = await start();
    const ws = await workspace(first);
    const [id] = await opened(first, ws, 3);
    const sent = new Map<string, { raw: string; etag: unknown }>();
    for (const path of pagesOf(ws)) {
      const res = await call(first, 'GET', path);
      expect(res.status, res.raw).toBe(200);
      sent.set(path, { raw: res.raw, etag: res.headers.etag });
    }
    const spies = pageReads(first.services.journal);
    const entries = entryReads(first.services.journal);
    for (const path of pagesOf(ws)) {
      const again = await call(first, 'GET', path);
      expect(again.raw, path).toBe(sent.get(path)!.raw);
      expect(again.headers.etag, path).toBe(sent.get(path)!.etag);
      expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
      expect((await call(first, 'GET', path, undefined, { 'if-none-match': String(again.headers.etag) })).status).toBe(304);
    }
    expect(readsMade(spies), 'a kept page reads no row').toBe(0);
    // The tail's pages, from their kept entries where the adapter keeps them: one range read each (with the 304's).
    expect(entries?.mock.calls.length ?? 0).toBe(entries ? 4 : 0);

    // A write to the grain: every page of it is built again, and shows it.
    expect((await call(first, 'POST', `${ws}/matters/${id}/advance`)).status).toBe(200);
    const after = new Map<string, string>();
    for (const path of pagesOf(ws)) after.set(path, (await call(first, 'GET', path)).raw);
    expect(readsMade(spies) + (entries?.mock.calls.length ?? 0) - (entries ? 4 : 0)).toBeGreaterThanOrEqual(pagesOf(ws).length - 1);
    expect(after.get(`${ws}/matters?limit=2`)).not.toBe(sent.get(`${ws}/matters?limit=2`)!.raw);
    expect(after.get(`${ws}/events?limit=5`)).not.toBe(sent.get(`${ws}/events?limit=5`)!.raw);

    // What an app that never kept a page builds from the same journal.
    await first.close();
    const second = await start();
    for (const path of pagesOf(ws)) expect((await call(second, 'GET', path)).raw, path).toBe(after.get(path));
  });

  it("keeps each grain's pages apart: a write elsewhere leaves them kept, and one key's page is never sent to another", async () => {
    const { start } = journalled();
    const app = await start();
    const [wsA, wsB] = [await workspace(app), await workspace(app)];
    await opened(app, wsA, 2);
    const [inB] = await opened(app, wsB, 1);
    const pageA = await call(app, 'GET', `${wsA}/matters`);
    const spies = pageReads(app.services.journal);
    expect((await call(app, 'POST', `${wsB}/matters/${inB}/advance`)).status).toBe(200);
    expect((await call(app, 'GET', `${wsA}/matters`)).raw).toBe(pageA.raw);
    expect(readsMade(spies), "another grain's write moves no page of this one").toBe(0);

    const [a, b] = [await issueKey(app, 'a@legalwork.test'), await issueKey(app, 'b@legalwork.test')];
    const [ofA] = await opened(app, '', 1, a.headers);
    const listA = await call(app, 'GET', '/matters', undefined, a.headers);
    expect(listA.raw).toContain(ofA);
    const listB = await call(app, 'GET', '/matters', undefined, b.headers);
    expect(listB.body.type).toBe('EMPTY');
    expect(listB.raw).not.toContain(ofA);
    expect((await call(app, 'GET', '/events', undefined, b.headers)).raw).not.toContain(ofA);
    expect((await call(app, 'GET', '/matters')).raw, 'keyless').not.toContain(ofA);
  });

  it('holds its pages and their keys to their bytes: the page used longest ago is forgotten, and built again when asked', async () => {
    let seq = 1;
    let builds = 0;
    const pages = new KeptPages({ latestSeq: async () => seq }, 4096);
    const server = Fastify();
    server.decorateRequest('grain', 'g');
    pages.install(server);
    server.get('/p/:n', async (request, reply) => {
      if (await pages.sendKept(request, reply)) return reply;
      builds += 1;
      return { n: (request.params as { n: string }).n, pad: 'x'.repeat(1000) };
    });
    const get = async (n: number) => (await server.inject({ url: `/p/${n}` })).json().n;
    for (let n = 0; n < 10; n++) expect(await get(n)).toBe(String(n));
    expect(builds).toBe(10);
    expect(pages.bytesHeld).toBeLessThanOrEqual(4096);
    expect(pages.bytesHeld).toBeGreaterThan(3000);
    await get(9);
    expect(builds, 'the newest is kept').toBe(10);
    await get(0);
    expect(builds, 'the oldest was forgotten').toBe(11);
    seq += 1;
    await get(0);
    expect(builds, 'the seq moved').toBe(12);
    // Small answers under long paths: the keys count too.
    for (let n = 0; n < 50; n++) expect((await server.inject({ url: `/p/${n}?${'q'.repeat(2000)}` })).statusCode).toBe(200);
    expect(pages.bytesHeld).toBeLessThanOrEqual(4096);
    await server.close();
  });

  it('on one PostgreSQL journal, a write by another app moves the page of the app that kept it', async () => {
    const schema = freshSchema();
    const journals = [await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }), await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema })];
    const [one, two] = [await createApp({ journal: journals[0] }), await createApp({ journal: journals[1] })];
    try {
      await Promise.all([one.ready(), two.ready()]);
      const ws = await workspace(one);
      const [id] = await opened(one, ws, 2);
      const kept = await call(one, 'GET', `${ws}/matters`);
      expect((await call(one, 'GET', `${ws}/matters`)).raw).toBe(kept.raw);
      expect((await call(two, 'POST', `${ws}/matters/${id}/advance`)).status).toBe(200);
      const moved = await call(one, 'GET', `${ws}/matters`);
      expect(moved.raw).not.toBe(kept.raw);
      expect(moved.raw).toBe((await call(two, 'GET', `${ws}/matters`)).raw);
      const tail = await call(one, 'GET', `${ws}/events?limit=100`);
      expect(tail.body.latestSeq).toBe((await call(two, 'GET', `${ws}/events?limit=1`)).body.latestSeq);
    } finally {
      await one.close();
      await two.close();
      for (const journal of journals) await journal.close();
      await dropSchema(schema);
    }
  });
});
