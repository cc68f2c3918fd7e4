/**
 * If-Match on Matter writes (issue 14, "Retries and races"): a Matter's
 * version is its ETag; a write sent with `If-Match: "<version>"` runs only
 * while the Matter is still at that version, checked inside its mailbox, and
 * otherwise answers 412 VERSION_MISMATCH naming the current version, writing
 * nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, issueKey, listeningApp, testApp, topLevelHeaders, workspace, type TestApp } from '../helpers/app.ts';

const apps: TestApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

async function openMatter(app: TestApp, prefix: string, headers: Record<string, string> = {}) {
  const res = await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional' }, headers);
  expect(res.status).toBe(201);
  return res.body.matter.id as string;
}

describe('If-Match on a Matter', () => {
  it('answers the version as the ETag, advances on the current one, and refuses a stale one with 412, writing nothing', async () => {
    const app = await testApp();
    apps.push(app);
    const ws = await workspace(app);
    const id = await openMatter(app, ws);
    const read = await call(app, 'GET', `${ws}/matters/${id}`);
    // A read's ETag is its version and a digest of its bytes (`etag.ts`); a write takes it by its version.
    expect(read.headers.etag).toMatch(new RegExp(`^"${read.body.matter.version}\\.[A-Za-z0-9_-]{22}"$`));

    const advanced = await call(app, 'POST', `${ws}/matters/${id}/advance`, {}, { 'if-match': read.headers.etag as string });
    expect(advanced.status).toBe(200);
    expect(advanced.headers.etag).toBe(`"${advanced.body.matter.version}"`);
    expect(advanced.body.matter.version).toBeGreaterThan(read.body.matter.version);

    const stale = await call(app, 'POST', `${ws}/matters/${id}/advance`, {}, { 'if-match': read.headers.etag as string });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'VERSION_MISMATCH', matterId: id, currentVersion: advanced.body.matter.version });
    expect(stale.body.fix).toMatch(/If-Match/);
    const after = await call(app, 'GET', `${ws}/matters/${id}`);
    expect(after.body.matter.version).toBe(advanced.body.matter.version);
    expect(after.body.journal.length).toBe(advanced.body.matter.version);

    // Every Matter write honours it, not only advance.
    for (const [path, body] of [
      ['consent', { actor: 'client', scope: 'this Matter' }],
      ['documents', { name: 'spec.pdf', kind: 'specification', sha256: 'a'.repeat(64) }],
      ['client-direction', { instruction: 'go on' }],
      ['terminal', { outcome: 'withdrawn', byClient: true }],
      ['gig-result', { gigId: 'gig_x', outcome: 'attested' }],
    ] as const) {
      const res = await call(app, 'POST', `${ws}/matters/${id}/${path}`, body, { 'if-match': '"1"' });
      expect(res.status, path).toBe(412);
    }
    expect((await call(app, 'GET', `${ws}/matters/${id}`)).body.matter.version).toBe(advanced.body.matter.version);
  });

  it('takes * as unconditional and refuses a malformed If-Match with 422, writing nothing', async () => {
    const app = await testApp();
    apps.push(app);
    const ws = await workspace(app);
    const id = await openMatter(app, ws);
    expect((await call(app, 'POST', `${ws}/matters/${id}/advance`, {}, { 'if-match': '*' })).status).toBe(200);
    for (const malformed of ['1', 'W/"1"', '"x"', '"1", "2"']) {
      const res = await call(app, 'POST', `${ws}/matters/${id}/advance`, {}, { 'if-match': malformed });
      expect(res.status, malformed).toBe(422);
      expect(res.body.code).toBe('INVALID_REQUEST');
    }
    expect((await call(app, 'GET', `${ws}/matters/${id}`)).body.matter.version).toBe(2);
  });

  it('lets exactly one of two concurrent advances with the same If-Match through, over a real port, at the top level', async () => {
    const { app, url } = await listeningApp();
    apps.push(app);
    const headers = await topLevelHeaders(app);
    const id = await openMatter(app, '', headers);
    const etag = (await call(app, 'GET', `/matters/${id}`)).headers.etag as string;
    const send = () => fetch(`${url}/matters/${id}/advance`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'if-match': etag }, body: '{}' });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const refused = await answers.find((a) => a.status === 412)!.json();
    expect(refused.code).toBe('VERSION_MISMATCH');
    expect((await call(app, 'GET', `/matters/${id}`)).body.matter.version).toBe(Number(/^"(\d+)/.exec(etag)![1]) + 1);

    // Another key's conditional write is the same 404 as any: no version, stale or current, is revealed, and nothing is written.
    const other = (await issueKey(app)).headers;
    const current = (await call(app, 'GET', `/matters/${id}`)).headers.etag as string;
    for (const ifMatch of [etag, current]) {
      const res = await call(app, 'POST', `/matters/${id}/advance`, {}, { ...other, 'if-match': ifMatch });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('MATTER_NOT_FOUND');
      expect(res.body.currentVersion).toBeUndefined();
    }
    expect((await call(app, 'GET', `/matters/${id}`)).headers.etag).toBe(current);
  });
});

describe('If-Match on a Deadline Ladder and on an Enrollment (the one command handler checks it for every record)', () => {
  it('a ladder: its version is its ETag; a tick, ack, monitor, satisfy or resolve on a stale one is 412 naming the current version, writing nothing', async () => {
    const app = await testApp();
    apps.push(app);
    const ws = await workspace(app);
    const matter = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    const url = `${ws}/deadlines/${matter.body.matter.assetId}`;
    const read = await call(app, 'GET', url);
    expect(read.headers.etag).toBe(`"${read.body.version}"`);

    const ticked = await call(app, 'POST', `${url}/tick`, { days: 1 }, { 'if-match': read.headers.etag as string });
    expect(ticked.status).toBe(200);
    const now = (await call(app, 'GET', url)).body.version;
    expect(now).toBeGreaterThan(read.body.version);
    expect(ticked.headers.etag).toBe(`"${now}"`);

    for (const [door, body] of [
      ['tick', { days: 1 }],
      ['ack', { actor: 'Ada Lovelace' }],
      ['monitor', { signerId: 'platform' }],
      ['satisfy', { evidenceRef: 'docket:1' }],
      ['resolve', { outcome: 'clientNotice' }],
    ] as const) {
      const stale = await call(app, 'POST', `${url}/${door}`, body, { 'if-match': read.headers.etag as string });
      expect(stale.status, door).toBe(412);
      expect(stale.body, door).toMatchObject({ code: 'VERSION_MISMATCH', assetId: matter.body.matter.assetId, currentVersion: now });
    }
    expect((await call(app, 'GET', url)).body.version).toBe(now);
    // On the current version the write runs.
    expect((await call(app, 'POST', `${url}/monitor`, { signerId: 'platform' }, { 'if-match': `"${now}"` })).status).toBe(200);
  });

  it('an Enrollment: its version is in its row; an amendment or revocation on a stale one is 412, and a first enrollment takes If-Match "0" only', async () => {
    const app = await testApp();
    apps.push(app);
    const F = `/firms/${(await call(app, 'POST', '/firms')).body.firm.id}`;
    const member = 'mb_fixture_eligible';
    expect((await call(app, 'POST', `${F}/enrollments`, { memberId: member }, { 'if-match': '"3"' })).status).toBe(412);
    const enrolled = await call(app, 'POST', `${F}/enrollments`, { memberId: member }, { 'if-match': '"0"' });
    expect(enrolled.status).toBe(201);
    const { version, enrollmentId } = enrolled.body.enrollment;
    expect(enrolled.headers.etag).toBe(`"${version}"`);

    const amended = await call(app, 'POST', `${F}/enrollments`, { memberId: member, grants: ['remittance'] }, { 'if-match': `"${version}"` });
    expect(amended.status).toBe(201);
    expect(amended.body.act).toBe('amended');
    const current = amended.body.enrollment.version;
    expect(current).toBe(version + 1);

    const staleAmend = await call(app, 'POST', `${F}/enrollments`, { memberId: member, grants: ['routing'] }, { 'if-match': `"${version}"` });
    expect(staleAmend.status).toBe(412);
    expect(staleAmend.body).toMatchObject({ code: 'VERSION_MISMATCH', enrollmentId, currentVersion: current });
    const staleRevoke = await call(app, 'POST', `${F}/enrollments/${member}/revoke`, {}, { 'if-match': `"${version}"` });
    expect(staleRevoke.status).toBe(412);
    const rows = (await call(app, 'GET', `${F}/enrollments`)).body.results;
    expect(rows).toEqual([expect.objectContaining({ enrollmentId, version: current, status: 'amended' })]);

    const revoked = await call(app, 'POST', `${F}/enrollments/${member}/revoke`, {}, { 'if-match': `"${current}"` });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.etag).toBe(`"${current + 1}"`);
  });
});
