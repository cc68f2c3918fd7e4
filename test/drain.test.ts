/**
 * A graceful stop ends within its deadline whatever the clients do, against
 * the real service as a child process: idle keep-alive connections, clients
 * still sending on theirs, and a client that never finishes its request.
 * SIGTERM exits 0 with every answered write kept.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, spawnService, tempDataDir, type Child } from '../bench/lib/service.ts';
import { REFUSALS } from '../src/domain/refusals.ts';
import { rawClient, type RawClient } from './helpers/raw-client.ts';

const DEADLINE_SECONDS = 3;
let dir: string | undefined;
let child: Child | undefined;
afterEach(async () => {
  await child?.kill();
  if (dir) removeDir(dir);
  child = undefined;
  dir = undefined;
});

async function start(): Promise<Child> {
  dir = tempDataDir('legalwork-drain-');
  child = await spawnService(dir, { LEGALWORK_DRAIN_SECONDS: String(DEADLINE_SECONDS) });
  return child;
}

/** One request on the agent's kept-alive connections; resolves with its status and the Connection header. */
function get(agent: Agent, url: string, method = 'GET', body?: string): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { agent, method, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode!, connection: res.headers.connection, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Sends SIGTERM and answers the exit code and how long the exit took. */
async function terminate(c: Child): Promise<{ code: number | null; ms: number }> {
  const t = performance.now();
  c.proc.kill('SIGTERM');
  const code = await c.exited;
  return { code, ms: performance.now() - t };
}

describe('SIGTERM drains and exits within the deadline', () => {
  it('closes idle keep-alive connections at once', async () => {
    const c = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    await Promise.all(Array.from({ length: 20 }, () => get(agent, `${c.url}/healthz`)));
    expect(Object.values(agent.freeSockets).flat().length).toBeGreaterThan(0);
    const { code, ms } = await terminate(c);
    expect(code).toBe(0);
    // Idle connections need no deadline: well under it.
    expect(ms).toBeLessThan(DEADLINE_SECONDS * 1000);
    agent.destroy();
  });

  it('answers what is in flight, closes each busy keep-alive connection after its answer, and keeps every answered write', async () => {
    const c = await start();
    const ws = JSON.parse((await get(new Agent(), `${c.url}/workspaces`, 'POST')).body).workspace.id as string;
    const agent = new Agent({ keepAlive: true, maxSockets: 10 });
    const answered: string[] = [];
    let stopping = false;
    const clients = Array.from({ length: 10 }, async () => {
      // Each client keeps its connection busy until the service goes away.
      while (!stopping) {
        try {
          const res = await get(agent, `${c.url}/workspaces/${ws}/matters`, 'POST', '{"matterType":"patent_provisional"}');
          if (res.status === 201) answered.push(JSON.parse(res.body).matter.id);
        } catch {
          return;
        }
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    // The clients finish the request they have in flight and then hold their connections open, idle.
    stopping = true;
    const { code, ms } = await terminate(c);
    await Promise.all(clients);
    agent.destroy();
    expect(code).toBe(0);
    expect(ms).toBeLessThan((DEADLINE_SECONDS + 2) * 1000);
    expect(answered.length).toBeGreaterThan(0);
    // Restarted on the same journal, every answered Matter is there.
    child = await spawnService(dir!);
    for (const id of answered) expect((await get(new Agent(), `${child.url}/workspaces/${ws}/matters/${id}`)).status).toBe(200);
  });

  it('cuts a client that never finishes its request at the deadline, and still exits 0', async () => {
    const c = await start();
    const { port } = new URL(c.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    // Headers promising a body that never comes.
    socket.write('POST /workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    socket.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 100));
    const { code, ms } = await terminate(c);
    expect(code).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_SECONDS * 1000 - 500);
    expect(ms).toBeLessThan((DEADLINE_SECONDS + 2) * 1000);
    socket.destroy();
  });
});

describe('a request arriving while the service drains', () => {
  it('is refused 503 SERVICE_DRAINING with Retry-After, a request-id and the uniform body, writing nothing, while the request in flight is still answered', async () => {
    const c = await start();
    const ws = JSON.parse((await get(new Agent(), `${c.url}/workspaces`, 'POST')).body).workspace.id as string;
    const body = '{"matterType":"patent_provisional"}';
    const head = `POST /workspaces/${ws}/matters HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
    const clients: RawClient[] = [];
    try {
      // In flight: its headers have arrived (its route is running, waiting for its body).
      const inFlight = await rawClient(c.url);
      // Arriving: its request line has come, its headers not yet (the connection is busy, so the drain does not close it as idle).
      const arriving = await rawClient(c.url);
      clients.push(inFlight, arriving);
      inFlight.write(`${head}\r\n${body.slice(0, 5)}`);
      arriving.write(head);
      await new Promise((r) => setTimeout(r, 300));
      c.proc.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      expect(c.proc.exitCode, 'the drain is still waiting on both connections').toBeNull();
      // The request arrives whole only now, while the service drains.
      arriving.write(`\r\n${body}`);
      await arriving.until(() => arriving.response() !== undefined, 5000, 'the refusal');
      const refused = arriving.response()!;
      expect(refused.status, refused.body).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['request-id']).toMatch(/^rq_\w+$/);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body)).toEqual({ error: expect.stringContaining('nothing of this one was written'), code: 'SERVICE_DRAINING', fix: REFUSALS.SERVICE_DRAINING.fix });
      await arriving.until(() => arriving.isClosed, 5000, 'the refused connection to close');
      // The request in flight gets its answer.
      inFlight.write(body.slice(5));
      await inFlight.until(() => inFlight.response() !== undefined, 5000, 'the answer in flight');
      const answered = inFlight.response()!;
      expect(answered.status, answered.body).toBe(201);
      const matterId = JSON.parse(answered.body).matter.id as string;
      expect(await c.exited).toBe(0);
      // Restarted on the same journal: the answered Matter is there, and it is the only one.
      child = await spawnService(dir!);
      const listed = JSON.parse((await get(new Agent(), `${child.url}/workspaces/${ws}/matters`)).body) as { results?: Array<{ id: string }> };
      expect((listed.results ?? []).map((m) => m.id)).toEqual([matterId]);
    } finally {
      for (const client of clients) client.destroy();
    }
  });
});

describe('a malformed setting', () => {
  it('stops the start, the process ending with the reason, whichever setting it is (the journal is opened only after all are read)', async () => {
    dir = tempDataDir('legalwork-settings-');
    await expect(spawnService(dir, { LEGALWORK_DRAIN_SECONDS: 'abc' })).rejects.toThrow(/exited \(\d+\) before listening[\s\S]*LEGALWORK_DRAIN_SECONDS/);
    await expect(spawnService(dir, { LEGALWORK_WEBHOOK_TIMEOUT_MS: 'x' })).rejects.toThrow(/exited \(\d+\) before listening[\s\S]*LEGALWORK_WEBHOOK_TIMEOUT_MS/);
    // Checked as the app is built, after the journal opened: it is closed again, and the process ends.
    await expect(spawnService(dir, { LEGALWORK_SANDBOX_TTL: '-1' })).rejects.toThrow(/exited \(\d+\) before listening[\s\S]*LEGALWORK_SANDBOX_TTL/);
  }, 60_000);
});
