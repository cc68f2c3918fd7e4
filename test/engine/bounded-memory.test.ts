/**
 * Long-running means flat: every in-memory structure that could grow with
 * what a process meets (Matters and their Ladders, API keys, sandbox grains,
 * Idempotency-Keys, callers, event-stream subscribers) stays within its
 * bound however many distinct ones pass through. The app runs with small
 * capacities and is driven well past each, then every structure is measured
 * (`docs/reliability.md`, What is bounded). Not timed: sizes, not speeds.
 *
 * Private structures are read by name (`object['field']`), so the service
 * carries no accessor that exists only for this test.
 */
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/compose.ts';
import { MemoryAdmissions } from '../../src/engine/creation-bound.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { SseHub } from '../../src/http/sse.ts';
import { call, tempDir } from '../helpers/app.ts';

/** The capacities the app runs with: each well below what the test drives through it. */
const CAP = { resident: 20, keys: 10, grains: 10, idempotency: 10, heads: 50, callers: 10 } as const;
/** How many distinct ones the test drives through: each more than its capacity. */
const MATTERS = 80;
const KEYS = 30;
const GRAINS = 30;
const IDEMPOTENCY_KEYS = 30;
const SSE_CYCLES = 40;
/** `initialStates` in the supervisor: each Ladder's input names its Asset, so every Matter opened brings a new one. */
const INITIAL_STATES_KEPT = 64;

const dir = tempDir('legalwork-bounded-');
const journal = new SqliteJournal(dir, CAP.heads);
const admissions = new MemoryAdmissions(CAP.callers);
let app: Awaited<ReturnType<typeof createApp>>;

