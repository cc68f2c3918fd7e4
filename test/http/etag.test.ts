/**
 * Conditional reads (issue 37, item 3; `src/http/etag.ts`): a read of a
 * Matter, a list page and a tail page answer an ETag of their bytes, and a
 * matching If-None-Match is answered 304 with no body; the tag moves when
 * the answer does, a stale one gets the new answer, HEAD behaves as GET, and
 * two keys' top-level lists never share a tag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOf, noneMatchHolds } from '../../src/http/etag.ts';
import { call, issueKey, testApp, workspace, type IssuedKey, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let ws: string;
let matter: string;
let a: IssuedKey;
let b: IssuedKey;

beforeAll(async () => {
  app = await testApp();
  ws = await workspace(app);
  matter = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id;
  a = await issueKey(app, 'a@legalwork.test');
  b = await issueKey(app, 'b@legalwork.test');
  for (const key of [a, b]) expect((await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.headers)).status).toBe(201);
});
afterAll(async () => app?.close());

/** Each door kind, in a workspace: a Matter by id, a list page, a tail page, and the inspection the CLI follows. */
const doors = () => [`${ws}/matters/${matter}`, `${ws}/matters?limit=10`, `${ws}/assets`, `${ws}/events?after=0&limit=5`, `${ws}/matters/${matter}/inspection`];

