/**
 * fast-check: a Tenant's Offers never accept a percentage. Any declaration
 * carrying a percent-shaped price or a share-like member is 422 and leaves the
 * declared Offers exactly as they were; well-formed flat Offers round-trip.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, testApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => app.close());

const flatOffer = fc.record(
  {
    id: fc.stringMatching(/^of_[a-z0-9]{1,12}$/),
    title: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.length > 0),
    priceUsd: fc.integer({ min: 0, max: 100_000 }),
    matterType: fc.constantFrom('patent_provisional', 'contract_review', 'demand_letter'),
    proofPredicate: fc.constantFrom('a filed receipt is on file', 'a review memo is on file'),
  },
  { requiredKeys: ['id', 'title', 'priceUsd'] },
);
const flatOffers = fc.uniqueArray(flatOffer, { selector: (o) => o.id, minLength: 1, maxLength: 5 });

/** Ways to smuggle a percent-of-outcome price into an Offer. */
const percentify = fc.oneof(
  fc.record({ key: fc.constantFrom('percent', 'percentage', 'pct', 'contingencyFee', 'successShare', 'commissionRate', 'percentOfOutcome', 'basisPoints', 'feeRatio'), value: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.double({ min: 0.01, max: 1, noNaN: true })) }).map(
    ({ key, value }) =>
      (o: Record<string, unknown>) => ({ ...o, [key]: value }),
  ),
  fc.integer({ min: 1, max: 100 }).map((n) => (o: Record<string, unknown>) => ({ ...o, priceUsd: `${n}%` })),
  fc.integer({ min: 1, max: 100 }).map((n) => (o: Record<string, unknown>) => ({ ...o, priceUsd: `${n} percent of recovery` })),
  fc.integer({ min: 1, max: 100 }).map((n) => (o: Record<string, unknown>) => ({ ...o, priceUsd: { percent: n } })),
  fc.integer({ min: 1, max: 100 }).map((n) => (o: Record<string, unknown>) => ({ ...o, priceUsd: { of: 'outcome', rate: n } })),
);

describe('Offers never accept a percentage', () => {
  it('a declaration with any percent-shaped member is 422 and changes nothing; flat ones round-trip', async () => {
    await fc.assert(
      fc.asyncProperty(flatOffers, flatOffers, fc.nat(), percentify, fc.boolean(), async (declared, attempt, at, smuggle, wrapped) => {
        const T = `/tenants/${(await call(app, 'POST', '/tenants')).body.tenant.id}`;
        const ok = await call(app, 'PUT', `${T}/offers`, declared);
        expect(ok.status).toBe(200);
        expect(ok.body.offers).toEqual(declared);
        const bad: Array<Record<string, unknown>> = attempt.map((o) => ({ ...o }));
        const i = at % bad.length;
        bad[i] = smuggle(bad[i]);
        const res = await call(app, 'PUT', `${T}/offers`, wrapped ? { offers: bad } : bad);
        expect(res.status).toBe(422);
        expect(res.body.code).toBe('PERCENTAGE_PRICE');
        expect((await call(app, 'GET', T)).body.tenant.offers).toEqual(declared);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
