/**
 * `legalwork serve --processes 2` on the PostgreSQL journal: two service
 * processes behind one address, as the README shows an operator. Requests
 * to the one address are served by both, a worker killed with SIGKILL is
 * started again while the other keeps answering, and SIGTERM stops them all
 * cleanly. On the embedded journal the flag is refused, worded.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, ROOT, spawnChild, tempDataDir, type Child } from '../bench/lib/service.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './helpers/postgres.ts';
import { HANG_MS } from './helpers/wait.ts';

const schema = freshSchema();
const dir = tempDataDir('legalwork-cluster-');
let primary: Child | undefined;
afterAll(async () => {
  await primary?.kill();
  removeDir(dir);
  await dropSchema(schema);
});

/** The primary's workers: its child processes that run the service (not, say, the esbuild its first start may run). */
const workersOf = (pid: number): number[] =>
  execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('legalwork.js'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

async function post(base: string, path: string, body: unknown = {}) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

describe('serve --processes 2', () => {
  it('serves one address from two processes, restarts one killed, and stops all on SIGTERM', async () => {
    primary = await spawnChild({ args: [`${ROOT}/bin/legalwork.js`, 'serve', '--processes', '2'], env: { LEGALWORK_DATA: dir, LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema } });
    expect(primary.stderr()).toMatch(/\(2 processes\)/);
    const workers = workersOf(primary.pid);
    expect(workers).toHaveLength(2);

    // A Matter opened and walked through the one address, a new connection per request (the primary deals connections round-robin).
    const ws = `/workspaces/${(await post(primary.url, '/workspaces')).body.workspace.id}`;
    const created = await post(primary.url, `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' } });
    expect(created.status).toBe(201);
    const id = created.body.matter.id;
    for (let i = 0; i < 5; i++) expect((await post(primary.url, `${ws}/matters/${id}/advance`)).status).toBe(200);

    process.kill(workers[0], 'SIGKILL');
    // Once the primary has seen it die, the other answers every request while a replacement starts
    // (a connection dealt to the dead worker in the instant before is lost, as behind any balancer).
    await expect.poll(() => primary!.stderr(), { timeout: HANG_MS }).toMatch(new RegExp(`process ${workers[0]} ended \\(SIGKILL\\): starting another`));
    for (let i = 0; i < 10; i++) {
      const read = await fetch(`${primary.url}${ws}/matters/${id}`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(HANG_MS) });
      expect(read.status).toBe(200);
      expect(((await read.json()) as any).matter.status).toBe('fulfilled');
    }
    await expect.poll(() => workersOf(primary!.pid).length, { timeout: HANG_MS }).toBe(2);
    expect(workersOf(primary.pid)).not.toContain(workers[0]);

    primary.proc.kill('SIGTERM');
    expect(await primary.exited).toBe(0);
  }, 60_000);

  it('is refused on the embedded journal, worded, before anything starts', async () => {
    await expect(spawnChild({ args: [`${ROOT}/bin/legalwork.js`, 'serve', '--processes', '2'], env: { LEGALWORK_DATA: dir } })).rejects.toThrow(/--processes needs the PostgreSQL journal/);
  });
});
