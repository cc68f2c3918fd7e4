/**
 * `legalwork events tail --follow` against a real service child process
 * (`legalwork serve`): the backlog, a live event, and resumption with
 * Last-Event-ID after the service restarts on the same journal and port,
 * once drained (SIGTERM) and once crashed (SIGKILL). Every event arrives
 * exactly once, in seq order.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers/app.ts';
import { freePort, startCli, stop, until } from './helpers/cli.ts';
import { START_HANG_MS } from './helpers/wait.ts';

let port: number;
let dataDir: string;
let base: string;
let server: ReturnType<typeof startCli> | undefined;
let follower: ReturnType<typeof startCli> | undefined;

async function startServer() {
  server = startCli(['serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir], { LEGALWORK_LOG: 'off' });
  const s = server;
  await until(() => s.out.stderr.includes('listening on') || s.child.exitCode !== null, 'the service to listen', START_HANG_MS);
  expect(s.out.stderr).toContain(`listening on http://127.0.0.1:${port}`);
}

async function post(path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method: 'POST', ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  expect(res.status).toBe(201);
  return (await res.json()) as any;
}

/** The events the follower printed so far, one JSON per stdout line. */
const printed = () => follower!.out.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { seq: number; kind: string; subject: string });

beforeAll(async () => {
  port = await freePort();
  dataDir = tempDir('legalwork-follow-');
  base = `http://127.0.0.1:${port}`;
  await startServer();
});

afterAll(async () => {
  if (follower) await stop(follower.child, 'SIGKILL');
  if (server) await stop(server.child, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

it('follows live events and resumes after the service restarts, losing and repeating nothing', { timeout: 120_000 }, async () => {
  const workspaceId = (await post('/workspaces')).workspace.id as string;
  const first = (await post(`/workspaces/${workspaceId}/matters`, { matterType: 'demand_letter' })).matter.id as string;

  follower = startCli(['events', 'tail', '--follow', '--workspace', workspaceId, '--url', base]);
  const f = follower;
  // The backlog first: the workspace opening, then the first Matter.
  await until(() => printed().some((e) => e.subject === first), 'the backlog');
  expect(printed()[0]).toEqual(expect.objectContaining({ seq: 1, kind: 'workspace.opened' }));
  expect(f.out.stderr).toContain(`following /workspaces/${workspaceId}/events/stream`);

  // A live event.
  const live = (await post(`/workspaces/${workspaceId}/matters`, { matterType: 'contract_review' })).matter.id as string;
  await until(() => printed().some((e) => e.subject === live && e.kind === 'matter.opened'), 'a live event');

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const before = printed().length;
    await stop(server!.child, signal);
    await until(() => /connection dropped|cannot reach/.test(f.out.stderr.split('\n').slice(-3).join('\n')), `the follower to notice the ${signal}`);
    await startServer();
    const after = (await post(`/workspaces/${workspaceId}/matters`, { matterType: 'entity_formation' })).matter.id as string;
    await until(() => printed().some((e) => e.subject === after && e.kind === 'matter.opened'), `the event after the ${signal} restart`, 30_000);
    expect(printed().length).toBeGreaterThan(before);
    expect(f.out.stderr).toMatch(/reconnected, resuming after seq \d+/);
  }

  // Exactly the tail of the grain: every seq once, in order, and the same as GET /events says.
  await until(async () => {
    const page = (await (await fetch(`${base}/workspaces/${workspaceId}/events?limit=500`)).json()) as { latestSeq: number };
    return printed().length === page.latestSeq;
  }, 'the follower to catch up');
  const seqs = printed().map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  expect(f.child.exitCode).toBeNull();

  // Ctrl-C ends it cleanly.
  await stop(f.child, 'SIGINT');
  expect(f.child.exitCode).toBe(0);
  expect(f.out.stderr).toContain(`stopped after seq ${seqs.at(-1)}`);
});

it('a refused subscription is exit 1, never retried', async () => {
  const run = startCli(['events', 'tail', '--follow', '--feed', 'everything', '--url', base]);
  expect(await run.exited).toBe(1);
  expect(JSON.parse(run.out.stdout).code).toBeTypeOf('string');
  expect(run.out.stderr).toMatch(/refused \(422/);
});
