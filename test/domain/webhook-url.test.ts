/**
 * Where a webhook may point (issue 15, decisions.md "Webhooks"): the URL
 * policy at registration, every address a name resolves to checked, and the
 * transport's filtering agent at connect time (a name that resolves to a
 * refused address after registration is refused there too).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { webhookUrlProblem, type WebhookUrlPolicy } from '../../src/domain/webhook-url.ts';
import { httpTransport } from '../../src/engine/webhook-transport.ts';

const TOP: WebhookUrlPolicy = { sandbox: false, allowPrivate: false };
const SANDBOX: WebhookUrlPolicy = { sandbox: true, allowPrivate: false };
const DEV: WebhookUrlPolicy = { sandbox: false, allowPrivate: true };
/** A resolver with a fixed table: no network in the tests. */
const names: Record<string, string[]> = { 'hooks.example.com': ['93.184.215.14'], 'sneaky.example.com': ['93.184.215.14', '127.0.0.1'], localhost: ['127.0.0.1', '::1'], 'metadata.internal': ['169.254.169.254'] };
const resolve = async (host: string) => {
  const found = names[host];
  if (!found) throw new Error('ENOTFOUND');
  return found;
};

describe('the webhook URL policy', () => {
  it.each([
    ['http://hooks.example.com/hook', /http:\/\//],
    ['https://127.0.0.1/hook', /loopback/],
    ['https://10.0.0.1/hook', /private/],
    ['https://169.254.169.254/latest/meta-data', /linkLocal/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback/],
    ['https://0.0.0.0/hook', /unspecified/],
    ['https://localhost/hook', /loopback/],
    ['https://sneaky.example.com/hook', /loopback/],
    ['https://metadata.internal/', /linkLocal/],
    ['https://nowhere.example.com/', /does not resolve/],
    ['ftp://hooks.example.com/', /scheme is ftp/],
    ['https://user:pw@hooks.example.com/', /credentials/],
    ['not a url', /not an absolute URL/],
  ])('refuses %s at the top level', async (url, why) => {
    expect(await webhookUrlProblem(url, TOP, resolve)).toMatch(why);
  });

  it('takes https:// on a public address at the top level', async () => {
    expect(await webhookUrlProblem('https://hooks.example.com/legalwork', TOP, resolve)).toBeNull();
    expect(await webhookUrlProblem('https://93.184.215.14:8443/hook', TOP, resolve)).toBeNull();
  });

  it('takes loopback, over http too, in a sandbox grain; never private or metadata addresses', async () => {
    expect(await webhookUrlProblem('http://127.0.0.1:8080/hook', SANDBOX, resolve)).toBeNull();
    expect(await webhookUrlProblem('http://localhost:8080/hook', SANDBOX, resolve)).toBeNull();
    expect(await webhookUrlProblem('http://[::1]:8080/hook', SANDBOX, resolve)).toBeNull();
    expect(await webhookUrlProblem('http://hooks.example.com/hook', SANDBOX, resolve)).toMatch(/http:\/\//);
    expect(await webhookUrlProblem('http://10.0.0.1/hook', SANDBOX, resolve)).toMatch(/private/);
    expect(await webhookUrlProblem('http://169.254.169.254/hook', SANDBOX, resolve)).toMatch(/linkLocal/);
  });

  it('lets LEGALWORK_WEBHOOK_ALLOW_PRIVATE=1 reach anything, for local development', async () => {
    expect(await webhookUrlProblem('http://10.0.0.1/hook', DEV, resolve)).toBeNull();
    expect(await webhookUrlProblem('http://127.0.0.1:9/hook', DEV, resolve)).toBeNull();
  });
});

describe('the transport at connect time', () => {
  it('refuses to connect to loopback under the top-level policy, even by a name; a sandbox reaches it; nothing is sent', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    try {
      // What a registered name that now resolves to loopback (DNS rebinding) meets.
      const top = await httpTransport.post(`http://localhost:${port}/hook`, {}, '{}', TOP, 2000);
      expect(top.status).toBeNull();
      expect(top.error).toMatch(/not allowed/);
      expect(hits).toBe(0);
      const sandbox = await httpTransport.post(`http://127.0.0.1:${port}/hook`, {}, '{}', SANDBOX, 2000);
      expect(sandbox.status).toBe(200);
      expect(sandbox.body).toBe('ok');
      expect(hits).toBe(1);
    } finally {
      server.close();
    }
  });
});
