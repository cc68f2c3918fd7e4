/**
 * What webhook endpoints may hold (issue 38): at most 16 enabled endpoints an
 * owner, checked under the owner's lock so racing registrations cannot pass
 * it; the 32 disabled most recently held in memory, an older one read from
 * its stream by id (and still its owner's alone); the endpoints of an
 * expired sandbox grain let go, across a restart too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISABLED_ENDPOINTS_KEPT, ENABLED_ENDPOINTS_PER_OWNER } from '../../src/engine/webhooks.ts';
import { acrossRestarts, call, issueKey, testApp, workspace, type TestApp } from '../helpers/app.ts';

// Never reached: nothing happens in these grains, so nothing is delivered.
const URL_OF = (n: number) => `http://127.0.0.1:9/hook-${n}`;

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ webhooks: { allowPrivate: true } });
});
afterAll(async () => app.close());

const register = (prefix: string, n: number, headers: Record<string, string> = {}) => call(app, 'POST', `${prefix}/webhooks`, { url: URL_OF(n), events: ['*'] }, headers);

describe('enabled endpoints an owner may have', () => {
  it(`are at most ${ENABLED_ENDPOINTS_PER_OWNER}: one more is refused 409 WEBHOOK_ENDPOINT_LIMIT, worded, with nothing registered; disabling one makes room`, async () => {
    const ws = await workspace(app);
    for (let n = 0; n < ENABLED_ENDPOINTS_PER_OWNER; n++) expect((await register(ws, n)).status).toBe(201);
    const refused = await register(ws, 99);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'WEBHOOK_ENDPOINT_LIMIT', error: expect.stringContaining(`${ENABLED_ENDPOINTS_PER_OWNER} enabled webhook endpoints`), fix: expect.stringContaining('/disable') });
    const listed = (await call(app, 'GET', `${ws}/webhooks`)).body.results;
    expect(listed).toHaveLength(ENABLED_ENDPOINTS_PER_OWNER);
    expect(listed.map((e: { url: string }) => e.url)).not.toContain(URL_OF(99));
    // Another grain has its own room.
    expect((await register(await workspace(app), 0)).status).toBe(201);
    expect((await call(app, 'POST', `${ws}/webhooks/${listed[3].id}/disable`)).status).toBe(200);
    expect((await register(ws, 99)).status).toBe(201);
    expect((await register(ws, 100)).status).toBe(409);
  });

  it('hold when registrations race: of 24 sent at once, exactly 16 are registered', async () => {
    const ws = await workspace(app);
    const answers = await Promise.all(Array.from({ length: 24 }, (_, n) => register(ws, n)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(ENABLED_ENDPOINTS_PER_OWNER);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(24 - ENABLED_ENDPOINTS_PER_OWNER);
    expect((await call(app, 'GET', `${ws}/webhooks`)).body.results).toHaveLength(ENABLED_ENDPOINTS_PER_OWNER);
  });

  it("at the top level are counted per key's owner: another key's are not", async () => {
    const [a, b] = [await issueKey(app, 'a@legalwork.test'), await issueKey(app, 'b@legalwork.test')];
    for (let n = 0; n < ENABLED_ENDPOINTS_PER_OWNER; n++) expect((await register('', n, a.headers)).status).toBe(201);
    expect((await register('', 99, a.headers)).body.code).toBe('WEBHOOK_ENDPOINT_LIMIT');
    expect((await register('', 0, b.headers)).status).toBe(201);
  });
});

describe('disabled endpoints', () => {
  it(`are held ${DISABLED_ENDPOINTS_KEPT} an owner, the most recently disabled, and listed so; an older one is read by id from the journal, its owner's alone`, async () => {
    const ws = await workspace(app);
    const ids: string[] = [];
    const before = app.services.webhooks.held;
    for (let n = 0; n < DISABLED_ENDPOINTS_KEPT + 8; n++) {
      const id = (await register(ws, n)).body.webhook.id as string;
      expect((await call(app, 'POST', `${ws}/webhooks/${id}/disable`)).status).toBe(200);
      ids.push(id);
    }
    const kept = await register(ws, 1000);
    expect(app.services.webhooks.held - before).toBe(DISABLED_ENDPOINTS_KEPT + 1);
    const listed = (await call(app, 'GET', `${ws}/webhooks`)).body.results.map((e: { id: string }) => e.id);
    expect(listed).toEqual([...ids.slice(8), kept.body.webhook.id]);

    const oldest = ids[0];
    const read = await call(app, 'GET', `${ws}/webhooks/${oldest}`);
    expect(read.status).toBe(200);
    expect(read.body.webhook).toMatchObject({ id: oldest, url: URL_OF(0), status: 'disabled', disabled: { reason: 'disabled by its owner' } });
    expect(read.raw).not.toContain('whsec_');
    expect((await call(app, 'GET', `${ws}/webhooks/${oldest}/deliveries`)).status).toBe(200);
    expect((await call(app, 'POST', `${ws}/webhooks/${oldest}/disable`)).body.webhook.status).toBe('disabled');
    expect((await call(app, 'POST', `${ws}/webhooks/${oldest}/deliveries/dl_0/redeliver`)).body.code).toBe('WEBHOOK_DISABLED');
    expect(app.services.webhooks.held - before).toBe(DISABLED_ENDPOINTS_KEPT + 1);

    // Read from the journal, it is still no one else's: another grain and the top level get 404.
    const other = await workspace(app);
    const key = await issueKey(app, 'c@legalwork.test');
    for (const [prefix, headers] of [[other, {}], ['', key.headers]] as const) {
      expect((await call(app, 'GET', `${prefix}/webhooks/${oldest}`, undefined, headers)).body.code).toBe('WEBHOOK_NOT_FOUND');
      expect((await call(app, 'GET', `${prefix}/webhooks/${oldest}/deliveries`, undefined, headers)).body.code).toBe('WEBHOOK_NOT_FOUND');
      expect((await call(app, 'POST', `${prefix}/webhooks/${oldest}/disable`, undefined, headers)).body.code).toBe('WEBHOOK_NOT_FOUND');
    }
  });
});

describe('the endpoints of an expired sandbox grain', () => {
  it('are let go by the sweep, and not taken up again at a restart; a live grain keeps its own', async () => {
    let now = Date.now();
    await acrossRestarts(async (start) => {
      const options = { sandboxNow: () => now, sandboxTtlSeconds: 3600, webhooks: { allowPrivate: true } };
      const first = await start(options);
      await first.ready();
      const opened = async (seconds: number) => {
        const ws = `/workspaces/${(await call(first, 'POST', '/workspaces')).body.workspace.id}`;
        for (let n = 0; n < 3; n++) expect((await call(first, 'POST', `${ws}/webhooks`, { url: URL_OF(n), events: ['*'] })).status).toBe(201);
        now += seconds * 1000;
        return ws;
      };
      await opened(1800);
      const live = await opened(1900); // the first grain expires with this half hour
      expect(first.services.webhooks.held).toBe(6);
      await first.services.webhooks.sweepExpired();
      expect(first.services.webhooks.held).toBe(3);
      expect((await call(first, 'GET', `${live}/webhooks`)).body.results).toHaveLength(3);
      await first.close();

      const second = await start(options);
      await second.ready();
      await expect.poll(() => second.services.webhooks.held).toBe(3);
      now += 3600 * 1000;
      await second.services.webhooks.sweepExpired();
      expect(second.services.webhooks.held).toBe(0);
      await second.close();
    });
  });
});
