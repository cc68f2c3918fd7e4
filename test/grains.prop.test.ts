/**
 * fast-check properties of the sandbox grains:
 * - isolation: random operations in two workspaces never see each other, and
 *   the top level sees neither;
 * - the creation bound: against a reference model of the rolling window, every
 *   creation is admitted or refused exactly as predicted, Retry-After included.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex as h } from '../src/domain/hash.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';

describe('isolation between workspaces', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await testApp({ creationBound: { limit: 1_000_000 } });
  });
  afterAll(async () => app.close());

  type Op =
    | { kind: 'mint'; ws: 0 | 1; matterType: string }
    | { kind: 'advance'; ws: 0 | 1; target: 0 | 1; pick: number }
    | { kind: 'document'; ws: 0 | 1; target: 0 | 1; pick: number }
    | { kind: 'ledger'; ws: 0 | 1; practitioner: string; name: string };
  const side = fc.constantFrom<0 | 1>(0, 1);
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('mint' as const), ws: side, matterType: fc.constantFrom('contract_review', 'patent_provisional', 'demand_letter') }),
    fc.record({ kind: fc.constant('advance' as const), ws: side, target: side, pick: fc.nat(20) }),
    fc.record({ kind: fc.constant('document' as const), ws: side, target: side, pick: fc.nat(20) }),
    fc.record({ kind: fc.constant('ledger' as const), ws: side, practitioner: fc.constantFrom('pr_a', 'pr_b'), name: fc.string({ maxLength: 8 }) }),
  );

  it('random operations in two workspaces never see each other', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const W = [await workspace(app), await workspace(app)];
        const matters: string[][] = [[], []];
        const hashes: Array<Record<string, string[]>> = [{}, {}];
        for (const o of ops) {
          if (o.kind === 'mint') {
            const res = await call(app, 'POST', `${W[o.ws]}/matters`, { matterType: o.matterType });
            expect(res.status).toBe(201);
            matters[o.ws].push(res.body.matter.id);
          } else if (o.kind === 'ledger') {
            const res = await call(app, 'POST', `${W[o.ws]}/conflicts/${o.practitioner}/entries`, { nameHash: h(o.name) });
            expect(res.status).toBe(201);
            (hashes[o.ws][o.practitioner] ??= []).push(h(o.name));
          } else {
            // A command aimed at a Matter of `target`, sent through workspace `ws`: it must land only when they agree.
            const pool = matters[o.target];
            if (!pool.length) continue;
            const id = pool[o.pick % pool.length];
            const res =
              o.kind === 'advance'
                ? await call(app, 'POST', `${W[o.ws]}/matters/${id}/advance`)
                : await call(app, 'POST', `${W[o.ws]}/matters/${id}/documents`, { name: 'n', kind: 'k', sha256: h(id) });
            if (o.ws !== o.target) expect(res.status).toBe(404);
            else expect(res.status).toBeLessThan(500);
          }
        }
        for (const i of [0, 1] as const) {
          const other = 1 - i;
          const listed = await call(app, 'GET', `${W[i]}/matters?limit=500`);
          expect((listed.body.results ?? []).map((m: { id: string }) => m.id).sort()).toEqual([...matters[i]].sort());
          for (const id of matters[other]) {
            expect((await call(app, 'GET', `${W[i]}/matters/${id}`)).status).toBe(404);
            expect((await call(app, 'GET', `/matters/${id}`)).status).toBe(404);
          }
          for (const p of ['pr_a', 'pr_b']) {
            const ledger = await call(app, 'GET', `${W[i]}/conflicts/${p}?limit=500`);
            expect((ledger.body.results ?? []).map((e: { nameHash: string }) => e.nameHash)).toEqual(hashes[i][p] ?? []);
          }
          // The tail of one workspace names nothing of the other.
          const tail = await call(app, 'GET', `${W[i]}/events?limit=500`);
          const subjects = new Set((tail.body.results ?? []).map((e: { subject: string }) => e.subject));
          for (const id of matters[other]) expect(subjects.has(id)).toBe(false);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('the per-caller creation bound', () => {
  type Step = { kind: 'workspace' | 'tenant' | 'firm'; caller: number; advanceMs: number };
  const step = fc.record({ kind: fc.constantFrom<'workspace' | 'tenant' | 'firm'>('workspace', 'tenant', 'firm'), caller: fc.nat(2), advanceMs: fc.constantFrom(0, 0, 500, 4_000, 11_000) });

  it('admits and refuses exactly as a rolling window per caller and kind predicts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(step, { minLength: 1, maxLength: 25 }), async (limit, steps: Step[]) => {
        let now = 1_700_000_000_000;
        const windowMs = 10_000;
        const app = await testApp({ creationBound: { limit, windowSeconds: windowMs / 1000 }, sandboxNow: () => now });
        try {
          const admitted = new Map<string, number[]>();
          for (const s of steps) {
            now += s.advanceMs;
            const key = `${s.kind} ${s.caller}`;
            const live = (admitted.get(key) ?? []).filter((t) => t > now - windowMs);
            const res = await app.inject({ method: 'POST', url: `/${s.kind}s`, remoteAddress: `10.0.0.${s.caller + 1}` });
            if (live.length < limit) {
              expect(res.statusCode).toBe(201);
              live.push(now);
            } else {
              expect(res.statusCode).toBe(429);
              expect(res.json()).toMatchObject({ type: 'BLOCKED', code: 'CREATION_BOUND' });
              expect(Number(res.headers['retry-after'])).toBe(Math.max(1, Math.ceil((live[0] + windowMs - now) / 1000)));
            }
            admitted.set(key, live);
          }
        } finally {
          await app.close();
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
