/**
 * The MCP tools over the server's own key (issue 38): `key_self`, `roll_key`
 * and `revoke_key`, through the official SDK client over the in-memory
 * transport, against the real app listening on a real port, each acting as
 * the key the server was given (LEGALWORK_KEY).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { mcpClient } from './helpers/mcp-client.ts';

let app: TestApp;
let url: string;
const opened: Client[] = [];

beforeAll(async () => ({ app, url } = await listeningApp()));
afterAll(async () => {
  for (const client of opened) await client.close();
  await app.close();
});

async function connect(key?: string) {
  const client = await mcpClient(url, key);
  opened.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, body: result.structuredContent as any, text: (result.content as { text: string }[])[0].text };
}

async function issueKey(): Promise<string> {
  const issued = await fetch(`${url}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'mcp-keys@legalwork.test', spendCeilingUsd: 400 }) });
  expect(issued.status).toBe(201);
  return ((await issued.json()) as { key: string }).key;
}

describe('the key tools', () => {
  it('are listed with their schemas and hints: key_self reads, roll_key writes, revoke_key destroys', async () => {
    const { tools } = await (await connect()).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('key_self')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('roll_key')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('revoke_key')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const roll = byName.get('roll_key')!.inputSchema as { properties: Record<string, any>; required?: string[] };
    expect(roll.properties.expiresInSeconds).toMatchObject({ type: 'integer', minimum: 0, maximum: 604800 });
    expect(roll.required ?? []).toEqual([]);
  });

  it('key_self says where the server\'s key stands; roll_key shows the successor once; the rolled key is then refused naming it; revoke_key ends the successor', async () => {
    const key = await issueKey();
    const client = await connect(key);
    const self = await call(client, 'key_self');
    expect(self.isError).toBe(false);
    expect(self.body).toMatchObject({ type: 'OK', key: { state: 'active' }, owner: { spendCeilingUsd: 400, committedUsd: 0 } });

    const rolled = await call(client, 'roll_key', { expiresInSeconds: 0 });
    expect(rolled.isError).toBe(false);
    expect(rolled.body).toMatchObject({ shownOnce: true, rolled: { id: self.body.key.id, state: 'expired' } });
    expect(rolled.body.key).toMatch(/^lwk_[A-Za-z0-9_-]{43}$/);

    // This server still sends the rolled key: refused, naming the successor a person gives it next.
    const stale = await call(client, 'key_self');
    expect(stale.isError).toBe(true);
    expect(stale.body).toMatchObject({ httpStatus: 401, code: 'KEY_EXPIRED', successorId: rolled.body.keyId });

    const next = await connect(rolled.body.key);
    expect((await call(next, 'key_self')).body).toMatchObject({ key: { id: rolled.body.keyId }, predecessor: { id: self.body.key.id, state: 'expired' } });
    const revoked = await call(next, 'revoke_key');
    expect(revoked.isError).toBe(false);
    expect(revoked.body.key.state).toBe('revoked');
    expect((await call(next, 'list_matters')).body).toMatchObject({ httpStatus: 401, code: 'KEY_REVOKED' });
  });

  it('refuse without a key, naming POST /keys; roll_key refuses an expiry out of range before calling', async () => {
    const keyless = await connect();
    for (const name of ['key_self', 'roll_key', 'revoke_key']) {
      const refused = await call(keyless, name);
      expect(refused.isError, name).toBe(true);
      expect(refused.body, name).toMatchObject({ httpStatus: 401, code: 'KEY_REQUIRED', fix: 'POST /keys' });
    }
    const bad = await call(await connect(await issueKey()), 'roll_key', { expiresInSeconds: 604801 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/Input validation error/);
  });
});
