/**
 * Webhooks (issue 15), over a real receiver on a loopback port: a sandbox
 * endpoint is sent the events of its grain in journal order, each signed
 * with its secret; failures are retried on the schedule (scaled down here)
 * and every attempt is listed; endpoints are their owner's.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../../src/domain/fixtures.ts';
import { call, issueKey, testApp, workspace, type TestApp } from '../helpers/app.ts';
import { receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

/**
 * The delivery timeout: the receiver runs in this process and answers in
 * milliseconds, but on a loaded core an answer can take longer than a tight
 * timeout, and an attempt cut after the receiver got it is sent again (the
 * tests count deliveries exactly). The receiver that never answers is cut at it.
 */
const DELIVERY_TIMEOUT_MS = 2000;

let app: TestApp;
beforeAll(async () => {
  // The retry schedule at a five-thousandth: 1 ms, 60 ms, 360 ms, 1.44 s, ...
  app = await testApp({ webhooks: { timeScale: 0.0002, timeoutMs: DELIVERY_TIMEOUT_MS } });
});
afterAll(async () => app.close());

/** Walks a fulfilling fixture Matter to `fulfilled`: two reserved acts, each attested at once, the second with its receipt. */
async function fulfil(prefix: string): Promise<string> {
  const created = await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient } });
  const id = created.body.matter.id as string;
  for (let i = 0; i < 5; i++) expect((await call(app, 'POST', `${prefix}/matters/${id}/advance`, {})).status).toBe(200);
  expect((await call(app, 'GET', `${prefix}/matters/${id}`)).body.matter.status).toBe('fulfilled');
  return id;
}

