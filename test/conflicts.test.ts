/** Conflicts ledgers over HTTP: hashes only, append-only, never pooled; top-level 403s; firm ledgers and prescreen. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex as h } from '../src/domain/hash.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';

// One app for the file: each test opens the grains it writes to, so none sees another's ledger.
let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());

describe('top level', () => {
  it('GET /conflicts is 403 BLOCKED naming the per-practitioner address', async () => {
    const res = await call(app, 'GET', '/conflicts');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ type: 'BLOCKED', code: 'CONFLICTS_NOT_POOLED', address: '/conflicts/{practitionerId}' });
    expect(res.body.error).toMatch(/never pooled/);
  });

  it('the per-practitioner doors are 403 BLOCKED naming the credential_verified upgrade path, ahead of any body check', async () => {
    for (const [method, url, body] of [
      ['GET', '/conflicts/pr_ada'],
      ['POST', '/conflicts/pr_ada/entries', { nameHash: h('Acme') }],
      ['POST', '/conflicts/pr_ada/entries', { nameHash: 'Acme Corp' }],
    ] as const) {
      const res = await call(app, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body).toMatchObject({ type: 'BLOCKED', code: 'CREDENTIAL_VERIFICATION_REQUIRED', upgrade: { tier: 'credential_verified' } });
      expect(res.body.error).toMatch(/credential_verified/);
    }
  });
});

describe('inside a workspace', () => {
  it('is open on synthetic state: append, read back in order, EMPTY before the first entry', async () => {
    const W = await workspace(app);
    let res = await call(app, 'GET', `${W}/conflicts/pr_ada`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'EMPTY', appendOnly: true, ledgerEntries: 0 });
    const first = await call(app, 'POST', `${W}/conflicts/pr_ada/entries`, { nameHash: h('Acme') });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ type: 'OK', appendOnly: true, entry: { nameHash: h('Acme') } });
    expect(Object.keys(first.body.entry).sort()).toEqual(['nameHash', 'recordedAt', 'seq']);
    await call(app, 'POST', `${W}/conflicts/pr_ada/entries`, { nameHash: h('Globex') });
    res = await call(app, 'GET', `${W}/conflicts/pr_ada`);
    expect(res.body).toMatchObject({ type: 'OK', appendOnly: true, ledgerEntries: 2 });
    expect(res.body.results.map((e: { nameHash: string }) => e.nameHash)).toEqual([h('Acme'), h('Globex')]);
    expect(res.body.results[0].seq).toBe(first.body.entry.seq);
    expect(res.body.provenance.workspace).toBe(W.split('/')[2]);
    // Paging by seq.
    const paged = await call(app, 'GET', `${W}/conflicts/pr_ada?limit=1`);
    expect(paged.body.results).toHaveLength(1);
    expect(paged.body.nextAfter).toBe(first.body.entry.seq);
    expect((await call(app, 'GET', `${W}/conflicts/pr_ada?after=${paged.body.nextAfter}`)).body.results[0].nameHash).toBe(h('Globex'));
  });

  it('holds hashes only: plaintext or any non-sha256 shape is 422, writing nothing', async () => {
    const W = await workspace(app);
    for (const nameHash of ['Acme Corp', h('Acme').toUpperCase(), h('Acme').slice(1), `sha256:${h('Acme')}`, 42]) {
      const res = await call(app, 'POST', `${W}/conflicts/pr_ada/entries`, { nameHash });
      expect(res.status, String(nameHash)).toBe(422);
      expect(res.body.code).toBe('NAME_HASH_NOT_SHA256');
      expect(res.body.error).toMatch(/hashes only/);
    }
    expect((await call(app, 'POST', `${W}/conflicts/pr_ada/entries`, { nameHash: h('A'), name: 'A' })).status).toBe(422);
    expect((await call(app, 'POST', `${W}/conflicts/pr_ada/entries`, {})).status).toBe(422);
    expect((await call(app, 'GET', `${W}/conflicts/pr_ada`)).body.type).toBe('EMPTY');
  });

  it('has no update or delete door', async () => {
    const W = await workspace(app);
    const { entry } = (await call(app, 'POST', `${W}/conflicts/pr_ada/entries`, { nameHash: h('Acme') })).body;
    for (const [method, url] of [
      ['PUT', `${W}/conflicts/pr_ada/entries`],
      ['DELETE', `${W}/conflicts/pr_ada/entries`],
      ['PUT', `${W}/conflicts/pr_ada/entries/${entry.seq}`],
      ['PATCH', `${W}/conflicts/pr_ada/entries/${entry.seq}`],
      ['DELETE', `${W}/conflicts/pr_ada/entries/${entry.seq}`],
      ['DELETE', `${W}/conflicts/pr_ada`],
    ] as const) {
      // 404 where no door exists at that path; 405 where the path is the append or read door, whose Allow names no update or delete.
      const res = await call(app, method, url, method === 'DELETE' ? undefined : { nameHash: h('x') });
      expect([404, 405], `${method} ${url}`).toContain(res.status);
      if (res.status === 405) expect(String(res.headers.allow).split(', ')).not.toEqual(expect.arrayContaining([method]));
    }
    expect((await call(app, 'GET', `${W}/conflicts/pr_ada`)).body.ledgerEntries).toBe(1);
  });

  it('never pools: practitioners, workspaces and the pooled address stay apart', async () => {
    const W1 = await workspace(app);
    const W2 = await workspace(app);
    await call(app, 'POST', `${W1}/conflicts/pr_ada/entries`, { nameHash: h('Acme') });
    expect((await call(app, 'GET', `${W1}/conflicts/pr_bob`)).body.type).toBe('EMPTY');
    expect((await call(app, 'GET', `${W2}/conflicts/pr_ada`)).body.type).toBe('EMPTY');
    const pooled = await call(app, 'GET', `${W1}/conflicts`);
    expect(pooled.status).toBe(403);
    expect(pooled.body.address).toBe(`${W1}/conflicts/{practitionerId}`);
  });

  it('404 names the fix for an unknown workspace', async () => {
    const res = await call(app, 'GET', '/workspaces/ws_0000000000000000000000000/conflicts/pr_ada');
    expect(res.status).toBe(404);
    expect(res.body.fix).toBe('POST /workspaces');
  });
});

describe('firm ledgers and prescreen', () => {
  it('records, lists, and prescreens against the firm\'s own ledger only', async () => {
    const F = `/firms/${(await call(app, 'POST', '/firms')).body.firm.id}`;
    const other = `/firms/${(await call(app, 'POST', '/firms')).body.firm.id}`;
    expect((await call(app, 'GET', `${F}/conflicts`)).body).toMatchObject({ type: 'EMPTY', appendOnly: true });
    let res = await call(app, 'POST', `${F}/conflicts/prescreen`, { nameHashes: [h('Acme')] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hit: false, matched: [], checked: 1, ledgerEntries: 0 });

    res = await call(app, 'POST', `${F}/conflicts/entries`, { nameHash: h('Acme') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ appendOnly: true, entry: { nameHash: h('Acme') } });
    await call(app, 'POST', `${F}/conflicts/entries`, { nameHash: h('Initech') });
    await call(app, 'POST', `${other}/conflicts/entries`, { nameHash: h('Globex') });

    res = await call(app, 'POST', `${F}/conflicts/prescreen`, { nameHashes: [h('Globex'), h('Acme'), h('Acme'), h('Nobody')] });
    expect(res.body).toMatchObject({ type: 'OK', hit: true, matched: [h('Acme')], checked: 4, ledgerEntries: 2 });
    expect(res.body.caveat).toMatch(/never replaces the Signer's own full/);
    expect((await call(app, 'GET', `${F}/conflicts`)).body.results.map((e: { nameHash: string }) => e.nameHash)).toEqual([h('Acme'), h('Initech')]);
  });

  it('refuses an empty prescreen, a plaintext entry, and 404s an unknown firm', async () => {
    const F = `/firms/${(await call(app, 'POST', '/firms')).body.firm.id}`;
    for (const [url, body, code] of [
      [`${F}/conflicts/prescreen`, { nameHashes: [] }, 'NAME_HASHES_EMPTY'],
      [`${F}/conflicts/prescreen`, { nameHashes: [h('a'), 'Acme'] }, 'NAME_HASH_NOT_SHA256'],
      [`${F}/conflicts/prescreen`, {}, 'INVALID_REQUEST'],
      [`${F}/conflicts/entries`, { nameHash: 'Acme' }, 'NAME_HASH_NOT_SHA256'],
    ] as const) {
      const res = await call(app, 'POST', url, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe(code);
    }
    expect((await call(app, 'GET', '/firms/fm_0000000000000000000000000/conflicts')).status).toBe(404);
    expect((await call(app, 'POST', '/firms/fm_0000000000000000000000000/conflicts/prescreen', { nameHashes: [] })).status).toBe(404);
  });
});
