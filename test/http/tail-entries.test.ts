/**
 * The event tail's entries kept as bytes (issue 48, item 2;
 * `src/http/tail-entries.ts`): a page of the timeline is one range read of
 * the entries the journal kept beside its events, and it is the very page
 * the door builds from the events, byte for byte (its ETag too), on each
 * adapter. A range with an event whose entry is not kept is built as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, testApp, workspace, type TestApp } from '../helpers/app.ts';
import type { TailFrame } from '../../src/journal/store.ts';

let app: TestApp;
let ws: string;
let grain: string;

beforeAll(async () => {
  app = await testApp();
  ws = await workspace(app);
  grain = ws.split('/')[2];
  // Opened Matters (each with its Asset and ladder), advanced into every stage and one escalation, a ladder ticked: facts of many kinds.
  for (let i = 0; i < 4; i++) {
    const id = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', asset: { title: `Tail ${i} "quoted" \u2028 é` } })).body.matter.id as string;
    for (let n = 0; n <= i; n++) await call(app, 'POST', `${ws}/matters/${id}/advance`, { note: `advance ${n}` });
  }
});
afterAll(async () => app.close());

/** The journal's page reads, counted; `off` makes the door build every page from the events. */
function entriesRead() {
  const journal = app.services.journal as { readTailEntries?: (grain: string, after: number, limit: number, frame: TailFrame) => Promise<Buffer | string | null> };
  const original = journal.readTailEntries!;
  const seen = { pages: 0, off: false };
  journal.readTailEntries = async (...args) => {
    if (seen.off) return null;
    const page = await original.apply(journal, args);
    if (page) seen.pages++;
    return page;
  };
  return { seen, restore: () => (journal.readTailEntries = original) };
}

describe('a page of the tail from its kept entries', () => {
  it('is one read of the kept entries, and the same bytes and ETag as the page built from the events', async () => {
    const { seen, restore } = entriesRead();
    try {
      const latest = (await call(app, 'GET', `${ws}/events?limit=1`)).body.latestSeq as number;
      expect(latest).toBeGreaterThan(20);
      for (const [after, limit] of [[0, 100], [0, 7], [3, 5], [latest - 4, 10], [latest - 1, 100], [Math.floor(latest / 2), 3]]) {
        const before = seen.pages;
        const kept = await call(app, 'GET', `${ws}/events?after=${after}&limit=${limit}`);
        expect(kept.status).toBe(200);
        expect(seen.pages, `after=${after}&limit=${limit} read from the kept entries`).toBe(before + 1);
        seen.off = true;
        // The same query written otherwise: not the page the first request kept (`kept-pages.ts`), built from the events.
        const built = await call(app, 'GET', `${ws}/events?limit=${limit}&after=${after}`);
        seen.off = false;
        expect(kept.raw, `after=${after}&limit=${limit}`).toBe(built.raw);
        expect(kept.headers.etag).toBe(built.headers.etag);
      }
      // Past the end: the typed EMPTY, built as before.
      const empty = await call(app, 'GET', `${ws}/events?after=${latest}`);
      expect(empty.body.type).toBe('EMPTY');
    } finally {
      restore();
    }
  });

  it('builds the sparse feeds as before, and answers an unknown cursor\'s page the same', async () => {
    const reminders = await call(app, 'GET', `${ws}/events?feed=reminders`);
    expect(reminders.status).toBe(200);
    const timeline = await call(app, 'GET', `${ws}/events?after=0&limit=500`);
    expect(timeline.body.results.map((e: { seq: number }) => e.seq)).toEqual(timeline.body.results.map((_: unknown, i: number) => i + 1));
    // The adapter's page is the entries between the envelope's halves, whole: the same items the door sends.
    const page = await app.services.journal.readTailEntries!(grain, 0, 500, () => ['[', ']']);
    expect(JSON.parse(String(page))).toEqual(timeline.body.results);
  });
});
