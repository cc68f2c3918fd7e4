/**
 * The top level is production: each key sees and touches only its own
 * records, and a Signer's answer lands only as the supply network's signed
 * callback from a registered, eligible Signer. Every test here is an attack
 * (or the honest flow it must not break), over a real listening port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { acrossRestarts, call, issueKey, listeningApp, type IssuedKey, type TestApp } from './helpers/app.ts';
import { connectedTopLevel, REGISTERED_SIGNER, registeredAttestation, signed, SUPPLY_SECRET } from './helpers/supply.ts';

const UNKNOWN_MATTER = 'mt_0000000000000000000000000';
const UNKNOWN_ASSET = 'as_0000000000000000000000000';
const FORGED_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

let app: TestApp;
let url: string;
let a: IssuedKey;
let b: IssuedKey;

/** A request over the real port; answers status, parsed body and the raw text. */
async function http(method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const payload = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const res = await fetch(`${url}${path}`, { method, headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers }, body: payload });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

/** Opens a Matter with key `k` and advances it until its `sign` Gig is out. */
async function matterAtSignGig(k: IssuedKey, extra: Record<string, unknown> = {}) {
  const opened = await http('POST', '/matters', { body: { matterType: 'patent_provisional', client: { name: 'Jane Secret' }, asset: { title: 'Secret invention X' }, ...extra }, headers: k.headers });
  expect(opened.status).toBe(201);
  const id = opened.body.matter.id as string;
  for (let i = 0; i < 4; i++) expect((await http('POST', `/matters/${id}/advance`, { body: {}, headers: k.headers })).status).toBe(200);
  const matter = (await http('GET', `/matters/${id}`)).body.matter;
  expect(matter.status).toBe('waiting_on_signer');
  return { id, assetId: matter.assetId as string, gigId: matter.pendingGigId as string };
}

/** Everything the journal holds of a Matter and its ladder, and the owner's tail position. */
async function stateOf(k: IssuedKey, m: { id: string; assetId: string }) {
  const { journal } = app.services;
  return JSON.stringify([await journal.readStream(m.id), await journal.readStream(`ladder:${m.assetId}`), await journal.readStream(m.assetId), await journal.latestSeq(k.grain)]);
}

beforeAll(async () => {
  ({ app, url } = await listeningApp(connectedTopLevel()));
  a = await issueKey(app, 'a@legalwork.test');
  b = await issueKey(app, 'b@legalwork.test');
});
afterAll(async () => app.close());