beforeAll(async () => {
  app = await createApp({ journal, residentActors: CAP.resident, caches: { keys: CAP.keys, grains: CAP.grains, idempotencyRecords: CAP.idempotency }, creationBound: { ledger: admissions } });
  app.addHook('onClose', async () => journal.close());
  await app.ready();
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each grain from an address of its own: a caller the creation bound counts apart. */
const from = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

async function open(kind: 'workspaces' | 'tenants' | 'firms', i: number): Promise<string> {
  const res = await app.inject({ method: 'POST', url: `/${kind}`, remoteAddress: from(i) });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  return (body.workspace ?? body.tenant ?? body.firm).id as string;
}

describe('after many distinct Matters, keys, grains, Idempotency-Keys and callers', () => {
  const workspaces: string[] = [];

  beforeAll(async () => {
    let caller = 0;
    for (let i = 0; i < GRAINS; i++) workspaces.push(await open('workspaces', caller++));
    for (let i = 0; i < GRAINS; i++) await open('tenants', caller++);
    for (let i = 0; i < GRAINS; i++) await open('firms', caller++);

    // Matters spread over the workspaces, each with its Asset and Ladder; some advanced, every one and its ladder read back.
    const matters: string[] = [];
    const ladders: string[] = [];
    for (let i = 0; i < MATTERS; i++) {
      const prefix = `/workspaces/${workspaces[i % GRAINS]}`;
      const created = await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional', asset: { title: `Bounded widget ${i}` } });
      expect(created.status).toBe(201);
      matters.push(`${prefix}/matters/${created.body.matter.id}`);
      ladders.push(`${prefix}/deadlines/${created.body.asset.id}`);
      if (i % 3 === 0) expect((await call(app, 'POST', `${matters[i]}/advance`)).status).toBe(200);
    }
    for (const read of [...matters, ...ladders]) expect((await call(app, 'GET', read)).status).toBe(200);

    // API keys, each issued and then presented.
    const presented: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      const issued = await call(app, 'POST', '/keys', { email: `bounded${i}@example.com` });
      expect(issued.status).toBe(201);
      expect((await call(app, 'GET', '/keys/self', undefined, { authorization: `Bearer ${issued.body.key}` })).status).toBe(200);
      presented.push(issued.body.key);
    }

    // Writes under distinct Idempotency-Keys, each answered and kept: at the top level, whose records are cached
    // (a sandbox grain's are read from the journal at each retry, so its purge takes them: engine/idempotency.ts).
    for (let i = 0; i < IDEMPOTENCY_KEYS; i++) {
      const res = await call(app, 'POST', '/matters', { matterType: 'patent_provisional', asset: { title: `Kept widget ${i}` } }, { authorization: `Bearer ${presented[i % KEYS]}`, 'idempotency-key': `bounded-${i}` });
      expect(res.status).toBe(201);
    }
  });

  it('keeps at most the resident actors, and as many stored states, and no load or mailbox once idle', () => {
    const supervisor = app.services.supervisor;
    // Full, not merely small: the Matters and Ladders driven were more than the pool.
    expect(supervisor.residentCount).toBe(CAP.resident);
    expect(supervisor['stored'].size).toBeLessThanOrEqual(CAP.resident);
    expect(supervisor['stored'].size).toBeGreaterThan(0);
    expect(supervisor['hydrating'].size).toBe(0);
    // A mailbox lives while its queue runs: one per Matter ever touched would be MATTERS and more.
    expect(supervisor.mailboxes.size).toBe(0);
    expect(supervisor['initialStates'].size).toBe(INITIAL_STATES_KEPT);
  });

  it('keeps at most the capacity of key records and of their owners', () => {
    const keys = app.services.keys;
    expect(keys.resident).toBe(CAP.keys);
    expect(keys['owners'].size).toBe(CAP.keys);
  });

  it('keeps at most the capacity of each kind of sandbox grain', () => {
    for (const grains of [app.services.workspaces, app.services.tenants, app.services.firms]) expect(grains['cache'].size).toBe(CAP.grains);
  });

  it('keeps at most the capacity of settled Idempotency-Key records, and none running', () => {
    const records = app.services.idempotency;
    expect(records['cache'].size).toBe(CAP.idempotency);
    expect(records['running'].size).toBe(0);
  });

  it('keeps at most the capacity of stream and grain heads in the journal adapter', () => {
    expect(journal['streamVersions'].size).toBe(CAP.heads);
    expect(journal['grainSeqs'].size).toBe(CAP.heads);
  });

  it('counts the creation bound for at most the capacity of callers', () => {
    // 3 x GRAINS callers opened grains within the window.
    expect(admissions.size).toBe(CAP.callers);
  });

  it('holds no delivery of the outbox once every Gig is answered', () => {
    const outbox = app.services.outbox;
    expect(outbox['attempts'].size).toBe(0);
    expect(outbox['retries'].size).toBe(0);
  });
});

describe('event-stream subscribers', () => {
  it('leave nothing behind in the hub, per grain or per caller, once their streams close', async () => {
    const grains = [];
    for (let i = 0; i < 4; i++) grains.push(await open('workspaces', 1000 + i));
    // The service's hub over the app's journal and bus, served bare: the route only adds its checks in front.
    const hub = new SseHub(app.services.journal, app.services.bus, { maxStreamsPerCaller: 1000 });
    const server = http.createServer((req, res) => {
      const [, grain, caller] = req.url!.split('/');
      hub.admit({ id: caller, said: caller, kind: 'address' });
      hub.subscribe(grain, 'timeline', 0, res, {}, caller);
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    try {
      for (let cycle = 0; cycle < SSE_CYCLES; cycle++) {
        const grain = grains[cycle % grains.length];
        const caller = `caller-${cycle}`;
        // Opened, held while its grain is written to, then closed by the client.
        const response = await new Promise<http.IncomingMessage>((got, failed) => http.get({ port, host: '127.0.0.1', path: `/${grain}/${caller}`, agent: false }, got).on('error', failed));
        expect(response.statusCode).toBe(200);
        expect(hub['byGrain'].get(grain)?.size).toBe(1);
        expect((await call(app, 'POST', `/workspaces/${grain}/matters`, { matterType: 'patent_provisional', asset: { title: `Streamed widget ${cycle}` } })).status).toBe(201);
        response.destroy();
        await vi.waitFor(() => expect(hub['openBy'].has(caller)).toBe(false));
      }
      expect(hub['byGrain'].size).toBe(0);
      expect(hub['openBy'].size).toBe(0);
    } finally {
      hub.close();
      await new Promise((closed) => server.close(closed));
    }
  });
});

describe('requests under an Idempotency-Key whose client is gone before the answer', () => {
  it('leave no key running: each is free again, and answered on a retry', async () => {
    const grain = await open('workspaces', 2000);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(url);
    const body = JSON.stringify({ matterType: 'patent_provisional', asset: { title: 'Dropped widget' } });
    for (let i = 0; i < 20; i++) {
      // The whole request is written, then the connection is dropped at once, before any answer.
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((sent) => socket.write([`POST /workspaces/${grain}/matters HTTP/1.1`, 'host: 127.0.0.1', 'content-type: application/json', `idempotency-key: dropped-${i}`, `content-length: ${Buffer.byteLength(body)}`, '', body].join('\r\n'), () => sent()));
      socket.destroy();
    }
    await vi.waitFor(() => expect(app.services.idempotency['running'].size).toBe(0), { timeout: 10_000 });
    for (let i = 0; i < 20; i++) {
      const retry = await call(app, 'POST', `/workspaces/${grain}/matters`, JSON.parse(body), { 'idempotency-key': `dropped-${i}` });
      // The dropped request had arrived whole, so it ran and its answer was kept.
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
    }
  });
});

describe('a stream lengthened past what the resident pool holds', () => {
  it('is passivated once idle: the pool holds at most its events, and the Matter still answers whole', async () => {
    const supervisor = app.services.supervisor;
    const pool = supervisor['resident'];
    const grain = await open('workspaces', 3000);
    const prefix = `/workspaces/${grain}`;
    const openMatter = async (title: string) => (await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional', asset: { title } })).body.matter.id as string;
    const long = await openMatter('Long widget');
    // One document a command: the stream grows past every event the pool may hold (25 a resident actor).
    const documents = pool.maxEvents + 20;
    for (let i = 0; i < documents; i++) {
      const sha256 = i.toString(16).padStart(64, '0');
      expect((await call(app, 'POST', `${prefix}/matters/${long}/documents`, { name: `exhibit-${i}.pdf`, kind: 'exhibit', sha256 })).status).toBe(201);
      // While it grows, the others make room: the pool never holds more than its bound beyond the stream a command runs on.
      if (pool.events > pool.maxEvents) expect(pool.size).toBe(1);
    }
    expect(supervisor.isResident(long)).toBe(true);
    // The next entity kept passes it over no longer: idle, the longest stream goes.
    await openMatter('Short widget');
    expect(supervisor.isResident(long)).toBe(false);
    expect(pool.events).toBeLessThanOrEqual(pool.maxEvents);
    expect(pool.events).toBeGreaterThan(0);
    const read = await call(app, 'GET', `${prefix}/matters/${long}/documents`);
    expect(read.status).toBe(200);
    expect(read.body.results).toHaveLength(documents);
  }, 120_000);
});
