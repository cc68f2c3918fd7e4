/**
 * The one HTTP client of the CLI and the MCP server, and Idempotency-Key
 * (issue 14): it sends a fresh key on every write the service can keep one
 * for, and retries a write whose connection dropped once, under the same key,
 * so a commit the caller never heard of is answered, not made twice. A proxy
 * between client and service records what arrives and drops what it is told to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../src/client/service-client.ts';
import { issueKey, listeningApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
let upstream: string;
let proxy: Server;
let proxied: string;
/** What arrived at the proxy: method, path and Idempotency-Key of each request. */
const seen: Array<{ method: string; path: string; key: string | undefined }> = [];
/** How many answers the proxy still swallows, closing the connection after the service answered. */
let drops = 0;

beforeAll(async () => {
  ({ app, url: upstream } = await listeningApp());
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const key = req.headers['idempotency-key'];
    seen.push({ method: req.method!, path: req.url!, key: typeof key === 'string' ? key : undefined });
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (drops > 0) {
      drops--;
      // The service committed and answered; the caller never hears it.
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', ...(answer.headers.get('idempotent-replayed') ? { 'idempotent-replayed': 'true' } : {}) });
    res.end(body);
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => proxy.close(done));
  await app.close();
});

describe('the service client and Idempotency-Key', () => {
  it('sends a fresh key on each write it can be kept for (keyed, or inside a sandbox grain), and none on reads or anonymous top-level writes', async () => {
    const anonymous = new ServiceClient({ baseUrl: proxied });
    seen.length = 0;
    const ws = (await anonymous.request('POST', '/workspaces')).body as { workspace: { id: string } };
    await anonymous.request('POST', `/workspaces/${ws.workspace.id}/matters`, { body: { matterType: 'patent_provisional' } });
    await anonymous.request('POST', `/workspaces/${ws.workspace.id}/matters`, { body: { matterType: 'patent_provisional' } });
    await anonymous.request('GET', `/workspaces/${ws.workspace.id}/matters`);
    const keyed = new ServiceClient({ baseUrl: proxied, key: (await issueKey(app)).headers.authorization.slice('Bearer '.length) });
    expect((await keyed.request('POST', '/matters', { body: { matterType: 'patent_provisional' } })).status).toBe(201);
    const keys = seen.map((s) => s.key);
    expect(keys[0]).toBeUndefined();
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).not.toBe(keys[1]);
    expect(keys[3]).toBeUndefined();
    expect(keys[4]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('retries a write whose connection dropped after the commit once, under the same key: the replay answers it and one Matter exists', async () => {
    const client = new ServiceClient({ baseUrl: proxied });
    const ws = ((await client.request('POST', '/workspaces')).body as { workspace: { id: string } }).workspace.id;
    seen.length = 0;
    drops = 1;
    const answer = await client.request('POST', `/workspaces/${ws}/matters`, { body: { matterType: 'patent_provisional' } });
    expect(answer.status).toBe(201);
    expect(seen).toHaveLength(2);
    expect(seen[1].key).toBe(seen[0].key);
    const listed = (await client.request('GET', `/workspaces/${ws}/matters`)).body as { results: Array<{ id: string }> };
    expect(listed.results.map((m) => m.id)).toEqual([(answer.body as { matter: { id: string } }).matter.id]);
  });

  it('retries only once: a second drop is unreachable, and the one Matter still stands', async () => {
    const client = new ServiceClient({ baseUrl: proxied, idempotencyKey: 'one-key-for-this-client' });
    const ws = ((await new ServiceClient({ baseUrl: proxied }).request('POST', '/workspaces')).body as { workspace: { id: string } }).workspace.id;
    drops = 2;
    await expect(client.request('POST', `/workspaces/${ws}/matters`, { body: { matterType: 'patent_provisional' } })).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    const again = await client.request('POST', `/workspaces/${ws}/matters`, { body: { matterType: 'patent_provisional' } });
    expect(again.status).toBe(201);
    expect(((await client.request('GET', `/workspaces/${ws}/matters`)).body as { results: unknown[] }).results).toHaveLength(1);
  });
});
