/**
 * The inspection doors (issue 35, item 1): where they are, who may read
 * them, how `at` reads, and that every edge they name is one of the
 * machine's own. The property that the doors they list are the service's
 * answers is test/inspection.prop.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadlineLadderMachine } from '../machines/deadline-ladder.ts';
import { edgeIndex } from '../machines/edges.ts';
import { enrollmentMachine } from '../machines/enrollment.ts';
import { matterMachine } from '../machines/matter.ts';
import { GRAIN_ID_PREFIX } from '../src/domain/grain-kinds.ts';
import { GRAIN_MOUNTS, grainBase } from '../src/domain/links.ts';
import { call, issueKey, testApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app?.close();
});

const MACHINES = { matter: matterMachine, 'deadline-ladder': deadlineLadderMachine, enrollment: enrollmentMachine } as const;

/** Every edge an inspection names (the path's, the open doors', the refusals') is one of its machine's. */
function edgesAreTheMachines(inspection: any) {
  const keys = new Set(edgeIndex(MACHINES[inspection.subject.kind as keyof typeof MACHINES]).keys);
  const named = [...inspection.path, ...inspection.open, ...inspection.refused].flatMap((x: { transitions: string[] }) => x.transitions);
  expect(named.filter((k: string) => !keys.has(k))).toEqual([]);
  return named as string[];
}

async function workspace() {
  const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id as string;
  return `/workspaces/${ws}`;
}

describe('links', () => {
  it('a grain\'s mount is read off its id as the engine reads its kind', () => {
    expect(Object.keys(GRAIN_MOUNTS).sort()).toEqual(Object.values(GRAIN_ID_PREFIX).sort());
    for (const [kind, prefix] of Object.entries(GRAIN_ID_PREFIX)) expect(GRAIN_MOUNTS[prefix]).toBe(`/${kind}s`);
    expect(grainBase('key_abc')).toBe('');
    expect(grainBase('ws_abc')).toBe('/workspaces/ws_abc');
  });

  it('a Matter\'s JSON links its inspector page and its inspection, under its grain: in a workspace, a tenant, at the top level', async () => {
    const W = await workspace();
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional' })).body.matter;
    expect(m.links).toEqual({ inspect: `${W}/matters/${m.id}/inspect`, inspection: `${W}/matters/${m.id}/inspection` });
    const listed = (await call(app, 'GET', `${W}/matters`)).body.results[0];
    expect(listed.links).toEqual(m.links);

    const tn = (await call(app, 'POST', '/tenants')).body.tenant.id as string;
    expect((await call(app, 'PUT', `/tenants/${tn}/offers`, [{ id: 'prov', title: 'Provisional', priceUsd: 199, matterType: 'patent_provisional' }])).status).toBe(200);
    const t = (await call(app, 'POST', `/tenants/${tn}/matters`, { offer: 'prov' })).body.matter;
    expect(t.links.inspection).toBe(`/tenants/${tn}/matters/${t.id}/inspection`);
    const inTenant = await call(app, 'GET', t.links.inspection);
    expect(inTenant.status).toBe(200);
    expect(inTenant.body.inspection.subject.links.stream).toBe(`/tenants/${tn}/events/stream`);

    const key = await issueKey(app, 'inspect@legalwork.test');
    const top = (await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.headers)).body.matter;
    expect(top.links).toEqual({ inspect: `/matters/${top.id}/inspect`, inspection: `/matters/${top.id}/inspection` });
  });
});

describe('reads by id (#13)', () => {
  it('at the top level the id is the capability: keyless, or another key, reads the inspection as GET /matters/{id} does; an unknown id is 404', async () => {
    const owner = await issueKey(app, 'owner@legalwork.test');
    const other = await issueKey(app, 'other@legalwork.test');
    const m = (await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, owner.headers)).body.matter;
    for (const headers of [{}, other.headers, owner.headers]) {
      const res = await call(app, 'GET', `/matters/${m.id}/inspection`, undefined, headers);
      expect(res.status).toBe(200);
      expect(res.body.inspection.subject).toMatchObject({ kind: 'matter', id: m.id });
      const ladder = await call(app, 'GET', `/deadlines/${m.assetId}/inspection`, undefined, headers);
      expect(ladder.status).toBe(200);
    }
    expect((await call(app, 'GET', '/matters/mt_0000000000000000000000000/inspection')).body.code).toBe('MATTER_NOT_FOUND');
    expect((await call(app, 'GET', '/deadlines/as_0000000000000000000000000/inspection')).body.code).toBe('LADDER_NOT_FOUND');
    // A sandbox Matter is not the top level's, and the reverse.
    const W = await workspace();
    const sandboxed = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional' })).body.matter;
    expect((await call(app, 'GET', `/matters/${sandboxed.id}/inspection`)).status).toBe(404);
    expect((await call(app, 'GET', `${W}/matters/${m.id}/inspection`)).status).toBe(404);
  });
});

