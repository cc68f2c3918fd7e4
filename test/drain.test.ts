/**
 * A graceful stop ends within its deadline whatever the clients do, against
 * the real service as a child process: idle keep-alive connections, clients
 * still sending on theirs, and a client that never finishes its request.
 * SIGTERM exits 0 with every answered write kept.
 *
 * Time on a loaded machine (docs/reliability.md, "Time in the suite"): a
 * drain that must not wait for its deadline runs with a deadline far beyond
 * what an exit takes on a loaded core, so only waiting for it reaches it; one
 * that must cut at its deadline exits not before it (load only delays) and
 * within it plus room for the exit that follows. Each step waits for what it
 * needs (answers under way, a request the service has read, the listener
 * closed by the drain), not for a time it assumes is enough.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, spawnService, tempDataDir, type Child } from '../bench/lib/service.ts';
import { REFUSALS } from '../src/domain/refusals.ts';
import { rawClient, type RawClient } from './helpers/raw-client.ts';
import { AFTER_DEADLINE_MS, HANG_MS, until, within } from './helpers/wait.ts';

/** A deadline far beyond what a drain with nothing left to wait for takes on a loaded core (well under a second quiet): only waiting for it reaches it. */
const LONG_DEADLINE_SECONDS = 10;
/** A deadline the drain must keep: the test waits for it. */
const DEADLINE_SECONDS = 2;
let dir: string | undefined;
let child: Child | undefined;
afterEach(async () => {
  await child?.kill();
  if (dir) removeDir(dir);
  child = undefined;
  dir = undefined;
});

async function start(deadlineSeconds = LONG_DEADLINE_SECONDS): Promise<Child> {
  dir = tempDataDir('legalwork-drain-');
  child = await spawnService(dir, { LEGALWORK_DRAIN_SECONDS: String(deadlineSeconds) });
  return child;
}

/** Whether the service still takes new connections (a draining one has closed its listener). */
function listening(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
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
  const code = await within(c.exited, 'the process to exit after SIGTERM');
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
    expect(ms).toBeLessThan(LONG_DEADLINE_SECONDS * 1000);
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
    // Once the load is being answered (however loaded the machine), the clients finish the request they have in
    // flight and then hold their connections open, idle.
    await until(() => answered.length >= 20, () => `answers under way (${answered.length})`);
    stopping = true;
    const { code, ms } = await terminate(c);
    await Promise.all(clients);
    agent.destroy();
    expect(code).toBe(0);
    // Busy connections close after their answers, then idle ones at once: the deadline is never reached.
    expect(ms).toBeLessThan(LONG_DEADLINE_SECONDS * 1000);
    // Restarted on the same journal, every answered Matter is there.
    child = await spawnService(dir!);
    for (const id of answered) expect((await get(new Agent(), `${child.url}/workspaces/${ws}/matters/${id}`)).status).toBe(200);
  });

  it('cuts a client that never finishes its request at the deadline, and still exits 0', async () => {
    const c = await start(DEADLINE_SECONDS);
    const client = await rawClient(c.url);
    // Headers promising a body that never comes. Expect: 100-continue makes the service say when it has read them
    // (a request it has not read yet is an idle connection, which the drain closes at once).
    client.write('POST /workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n');
    await client.until(() => client.received.startsWith('HTTP/1.1 100 Continue'), HANG_MS, 'the service to read the headers');
    client.write('{');
    const { code, ms } = await terminate(c);
    expect(code).toBe(0);
    await client.until(() => client.isClosed, HANG_MS, 'the connection to be cut');
    // Cut at the deadline: not before it (load only delays), and within it plus the exit that follows.
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_SECONDS * 1000 - 50);
    expect(ms).toBeLessThan(DEADLINE_SECONDS * 1000 + AFTER_DEADLINE_MS);
    client.destroy();
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
      // Arriving: its request line has come, its headers not yet (the connection is busy, so the drain does not close it as idle).
      const arriving = await rawClient(c.url);
      // In flight: its headers have arrived (its route is running, waiting for its body).
      const inFlight = await rawClient(c.url);
      clients.push(inFlight, arriving);
      // Arriving's bytes are written first: by the time the service has read the second's headers (it says to
      // continue), it has read them too (one turn of its loop reads every socket that has bytes waiting), so both
      // connections are busy before the SIGTERM is sent.
      arriving.write(head);
      inFlight.write(`${head}Expect: 100-continue\r\n\r\n${body.slice(0, 5)}`);
      await inFlight.until(() => inFlight.received.startsWith('HTTP/1.1 100 Continue'), HANG_MS, 'the service to read the headers in flight');
      inFlight.received = '';
      c.proc.kill('SIGTERM');
      // Draining once its listener is closed: a new connection is refused.
      await until(async () => !(await listening(c.url)), 'the drain to close the listener');
      expect(c.proc.exitCode, 'the drain is still waiting on both connections').toBeNull();
      // The request arrives whole only now, while the service drains.
      arriving.write(`\r\n${body}`);
      await arriving.until(() => arriving.response() !== undefined, HANG_MS, 'the refusal');
      const refused = arriving.response()!;
      expect(refused.status, refused.body).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['request-id']).toMatch(/^rq_\w+$/);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(refused.headers.connection).toBe('close');
      expect(JSON.parse(refused.body)).toEqual({ error: expect.stringContaining('nothing of this one was written'), code: 'SERVICE_DRAINING', fix: REFUSALS.SERVICE_DRAINING.fix });
      await arriving.until(() => arriving.isClosed, HANG_MS, 'the refused connection to close');
      // The request in flight gets its answer.
      inFlight.write(body.slice(5));
      await inFlight.until(() => inFlight.response() !== undefined, HANG_MS, 'the answer in flight');
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
    await expect(spawnService(dir, { LEGALWORK_SANDBOX_PURGE_AFTER: 'soon' })).rejects.toThrow(/exited \(\d+\) before listening[\s\S]*LEGALWORK_SANDBOX_PURGE_AFTER/);
    // Checked as the app is built, after the journal opened: it is closed again, and the process ends.
    await expect(spawnService(dir, { LEGALWORK_SANDBOX_TTL: '-1' })).rejects.toThrow(/exited \(\d+\) before listening[\s\S]*LEGALWORK_SANDBOX_TTL/);
  }, 60_000);
});