describe('ETag and If-None-Match', () => {
  it('tags each door by its bytes and answers a matching If-None-Match 304 with no body', async () => {
    for (const url of doors()) {
      const first = await call(app, 'GET', url);
      expect(first.status, url).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag, url).toMatch(/^"(\d+\.)?[A-Za-z0-9_-]{22}"$/);
      expect(etag, url).toBe(etagOf(first.raw, url.endsWith(matter) ? `"${first.body.matter.version}"` : undefined));
      // The same answer again: the same tag.
      expect((await call(app, 'GET', url)).headers.etag, url).toBe(etag);

      const unchanged = await call(app, 'GET', url, undefined, { 'if-none-match': etag });
      expect(unchanged.status, url).toBe(304);
      expect(unchanged.raw, url).toBe('');
      expect(unchanged.headers.etag, url).toBe(etag);
      expect(unchanged.headers['content-type'], url).toBeUndefined();
      expect(unchanged.headers['content-length'], url).toBeUndefined();
      expect(unchanged.headers['request-id'], url).toBeDefined();
      // Weak comparison (RFC 9110 §13.1.2), a list, and `*`.
      expect((await call(app, 'GET', url, undefined, { 'if-none-match': `W/${etag}` })).status, url).toBe(304);
      expect((await call(app, 'GET', url, undefined, { 'if-none-match': `"nope", ${etag}` })).status, url).toBe(304);
      expect((await call(app, 'GET', url, undefined, { 'if-none-match': '*' })).status, url).toBe(304);
      // Another tag, or one that is not an entity-tag: the answer in full.
      const other = await call(app, 'GET', url, undefined, { 'if-none-match': '"nope", junk' });
      expect(other.status, url).toBe(200);
      expect(other.raw, url).toBe(first.raw);
    }
  });

  it('moves every tag the write changed, answers a stale If-None-Match with the new body, and keeps the others', async () => {
    const before = new Map<string, string>();
    for (const url of doors()) before.set(url, (await call(app, 'GET', url)).headers.etag as string);
    expect((await call(app, 'POST', `${ws}/matters/${matter}/advance`)).status).toBe(200);
    // An advance mints no Asset: the Assets' page is the same bytes, still 304.
    const assets = `${ws}/assets`;
    expect((await call(app, 'GET', assets, undefined, { 'if-none-match': before.get(assets)! })).status).toBe(304);
    for (const url of doors().filter((u) => u !== assets)) {
      const stale = await call(app, 'GET', url, undefined, { 'if-none-match': before.get(url)! });
      expect(stale.status, url).toBe(200);
      expect(stale.headers.etag, url).not.toBe(before.get(url));
      expect(stale.headers.etag, url).toBe(etagOf(stale.raw, url.endsWith(matter) ? `"${stale.body.matter.version}"` : undefined));
    }
  });

  it('moves the tag of a Matter when only its Deadline Ladder moves (no version of the Matter changes)', async () => {
    const read = await call(app, 'GET', `${ws}/matters/${matter}`);
    const tick = await call(app, 'POST', `${ws}/deadlines/${read.body.asset.id}/tick`, { days: 1 });
    expect(tick.status).toBe(200);
    const again = await call(app, 'GET', `${ws}/matters/${matter}`, undefined, { 'if-none-match': read.headers.etag as string });
    expect(again.body.matter.version).toBe(read.body.matter.version);
    expect(again.status).toBe(200);
    expect(again.headers.etag).not.toBe(read.headers.etag);
  });

  it('keeps the version in front of a Matter\'s tag, which a write takes as its If-Match', async () => {
    const read = await call(app, 'GET', `${ws}/matters/${matter}`);
    expect(read.headers.etag).toMatch(new RegExp(`^"${read.body.matter.version}\\.`));
    const advanced = await call(app, 'POST', `${ws}/matters/${matter}/advance`, {}, { 'if-match': read.headers.etag as string });
    expect(advanced.status).toBe(200);
    const stale = await call(app, 'POST', `${ws}/matters/${matter}/advance`, {}, { 'if-match': read.headers.etag as string });
    expect(stale.status).toBe(412);
  });

  it('answers HEAD as GET: the same tag, 304 to a match, no body either way', async () => {
    for (const url of doors()) {
      const got = await call(app, 'GET', url);
      const head = await call(app, 'HEAD', url);
      expect(head.status, url).toBe(200);
      expect(head.raw, url).toBe('');
      expect(head.headers.etag, url).toBe(got.headers.etag);
      const unchanged = await call(app, 'HEAD', url, undefined, { 'if-none-match': got.headers.etag as string });
      expect(unchanged.status, url).toBe(304);
      expect(unchanged.raw, url).toBe('');
      expect(unchanged.headers.etag, url).toBe(got.headers.etag);
    }
  });

  it('gives two keys\' top-level lists and tails tags of their own, and never a 304 on the other\'s', async () => {
    for (const url of ['/matters', '/assets', '/events?after=0']) {
      const mine = await call(app, 'GET', url, undefined, a.headers);
      const theirs = await call(app, 'GET', url, undefined, b.headers);
      expect(mine.status, url).toBe(200);
      expect(mine.headers.etag, url).not.toBe(theirs.headers.etag);
      const probed = await call(app, 'GET', url, undefined, { ...b.headers, 'if-none-match': mine.headers.etag as string });
      expect(probed.status, url).toBe(200);
      expect(probed.raw, url).toBe(theirs.raw);
    }
  });

  it('tags only a 200: a refusal carries no ETag and ignores If-None-Match', async () => {
    const missing = await call(app, 'GET', `${ws}/matters/mt_${'x'.repeat(24)}`, undefined, { 'if-none-match': '*' });
    expect(missing.status).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    expect(missing.body.code).toBe('MATTER_NOT_FOUND');
  });

  it('declares the ETag, If-None-Match and the 304 in the contract for each tagged door', async () => {
    const contract = (await call(app, 'GET', '/openapi.json')).body;
    for (const path of ['/matters/{id}', '/matters', '/assets', '/events', '/workspaces/{workspaceId}/matters/{id}', '/matters/{id}/inspection']) {
      const get = contract.paths[path].get;
      expect(get.responses['200'].headers?.ETag, path).toBeDefined();
      expect(get.responses['304'], path).toBeDefined();
      expect(get.responses['304'].content, path).toBeUndefined();
      expect(get.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'if-none-match'), path).toBe(true);
    }
    // A door that does not tag declares none of it.
    expect(contract.paths['/matters/{id}/inspect'].get.responses['304']).toBeUndefined();
    expect(contract.paths['/matters/{id}/inspect'].get.responses['200'].headers?.ETag).toBeUndefined();
  });
});

describe('If-None-Match as RFC 9110 reads it', () => {
  it('matches *, a listed tag weakly, and ignores what is not an entity-tag', () => {
    expect(noneMatchHolds(undefined, '"a"')).toBe(false);
    expect(noneMatchHolds('*', '"a"')).toBe(true);
    expect(noneMatchHolds('"a"', '"a"')).toBe(true);
    expect(noneMatchHolds('W/"a"', '"a"')).toBe(true);
    expect(noneMatchHolds(' "b" ,W/"a"', '"a"')).toBe(true);
    expect(noneMatchHolds(['"b"', '"a"'], '"a"')).toBe(true);
    expect(noneMatchHolds('"b"', '"a"')).toBe(false);
    expect(noneMatchHolds('a', '"a"')).toBe(false);
    expect(noneMatchHolds('"a', '"a"')).toBe(false);
    expect(noneMatchHolds('""', '"a"')).toBe(false);
  });
});
