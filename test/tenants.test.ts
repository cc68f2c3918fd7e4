/** Sandbox Tenants over HTTP: Offers, routing mechanics, minting against an Offer, the Gate, the Client's doors. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, testApp, type TestApp } from './helpers/app.ts';

// One app for the file; each test has a Tenant of its own, so no test sees another's records.
let app: TestApp;
let T: string;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());
beforeEach(async () => {
  T = `/tenants/${(await call(app, 'POST', '/tenants')).body.tenant.id}`;
});

const OFFERS = [
  { id: 'of_review', title: 'Contract review, flat', priceUsd: 150, matterType: 'contract_review', proofPredicate: 'a review memo is on file' },
  { id: 'of_letter', title: 'Demand letter', priceUsd: 80 },
  { id: 'of_prov', title: 'Provisional filing', priceUsd: 199, matterType: 'patent_provisional' },
];
const eventsOf = async () => (await call(app, 'GET', T)).body.tenant.counts.events;

describe('POST /tenants and GET /tenants/{id}', () => {
  it('opens a keyless tenant with TTL, graduation, empty Offers and routing, and provenance naming it', async () => {
    const res = await call(app, 'POST', '/tenants');
    expect(res.status).toBe(201);
    const t = res.body.tenant;
    expect(t.id).toMatch(/^tn_[0-9a-z]{25}$/);
    expect(t).toMatchObject({ tier: 'anonymous', environment: 'sandbox', ttlSeconds: 86_400, offers: [], routing: { maxFeeUsd: null }, graduation: { tier: 'identified' } });
    expect(Date.parse(t.expiresAt)).toBeGreaterThan(Date.now());
    expect(res.body.provenance).toEqual({ environment: 'sandbox', legalwork: true, synthetic: true, tenant: t.id });
    const read = await call(app, 'GET', `/tenants/${t.id}`);
    expect(read.status).toBe(200);
    expect(read.body.tenant).toMatchObject({ id: t.id, offers: [], counts: { offers: 0, matters: 0, events: 1 } });
  });

  it('answers 404 typed EMPTY naming POST /tenants for an unknown tenant, a workspace id or a firm id', async () => {
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id;
    for (const id of ['tn_0000000000000000000000000', ws, 'fm_0000000000000000000000000']) {
      for (const [method, url, body] of [
        ['GET', `/tenants/${id}`],
        ['PUT', `/tenants/${id}/offers`, OFFERS],
        ['PUT', `/tenants/${id}/routing`, { maxFeeUsd: 10 }],
        ['GET', `/tenants/${id}/matters`],
        ['POST', `/tenants/${id}/matters`, { matterType: 'contract_review', offer: 'of_review' }],
      ] as const) {
        const res = await call(app, method, url, body);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body).toMatchObject({ type: 'EMPTY', code: 'TENANT_NOT_FOUND', fix: 'POST /tenants' });
      }
    }
  });
});

describe('PUT /tenants/{id}/offers', () => {
  it('declares flat-priced Offers (a bare array or {offers}); the latest declaration replaces the earlier', async () => {
    let res = await call(app, 'PUT', `${T}/offers`, OFFERS);
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('OK');
    expect(res.body.offers).toEqual(OFFERS);
    expect((await call(app, 'GET', T)).body.tenant.offers).toEqual(OFFERS);
    res = await call(app, 'PUT', `${T}/offers`, { offers: [OFFERS[1]] });
    expect(res.status).toBe(200);
    expect((await call(app, 'GET', T)).body.tenant.offers).toEqual([OFFERS[1]]);
    res = await call(app, 'PUT', `${T}/offers`, []);
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('EMPTY');
    expect(res.body.message).toMatch(/cannot mint/);
  });

  it('refuses a percentage member or a percent-shaped price with 422, writing nothing', async () => {
    await call(app, 'PUT', `${T}/offers`, OFFERS);
    const before = await eventsOf();
    for (const bad of [
      [{ id: 'of_x', title: 'x', priceUsd: 10, percent: 20 }],
      [{ id: 'of_x', title: 'x', priceUsd: '20%' }],
      [{ id: 'of_x', title: 'x', priceUsd: '15 percent' }],
      [{ id: 'of_x', title: 'x', priceUsd: { percentOfOutcome: 30 } }],
      [{ id: 'of_x', title: 'x', contingencyFee: 33 }],
      { offers: [{ id: 'of_x', title: 'x', priceUsd: 10, successShare: 0.1 }] },
    ]) {
      const res = await call(app, 'PUT', `${T}/offers`, bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.code).toBe('PERCENTAGE_PRICE');
      expect(res.body.error).toMatch(/flat/);
    }
    expect(await eventsOf()).toBe(before);
    expect((await call(app, 'GET', T)).body.tenant.offers).toEqual(OFFERS);
  });

  it('refuses a malformed Offer list with a worded 422', async () => {
    for (const [bad, words] of [
      [[{ id: 'of_x', priceUsd: 10 }], /title/],
      [[{ id: 'of_x', title: 'x', priceUsd: -5 }], /priceUsd/],
      [[{ id: 'of_x', title: 'x', priceUsd: 5, matterType: 'divorce' }], /matterType/],
      [[{ id: 'of_x', title: 'x', priceUsd: 5, hourlyUsd: 100 }], /hourlyUsd/],
      [[OFFERS[0], OFFERS[0]], /twice/],
      [{ offers: 'not a list' }, /offers/],
    ] as const) {
      const res = await call(app, 'PUT', `${T}/offers`, bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.error).toMatch(words);
    }
  });
});

describe('PUT /tenants/{id}/routing', () => {
  it('declares routing mechanics', async () => {
    const res = await call(app, 'PUT', `${T}/routing`, { maxFeeUsd: 500, jurisdictions: ['US-CA', 'US-USPTO'] });
    expect(res.status).toBe(200);
    expect(res.body.routing).toEqual({ maxFeeUsd: 500, jurisdictions: ['US-CA', 'US-USPTO'] });
    expect((await call(app, 'GET', T)).body.tenant.routing).toEqual({ maxFeeUsd: 500, jurisdictions: ['US-CA', 'US-USPTO'] });
  });

  it('refuses a merits-bearing key or a malformed cap with 422, writing nothing', async () => {
    const before = await eventsOf();
    for (const [bad, code] of [
      [{ maxFeeUsd: 500, settlementFloor: 1000 }, 'MERITS_BEARING_KEY'],
      [{ maxFeeUsd: 500, disclosure: 'full' }, 'MERITS_BEARING_KEY'],
      [{ settlement: { minUsd: 1 } }, 'MERITS_BEARING_KEY'],
      [{ maxFeeUsd: '10%' }, 'PERCENTAGE_PRICE'],
      [{ maxFeeUsd: -1 }, 'INVALID_REQUEST'],
      [{ maxFeeUsd: '500' }, 'INVALID_REQUEST'],
      [{}, 'INVALID_REQUEST'],
    ] as const) {
      const res = await call(app, 'PUT', `${T}/routing`, bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.code).toBe(code);
    }
    expect(await eventsOf()).toBe(before);
  });
});

describe('the Tenant\'s Matters', () => {
  it('mints only against a declared Offer; the Offer fixes the flat price and the matter type', async () => {
    let res = await call(app, 'POST', `${T}/matters`, { matterType: 'contract_review' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('OFFER_REQUIRED');
    expect(res.body.error).toMatch(/PUT \/tenants\/.*\/offers/);
    expect((await call(app, 'GET', `${T}/matters`)).body.type).toBe('EMPTY');

    await call(app, 'PUT', `${T}/offers`, OFFERS);
    res = await call(app, 'POST', `${T}/matters`, { matterType: 'contract_review', offer: 'of_nope' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'UNKNOWN_OFFER', declaredOffers: ['of_review', 'of_letter', 'of_prov'] });

    res = await call(app, 'POST', `${T}/matters`, { offer: 'of_review' });
    expect(res.status).toBe(201);
    const tenantId = T.split('/')[2];
    expect(res.body.matter).toMatchObject({ matterType: 'contract_review', offer: 'of_review', listFeeUsd: 150, tenant: tenantId, stage: 'intake' });
    expect(res.body.provenance).toEqual({ environment: 'sandbox', legalwork: true, synthetic: true, tenant: tenantId });

    res = await call(app, 'POST', `${T}/matters`, { matterType: 'demand_letter', offer: 'of_letter' });
    expect(res.status).toBe(201);
    expect(res.body.matter.listFeeUsd).toBe(80);

    expect((await call(app, 'POST', `${T}/matters`, { matterType: 'demand_letter', offer: 'of_review' })).body.code).toBe('OFFER_MATTER_TYPE');
    expect((await call(app, 'POST', `${T}/matters`, { matterType: 'demand_letter', offer: 'of_letter', listFeeUsd: 79 })).body.code).toBe('OFFER_PRICE');
    expect((await call(app, 'POST', `${T}/matters`, { offer: 'of_letter' })).status).toBe(400);

    const list = await call(app, 'GET', `${T}/matters`);
    expect(list.body.type).toBe('OK');
    expect(list.body.results).toHaveLength(2);
    // Nothing of the Tenant is visible from the top level or a workspace.
    expect((await call(app, 'GET', '/matters')).body.type).toBe('EMPTY');
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id;
    expect((await call(app, 'GET', `/workspaces/${ws}/matters/${list.body.results[0].id}`)).status).toBe(404);
    expect((await call(app, 'GET', `/matters/${list.body.results[0].id}`)).status).toBe(404);
  });

  it('orders mint against a declared provisional Offer too', async () => {
    await call(app, 'PUT', `${T}/offers`, OFFERS);
    const body = { mint: 'tenant-mint', title: 'Self-folding map', inventor: 'Ada', listFeeUsd: 199 };
    expect((await call(app, 'POST', `${T}/orders`, { ...body, offer: 'of_review' })).body.code).toBe('OFFER_MATTER_TYPE');
    const res = await call(app, 'POST', `${T}/orders`, { ...body, offer: 'of_prov' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('waiting_on_signer');
  });

  it('the Gate enforces the routing maxFeeUsd at creation and at every advance; a Client direction is never blocked by it', async () => {
    await call(app, 'PUT', `${T}/offers`, OFFERS);
    await call(app, 'PUT', `${T}/routing`, { maxFeeUsd: 100 });
    let res = await call(app, 'POST', `${T}/matters`, { offer: 'of_review' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'GATE_MECHANICS', rule: 'mechanics' });
    expect((await call(app, 'GET', `${T}/matters`)).body.type).toBe('EMPTY');

    res = await call(app, 'POST', `${T}/matters`, { offer: 'of_letter', matterType: 'demand_letter' });
    expect(res.status).toBe(201);
    const M = `${T}/matters/${res.body.matter.id}`;
    expect((await call(app, 'POST', `${M}/advance`)).status).toBe(200);

    await call(app, 'PUT', `${T}/routing`, { maxFeeUsd: 50 });
    res = await call(app, 'POST', `${M}/advance`);
    expect(res.status).toBe(422);
    expect(res.body.rule).toBe('mechanics');
    expect((await call(app, 'GET', M)).body.matter.stage).toBe('prepare');

    res = await call(app, 'POST', `${M}/client-direction`, { instruction: 'keep going' });
    expect(res.status).toBe(200);
    expect(res.body.directionSeq).toBeGreaterThan(0);

    await call(app, 'PUT', `${T}/routing`, { maxFeeUsd: 80 });
    expect((await call(app, 'POST', `${M}/advance`)).body.matter.stage).toBe('examine');
  });

  it("a Tenant's agent cannot consent, direct or withdraw for the Client", async () => {
    await call(app, 'PUT', `${T}/offers`, OFFERS);
    const id = (await call(app, 'POST', `${T}/matters`, { offer: 'of_letter', matterType: 'demand_letter', consumerPattern: 'B2A2D' })).body.matter.id;
    const M = `${T}/matters/${id}`;
    const agent = { 'x-actor': 'tenant-agent' };
    for (const [url, body] of [
      [`${M}/consent`, { actor: 'client', scope: 'engagement' }],
      [`${M}/client-direction`, { instruction: 'settle it' }],
      [`${M}/terminal`, { outcome: 'withdrawn', byClient: true }],
    ] as const) {
      const res = await call(app, 'POST', url, body, agent);
      expect(res.status, url).toBe(422);
      expect(res.body).toMatchObject({ code: 'ACTOR_NOT_CLIENT', rule: 'actor' });
    }
    expect((await call(app, 'POST', `${M}/consent`, { actor: 'tenant', scope: 'engagement' })).status).toBe(422);
    expect((await call(app, 'GET', `${M}/journal`)).body.events).toHaveLength(1);
    // The Client itself speaks through the same doors.
    expect((await call(app, 'POST', `${M}/consent`, { actor: 'client', scope: 'engagement' }, { 'x-actor': 'client' })).status).toBe(200);
    expect((await call(app, 'POST', `${M}/advance`, undefined, agent)).status).toBe(200);
    expect((await call(app, 'POST', `${M}/terminal`, { outcome: 'withdrawn', byClient: true })).status).toBe(200);
  });

  it('has its own event tail', async () => {
    await call(app, 'PUT', `${T}/offers`, OFFERS);
    const tail = await call(app, 'GET', `${T}/events`);
    expect(tail.status).toBe(200);
    expect(tail.body.latestSeq).toBe(2);
    expect((tail.body.results ?? tail.body.events).map((e: { kind: string }) => e.kind)).toEqual(['tenant.opened', 'tenant.offers.declared']);
  });
});
