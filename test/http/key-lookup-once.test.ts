/**
 * The presented key is looked up once per request (issue 37, item 3): the
 * rate limit (which counts the caller by it) and auth (which honours it)
 * share one lookup (`src/http/presented-key.ts`). Counted on the one place a
 * key is found by what was presented (`Keys.find`: its hash, then memory or
 * the journal), with the rate limit on and off; a revoked key is still
 * refused on the request after its revocation.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Keys } from '../../src/engine/keys.ts';
import { call, issueKey, testApp, workspace, type TestApp } from '../helpers/app.ts';

const apps: TestApp[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (apps.length) await apps.pop()!.close();
});

/** How many times the requests `send` makes look a presented key up. */
async function lookups(send: () => Promise<unknown>): Promise<number> {
  const find = vi.spyOn(Keys.prototype as unknown as { find: (key: string) => Promise<unknown> }, 'find');
  await send();
  const n = find.mock.calls.length;
  find.mockRestore();
  return n;
}

describe('the presented key, looked up once a request', () => {
  for (const rateLimit of [{ perSecond: 1000 }, undefined]) {
    it(`reads, writes and refusals each look the key up once (rate limit ${rateLimit ? 'on' : 'off'})`, async () => {
      const app = await testApp(rateLimit ? { rateLimit } : {});
      apps.push(app);
      const key = await issueKey(app);
      const opened = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.headers);
      expect(opened.status).toBe(201);
      const id = opened.body.matter.id as string;

      expect(await lookups(() => call(app, 'GET', '/matters', undefined, key.headers))).toBe(1);
      expect(await lookups(() => call(app, 'GET', `/matters/${id}`, undefined, key.headers))).toBe(1);
      expect(await lookups(() => call(app, 'POST', `/matters/${id}/advance`, {}, key.headers))).toBe(1);
      expect(await lookups(() => call(app, 'GET', '/keys/self', undefined, key.headers))).toBe(1);
      // An unknown key is looked up once too, and refused.
      const unknown = { authorization: `Bearer lwk_${'A'.repeat(43)}` };
      let refused: Awaited<ReturnType<typeof call>> | undefined;
      expect(await lookups(async () => (refused = await call(app, 'GET', '/matters', undefined, unknown)))).toBe(1);
      expect(refused!.status).toBe(401);
      // No key, and a key inside a sandbox grain for the rate limit: no more than auth's one.
      expect(await lookups(() => call(app, 'GET', '/matters'))).toBe(0);
      const ws = await workspace(app);
      expect(await lookups(() => call(app, 'GET', `${ws}/matters`, undefined, key.headers))).toBe(1);
    });
  }

  it('still refuses a key on the request after its revocation, with the rate limit on', async () => {
    const app = await testApp({ rateLimit: { perSecond: 1000 } });
    apps.push(app);
    const key = await issueKey(app);
    expect((await call(app, 'GET', '/matters', undefined, key.headers)).status).toBe(200);
    expect((await call(app, 'POST', '/keys/self/revoke', {}, key.headers)).status).toBe(200);
    const after = await call(app, 'GET', '/matters', undefined, key.headers);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('KEY_REVOKED');
  });
});
