/**
 * fast-check property of Idempotency-Key (issue 14): for any sequence of
 * writes, each possibly followed by a retry under its key (the same request)
 * or by a misuse of its key (another body), the journal is the journal of the
 * same sequence sent once each: a retry adds nothing, a misuse adds nothing,
 * and the answers a retry gets are the first answers, byte for byte.
 *
 * Two services side by side: one gets the retries, the other does not; their
 * workspace tails are compared with ids and instants set aside (each service
 * mints its own).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../src/journal/memory.ts';
import type { JournalEvent } from '../src/journal/store.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';

type Retry = 'none' | 'same' | 'other';
type Op =
  | { kind: 'create'; title: string; retry: Retry }
  | { kind: 'advance'; pick: number; retry: Retry }
  | { kind: 'document'; pick: number; name: string; retry: Retry };

const retry = fc.constantFrom<Retry>('none', 'same', 'other');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), title: fc.string({ minLength: 1, maxLength: 12 }), retry }),
  fc.record({ kind: fc.constant('advance' as const), pick: fc.nat(20), retry }),
  fc.record({ kind: fc.constant('document' as const), pick: fc.nat(20), name: fc.string({ minLength: 1, maxLength: 12 }), retry }),
);

/** A write of the sequence: its path and body, and another body under the same key (a misuse). */
function requestOf(o: Op, prefix: string, matters: string[]): { path: string; body: object; other: object } | null {
  if (o.kind === 'create') return { path: `${prefix}/matters`, body: { matterType: 'patent_provisional', asset: { title: o.title } }, other: { matterType: 'patent_provisional', asset: { title: `${o.title}!` } } };
  if (matters.length === 0) return null;
  const id = matters[o.pick % matters.length];
  if (o.kind === 'advance') return { path: `${prefix}/matters/${id}/advance`, body: {}, other: { note: 'another request' } };
  return { path: `${prefix}/matters/${id}/documents`, body: { name: o.name, kind: 'specification', sha256: 'a'.repeat(64) }, other: { name: `${o.name}!`, kind: 'specification', sha256: 'b'.repeat(64) } };
}

/** A tail with each stream named by the order it first appears, and without instants or minted ids. */
function shapeOf(tail: JournalEvent[]): unknown[] {
  const streams = new Map<string, number>();
  const named = (s: string) => (streams.has(s) ? streams.get(s)! : (streams.set(s, streams.size), streams.size - 1));
  return tail.map((e) => [e.seq, named(e.stream), e.version, e.kind, e.verb ?? null, e.by ?? null]);
}

let retried: TestApp;
let plain: TestApp;
beforeAll(async () => {
  retried = await testApp({ journal: new MemoryJournal(), creationBound: { limit: 1_000_000 } });
  plain = await testApp({ journal: new MemoryJournal(), creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await retried.close();
  await plain.close();
});

describe('retries under Idempotency-Key', () => {
  it('leave the journal as the same sequence sent once each, and answer the first answers byte for byte', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        run++;
        const sides = [
          { app: retried, prefix: await workspace(retried), matters: [] as string[] },
          { app: plain, prefix: await workspace(plain), matters: [] as string[] },
        ];
        for (const [i, o] of ops.entries()) {
          for (const side of sides) {
            const request = requestOf(o, side.prefix, side.matters);
            if (!request) continue;
            const key = { 'idempotency-key': `run-${run}-op-${i}` };
            const first = await call(side.app, 'POST', request.path, request.body, key);
            if (o.kind === 'create' && first.status === 201) side.matters.push(first.body.matter.id);
            if (side.app !== retried || o.retry === 'none') continue;
            if (o.retry === 'same') {
              const again = await call(side.app, 'POST', request.path, request.body, key);
              expect(again.status).toBe(first.status);
              expect(again.raw).toBe(first.raw);
              expect(again.headers['idempotent-replayed']).toBe('true');
            } else {
              const misuse = await call(side.app, 'POST', request.path, request.other, key);
              expect(misuse.status).toBe(422);
              expect(misuse.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
            }
          }
        }
        const [a, b] = await Promise.all(sides.map(async ({ app, prefix }) => shapeOf(await app.services.journal.readTail(prefix.split('/')[2], { after: 0, limit: 10_000, feed: 'timeline' }))));
        expect(a).toEqual(b);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