describe('a Matter on its machine', () => {
  it('names its machine, diagram, state and path; every fact a step with its cause, states and edges; every edge the machine\'s own', async () => {
    const W = await workspace();
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Inventor' } })).body.matter;
    for (let i = 0; i < 4; i++) await call(app, 'POST', `${W}/matters/${m.id}/advance`, {});
    const got = await call(app, 'GET', `${W}/matters/${m.id}`);
    const res = await call(app, 'GET', `${W}/matters/${m.id}/inspection`);
    expect(res.status).toBe(200);
    const i = res.body.inspection;
    expect(i.machine).toEqual({ id: 'matter', version: 1, diagram: '/docs/diagrams/matter.svg' });
    expect(i.state).toEqual({ path: 'open.waiting_on_signer', status: 'waiting_on_signer', final: false, tags: ['awaiting-signer'] });
    expect(i.matter).toEqual(got.body.matter);
    expect(i.path.map((s: any) => s.seq)).toEqual(got.body.journal.map((e: any) => e.seq));
    expect(i.path.map((s: any) => s.data)).toEqual(got.body.journal.map((e: any) => e.data));
    expect(i.path[0]).toMatchObject({ step: 1, event: 'xstate.init', from: null, to: 'open.intake', transitions: [] });
    expect(i.path.at(-1)).toMatchObject({ kind: 'gig.posted', event: 'ESCALATE', from: 'open.review', to: 'open.waiting_on_signer', transitions: ['open.review ESCALATE -> open.waiting_on_signer'], gigId: m.id ? got.body.matter.pendingGigId : null });
    expect(i.path[1].provenance).toEqual({ proposedBy: 'agent' });
    expect(i.at).toEqual({ seq: i.head.seq, version: i.head.version, latest: true });
    edgesAreTheMachines(i);
    // Waiting on a Signer: the reserved act is theirs. The withdrawal the machine refuses here names the edge that refuses it.
    expect(i.open.map((d: any) => d.command)).toEqual(['consent', 'gig-result.attested', 'gig-result.send_back', 'gig-result.declined', 'client-direction', 'documents']);
    const withdraw = i.refused.find((d: any) => d.command === 'terminal.withdrawn');
    expect(withdraw).toMatchObject({ status: 409, code: 'MATTER_WAITING_ON_SIGNER', transitions: ['open.waiting_on_signer WITHDRAW -> (refuses)'], href: `${W}/matters/${m.id}/terminal`, door: '/matters/{id}/terminal' });
    expect(i.open.find((d: any) => d.command === 'gig-result.attested').body.gigId).toBe(got.body.matter.pendingGigId);
  });

  it('?at=<seq>: as of the last fact at or before it; past the head, now; before the opening, 422 naming the range', async () => {
    const W = await workspace();
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', consumerPattern: 'B2A2D' })).body.matter;
    await call(app, 'POST', `${W}/matters/${m.id}/consent`, { actor: 'client', scope: 'this Matter' });
    await call(app, 'POST', `${W}/matters/${m.id}/advance`, {});
    const now = (await call(app, 'GET', `${W}/matters/${m.id}/inspection`)).body.inspection;
    const [opened, consented, advanced] = now.path;
    const atOpening = (await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=${opened.seq}`)).body.inspection;
    expect(atOpening.at).toEqual({ seq: opened.seq, version: 1, latest: false });
    expect(atOpening.path).toHaveLength(1);
    // B2A2D before consent: the advance is refused by the Gate, in front of the edge it guards.
    expect(atOpening.refused.find((d: any) => d.command === 'advance')).toMatchObject({ status: 422, code: 'GATE_CONSENT', rule: 'consent', transitions: ['open.intake ADVANCE [consentSatisfied] -> open.prepare'] });
    const atConsent = (await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=${consented.seq}`)).body.inspection;
    expect(atConsent.state.status).toBe('intake');
    expect(atConsent.open.find((d: any) => d.command === 'advance').transitions).toEqual(['open.intake ADVANCE [consentSatisfied] -> open.prepare']);
    // A seq between two of its facts (another stream's) reads as the earlier; past the head, as now.
    expect((await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=${advanced.seq - 1}`)).body.inspection.at.seq).toBeLessThan(advanced.seq);
    const past = (await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=${advanced.seq + 1000}`)).body.inspection;
    expect(past.at).toEqual({ seq: advanced.seq, version: 3, latest: true });
    const before = await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=${opened.seq - 1}`);
    expect(before.status).toBe(422);
    expect(before.body).toMatchObject({ code: 'INSPECTION_BEFORE_OPENING', seq: opened.seq });
    expect(before.body.error).toContain(`from seq ${opened.seq} to ${advanced.seq}`);
    expect((await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=-1`)).status).toBe(422);
    expect((await call(app, 'GET', `${W}/matters/${m.id}/inspection?at=soon`)).body.code).toBe('INVALID_REQUEST');
  });

  it('a terminal refuses every command, naming it forever', async () => {
    const W = await workspace();
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional' })).body.matter;
    await call(app, 'POST', `${W}/matters/${m.id}/terminal`, { outcome: 'withdrawn', byClient: true });
    const i = (await call(app, 'GET', `${W}/matters/${m.id}/inspection`)).body.inspection;
    expect(i.state).toMatchObject({ path: 'withdrawn', final: true });
    expect(i.open).toEqual([]);
    expect(new Set(i.refused.map((d: any) => d.code))).toEqual(new Set(['MATTER_TERMINAL']));
    expect(i.path.at(-1).transitions).toEqual(['open WITHDRAW [byClient] -> withdrawn']);
  });
});

