/** Sandbox firms over HTTP: Enrollments and their ceremonies, the derived roster, routing, remittances, fixtures. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, testApp, type TestApp } from './helpers/app.ts';

// One app for the file; each test has a firm of its own, so no test sees another's records.
let app: TestApp;
let F: string;
let firmId: string;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());
beforeEach(async () => {
  firmId = (await call(app, 'POST', '/firms')).body.firm.id;
  F = `/firms/${firmId}`;
});

const enroll = (memberId: string, grants?: string[]) => call(app, 'POST', `${F}/enrollments`, { memberId, ...(grants ? { grants } : {}) });
const revoke = (memberId: string) => call(app, 'POST', `${F}/enrollments/${memberId}/revoke`);
const roster = async () => (await call(app, 'GET', `${F}/roster`)).body;

describe('POST /firms and GET /firms/{id}', () => {
  it('opens a keyless firm grain with TTL, graduation, enrollment counts and provenance naming it', async () => {
    const res = await call(app, 'POST', '/firms');
    expect(res.status).toBe(201);
    const f = res.body.firm;
    expect(f.id).toMatch(/^fm_[0-9a-z]{25}$/);
    expect(f).toMatchObject({ tier: 'anonymous', environment: 'sandbox', enrollments: { enrolled: 0, revoked: 0 }, graduation: { tier: 'credential_verified' } });
    expect(res.body.provenance).toEqual({ environment: 'sandbox', legalwork: true, synthetic: true, firm: f.id });
    await enroll('mb_fixture_eligible');
    await enroll('mb_fixture_revoking');
    const read = await call(app, 'GET', F);
    expect(read.status).toBe(200);
    expect(read.body.firm.enrollments).toEqual({ enrolled: 1, revoked: 1 });
    expect(read.body.provenance.firm).toBe(firmId);
  });

  it('answers 404 typed EMPTY naming POST /firms on every door of an unknown firm', async () => {
    const tn = (await call(app, 'POST', '/tenants')).body.tenant.id;
    for (const id of ['fm_0000000000000000000000000', tn]) {
      for (const [method, url, body] of [
        ['GET', `/firms/${id}`],
        ['GET', `/firms/${id}/enrollments`],
        ['POST', `/firms/${id}/enrollments`, { memberId: 'not a member!' }],
        ['POST', `/firms/${id}/enrollments/mb_fixture_eligible/revoke`],
        ['GET', `/firms/${id}/roster`],
        ['GET', `/firms/${id}/fixtures`],
        ['GET', `/firms/${id}/routing`],
        ['PUT', `/firms/${id}/routing`, { remittanceDesignation: 'firm' }],
        ['GET', `/firms/${id}/remittances`],
        ['GET', `/firms/${id}/events`],
      ] as const) {
        const res = await call(app, method, url, body);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body).toMatchObject({ type: 'EMPTY', code: 'FIRM_NOT_FOUND', fix: 'POST /firms' });
      }
    }
  });

  it('lists its fixture members', async () => {
    const res = await call(app, 'GET', `${F}/fixtures`);
    expect(res.status).toBe(200);
    expect(res.body.fixtures.map((f: { memberId: string }) => f.memberId)).toEqual(['mb_fixture_eligible', 'mb_fixture_suspended', 'mb_fixture_revoking']);
    for (const f of res.body.fixtures) expect(Object.keys(f).sort()).toEqual(['memberId', 'name', 'promise']);
  });
});

describe('Enrollments', () => {
  it('an enrollment is a member-executed grant whose ceremony is journaled and returned', async () => {
    const res = await enroll('mb_fixture_eligible', ['roster', 'remittance']);
    expect(res.status).toBe(201);
    expect(res.body.act).toBe('enrolled');
    expect(res.body.ceremony).toMatchObject({ instrument: 'enrollment', firmId, memberId: 'mb_fixture_eligible', granted: ['roster', 'remittance'], executedBy: 'mb_fixture_eligible' });
    expect(res.body.ceremony.enrollmentId).toMatch(/^en_/);
    expect(res.body.enrollment).toMatchObject({ memberId: 'mb_fixture_eligible', status: 'enrolled', grants: ['roster', 'remittance'], eligible: true });
    // The ceremony is on the firm's own tail, on the time feed (a named actor executed it).
    const tail = await call(app, 'GET', `${F}/events?feed=time`);
    const events = tail.body.results ?? tail.body.events;
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(['enrollment.opened']);
    expect(events[0].actor).toBe('mb_fixture_eligible');
    expect(events[0].seq).toBe(res.body.ceremony.seq);
  });

  it('defaults to the roster grant; a second act by a live member is an amendment; one adding nothing is 409', async () => {
    expect((await enroll('mb_fixture_eligible')).body.enrollment.grants).toEqual(['roster']);
    const amended = await enroll('mb_fixture_eligible', ['routing']);
    expect(amended.status).toBe(201);
    expect(amended.body.act).toBe('amended');
    expect(amended.body.ceremony).toMatchObject({ instrument: 'amendment', granted: ['routing'], grants: ['roster', 'routing'] });
    expect(amended.body.enrollment).toMatchObject({ status: 'amended', grants: ['roster', 'routing'] });
    const again = await enroll('mb_fixture_eligible', ['roster']);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('NOTHING_TO_AMEND');
    const list = await call(app, 'GET', `${F}/enrollments`);
    expect(list.body.type).toBe('OK');
    expect(list.body.results).toHaveLength(1);
    expect(list.body.results[0].ceremonies.map((c: { instrument: string }) => c.instrument)).toEqual(['enrollment', 'amendment']);
  });

  it('refuses an unknown member or an unknown grant with 422, writing nothing', async () => {
    for (const [body, code] of [
      [{ memberId: 'mb_somebody' }, 'UNKNOWN_MEMBER'],
      [{ memberId: 'mb_fixture_eligible', grants: ['signing'] }, 'UNKNOWN_GRANT'],
      [{ memberId: 'mb_fixture_eligible', grants: ['roster', 'claim'] }, 'UNKNOWN_GRANT'],
      [{ memberId: 'mb_fixture_eligible', grants: [] }, 'NO_GRANT'],
      [{ memberId: 'mb_fixture_eligible', grants: ['roster', 'roster'] }, 'INVALID_REQUEST'],
      [{ grants: ['roster'] }, 'INVALID_REQUEST'],
      [{ memberId: 'mb_fixture_eligible', score: 5 }, 'INVALID_REQUEST'],
    ] as const) {
      const res = await call(app, 'POST', `${F}/enrollments`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe(code);
    }
    expect((await call(app, 'GET', `${F}/enrollments`)).body.type).toBe('EMPTY');
    expect((await call(app, 'GET', `${F}/events`)).body.latestSeq).toBe(1);
  });

  it('revokes: 200 with the revocation record; again is 409; never enrolled is 404; unknown member 422; a fresh enrollment is a new act', async () => {
    await enroll('mb_fixture_eligible', ['roster', 'remittance']);
    const res = await revoke('mb_fixture_eligible');
    expect(res.status).toBe(200);
    expect(res.body.revocation).toMatchObject({ instrument: 'revocation', memberId: 'mb_fixture_eligible', revoked: ['roster', 'remittance'], executedBy: 'mb_fixture_eligible' });
    expect(res.body.enrollment).toMatchObject({ status: 'revoked', grants: [], eligible: false, failingPredicate: 'enrollment' });
    const again = await revoke('mb_fixture_eligible');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ALREADY_REVOKED');
    expect((await revoke('mb_fixture_suspended')).status).toBe(404);
    expect((await revoke('mb_nobody')).status).toBe(422);

    const fresh = await enroll('mb_fixture_eligible');
    expect(fresh.status).toBe(201);
    expect(fresh.body.act).toBe('enrolled');
    expect(fresh.body.ceremony.enrollmentId).not.toBe(res.body.revocation.enrollmentId);
    expect((await call(app, 'GET', F)).body.firm.enrollments).toEqual({ enrolled: 1, revoked: 1 });
  });
});

describe('the roster', () => {
  it('is EMPTY naming the fix, with the declared probe act, until a member grants roster', async () => {
    const body = await roster();
    expect(body).toMatchObject({ type: 'EMPTY', fix: `POST /firms/${firmId}/enrollments` });
    expect(body.probe).toMatchObject({ act: 'synthetic-roster-probe', registerConsulted: false, scored: false });
    await enroll('mb_fixture_eligible', ['remittance']);
    expect((await roster()).type).toBe('EMPTY');
  });

  it('derives rows from Enrollment status and the binary facts: eligible, suspended on standing, revoking blanked', async () => {
    await enroll('mb_fixture_eligible');
    await enroll('mb_fixture_suspended');
    const revoking = await enroll('mb_fixture_revoking');
    expect(revoking.status).toBe(201);
    expect(revoking.body.ceremony.instrument).toBe('enrollment');
    expect(revoking.body.then).toMatchObject({ instrument: 'revocation', memberId: 'mb_fixture_revoking', executedBy: 'mb_fixture_revoking' });
    const body = await roster();
    expect(body.type).toBe('OK');
    expect(body.probe.act).toBe('synthetic-roster-probe');
    expect(body.results).toEqual([
      { memberId: 'mb_fixture_eligible', eligible: true, status: 'enrolled', grants: ['roster'], facts: { credentialLive: true, standingFresh: true, coverageInForce: true } },
      { memberId: 'mb_fixture_suspended', eligible: false, failingPredicate: 'standing', status: 'enrolled', grants: ['roster'], facts: { credentialLive: true, standingFresh: false, coverageInForce: true } },
    ]);
    expect(body.blanked).toBe(1);
    // Revoking the eligible member blanks its row on the next read: derivation, not deletion.
    await revoke('mb_fixture_eligible');
    expect((await roster()).results.map((r: { memberId: string }) => r.memberId)).toEqual(['mb_fixture_suspended']);
    const list = (await call(app, 'GET', `${F}/enrollments`)).body.results;
    expect(list.map((r: { memberId: string; status: string }) => [r.memberId, r.status])).toEqual([
      ['mb_fixture_eligible', 'revoked'],
      ['mb_fixture_suspended', 'enrolled'],
      ['mb_fixture_revoking', 'revoked'],
    ]);
  });
});

describe('routing', () => {
  it('is EMPTY until declared; accepts individual remittance, windows and countersigned opt-ins', async () => {
    expect((await call(app, 'GET', `${F}/routing`)).body.type).toBe('EMPTY');
    await enroll('mb_fixture_eligible', ['roster', 'routing']);
    const body = { participationWindows: [{ day: 'mon', from: '09:00', to: '17:00', timezone: 'America/New_York' }], memberOptIns: [{ memberId: 'mb_fixture_eligible', matterTypes: ['demand_letter'] }], remittanceDesignation: 'individual' };
    const res = await call(app, 'PUT', `${F}/routing`, body);
    expect(res.status).toBe(200);
    expect(res.body.routing).toEqual(body);
    const read = await call(app, 'GET', `${F}/routing`);
    expect(read.body.type).toBe('OK');
    expect(read.body.routing.memberOptIns).toEqual([{ memberId: 'mb_fixture_eligible', matterTypes: ['demand_letter'], countersigned: true }]);
    // A revoked grant no longer countersigns: the view derives it.
    await revoke('mb_fixture_eligible');
    expect((await call(app, 'GET', `${F}/routing`)).body.routing.memberOptIns[0].countersigned).toBe(false);
  });

  it('refuses a firm remittance designation 403 BLOCKED, and merits, actor-shaped, malformed or uncountersigned entries 422', async () => {
    await enroll('mb_fixture_eligible', ['roster']);
    const blocked = await call(app, 'PUT', `${F}/routing`, { remittanceDesignation: 'firm' });
    expect(blocked.status).toBe(403);
    expect(blocked.body).toMatchObject({ type: 'BLOCKED', code: 'REMITTANCE_TO_FIRM' });
    for (const [body, code] of [
      [{ settlementAuthority: true }, 'MERITS_BEARING_KEY'],
      [{ disclosure: 'all' }, 'MERITS_BEARING_KEY'],
      [{ claim: 'gig_1' }, 'ACTOR_SHAPED_KEY'],
      [{ substitution: { from: 'a', to: 'b' } }, 'ACTOR_SHAPED_KEY'],
      [{ Reservation: { gig: 'x' } }, 'ACTOR_SHAPED_KEY'],
      [{ memberOptIns: [{ memberId: 'mb_fixture_eligible', claims: ['x'] }] }, 'ACTOR_SHAPED_KEY'],
      [{ participationWindows: [{ day: 'mon', from: '17:00', to: '09:00' }] }, 'MALFORMED_MECHANICS'],
      [{ participationWindows: [{ day: 'someday', from: '09:00', to: '17:00' }] }, 'INVALID_REQUEST'],
      [{ participationWindows: [{ day: 'mon', from: '9am', to: '17:00' }] }, 'INVALID_REQUEST'],
      [{ remittanceDesignation: 'pooled' }, 'INVALID_REQUEST'],
      [{ memberOptIns: [{ memberId: 'mb_fixture_eligible' }] }, 'OPT_IN_NOT_COUNTERSIGNED'],
      [{ memberOptIns: [{ memberId: 'mb_fixture_suspended' }] }, 'OPT_IN_NOT_COUNTERSIGNED'],
    ] as const) {
      const res = await call(app, 'PUT', `${F}/routing`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code, JSON.stringify(body)).toBe(code);
    }
    expect((await call(app, 'GET', `${F}/routing`)).body.type).toBe('EMPTY');
  });
});

describe('remittances', () => {
  it('is EMPTY until a member grants remittance; then per-member lines plus totals, never with the firm as Merchant of Record', async () => {
    await enroll('mb_fixture_eligible', ['roster']);
    expect((await call(app, 'GET', `${F}/remittances`)).body.type).toBe('EMPTY');
    await enroll('mb_fixture_eligible', ['remittance']);
    await enroll('mb_fixture_suspended', ['remittance']);
    await enroll('mb_fixture_revoking', ['remittance']);
    const res = await call(app, 'GET', `${F}/remittances`);
    expect(res.body.type).toBe('OK');
    expect(res.body.results.map((r: { memberId: string }) => r.memberId)).toEqual(['mb_fixture_eligible', 'mb_fixture_suspended']);
    const eligible = res.body.results[0];
    expect(eligible.lines).toEqual([
      { matterType: 'patent_provisional', rail: 'patent', attestedActs: 2, legalFeePerActUsd: 60, legalFeeUsd: 120, merchantOfRecord: 'platform' },
      { matterType: 'demand_letter', rail: 'state', attestedActs: 1, legalFeePerActUsd: 50, legalFeeUsd: 50, merchantOfRecord: 'mb_fixture_eligible' },
    ]);
    expect(res.body.totals).toEqual({ members: 2, attestedActs: 4, legalFeeUsd: 230 });
    for (const row of res.body.results) for (const line of row.lines) expect(line.merchantOfRecord).not.toBe(firmId);
  });
});

describe('no firm door signs, claims, attests or scores', () => {
  it('has no such route', async () => {
    for (const path of ['sign', 'claim', 'attest', 'score', 'gigs', 'matters']) {
      expect((await call(app, 'POST', `${F}/${path}`, {})).status).toBe(404);
    }
  });
});