describe('the three-step attack fails at every step', () => {
  it('a keyless list shows nothing; key B cannot attest key A\'s reserved act, with or without the fixture Signer', async () => {
    const m = await matterAtSignGig(a);
    // Step 2: no keyless listing or tail shows A's Matter.
    for (const path of ['/matters', '/assets', '/events', '/events?feed=reminders', '/events/stream']) {
      const res = await http('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body).toMatchObject({ type: 'EMPTY', message: expect.stringContaining('Authorization: Bearer') });
      for (const secret of [m.id, m.assetId, m.gigId, 'Secret invention X']) expect(res.text).not.toContain(secret);
    }
    const stream = await http('GET', '/events/stream', { headers: { accept: 'text/event-stream' } });
    expect(stream.body.type).toBe('EMPTY');
    // Step 3: key B's gig-result, any Signer: refused, and A's Matter does not move.
    const before = await stateOf(a, m);
    const attest = { gigId: m.gigId, outcome: 'attested', attestation: { signedBy: 'sg_fixture_eligible', credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'a'.repeat(64)}` } };
    const byKey = await http('POST', `/matters/${m.id}/gig-result`, { body: attest, headers: b.headers });
    expect(byKey.status).toBe(401);
    expect(byKey.body.code).toBe('SIGNATURE_INVALID');
    // Even signed by the network, the fixture Signer is nobody at the top level.
    const fixture = signed(attest);
    const byFixture = await http('POST', `/matters/${m.id}/gig-result`, { raw: fixture.payload, headers: fixture.headers });
    expect(byFixture.status).toBe(422);
    expect(byFixture.body).toMatchObject({ code: 'SIGNER_ELIGIBILITY', rule: 'attestation', pendingGigId: m.gigId });
    expect(await stateOf(a, m)).toBe(before);
    expect((await http('GET', `/matters/${m.id}`)).body.matter).toMatchObject({ status: 'waiting_on_signer', attestedActs: 0 });
  });
});

describe("key B on key A's records", () => {
  it('every top-level write door answers exactly what an unknown id answers, and writes nothing', async () => {
    const m = await matterAtSignGig(a);
    const before = await stateOf(a, m);
    const bBefore = await app.services.journal.latestSeq(b.grain);
    const doors: Array<[string, (id: string, asset: string) => string, unknown]> = [
      ['advance', (id) => `/matters/${id}/advance`, {}],
      ['consent', (id) => `/matters/${id}/consent`, { actor: 'client', scope: 'all' }],
      ['client-direction', (id) => `/matters/${id}/client-direction`, { instruction: 'go on' }],
      ['terminal', (id) => `/matters/${id}/terminal`, { outcome: 'withdrawn', byClient: true }],
      ['documents', (id) => `/matters/${id}/documents`, { name: 'x.pdf', kind: 'spec', sha256: 'a'.repeat(64) }],
      ['tick', (_, asset) => `/deadlines/${asset}/tick`, { days: 1 }],
      ['ack', (_, asset) => `/deadlines/${asset}/ack`, { actor: 'Mallory' }],
      ['monitor', (_, asset) => `/deadlines/${asset}/monitor`, { signerId: 'platform' }],
      ['satisfy', (_, asset) => `/deadlines/${asset}/satisfy`, { evidenceRef: 'forged' }],
      ['resolve', (_, asset) => `/deadlines/${asset}/resolve`, { outcome: 'clientNotice' }],
    ];
    for (const [door, path, body] of doors) {
      const attack = await http('POST', path(m.id, m.assetId), { body, headers: b.headers });
      const unknown = await http('POST', path(UNKNOWN_MATTER, UNKNOWN_ASSET), { body, headers: b.headers });
      expect(attack.status, door).toBe(404);
      expect({ ...attack.body, error: attack.body.error.replace(m.id, '<id>').replace(m.assetId, '<id>') }, door).toEqual({ ...unknown.body, error: unknown.body.error.replace(UNKNOWN_MATTER, '<id>').replace(UNKNOWN_ASSET, '<id>'), ...(unknown.body.matterId ? { matterId: m.id } : {}), ...(unknown.body.assetId ? { assetId: m.assetId } : {}) });
    }
    // An unsigned callback is refused before any Matter is looked up: the same answer as for an unknown id.
    const callback = { gigId: m.gigId, outcome: 'declined', memo: 'no' };
    const known = await http('POST', `/matters/${m.id}/gig-result`, { body: callback, headers: b.headers });
    const unknown = await http('POST', `/matters/${UNKNOWN_MATTER}/gig-result`, { body: callback, headers: b.headers });
    expect([known.status, known.body]).toEqual([unknown.status, unknown.body]);
    expect(await stateOf(a, m)).toBe(before);
    expect(await app.services.journal.latestSeq(b.grain)).toBe(bBefore);
  });

  it("key B's lists and tails show none of A's ids, titles, counts or seqs; reads by id stay keyless", async () => {
    const m = await matterAtSignGig(a);
    const fresh = await issueKey(app, 'c@legalwork.test');
    for (const path of ['/matters', '/assets', '/events', '/events?feed=time', '/events/stream']) {
      const res = await http('GET', path, { headers: fresh.headers });
      // The stream's subscription contract is documentation (OK); its latestSeq is the key's own.
      expect(res.body.type, path).toBe(path === '/events/stream' ? 'OK' : 'EMPTY');
      expect(res.body.latestSeq ?? 0, path).toBe(0);
      for (const secret of [m.id, m.assetId, 'Secret invention X']) expect(res.text, path).not.toContain(secret);
    }
    // A's own lists show it.
    expect((await http('GET', '/matters', { headers: a.headers })).text).toContain(m.id);
    expect((await http('GET', '/assets', { headers: a.headers })).text).toContain('Secret invention X');
    // The id is the capability: anyone holding it reads the record, and never the Client's name.
    for (const path of [`/matters/${m.id}`, `/matters/${m.id}/journal`, `/assets/${m.assetId}`, `/deadlines/${m.assetId}`]) {
      const read = await http('GET', path);
      expect(read.status, path).toBe(200);
      expect(read.text, path).not.toContain('Jane Secret');
    }
    expect((await http('GET', '/healthz')).body.journal).toEqual({ reachable: true });
  });
});

describe("the supply network's signed callback", () => {
  /** Sends a signed gig-result for `m`, signed as `options` say. */
  const callback = (m: { id: string }, body: unknown, options: Parameters<typeof signed>[1] = {}) => {
    const s = signed(body, options);
    return http('POST', `/matters/${m.id}/gig-result`, { raw: s.payload, headers: s.headers });
  };
  const attested = (gigId: string, attestation: Record<string, unknown> = registeredAttestation()) => ({ gigId, outcome: 'attested', attestation });

  it('refuses an unsigned, forged, altered, stale or future callback, each worded, writing nothing', async () => {
    const m = await matterAtSignGig(a);
    const before = await stateOf(a, m);
    const body = attested(m.gigId);
    const good = signed(body);
    const cases: Array<[string, Promise<Awaited<ReturnType<typeof http>>>, number, string, RegExp]> = [
      ['unsigned', http('POST', `/matters/${m.id}/gig-result`, { body, headers: a.headers }), 401, 'SIGNATURE_INVALID', /no Standard Webhooks signature.*API key never stands in/],
      ['wrong secret', callback(m, body, { secret: FORGED_SECRET }), 401, 'SIGNATURE_INVALID', /another secret, or the body changed/],
      ['altered body', http('POST', `/matters/${m.id}/gig-result`, { raw: good.payload.replace('attested', 'declined'), headers: good.headers }), 401, 'SIGNATURE_INVALID', /another secret, or the body changed/],
      ['stale', callback(m, body, { at: new Date(Date.now() - 6 * 60_000) }), 401, 'SIGNATURE_EXPIRED', /in the past.*300 s/],
      ['future', callback(m, body, { at: new Date(Date.now() + 6 * 60_000) }), 401, 'SIGNATURE_EXPIRED', /in the future/],
      ['bad timestamp', http('POST', `/matters/${m.id}/gig-result`, { raw: good.payload, headers: { ...good.headers, 'webhook-timestamp': 'soon' } }), 401, 'SIGNATURE_INVALID', /whole unix seconds/],
    ];
    for (const [name, sent, status, code, words] of cases) {
      const res = await sent;
      expect(res.status, name).toBe(status);
      expect(res.body.code, name).toBe(code);
      expect(res.body.error, name).toMatch(words);
    }
    expect(await stateOf(a, m)).toBe(before);
  });

  it('verifies every Signer fresh at the registry: the fixture, an unregistered, a lapsed, an uncovered Signer and a borrowed credential are refused; the Gig stays pending', async () => {
    const signers = [REGISTERED_SIGNER, { ...REGISTERED_SIGNER, signerId: 'sg_lapsed', standing: 'suspended' }, { ...REGISTERED_SIGNER, signerId: 'sg_uncovered', coverageInForce: false }];
    const registry = await listeningApp(connectedTopLevel(signers));
    try {
      const owner = await issueKey(registry.app, 'd@legalwork.test');
      const saved = url;
      url = registry.url;
      try {
        const m = await matterAtSignGig(owner);
        for (const [signedBy, credentialRef, code] of [
          ['sg_fixture_eligible', 'uspto-reg:70001', 'SIGNER_ELIGIBILITY'],
          ['sg_nobody', 'uspto-reg:1', 'SIGNER_ELIGIBILITY'],
          ['sg_lapsed', REGISTERED_SIGNER.credentialRef, 'SIGNER_STANDING'],
          ['sg_uncovered', REGISTERED_SIGNER.credentialRef, 'SIGNER_COVERAGE'],
          [REGISTERED_SIGNER.signerId, 'uspto-reg:99999', 'SIGNER_CREDENTIAL'],
        ]) {
          const res = await callback(m, attested(m.gigId, { signedBy, credentialRef, artifactHash: `sha256:${'b'.repeat(64)}` }));
          expect(res.status, signedBy).toBe(422);
          expect(res.body, signedBy).toMatchObject({ code, rule: 'attestation', pendingGigId: m.gigId });
        }
        expect((await http('GET', `/matters/${m.id}`)).body.matter).toMatchObject({ status: 'waiting_on_signer', pendingGigId: m.gigId });
      } finally {
        url = saved;
      }
    } finally {
      await registry.app.close();
    }
  });

  it('walks a Matter to fulfilled with a registered Signer; a retried callback is answered as the first time and writes nothing; its id on another body is refused', async () => {
    const m = await matterAtSignGig(a, { client: { name: 'Fulfilling Client (fixture)' } });
    const first = signed(attested(m.gigId), { id: 'msg_sign_1' });
    const accepted = await http('POST', `/matters/${m.id}/gig-result`, { raw: first.payload, headers: first.headers });
    expect(accepted.status).toBe(200);
    expect(accepted.body.matter).toMatchObject({ status: 'sign', attestedActs: 1 });
    const filing = (await http('POST', `/matters/${m.id}/advance`, { body: {}, headers: a.headers })).body.escalated.gigId as string;
    const filed = await callback(m, { ...attested(filing), receipt: 'uspto-receipt:63/123,456' });
    expect(filed.body.matter.status).toBe('fulfilled');
    expect((await http('GET', `/matters/${m.id}/settlement`)).status).toBe(200);
    // The first callback again: its first answer, byte for byte, marked replayed; nothing written.
    const before = await stateOf(a, m);
    const retry = await http('POST', `/matters/${m.id}/gig-result`, { raw: first.payload, headers: first.headers });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(accepted.text);
    const reused = await callback(m, { gigId: m.gigId, outcome: 'declined', memo: 'changed my mind' }, { id: 'msg_sign_1' });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('WEBHOOK_ID_REUSED');
    expect(await stateOf(a, m)).toBe(before);
  });

  it('answers 403 BLOCKED naming the missing connection when no supply network secret is set', async () => {
    const unconnected = await listeningApp();
    try {
      const res = await fetch(`${unconnected.url}/matters/${UNKNOWN_MATTER}/gig-result`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ type: 'BLOCKED', code: 'SUPPLY_NETWORK_NOT_CONNECTED', error: expect.stringContaining('LEGALWORK_SUPPLY_SECRET') });
    } finally {
      await unconnected.app.close();
    }
  });

  it('keeps answering a retried callback as the first time across a restart', async () => {
    await acrossRestarts(async (start) => {
      const first = await start(connectedTopLevel());
      const k = await issueKey(first);
      const opened = (await call(first, 'POST', '/matters', { matterType: 'demand_letter' }, k.headers)).body.matter.id as string;
      for (let i = 0; i < 4; i++) await call(first, 'POST', `/matters/${opened}/advance`, {}, k.headers);
      const gigId = (await call(first, 'GET', `/matters/${opened}`)).body.matter.pendingGigId as string;
      const s = signed({ gigId, outcome: 'declined', memo: 'the facts do not support it' }, { id: 'msg_restart' });
      const answered = await call(first, 'POST', `/matters/${opened}/gig-result`, s.payload, s.headers);
      expect(answered.status).toBe(200);
      await first.close();
      const second = await start(connectedTopLevel());
      const journal = JSON.stringify(await second.services.journal.readStream(opened));
      const again = await call(second, 'POST', `/matters/${opened}/gig-result`, s.payload, s.headers);
      expect(again.raw).toBe(answered.raw);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(JSON.stringify(await second.services.journal.readStream(opened))).toBe(journal);
      await second.close();
    });
  });
});

describe('fixtures are sandbox-only', () => {
  it('a fixture Client\'s Gig waits for a real answer, a fixture title places no ladder, the conflict party raises no signal', async () => {
    const opened = await http('POST', '/matters', { body: { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' }, asset: { title: '[fixture:ack-due] map' }, adverseParties: ['Conflicted Holdings LLC (fixture)'] }, headers: a.headers });
    const id = opened.body.matter.id as string;
    expect(opened.body.matter.signals).toEqual([]);
    expect(opened.body.asset.deadlineLadder.daysUntilDeadline).toBeGreaterThan(5);
    for (let i = 0; i < 4; i++) await http('POST', `/matters/${id}/advance`, { body: {}, headers: a.headers });
    const m = (await http('GET', `/matters/${id}`)).body.matter;
    expect(m).toMatchObject({ status: 'waiting_on_signer', attestedActs: 0 });
    // The verification the service does: the library's own, over the bytes sent.
    const s = signed({ gigId: m.pendingGigId, outcome: 'attested', attestation: registeredAttestation() });
    expect(() => new Webhook(SUPPLY_SECRET).verify(s.payload, s.headers)).not.toThrow();
  });
});

describe('the signed callback under an Idempotency-Key', () => {
  it('keeps the key for the supply network: a second delivery of the same request (a new webhook-id) replays the first answer', async () => {
    const m = await matterAtSignGig(a);
    const body = { gigId: m.gigId, outcome: 'attested', attestation: registeredAttestation() };
    const first = signed(body);
    const one = await http('POST', `/matters/${m.id}/gig-result`, { raw: first.payload, headers: { ...first.headers, 'idempotency-key': 'callback-1' } });
    expect(one.status).toBe(200);
    const before = await stateOf(a, m);
    const second = signed(body);
    const two = await http('POST', `/matters/${m.id}/gig-result`, { raw: second.payload, headers: { ...second.headers, 'idempotency-key': 'callback-1' } });
    expect(two.status).toBe(200);
    expect(two.text).toBe(one.text);
    expect(two.headers.get('idempotent-replayed')).toBe('true');
    expect(await stateOf(a, m)).toBe(before);
    // Unsigned, the key changes nothing: the signature is checked first.
    expect((await http('POST', `/matters/${m.id}/gig-result`, { body, headers: { 'idempotency-key': 'callback-1' } })).status).toBe(401);
  });
});