describe('a Deadline Ladder and an Enrollment on their machines', () => {
  it('a ladder: its path (ticks, and the reminders journaled beside them, which have no cause), its doors', async () => {
    const W = await workspace();
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', asset: { title: '[fixture:ack-due] map' } })).body.matter;
    const D = `${W}/deadlines/${m.assetId}`;
    expect((await call(app, 'POST', `${D}/tick`, { days: 5 })).status).toBe(200);
    const i = (await call(app, 'GET', `${D}/inspection`)).body.inspection;
    expect(i.subject).toMatchObject({ kind: 'deadline-ladder', id: m.assetId, links: { self: `${D}/inspection`, page: `${D}/inspect`, entity: D } });
    expect(i.machine.diagram).toBe('/docs/diagrams/deadline-ladder.svg');
    expect(i.state).toMatchObject({ path: 'open.terminalRung', status: 'open' });
    expect(i.ladder).toEqual((({ type: _t, provenance: _p, ...own }) => own)((await call(app, 'GET', D)).body));
    const reminders = i.path.filter((s: any) => s.kind.startsWith('reminder.'));
    expect(reminders.length).toBeGreaterThan(0);
    for (const r of reminders) expect(r).toMatchObject({ event: null, transitions: [], from: r.to });
    expect(i.refused.find((d: any) => d.command === 'tick')).toMatchObject({ status: 409, code: 'TICK_REFUSED' });
    expect(i.open.map((d: any) => d.command)).toContain('resolve.clientNotice');
    edgesAreTheMachines(i);
  });

  it('an Enrollment: found by member in its firm; revoked, it refuses a second revocation', async () => {
    const fm = (await call(app, 'POST', '/firms')).body.firm.id as string;
    const F = `/firms/${fm}`;
    expect((await call(app, 'POST', `${F}/enrollments`, { memberId: 'mb_fixture_eligible', grants: ['roster'] })).status).toBe(201);
    let i = (await call(app, 'GET', `${F}/enrollments/mb_fixture_eligible/inspection`)).body.inspection;
    expect(i.subject.kind).toBe('enrollment');
    expect(i.state).toMatchObject({ path: 'live.enrolled', status: 'enrolled', final: false });
    expect(i.open.map((d: any) => [d.command, d.href])).toEqual([[`amend`, `${F}/enrollments`], ['revoke', `${F}/enrollments/mb_fixture_eligible/revoke`]]);
    expect(i.open[0].body).toEqual({ memberId: 'mb_fixture_eligible', grants: ['remittance'] });
    expect((await call(app, 'POST', i.open[1].href, {})).status).toBe(200);
    i = (await call(app, 'GET', `${F}/enrollments/mb_fixture_eligible/inspection`)).body.inspection;
    expect(i.state).toMatchObject({ path: 'revoked', final: true });
    expect(i.enrollment.status).toBe('revoked');
    expect(i.refused.find((d: any) => d.command === 'revoke')).toMatchObject({ status: 409, code: 'ALREADY_REVOKED' });
    const second = await call(app, 'POST', `${F}/enrollments/mb_fixture_eligible/revoke`, {});
    expect(second.body.code).toBe('ALREADY_REVOKED');
    edgesAreTheMachines(i);
    expect((await call(app, 'GET', `${F}/enrollments/mb_fixture_unknown/inspection`)).body.code).toBe('ENROLLMENT_NOT_FOUND');
    expect((await call(app, 'GET', `/firms/fm_0000000000000000000000000/enrollments/mb_fixture_eligible/inspection`)).body.code).toBe('FIRM_NOT_FOUND');
  });
});
