/**
 * The service on the PostgreSQL journal (issue 16, its first part), as an
 * operator runs it: `LEGALWORK_DATABASE_URL` (and a schema of its own here)
 * selects it; a write answered 2xx survives a SIGKILL; and a second process
 * on the same journal serves it too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, spawnService, tempDataDir, type Child } from '../../bench/lib/service.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';

const schema = freshSchema();
const env = { LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema };
const dir = tempDataDir('legalwork-pg-');
let child: Child | undefined;
afterAll(async () => {
  await child?.kill();
  removeDir(dir);
  await dropSchema(schema);
});

async function send(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await res.json() };
}

describe('the service on PostgreSQL', () => {
  it('serves on the journal LEGALWORK_DATABASE_URL names, keeps what it answered across a SIGKILL, and a second process on the same journal serves it too', async () => {
    child = await spawnService(dir, env);
    const ws = `/workspaces/${(await send(child.url, 'POST', '/workspaces')).body.workspace.id}`;
    const created = await send(child.url, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' } });
    expect(created.status).toBe(201);
    const id = created.body.matter.id;
    let last: any;
    for (let i = 0; i < 5; i++) {
      last = await send(child.url, 'POST', `${ws}/matters/${id}/advance`, {});
      expect(last.status).toBe(200);
    }
    expect(last.body.matter.status).toBe('fulfilled');

    const secondDir = tempDataDir('legalwork-pg-second-');
    const second = await spawnService(secondDir, env);
    try {
      expect((await send(second.url, 'GET', `${ws}/matters/${id}`)).body.matter).toMatchObject({ status: 'fulfilled', version: last.body.matter.version });
    } finally {
      await second.kill();
      removeDir(secondDir);
    }

    await child.kill();
    child = await spawnService(dir, env);
    const read = await send(child.url, 'GET', `${ws}/matters/${id}`);
    expect(read.body.matter).toMatchObject({ status: 'fulfilled', version: last.body.matter.version });
    const tail = await send(child.url, 'GET', `${ws}/events?limit=500`);
    expect(tail.body.results.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: tail.body.results.length }, (_, i) => i + 1));
  }, 60_000);
});
