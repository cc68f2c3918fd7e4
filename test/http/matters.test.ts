import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE } from '../../src/domain/fixtures.ts';
import { refusingSupplyNetwork } from '../../src/domain/supply-network.ts';
import { call, testApp, topLevelHeaders, workspace, type TestApp } from '../helpers/app.ts';

const apps: TestApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});
async function fresh(options = {}) {
  const app = await testApp(options);
  apps.push(app);
  return { app, ws: await workspace(app) };
}
const attestation = (signedBy: string = FIXTURE.eligibleSigner) => ({ signedBy, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'b'.repeat(64)}` });

async function create(app: TestApp, ws: string, body: Record<string, unknown> = {}) {
  const res = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', ...body });
  expect(res.status).toBe(201);
  return res.body.matter as { id: string; assetId: string };
}
async function advanceTimes(app: TestApp, ws: string, id: string, n: number) {
  let res;
  for (let i = 0; i < n; i++) res = await call(app, 'POST', `${ws}/matters/${id}/advance`);
  return res!;
}

describe('the Matter doors', () => {
  it('walks a Matter to fulfilled with the eligible fixture Signer and settles it', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws, { client: { name: 'Ada Inventor' }, asset: { kind: 'patent_application', title: 'A better widget' } });
    const committed = await advanceTimes(app, ws, m.id, 3);
    expect(committed.body.committed).toEqual({ advanceTo: 'review', by: 'gate' });
    const esc = await call(app, 'POST', `${ws}/matters/${m.id}/advance`);
    expect(esc.status).toBe(200);
    expect(esc.body.escalated.reservedAct).toBe('sign');
    expect(esc.body.matter).toMatchObject({ status: 'waiting_on_signer', stage: 'review', pendingGigId: esc.body.escalated.gigId });
    const again = await call(app, 'POST', `${ws}/matters/${m.id}/advance`);
    expect(again.status).toBe(409);
    expect(again.body.error).toContain(esc.body.escalated.gigId);

    const lapsed = await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: esc.body.escalated.gigId, outcome: 'attested', attestation: attestation(FIXTURE.lapsedSigner) });
    expect(lapsed.status).toBe(422);
    expect(lapsed.body).toMatchObject({ predicate: 'standing' });
    const coverage = await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: esc.body.escalated.gigId, outcome: 'attested', attestation: attestation(FIXTURE.lapsedCoverageSigner) });
    expect(coverage.status).toBe(422);
    expect(coverage.body.predicate).toBe('coverage');
    expect(coverage.body.cure).toMatch(/re-verify coverage in force/);
    expect((await call(app, 'GET', `${ws}/matters/${m.id}`)).body.matter.pendingGigId).toBe(esc.body.escalated.gigId);

    const mismatch = await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: 'gig_other', outcome: 'attested', attestation: attestation() });
    expect(mismatch.status).toBe(409);
    const signed = await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: esc.body.escalated.gigId, outcome: 'attested', attestation: attestation() });
    expect(signed.status).toBe(200);
    expect(signed.body.matter).toMatchObject({ stage: 'sign', status: 'sign', attestedActs: 1 });
    expect((await call(app, 'GET', `${ws}/matters/${m.id}/settlement`)).status).toBe(409);

    const fileGig = await call(app, 'POST', `${ws}/matters/${m.id}/advance`);
    expect(fileGig.body.escalated.reservedAct).toBe('file');
    const filed = await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: fileGig.body.escalated.gigId, outcome: 'attested', attestation: attestation() });
    expect(filed.body.matter).toMatchObject({ stage: 'fulfilled', status: 'fulfilled', attestedActs: 2 });

    const settlement = await call(app, 'GET', `${ws}/matters/${m.id}/settlement`);
    expect(settlement.status).toBe(200);
    expect(settlement.body.settlement).toMatchObject({ rail: 'patent', merchantOfRecord: 'platform', productFeeToCustomerUsd: 199, attestedActs: 2, insuranceTotalUsd: 10 });
    const attestations = await call(app, 'GET', `${ws}/matters/${m.id}/attestations`);
    expect(attestations.body.results.map((r: { act: string }) => r.act)).toEqual(['sign', 'file']);
    const journal = await call(app, 'GET', `${ws}/matters/${m.id}/journal`);
    expect(journal.body).toMatchObject({ type: 'OK', matterId: m.id, stage: 'fulfilled', appendOnly: true });
    expect(journal.body.events.filter((e: { kind: string }) => e.kind === 'stage').map((e: { verb: string }) => e.verb)).toEqual(['prepare', 'examine', 'review', 'sign', 'file']);
    const asset = await call(app, 'GET', `${ws}/assets/${m.assetId}`);
    expect(asset.body.asset.lineage).toEqual([m.id]);
    expect(asset.body.asset.registryId).toMatch(/receipt/);
    expect(asset.body.asset.statusHistory.at(-1).status).toBe('fulfilled');
    // A terminal is forever: every journal-writing door answers 409.
    for (const [door, body] of [['advance', {}], ['consent', { actor: 'client', scope: 's' }], ['client-direction', { instruction: 'x' }], ['terminal', { outcome: 'withdrawn', byClient: true }], ['documents', { name: 'n', kind: 'k', sha256: 'a'.repeat(64) }]] as const) {
      expect((await call(app, 'POST', `${ws}/matters/${m.id}/${door}`, body)).status).toBe(409);
    }
  });

  it('walks the fulfilling fixture Client to fulfilled by repeated advances', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws, { client: { name: FIXTURE.fulfillingClient } });
    const last = await advanceTimes(app, ws, m.id, 5);
    expect(last.body.matter.status).toBe('fulfilled');
    expect(last.body.escalated).toMatchObject({ reservedAct: 'file', answered: 'attested' });
  });

  it('stops the declining fixture Client in needs_client_direction until the Client speaks', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws, { client: { name: FIXTURE.decliningClient } });
    const declined = await advanceTimes(app, ws, m.id, 4);
    expect(declined.body.matter).toMatchObject({ status: 'needs_client_direction', needsClientDirection: true, stage: 'review' });
    const blocked = await call(app, 'POST', `${ws}/matters/${m.id}/advance`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe('MATTER_NEEDS_CLIENT_DIRECTION');
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/client-direction`, {})).status).toBe(422);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/client-direction`, { instruction: '  ' })).status).toBe(422);
    const direction = await call(app, 'POST', `${ws}/matters/${m.id}/client-direction`, { instruction: 'Proceed with the narrower claims.' });
    expect(direction.status).toBe(200);
    expect(direction.body.directionSeq).toBeGreaterThan(0);
    expect(direction.body.escalated).toMatchObject({ reservedAct: 'sign', answered: 'declined' });
    const journal = (await call(app, 'GET', `${ws}/matters/${m.id}/journal`)).body.events.map((e: { kind: string }) => e.kind);
    expect(journal.filter((k: string) => k === 'gig.declined')).toHaveLength(2);
    expect(journal).toContain('client.direction');
  });

  it('sends back to prepare with the defects journaled', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws);
    const esc = await advanceTimes(app, ws, m.id, 4);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: esc.body.escalated.gigId, outcome: 'send_back' })).status).toBe(422);
    const back = await call(app, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId: esc.body.escalated.gigId, outcome: 'send_back', memo: 'Claim 3 lacks antecedent basis.' });
    expect(back.body.matter).toMatchObject({ stage: 'prepare', status: 'prepare' });
    expect(back.body.matter.pendingGigId).toBeUndefined();
    const events = (await call(app, 'GET', `${ws}/matters/${m.id}/journal`)).body.events;
    expect(events.at(-1)).toMatchObject({ kind: 'gig.sent_back', note: 'Claim 3 lacks antecedent basis.' });
  });

  it('holds a B2A2D Matter at intake until the Client consents, and only the Client may', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws, { consumerPattern: 'B2A2D' });
    const held = await call(app, 'POST', `${ws}/matters/${m.id}/advance`);
    expect(held.status).toBe(422);
    expect(held.body.rule).toBe('consent');
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/consent`, { actor: 'tenant-agent', scope: 'engagement' })).status).toBe(422);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/consent`, { actor: 'client' })).status).toBe(422);
    const consent = await call(app, 'POST', `${ws}/matters/${m.id}/consent`, { actor: 'client', scope: 'engagement' });
    expect(consent.body).toMatchObject({ type: 'OK', matter: { id: m.id, stage: 'intake', consented: true } });
    expect(consent.body.consentSeq).toBeGreaterThan(0);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/advance`)).body.matter.stage).toBe('prepare');
  });

  it('applies the terminal predicates, and refuses the door while a Signer holds the Gig', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/terminal`, { outcome: 'withdrawn' })).status).toBe(422);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/terminal`, { outcome: 'lapsed', confirmedUnresponsiveTwice: false })).status).toBe(422);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/terminal`, { outcome: 'referred_out' })).status).toBe(422);
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/terminal`, { outcome: 'fulfilled' })).status).toBe(422);
    const waiting = await create(app, ws);
    await advanceTimes(app, ws, waiting.id, 4);
    expect((await call(app, 'POST', `${ws}/matters/${waiting.id}/terminal`, { outcome: 'withdrawn', byClient: true })).status).toBe(409);
    const done = await call(app, 'POST', `${ws}/matters/${m.id}/terminal`, { outcome: 'referred_out', referredTo: 'outside counsel' });
    expect(done.body).toMatchObject({ matter: { status: 'referred_out', stage: 'referred_out' }, terminal: { outcome: 'referred_out' } });
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/terminal`, { outcome: 'withdrawn', byClient: true })).status).toBe(409);
  });

  it('refuses on mechanics and merits, writing nothing', async () => {
    const { app, ws } = await fresh();
    const over = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', listFeeUsd: 500, tenantGuardrails: { maxFeeUsd: 300 } });
    expect(over.status).toBe(422);
    expect(over.body.rule).toBe('mechanics');
    const m = await create(app, ws, { clientMandates: { settlementFloor: 1000 } });
    const before = (await call(app, 'GET', `${ws}/matters/${m.id}/journal`)).body.events.length;
    const merits = await call(app, 'POST', `${ws}/matters/${m.id}/advance`, { merits: { settlementUsd: 999 } });
    expect(merits.status).toBe(422);
    expect(merits.body.rule).toBe('merits');
    expect((await call(app, 'GET', `${ws}/matters/${m.id}/journal`)).body.events.length).toBe(before);
    expect((await call(app, 'GET', `${ws}/matters`)).body.results).toHaveLength(1);
  });

  it('journals the escalation before the post: a post the supply network refuses stays pending, the Matter waits on its Signer, and the answer says so', async () => {
    const { app, ws } = await fresh({ supply: refusingSupplyNetwork });
    const m = await create(app, ws);
    await advanceTimes(app, ws, m.id, 3);
    const escalated = await call(app, 'POST', `${ws}/matters/${m.id}/advance`);
    expect(escalated.status).toBe(200);
    expect(escalated.body.escalated).toMatchObject({ reservedAct: 'sign', gigId: expect.stringMatching(/^gig_/), pending: expect.stringMatching(/refused the Gig.*retried/) });
    const matter = (await call(app, 'GET', `${ws}/matters/${m.id}`)).body.matter;
    expect(matter).toMatchObject({ status: 'waiting_on_signer', pendingGigId: escalated.body.escalated.gigId });
    const order = await call(app, 'POST', `${ws}/orders`, { mint: 'm', offer: 'o', title: 't', inventor: 'i', listFeeUsd: 199 });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ status: 'waiting_on_signer' });
  });

  it('records documents as metadata only', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws);
    expect((await call(app, 'GET', `${ws}/matters/${m.id}/documents`)).body.type).toBe('EMPTY');
    expect((await call(app, 'POST', `${ws}/matters/${m.id}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: 'A'.repeat(64) })).status).toBe(422);
    const doc = await call(app, 'POST', `${ws}/matters/${m.id}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: 'c'.repeat(64) });
    expect(doc.status).toBe(201);
    expect(doc.body.document).toMatchObject({ matterId: m.id, name: 'spec.pdf', kind: 'specification', sha256: 'c'.repeat(64) });
    expect((await call(app, 'GET', `${ws}/matters/${m.id}/documents`)).body.results).toHaveLength(1);
  });

  it('lists, narrows and blocks reserved scopes', async () => {
    const { app, ws } = await fresh();
    expect((await call(app, 'GET', `${ws}/matters`)).body).toMatchObject({ type: 'EMPTY', results: [] });
    await create(app, ws, { offer: 'starter' });
    await create(app, ws, { matterType: 'demand_letter', clientState: 'NY' });
    expect((await call(app, 'GET', `${ws}/matters`)).body.results).toHaveLength(2);
    expect((await call(app, 'GET', `${ws}/matters?tag=demand_letter`)).body.results.map((m: { jurisdiction: string }) => m.jurisdiction)).toEqual(['US-NY']);
    expect((await call(app, 'GET', `${ws}/matters?filter=starter`)).body.results).toHaveLength(1);
    expect((await call(app, 'GET', `${ws}/matters?filter=nothing`)).body.type).toBe('EMPTY');
    expect((await call(app, 'GET', `${ws}/matters?limit=1`)).body.results).toHaveLength(1);
    const blocked = await call(app, 'GET', `${ws}/matters?scope=admin`);
    expect(blocked.status).toBe(403);
    expect(blocked.body.type).toBe('BLOCKED');
  });

  it('answers 400 for an unratified or missing matterType and 404 for unknown Matters', async () => {
    const { app, ws } = await fresh();
    expect((await call(app, 'POST', `${ws}/matters`, {})).status).toBe(400);
    expect((await call(app, 'POST', `${ws}/matters`, { matterType: 'divorce' })).status).toBe(400);
    for (const path of ['', '/journal', '/attestations', '/settlement', '/documents']) {
      const res = await call(app, 'GET', `${ws}/matters/mt_unknown${path}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/mt_unknown/);
    }
    expect((await call(app, 'POST', `${ws}/matters/mt_unknown/advance`)).status).toBe(404);
  });

  it('keeps workspaces isolated from each other and from the top level', async () => {
    const { app, ws } = await fresh();
    const other = await workspace(app);
    const m = await create(app, ws);
    expect((await call(app, 'GET', `${other}/matters/${m.id}`)).status).toBe(404);
    expect((await call(app, 'GET', `/matters/${m.id}`)).status).toBe(404);
    expect((await call(app, 'POST', `${other}/matters/${m.id}/advance`)).status).toBe(404);
    expect((await call(app, 'GET', `${other}/assets/${m.assetId}`)).status).toBe(404);
    expect((await call(app, 'GET', '/workspaces/ws_nope/matters')).body).toMatchObject({ type: 'EMPTY', fix: 'POST /workspaces' });
  });

  it('never carries the Client identity in any response', async () => {
    const { app, ws } = await fresh();
    const name = 'Grace Q. Hopperfield';
    const m = await create(app, ws, { client: { name }, adverseParties: ['Rival Widgets Inc'] });
    await advanceTimes(app, ws, m.id, 2);
    const order = await call(app, 'POST', `${ws}/orders`, { mint: 'm', offer: 'o', title: 't', inventor: name, listFeeUsd: 199 });
    const bodies = await Promise.all([`${ws}/matters/${m.id}`, `${ws}/matters`, `${ws}/matters/${m.id}/journal`, `${ws}/assets`, `${ws}/matters/${order.body.matterId}`].map((p) => call(app, 'GET', p)));
    for (const res of [...bodies, order]) {
      expect(res.raw).not.toContain('Hopperfield');
      expect(res.raw).not.toContain('Rival Widgets');
    }
    expect(bodies[0].body.matter.client).toEqual({ id: expect.stringMatching(/^cl_/) });
  });

  it('carries the conflict_hit signal from intake for the conflict party', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws, { adverseParties: [FIXTURE.conflictParty] });
    expect((await call(app, 'GET', `${ws}/matters/${m.id}`)).body.matter.signals).toEqual(['conflict_hit']);
  });

  it('files an order up to the Signer, at the top level and in a workspace', async () => {
    const { app, ws } = await fresh();
    const order = await call(app, 'POST', '/orders', { mint: 'acme', offer: 'provisional', title: 'Self-folding map', inventor: 'Ada', listFeeUsd: 199 }, await topLevelHeaders(app));
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ type: 'OK', status: 'waiting_on_signer', stage: 'review' });
    const fulfilled = await call(app, 'POST', `${ws}/orders`, { mint: 'acme', offer: 'provisional', title: 'Map', inventor: FIXTURE.fulfillingClient, listFeeUsd: 199 });
    expect(fulfilled.body.status).toBe('fulfilled');
    expect((await call(app, 'POST', `${ws}/orders`, { mint: 'acme' })).status).toBe(422);
  });

  it('rebuilds every Matter from the journal after a restart', async () => {
    const { app, ws } = await fresh();
    const m = await create(app, ws, { client: { name: FIXTURE.decliningClient } });
    await advanceTimes(app, ws, m.id, 4);
    const before = await call(app, 'GET', `${ws}/matters/${m.id}`);
    const { createApp } = await import('../../src/compose.ts');
    const again = await createApp({ journal: app.services.journal });
    const after = await call(again, 'GET', `${ws}/matters/${m.id}`);
    expect(after.body).toEqual(before.body);
    await again.close();
  });
});
