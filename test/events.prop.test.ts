/**
 * fast-check properties of the event tail under concurrent writes: within a
 * grain the seqs are strictly increasing and gap-free, and paging with `after`
 * while writes land never skips or repeats an event, on every feed. Writes to
 * another grain never show up.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import type { Feed } from '../src/journal/store.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

type Entry = { seq: number; kind: string; actor?: string };
type Op = { grain: 0 | 1; act: 'matter' | 'tick' | 'ack' | 'monitor' };

const op: fc.Arbitrary<Op> = fc.record({ grain: fc.constantFrom(0 as const, 1 as const), act: fc.constantFrom('matter' as const, 'tick' as const, 'ack' as const, 'monitor' as const) });
const reader = fc.record({ feed: fc.constantFrom<Feed>('timeline', 'reminders', 'time'), limit: fc.integer({ min: 1, max: 6 }) });

/** Pages a grain's feed from the start while `writing` is true, then once more to the end. */
async function pageThrough(prefix: string, feed: Feed, limit: number, writing: () => boolean): Promise<number[]> {
  const seqs: number[] = [];
  let after = 0;
  for (;;) {
    const finished = !writing();
    const res = await call(app, 'GET', `${prefix}/events?feed=${feed}&after=${after}&limit=${limit}`);
    expect(res.status).toBe(200);
    const results = res.body.results as Entry[];
    seqs.push(...results.map((e) => e.seq));
    if (results.length) after = results[results.length - 1].seq;
    // Done only when a read that began after the last write came back short.
    if (finished && results.length < limit) return seqs;
    if (!results.length) await new Promise((r) => setImmediate(r));
  }
}

const inFeed = (feed: Feed, e: Entry) => (feed === 'reminders' ? e.kind.startsWith('reminder.') : feed === 'time' ? e.actor !== undefined : true);

describe('the tail under concurrent writes', () => {
  it('seqs are strictly increasing and gap-free per grain; paging never skips or repeats', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 30 }), fc.array(reader, { minLength: 1, maxLength: 3 }), async (ops, readers) => {
        const grains = [await workspace(app), await workspace(app)];
        // Each grain starts with a ladder inside its final week, so ticks and acks fire reminders and time entries.
        const assets = await Promise.all(
          grains.map(async (prefix) => (await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_maintenance', asset: { title: `${FIXTURE.ackDuePrefix} p` } })).body.matter.assetId as string),
        );
        let writing = true;
        const writes = Promise.all(
          ops.map(async ({ grain, act }) => {
            const prefix = grains[grain];
            const ladder = `${prefix}/deadlines/${assets[grain]}`;
            if (act === 'matter') return call(app, 'POST', `${prefix}/matters`, { matterType: 'demand_letter' });
            if (act === 'tick') return call(app, 'POST', `${ladder}/tick`, { days: 1 });
            if (act === 'ack') return call(app, 'POST', `${ladder}/ack`, { actor: 'Dana Reviewer' });
            return call(app, 'POST', `${ladder}/monitor`, { signerId: 'platform' });
          }),
        ).finally(() => {
          writing = false;
        });
        const reads = Promise.all(readers.map((r) => pageThrough(grains[0], r.feed, r.limit, () => writing)));
        const [responses, seen] = await Promise.all([writes, reads]);
        for (const res of responses) expect(res.status).toBeLessThan(500);

        for (const prefix of grains) {
          const tail = (await call(app, 'GET', `${prefix}/events?limit=500`)).body;
          const seqs = (tail.results as Entry[]).map((e) => e.seq);
          expect(seqs).toEqual(Array.from({ length: tail.latestSeq }, (_, i) => i + 1));
        }
        const full = (await call(app, 'GET', `${grains[0]}/events?limit=500`)).body.results as Entry[];
        readers.forEach((r, i) => {
          expect(seen[i], `${r.feed} reader, pages of ${r.limit}`).toEqual(full.filter((e) => inFeed(r.feed, e)).map((e) => e.seq));
        });
      }),
      { numRuns: 30 },
    );
  }, 300_000);
});
