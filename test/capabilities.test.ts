/**
 * The listed capability catalog: every listed route is served (top level and
 * in workspaces); reads are typed with meta; requiresAccess doors are BLOCKED;
 * records answer draft artifacts with their sha256; unreserved acts complete
 * on the simulated registry; requiresSigner acts answer the pending state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES, openapiPath } from '../src/domain/capabilities/catalog.ts';
import { refusingSupplyNetwork } from '../src/domain/supply-network.ts';
import { sha256Hex as sha } from '../src/domain/hash.ts';
import { registeredSigners } from '../src/domain/registered-signers.ts';
import { call, testApp, topLevelHeaders, topLevelKey, workspace, type TestApp } from './helpers/app.ts';

const REGISTERED = { signerId: 'sg_registered_patent_agent', credentialRef: 'uspto-reg:80001', standing: 'good', coverageInForce: true };

const HASH = sha('the specification as filed');

let app: TestApp;
let auth: Record<string, string>;
beforeAll(async () => {
  app = await testApp({ signers: registeredSigners(async () => [REGISTERED, { ...REGISTERED, signerId: 'sg_struck_off', standing: 'suspended' }]) });
  auth = await topLevelHeaders(app);
});
afterAll(async () => app.close());

describe('the catalog is served', () => {
  it('every listed route exists at the top level and inside workspaces, and is documented', async () => {
    const doc = (await call(app, 'GET', '/openapi.json')).body;
    for (const c of CAPABILITIES) {
      for (const prefix of ['', '/workspaces/{workspaceId}']) {
        expect(doc.paths[`${prefix}${openapiPath(c.path)}`]?.[c.method.toLowerCase()], `${c.method} ${prefix}${c.path}`).toBeDefined();
      }
    }
  });
});

describe('reads', () => {
  it.each([
    ['/patent/search?q=acoustic', { type: 'OK' }],
    ['/patent/US10000303B1', { type: 'OK', patent: { number: 'US10000303B1', assignee: 'Greenrow Devices LLC' } }],
    ['/patent/us10000303b1', { type: 'OK', patent: { number: 'US10000303B1' } }],
    ['/patent/US10000404B2/family', { type: 'OK', family: { familyId: 'FAM-0002' } }],
    ['/patent/US10000505B2/status', { type: 'OK', status: { current: 'active' } }],
    ['/patent/US10000202B2/assignment', { type: 'OK' }],
    ['/patent/US10000404B2/assignment', { type: 'EMPTY' }],
    ['/patent/US10000303B1/citations', { type: 'OK' }],
    ['/patent/US10000202B2/ptab', { type: 'OK' }],
    ['/patent/US10000404B2/maintenance', { type: 'OK' }],
    ['/trademark/97000202/status', { type: 'OK', trademark: { status: 'office action issued' } }],
    ['/entity/de/7000303/standing', { type: 'OK', entity: { standing: 'void' } }],
    ['/patent/US10000505/status', { type: 'OK', number: 'US10000505B2' }],
    ['/trademark/97-000202/status', { type: 'OK', trademark: { serial: '97000202' } }],
    ['/entity/Delaware/7000303/standing', { type: 'OK', entity: { state: 'DE' } }],
    ['/lien/ucc/DE/20180002020', { type: 'OK', filing: { status: 'lapsed' } }],
  ])('GET %s answers typed, with meta{gate, effect, metered}', async (path, expected) => {
    const res = await call(app, 'GET', path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...expected, meta: { gate: 'none', effect: 'read', metered: false, dataset: 'synthetic' } });
  });

  it('search matches every word, case-insensitively, and an unmatched query is a typed EMPTY', async () => {
    const hit = await call(app, 'GET', '/patent/search?q=Acoustic%20sensor');
    expect(hit.body.results.map((r: { number: string }) => r.number)).toEqual(['US10000303B1', 'US10000404B2']);
    const narrow = await call(app, 'GET', '/patent/search?q=acoustic%20mesh');
    expect(narrow.body.results).toEqual([expect.objectContaining({ number: 'US10000404B2', matched: ['acoustic', 'mesh'] })]);
    const miss = await call(app, 'GET', '/patent/search?q=zeppelin');
    expect(miss.body).toMatchObject({ type: 'EMPTY', results: [], q: 'zeppelin' });
    expect((await call(app, 'GET', '/patent/search')).status).toBe(422);
  });

  it('citations agree in both directions', async () => {
    const parent = (await call(app, 'GET', '/patent/US10000101B2/citations')).body;
    expect(parent.cites).toEqual([]);
    expect(parent.citedBy.map((p: { number: string }) => p.number).sort()).toEqual(['US10000202B2', 'US10000303B1']);
    const child = (await call(app, 'GET', '/patent/US10000202B2/citations')).body;
    expect(child.cites.map((p: { number: string }) => p.number)).toEqual(['US10000101B2']);
  });

  it('a not-found is a typed EMPTY that never meters; a malformed id is 422', async () => {
    for (const path of ['/patent/US12345678B2', '/patent/US12345678B2/status', '/trademark/12345678/status', '/entity/DE/1234567/standing', '/lien/ucc/DE/0000']) {
      const res = await call(app, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ type: 'EMPTY', results: [], meta: { metered: false } });
    }
    const malformed = await call(app, 'GET', '/patent/not-a-number');
    expect(malformed.status).toBe(422);
    // The refusal teaches: the field, and the forms a patent number is read in (test/identifiers.test.ts walks them).
    expect(malformed.body).toMatchObject({ code: 'IDENTIFIER_UNRECOGNIZED', field: 'params.number', accepted: expect.arrayContaining([expect.stringContaining('US10000202B2')]) });
  });

  it('the restricted court-records upstream is BLOCKED naming pacer and the upgrade path, key or not', async () => {
    for (const headers of [{}, auth]) {
      const res = await call(app, 'GET', '/court/nysd/1:23-cv-00001/docket', undefined, headers);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ type: 'BLOCKED', code: 'ACCESS_REQUIRED', requiresAccess: 'pacer', upgrade: { tier: 'credential_verified', live: false } });
    }
  });
});

describe('records', () => {
  const claims = { title: 'Self-folding map', summary: 'A map that refolds itself', features: ['a sheet of paper', 'pre-stressed creases that refold the sheet'], optionalFeatures: ['a printed legend'] };

  it('need a key at the top level (401 naming POST /keys) and none in a workspace', async () => {
    const res = await call(app, 'POST', '/patent/draft-claims', claims);
    expect(res.status).toBe(401);
    expect(res.body.fix).toBe('POST /keys');
    const ws = await workspace(app);
    expect((await call(app, 'POST', `${ws}/patent/draft-claims`, claims)).status).toBe(201);
  });

  it('answer a draft artifact whose sha256 is of its exact bytes; the journal keeps the hash, not the text', async () => {
    const res = await call(app, 'POST', '/patent/draft-claims', claims, auth);
    expect(res.status).toBe(201);
    const { artifact } = res.body;
    expect(res.body).toMatchObject({ type: 'OK', effect: 'record', gate: 'none', advice: false, meta: { effect: 'record', metered: false } });
    expect(artifact.sha256).toBe(sha(artifact.content));
    expect(artifact.bytes).toBe(Buffer.byteLength(artifact.content));
    expect(artifact.content).toMatch(/not legal advice/);
    expect(artifact.content).toContain('1. A self-folding map, comprising:');
    expect(artifact.content).toContain('2. The self-folding map of claim 1, further comprising a printed legend.');
    const again = await call(app, 'POST', '/patent/draft-claims', claims, auth);
    expect(again.body.artifact.sha256).toBe(artifact.sha256);
    expect(again.body.artifact.id).not.toBe(artifact.id);
    const [recorded] = await app.services.journal.readStream(artifact.id);
    expect(recorded).toMatchObject({ kind: 'capability.recorded', seq: res.body.recordedSeq, data: { sha256: artifact.sha256, kind: 'patent_claims' } });
    expect(JSON.stringify(recorded)).not.toContain('pre-stressed creases');
  });

  it.each([
    ['/patent/draft-spec', { title: 'Leak detector', field: 'Irrigation monitoring', summary: 'A clamp-on acoustic sensor', figures: ['a side view of the clamp'] }, /FIG\. 1 is a side view of the clamp\./],
    ['/patent/prior-art-report', { query: 'acoustic leak sensor' }, /US10000303B1/],
    ['/patent/oa-response', { applicationNumber: '17/000,001', rejections: [{ basis: '103', claims: [1, 2], reference: 'US10000101B2' }] }, /Obviousness/],
    ['/patent/ids', { applicationNumber: '17/000,001', references: [{ citation: 'US10000101B2', kind: 'us_patent' }, { citation: 'Smith, Maps (1999)', kind: 'npl', date: '1999-01-01' }] }, /Self-folding paper map/],
    ['/trademark/oa-response-draft', { serial: '97000202', refusals: [{ basis: '2(d)', note: 'different channels of trade' }] }, /GREENROW LISTEN/],
    ['/contract/review', { title: 'Supply agreement', text: 'This agreement between A and B. Term: one year. Either party may terminate. Governed by the laws of Delaware.' }, /\| governing law \| yes \|/],
    ['/demand-letter/draft', { from: { name: 'Ada' }, to: { name: 'Ben' }, amountUsd: 1200, facts: 'Ben has not paid invoice 17' }, /1200\.00 USD within 14 days/],
    ['/entity/de/formation-docs', { entityName: 'Cartofold LLC', entityType: 'llc', registeredAgent: { name: 'Agent Co', address: '1 Main St, Dover, DE' }, organizer: { name: 'Ada' } }, /Certificate of Formation of Cartofold LLC/],
  ])('POST %s drafts its artifact', async (path, body, content) => {
    const res = await call(app, 'POST', path, body, auth);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.artifact.content).toMatch(content);
    expect(res.body.artifact.sha256).toBe(sha(res.body.artifact.content));
  });

  it('refuse malformed bodies and a formation name without its suffix, writing nothing', async () => {
    const { grain } = await topLevelKey(app);
    const before = await app.services.journal.latestSeq(grain);
    expect((await call(app, 'POST', '/patent/draft-claims', { title: 'x', summary: 'y', features: [] }, auth)).status).toBe(422);
    expect((await call(app, 'POST', '/patent/oa-response', { applicationNumber: '1', rejections: [{ basis: '999', claims: [1] }] }, auth)).status).toBe(422);
    const suffix = await call(app, 'POST', '/entity/de/formation-docs', { entityName: 'Cartofold', entityType: 'llc', registeredAgent: { name: 'A', address: 'B' }, organizer: { name: 'C' } }, auth);
    expect(suffix.status).toBe(422);
    expect(suffix.body.code).toBe('ENTITY_NAME_SUFFIX');
    // It names the field, the suffixes an LLC takes, and the name with one.
    expect(suffix.body).toMatchObject({ field: 'body.entityName', accepted: ['LLC', 'L.L.C.', 'Limited Liability Company'] });
    expect(suffix.body.fix).toContain('"Cartofold LLC"');
    expect(await app.services.journal.latestSeq(grain)).toBe(before);
  });

  it('docket watches need the practitioner portal: BLOCKED for every caller, ahead of any body check', async () => {
    for (const path of ['/docket-watch', '/patent/docket-watch']) {
      for (const [body, headers] of [[{}, {}], [{ applicationNumber: '17/000,001', court: 'x', case: 'y' }, auth]] as const) {
        const res = await call(app, 'POST', path, body, headers);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ type: 'BLOCKED', requiresAccess: 'patent-center-practitioner' });
      }
    }
  });
});

describe('acts', () => {
  it('an unreserved act completes on the simulated registry and journals its receipt', async () => {
    expect((await call(app, 'POST', '/patent/file-provisional', { title: 'Map', inventors: ['Ada'], specificationSha256: HASH })).status).toBe(401);
    const res = await call(app, 'POST', '/patent/file-provisional', { title: 'Map', inventors: ['Ada'], specificationSha256: HASH }, auth);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'OK', effect: 'act', gate: 'none', status: 'completed', act: { priceUsd: 199, route: 'POST /patent/file-provisional' }, receipt: { synthetic: true }, preview: true });
    expect(res.body.receipt.id).toMatch(/^63\/\d{3},\d{3}$/);
    const [acted] = await app.services.journal.readStream(res.body.act.id);
    expect(acted).toMatchObject({ kind: 'capability.acted', data: { priceUsd: 199 } });
  });

  it('a maintenance fee is paid once, only in an open window, only for a known patent', async () => {
    const pay = (patentNumber: string, window: string) => call(app, 'POST', '/patent/pay-maintenance', { patentNumber, window }, auth);
    expect((await pay('US10000404B2', '3.5')).status).toBe(201);
    const twice = await pay('US10000404B2', '3.5');
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('MAINTENANCE_ALREADY_PAID');
    const closed = await pay('US10000404B2', '7.5');
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe('MAINTENANCE_WINDOW_NOT_OPEN');
    expect((await pay('US12345678B2', '3.5')).status).toBe(404);
    // Another grain has its own payments.
    const ws = await workspace(app);
    expect((await call(app, 'POST', `${ws}/patent/pay-maintenance`, { patentNumber: 'US10000404B2', window: '3.5' })).status).toBe(201);
  });

  it('concurrent payments of one window: exactly one lands', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => call(app, 'POST', '/patent/pay-maintenance', { patentNumber: 'US10000505B2', window: '7.5' }, auth)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
  });

  it('count against the key\'s spend ceiling at their posted price', async () => {
    const key = (await call(app, 'POST', '/keys', { email: 'a@b.co', spendCeilingUsd: 250 })).body.key;
    const capped = { authorization: `Bearer ${key}` };
    expect((await call(app, 'POST', '/patent/file-provisional', { title: 'Map', inventors: ['Ada'], specificationSha256: HASH }, capped)).status).toBe(201);
    // 199 committed + 99 would pass 250.
    const refused = await call(app, 'POST', '/entity/de/form', { entityName: 'Cartofold LLC', entityType: 'llc', formationDocsSha256: HASH }, capped);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: 'BLOCKED', code: 'SPEND_CEILING', spendCeilingUsd: 250, committedUsd: 199, priceUsd: 99 });
    // Records are not paid acts.
    expect((await call(app, 'POST', '/patent/prior-art-report', { query: 'map' }, capped)).status).toBe(201);
    // A reserved act counts too: the utility filing (799) is refused before any Gig is posted.
    const utility = await call(app, 'POST', '/patent/file-utility', { title: 'Map', inventors: ['Ada'], applicationSha256: HASH }, capped);
    expect(utility.status).toBe(403);
    expect(utility.body.code).toBe('SPEND_CEILING');
  });
});

describe('reserved acts (requiresSigner)', () => {
  const utility = { title: 'Map', inventors: ['Ada'], applicationSha256: HASH };

  it('answer the typed pending state: waiting_on_signer, routed to a credential holder, PT24H', async () => {
    const res = await call(app, 'POST', '/patent/file-utility', utility, auth);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'waiting_on_signer',
      effect: 'act',
      gate: { requiresSigner: 'uspto-registration' },
      signer: { routed: true, credential: 'uspto-registration', verification: { mode: 'registry' } },
      eta: 'PT24H',
      act: { priceUsd: 799 },
    });
    expect(res.body.gigId).toMatch(/^gig_/);
    expect(Object.keys(res.body.then).sort()).toEqual(['attestation', 'receipt', 'webhook']);
    const [escalated] = await app.services.journal.readStream(res.body.act.id);
    expect(escalated).toMatchObject({ kind: 'capability.escalated', data: { gigId: res.body.gigId, credential: 'uspto-registration' } });
  });

  it.each([
    ['/patent/record-assignment', { patentNumber: 'US10000101B2', assignor: 'Cartofold Synthetic Inc.', assignee: 'Ada', instrumentSha256: HASH }, 'uspto-registration'],
    ['/trademark/file-oa-response', { serial: '97000202', responseSha256: HASH }, 'state-bar'],
    ['/demand-letter/send', { to: { name: 'Ben' }, letterSha256: HASH }, 'state-bar'],
    ['/contract/advise', { question: 'Is clause 4 enforceable?' }, 'state-bar'],
  ])('POST %s is routed to a Signer holding its credential', async (path, body, credential) => {
    const res = await call(app, 'POST', path, body, auth);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'waiting_on_signer', gate: { requiresSigner: credential } });
  });

  it('a named Signer whose credential is not live is BLOCKED, never degraded; an eligible one is routed', async () => {
    // At the top level the fixture Signers are unknown, like any unregistered one.
    for (const signerId of ['sg_fixture_eligible', 'sg_fixture_lapsed', 'sg_struck_off', 'sg_unknown']) {
      const res = await call(app, 'POST', '/patent/file-utility', { ...utility, signerId }, auth);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ type: 'BLOCKED', code: 'SIGNER_CREDENTIAL_NOT_LIVE', credential: 'uspto-registration' });
      expect(res.body.cure).toEqual(expect.any(String));
    }
    expect((await call(app, 'POST', '/patent/file-utility', { ...utility, signerId: REGISTERED.signerId }, auth)).status).toBe(202);
  });

  it('inside a sandbox grain the fixture Signers decide', async () => {
    const ws = await workspace(app);
    for (const signerId of ['sg_fixture_lapsed', 'sg_fixture_lapsed_coverage', 'sg_unknown']) {
      expect((await call(app, 'POST', `${ws}/patent/file-utility`, { ...utility, signerId })).status).toBe(403);
    }
    expect((await call(app, 'POST', `${ws}/patent/file-utility`, { ...utility, signerId: 'sg_fixture_eligible' })).status).toBe(202);
  });

  it("journals the act's Gig before the post: a post the network refuses stays pending and the answer says so", async () => {
    const refusing = await testApp({ supply: refusingSupplyNetwork });
    try {
      const res = await call(refusing, 'POST', '/patent/file-utility', utility, await topLevelHeaders(refusing));
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'waiting_on_signer', gigId: expect.stringMatching(/^gig_/), pending: expect.stringMatching(/refused/) });
      const [intent] = await refusing.services.journal.readStream(res.body.act.id);
      expect(intent).toMatchObject({ kind: 'capability.escalated', grain: (await topLevelKey(refusing)).grain, data: { gigId: res.body.gigId } });
    } finally {
      await refusing.close();
    }
  });
});
