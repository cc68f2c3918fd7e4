/**
 * `legalwork webhooks listen` and `webhooks verify` (issue 15), as a person
 * runs them: the real command as a child process, against a real listening
 * service, forwarding to a real local receiver.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { call, listeningApp, workspace, type TestApp } from './helpers/app.ts';
import { runCli, startCli, until } from './helpers/cli.ts';
import { receiver } from './helpers/receiver.ts';

let app: TestApp;
let url: string;
beforeAll(async () => {
  ({ app, url } = await listeningApp());
});
afterAll(async () => app.close());

describe('legalwork webhooks listen', () => {
  it('registers a sandbox endpoint, verifies and forwards each delivery with its headers, one JSON line per event, and disables the endpoint when it stops', async () => {
    const target = await receiver();
    const ws = await workspace(app);
    const wsId = ws.split('/')[2];
    const listener = startCli(['webhooks', 'listen', '--workspace', wsId, '--forward-to', target.url, '--max-events', '6', '--url', url]);
    await until(() => listener.out.stderr.includes('listening on'), 'the listener to register', 10_000);
    const created = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient } });
    for (let i = 0; i < 5; i++) await call(app, 'POST', `${ws}/matters/${created.body.matter.id}/advance`, {});
    expect(await listener.exited).toBe(0);
    const lines = listener.out.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['matter.escalated', 'matter.attested', 'matter.escalated', 'matter.attested', 'outcome.filed', 'matter.fulfilled']);
    expect(lines.every((l) => l.signature === 'verified' && l.forwarded === 200)).toBe(true);
    expect(target.received.map((r) => r.headers['webhook-id'])).toEqual(lines.map((l) => l.id));
    expect(target.received.every((r) => String(r.headers['webhook-signature']).startsWith('v1,'))).toBe(true);
    const endpoints = (await call(app, 'GET', `${ws}/webhooks`)).body.results;
    expect(endpoints).toEqual([expect.objectContaining({ status: 'disabled' })]);
    await target.close();
  }, 30_000);

  it('refuses a bad --forward-to or event type before registering anything', async () => {
    const bad = await runCli(['webhooks', 'listen', '--forward-to', 'nowhere', '--url', url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--forward-to must be an absolute URL/);
    const unknown = await runCli(['webhooks', 'listen', '--forward-to', 'http://127.0.0.1:1/', '--events', 'matter.exploded', '--url', url]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type matter.exploded/);
  });
});

describe('legalwork webhooks verify', () => {
  it('verifies a payload against its headers (exit 0), and refuses a tampered one (exit 1) with the reason', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = JSON.stringify({ id: 'evt_1', type: 'outcome.filed', timestamp: new Date().toISOString(), data: {} });
    const at = new Date();
    const signature = new Webhook(secret).sign('evt_1', at, body);
    const args = ['webhooks', 'verify', '--secret', secret, '--id', 'evt_1', '--timestamp', String(Math.floor(at.getTime() / 1000)), '--signature', signature];
    const good = await runCli(args, { input: body });
    expect(good.code).toBe(0);
    expect(good.json).toEqual({ verified: true, id: 'evt_1' });
    const tampered = await runCli(args, { input: body.replace('outcome.filed', 'matter.fulfilled') });
    expect(tampered.code).toBe(1);
    expect(tampered.json.verified).toBe(false);
  });
});
