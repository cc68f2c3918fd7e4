/**
 * A fast-check property over random interleavings of two keys' commands:
 * one key's write never touches, and one key's list or tail never reveals,
 * the other's records. Each key's journal is exactly what that key alone did.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, issueKey, testApp, type IssuedKey, type TestApp } from './helpers/app.ts';

type Command =
  | { kind: 'create'; by: 0 | 1; keyed: boolean }
  | { kind: 'write'; by: 0 | 1; on: 0 | 1; pick: number; keyed: boolean; door: 'advance' | 'consent' | 'documents' | 'terminal' | 'tick' }
  | { kind: 'read'; by: 0 | 1 };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), by: fc.constantFrom(0 as const, 1 as const), keyed: fc.boolean() }),
  fc.record({ kind: fc.constant('write' as const), by: fc.constantFrom(0 as const, 1 as const), on: fc.constantFrom(0 as const, 1 as const), pick: fc.nat(), keyed: fc.boolean(), door: fc.constantFrom('advance' as const, 'consent' as const, 'documents' as const, 'terminal' as const, 'tick' as const) }),
  fc.record({ kind: fc.constant('read' as const), by: fc.constantFrom(0 as const, 1 as const) }),
);

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());

it('two keys never touch or see each other\'s records, whatever the interleaving', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(command, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), async (rounds) => {
      const keys: IssuedKey[] = [await issueKey(app), await issueKey(app)];
      const owned: Array<Array<{ id: string; assetId: string }>> = [[], []];
      const send = async (c: Command) => {
        const k = keys[c.by];
        // A write under an Idempotency-Key renders its answer inside its commit (src/http/answer-ahead.ts): held to the same bounds.
        const headers = c.kind !== 'read' && c.keyed ? { ...k.headers, 'idempotency-key': randomUUID() } : k.headers;
        if (c.kind === 'create') {
          const res = await call(app, 'POST', '/matters', { matterType: 'contract_review', consumerPattern: 'B2A2D' }, headers);
          expect(res.status).toBe(201);
          owned[c.by].push({ id: res.body.matter.id, assetId: res.body.matter.assetId });
          return;
        }
        if (c.kind === 'read') {
          for (const path of ['/matters', '/assets', '/events', '/inspection/matters', '/inspection/deadlines', '/inspection/matters/states/open.intake', '/inspection/matters/states/lapsed']) {
            const text = (await call(app, 'GET', path, undefined, k.headers)).raw;
            for (const m of owned[1 - c.by]) expect(text).not.toContain(m.id);
          }
          return;
        }
        const target = owned[c.on][c.pick % Math.max(owned[c.on].length, 1)];
        if (!target) return;
        const path = { advance: `/matters/${target.id}/advance`, consent: `/matters/${target.id}/consent`, documents: `/matters/${target.id}/documents`, terminal: `/matters/${target.id}/terminal`, tick: `/deadlines/${target.assetId}/tick` }[c.door];
        const body = { advance: {}, consent: { actor: 'client', scope: 'all' }, documents: { name: 'a.pdf', kind: 'spec', sha256: 'c'.repeat(64) }, terminal: { outcome: 'lapsed', confirmedUnresponsiveTwice: true }, tick: { days: 1 } }[c.door];
        const res = await call(app, 'POST', path, body, headers);
        if (c.by !== c.on) {
          expect(res.status).toBe(404);
        } else {
          expect(res.status).toBeLessThan(500);
        }
      };
      for (const round of rounds) await Promise.all(round.map(send));
      // Each key's tail holds only its own records, and every record it holds is in its tail.
      for (const by of [0, 1] as const) {
        const tail = (await call(app, 'GET', '/events?limit=500', undefined, keys[by].headers)).body;
        const subjects = new Set((tail.results ?? []).map((e: { subject: string }) => e.subject));
        for (const m of owned[by]) expect(subjects.has(m.id)).toBe(true);
        for (const m of owned[1 - by]) {
          expect(subjects.has(m.id)).toBe(false);
          expect(subjects.has(m.assetId)).toBe(false);
        }
        // Where its Matters gather counts exactly its own.
        const gathered = (await call(app, 'GET', '/inspection/matters', undefined, keys[by].headers)).body;
        expect(gathered.type === 'EMPTY' ? 0 : gathered.population.total).toBe(owned[by].length);
        const streams = await Promise.all(owned[by].map((m) => app.services.journal.readStream(m.id)));
        for (const stream of streams) for (const e of stream) expect(e.grain).toBe(keys[by].grain);
      }
    }),
    { numRuns: 25 },
  );
});