describe('a sandbox endpoint', () => {
  it('is sent the lifecycle of a Matter walked to fulfilled, in journal order, each signed with its secret; outcome.filed carries the receipt and the Attestation', async () => {
    const hook = await receiver();
    const ws = await workspace(app);
    const registered = await call(app, 'POST', `${ws}/webhooks`, { url: hook.url, events: ['*'], description: 'all of it' });
    expect(registered.status).toBe(201);
    expect(registered.body.secret).toMatch(/^whsec_/);
    const id = await fulfil(ws);
    await hook.until(6);
    const events = hook.received.map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.type)).toEqual(['matter.escalated', 'matter.attested', 'matter.escalated', 'matter.attested', 'outcome.filed', 'matter.fulfilled']);
    const verifier = new Webhook(registered.body.secret);
    for (const r of hook.received) {
      expect(() => verifier.verify(r.body, { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) })).not.toThrow();
      expect(JSON.parse(r.body).id).toBe(r.headers['webhook-id']);
    }
    // Each payload is what the contract's webhooks section says it is.
    const doc = (await call(app, 'GET', '/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(doc, 'contract');
    for (const e of events) {
      const validate = ajv.getSchema(`contract#/webhooks/${e.type}/post/requestBody/content/application~1json/schema`)!;
      expect(validate(e), `${e.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const filed = events.find((e) => e.type === 'outcome.filed');
    expect(filed.data).toMatchObject({ matterId: id, matterType: 'patent_provisional', act: 'file', receipt: expect.stringMatching(/receipt/), attestation: { signedBy: FIXTURE.eligibleSigner } });
    expect(filed.data.artifactHash).toBe(filed.data.attestation.artifactHash);
    expect(events[5].data.matter).toMatchObject({ id, status: 'fulfilled' });
    expect(events[0].data.matter).toMatchObject({ id, status: 'waiting_on_signer' });
    // Another workspace's endpoint hears nothing of this one's.
    expect(new Set(events.map((e) => e.id)).size).toBe(6);
    // The secret is shown once.
    const read = await call(app, 'GET', `${ws}/webhooks/${registered.body.webhook.id}`);
    expect(read.raw).not.toContain(registered.body.secret);
    expect(read.body.webhook).toMatchObject({ url: hook.url, events: ['*'], status: 'enabled', disabled: null });
    await hook.close();
  });

  it('retries a failing receiver on schedule (500, no answer, a dropped connection, a redirect it never follows) until it answers; every attempt is listed', async () => {
    const hook = await receiver([500, 'hang', 'close', 302]);
    const ws = await workspace(app);
    const registered = await call(app, 'POST', `${ws}/webhooks`, { url: hook.url, events: ['matter.escalated'] });
    const endpoint = registered.body.webhook.id;
    const created = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    for (let i = 0; i < 4; i++) await call(app, 'POST', `${ws}/matters/${created.body.matter.id}/advance`, {});
    await hook.until(5, 20_000);
    // Wait for the fifth attempt's record (journaled once its answer is in).
    let list: any;
    await until(async () => (list = await call(app, 'GET', `${ws}/webhooks/${endpoint}/deliveries`)).body.results?.length === 5, () => `five attempts listed: ${JSON.stringify(list?.body.results?.map((a: any) => a.attempt))}`);
    const attempts = list.body.results;
    expect(attempts.map((a: any) => [a.attempt, a.outcome, a.responseStatus])).toEqual([[5, 'delivered', 200], [4, 'failed', 302], [3, 'failed', null], [2, 'failed', null], [1, 'failed', 500]]);
    expect(attempts[0].final).toBe(true);
    expect(attempts[3].error).toMatch(new RegExp(`no answer within ${DELIVERY_TIMEOUT_MS} ms`));
    expect(attempts[4].responseBody.length).toBe(1024);
    expect(new Set(attempts.map((a: any) => a.eventId)).size).toBe(1);
    expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // Times between attempts follow the schedule (5 s, 5 min, 30 min, 2 h at a five-thousandth).
    const at = attempts.map((a: any) => Date.parse(a.attemptedAt)).reverse();
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(1);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(60);
    expect(at[3] - at[2]).toBeGreaterThanOrEqual(360);
    expect(at[4] - at[3]).toBeGreaterThanOrEqual(1440);
    // Paging, newest first.
    const first = await call(app, 'GET', `${ws}/webhooks/${endpoint}/deliveries?limit=3`);
    expect(first.body.results).toHaveLength(3);
    const rest = await call(app, 'GET', `${ws}/webhooks/${endpoint}/deliveries?limit=3&before=${first.body.nextBefore}`);
    expect(rest.body.results.map((a: any) => a.attempt)).toEqual([2, 1]);
    expect(rest.body.nextBefore).toBeNull();
    // Redelivery: the same event id, a fresh attempt marked as one.
    const again = await call(app, 'POST', `${ws}/webhooks/${endpoint}/deliveries/${attempts[0].deliveryId}/redeliver`);
    expect(again.status).toBe(202);
    await hook.until(6);
    expect(hook.received[5].headers['webhook-id']).toBe(attempts[0].eventId);
    await hook.close();
  }, 30_000);
});

describe('endpoints are their owner\'s', () => {
  it('at the top level: another key neither lists, reads, disables, pages nor redelivers them; without a key, EMPTY and 404', async () => {
    const a = await issueKey(app, 'hooks-a@legalwork.test');
    const b = await issueKey(app, 'hooks-b@legalwork.test');
    const refused = await call(app, 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] }, a.headers);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('WEBHOOK_URL_REFUSED');
    expect((await call(app, 'POST', '/webhooks', { url: 'https://93.184.215.14/hook', events: ['*'] })).status).toBe(401);
    const made = await call(app, 'POST', '/webhooks', { url: 'https://93.184.215.14/hook', events: ['outcome.filed'] }, a.headers);
    expect(made.status).toBe(201);
    const id = made.body.webhook.id;
    for (const [method, path] of [
      ['GET', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/disable`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['POST', `/webhooks/${id}/deliveries/dl_0000000000000000000000000/redeliver`],
    ] as const) {
      for (const headers of [b.headers, {}]) {
        const res = await call(app, method, path, undefined, headers);
        expect(res.status, `${method} ${path}`).toBe(method === 'POST' && !('authorization' in headers) ? 401 : 404);
        expect(res.raw).not.toContain('93.184.215.14');
      }
    }
    const theirs = await call(app, 'GET', '/webhooks', undefined, b.headers);
    expect(theirs.body.type).toBe('EMPTY');
    const keyless = await call(app, 'GET', '/webhooks');
    expect(keyless.body).toMatchObject({ type: 'EMPTY', message: expect.stringContaining('Authorization: Bearer') });
    const mine = await call(app, 'GET', '/webhooks', undefined, a.headers);
    expect(mine.body.results).toEqual([expect.objectContaining({ id, status: 'enabled', events: ['outcome.filed'] })]);
  });

  it('in a sandbox grain: another grain does not see them', async () => {
    const hook = await receiver();
    const [w1, w2] = [await workspace(app), await workspace(app)];
    const made = await call(app, 'POST', `${w1}/webhooks`, { url: hook.url, events: ['*'] });
    expect((await call(app, 'GET', `${w2}/webhooks/${made.body.webhook.id}`)).status).toBe(404);
    expect((await call(app, 'GET', `${w2}/webhooks`)).body.type).toBe('EMPTY');
    // Nor is it sent another grain's events. The wait proves a negative: a loaded core can only make it see less, never fail it.
    await fulfil(w2);
    await new Promise((r) => setTimeout(r, 100));
    expect(hook.received).toHaveLength(0);
    await hook.close();
  });

  it('is disabled after failing for 5 days in a row (the window scaled down, on an injected clock), and then sent nothing', async () => {
    let now = Date.parse('2026-11-25T00:00:00Z');
    const fast = await testApp({ webhooks: { timeScale: 0.0001, timeoutMs: 200, now: () => now } });
    const hook = await receiver(Array(50).fill(500));
    const ws = await workspace(fast);
    const id = (await call(fast, 'POST', `${ws}/webhooks`, { url: hook.url, events: ['matter.escalated'] })).body.webhook.id;
    const created = await call(fast, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    for (let i = 0; i < 4; i++) await call(fast, 'POST', `${ws}/matters/${created.body.matter.id}/advance`, {});
    await hook.until(1);
    // Five days (scaled) pass with every attempt failing.
    now += 5 * 24 * 3_600_000 * 0.0001 + 1;
    let endpoint: any;
    await until(async () => (endpoint = (await call(fast, 'GET', `${ws}/webhooks/${id}`)).body.webhook).status === 'disabled', () => `the endpoint disabled: ${JSON.stringify(endpoint)}`);
    expect(endpoint).toMatchObject({ status: 'disabled', disabled: { reason: expect.stringMatching(/failed/) } });
    const sent = hook.received.length;
    const again = await call(fast, 'POST', `${ws}/webhooks/${id}/deliveries/dl_0000000000000000000000000/redeliver`);
    expect(again.body.code).toBe('WEBHOOK_DISABLED');
    // A negative, as above: nothing more is sent.
    await new Promise((r) => setTimeout(r, 100));
    expect(hook.received.length).toBe(sent);
    await fast.close();
    await hook.close();
  });
});
