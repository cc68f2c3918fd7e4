/**
 * fast-check: conflicts ledger entries only grow. Random appends (well-formed
 * hashes and plaintext) to random ledgers: every read shows the previous read
 * as its prefix, a 201 adds exactly its entry at the end, a refusal adds
 * nothing, and no other ledger moves.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex as h } from '../src/domain/hash.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => app.close());

describe('conflicts ledgers', () => {
  it('entries only grow, one per accepted append, and never across ledgers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ledger: fc.nat(2), name: fc.string({ maxLength: 10 }), plaintext: fc.boolean() }), { minLength: 1, maxLength: 15 }),
        async (appends) => {
          const W = await workspace(app);
          const F = `/firms/${(await call(app, 'POST', '/firms')).body.firm.id}`;
          const ledgers = [`${W}/conflicts/pr_a`, `${W}/conflicts/pr_b`, `${F}/conflicts`];
          const read = async (url: string) => ((await call(app, 'GET', `${url}?limit=500`)).body.results ?? []) as Array<{ seq: number; nameHash: string; recordedAt: string }>;
          const seen = await Promise.all(ledgers.map(read));
          for (const a of appends) {
            const res = await call(app, 'POST', `${ledgers[a.ledger]}/entries`, { nameHash: a.plaintext ? a.name : h(a.name) });
            const now = await Promise.all(ledgers.map(read));
            for (let i = 0; i < ledgers.length; i++) {
              expect(now[i].slice(0, seen[i].length)).toEqual(seen[i]);
              const grew = now[i].length - seen[i].length;
              if (i === a.ledger && res.status === 201) {
                expect(grew).toBe(1);
                expect(now[i][now[i].length - 1]).toEqual(res.body.entry);
              } else expect(grew).toBe(0);
            }
            if (res.status !== 201) expect(res.status).toBe(422);
            for (let i = 0; i < ledgers.length; i++) seen[i] = now[i];
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
