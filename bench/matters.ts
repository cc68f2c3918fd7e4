/**
 * Create, advance and GET of a Matter over HTTP, each beside its bare-Fastify
 * twin (`bench/bare-fastify.ts`), measured in the same run at 50 connections.
 *
 * - create: `POST /workspaces/{ws}/matters` opens a Matter and mints its Asset
 *   in one durable transaction.
 * - advance: `POST .../matters/{id}/advance` over a pool of the Matters the
 *   create run minted, round-robin, so no two in-flight requests touch one
 *   Matter. A plain (non-fixture) Matter takes four successful advances:
 *   three stage commits (intake -> prepare -> examine -> review) and one
 *   escalation (a Gig posted for `sign`, journaled as `gig.posted`); each is a
 *   durable commit. The run stops after 4 x pool requests, so every answer is
 *   a 2xx unless something went wrong (non-2xx are printed, never counted).
 * - GET: `GET .../matters/{id}` over the same pool (journal, view and Asset).
 * - list doors and the tail, each against the bare GET: `GET .../matters?limit=100`,
 *   `GET .../events?after=<cursor>&limit=100` (cursors spread over the
 *   workspace's tail), `GET .../assets`.
 *
 * Issue 18's yardstick for create and advance is the durable-append row (the
 * bare advance route plus one durable journal append, same run); for reads,
 * the bare GET.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drive, type Figures, type Load } from './lib/load.ts';
import { spawnBare, spawnService, removeDir, tempDataDir } from './lib/service.ts';
import { pairTable, yardstickTable, ms, pct, statusNotes, verdict, type Pair } from './lib/table.ts';

export const CREATE_BODY = {
  matterType: 'patent_provisional',
  offer: 'bench-offer',
  mint: 'bench-mint',
  listFeeUsd: 199,
  clientState: 'CA',
  asset: { title: 'A widget that benchmarks itself' },
};
export const ADVANCE_BODY = { note: 'advanced by the benchmark' };
const MATTER_ID = /"matter":\{"id":"(mt_[0-9a-z]+)"/;

/** An `onResponse` for create runs: pushes the id of every Matter a 201 minted onto `ids`. */
export function collectMatterIds(ids: string[]): NonNullable<Load['onResponse']> {
  return (status, body) => {
    const m = status === 201 ? MATTER_ID.exec(body) : null;
    if (m) ids.push(m[1]);
  };
}

/** Opens a sandbox workspace on the service; returns its path prefix (`/workspaces/ws_...`). */
export async function openWorkspace(serviceUrl: string): Promise<string> {
  const ws = (await (await fetch(`${serviceUrl}/workspaces`, { method: 'POST' })).json()) as { workspace: { id: string } };
  return `/workspaces/${ws.workspace.id}`;
}

/**
 * At most this many Matters are cycled through. The supervisor keeps 20,000
 * entities resident by default, and creating or reading a Matter also touches
 * its Asset's Deadline Ladder (an entity too): two slots per Matter.
 */
const POOL_MAX = 8_000;

export interface MatterFigures {
  create: Pair;
  advance: Pair;
  get: Pair;
  /** The bare advance route plus one durable journal append: the journal's share of an advance, and issue 18's yardstick for create and advance. */
  appendOnly: Figures;
  /** The list doors and the event tail, each against the bare GET (`get.bare`). */
  lists: { matters: Figures; events: Figures; assets: Figures };
  /** Each read door beside the bare route sending the very bytes it answered (`sameBytes`). */
  sameBytes: Pair[];
  /** The same create and advance under a fresh Idempotency-Key each, beside the plain door run again after them (the request context is live in the process by then). */
  keyed: { create: Pair; advance: Pair };
  /** The advance run again on fresh Matters with a webhook endpoint that never answers registered (every event's attempt hangs to its timeout), beside the first advance run. */
  deadEndpoint: Pair;
  pool: number;
}

export async function measureMatters(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<MatterFigures> {
  const dir = tempDataDir();
  const bareDir = tempDataDir();
  const [service, bare] = await Promise.all([spawnService(dir), spawnBare(bareDir)]);
  try {
    const prefix = await openWorkspace(service.url);
    const pool: string[] = [];
    const createDoor = (title: string, s: number, onResponse?: Load['onResponse']) =>
      drive({ title, url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, duration: s, onResponse });
    const createBare = (s: number) => drive({ title: 'POST /echo/matters', url: bare.url, server: bare, method: 'POST', path: () => '/echo/matters', body: () => CREATE_BODY, duration: s });

    // Warm both processes (JIT, SQLite page cache) before anything is measured.
    await createDoor('warm-up', 2);
    await createBare(2);

    const create: Pair = { door: await createDoor('POST /matters (create + Asset)', seconds, collectMatterIds(pool)), bare: await createBare(seconds) };
    // The most recently minted Matters, fewer than the supervisor keeps resident: cycling through
    // more than it keeps would make every touch a rehydration (the worst case of any LRU cache).
    pool.splice(0, Math.max(0, pool.length - POOL_MAX));
    const n = pool.length;
    const advance: Pair = {
      door: await drive({ title: 'POST /matters/:id/advance', url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${pool[i % n]}/advance`, body: () => ADVANCE_BODY, amount: 4 * n, duration: seconds }),
      bare: await drive({ title: 'POST /echo/matters/:id/advance', url: bare.url, server: bare, method: 'POST', path: (i) => `/echo/matters/${pool[i % n]}/advance`, body: () => ADVANCE_BODY, duration: seconds }),
    };
    const appendOnly = await drive({ title: 'POST /journal/matters/:id/advance', url: bare.url, server: bare, method: 'POST', path: (i) => `/journal/matters/${pool[i % n]}/advance`, body: () => ADVANCE_BODY, duration: seconds });
    const get: Pair = {
      door: await drive({ title: 'GET /matters/:id', url: service.url, server: service, method: 'GET', path: (i) => `${prefix}/matters/${pool[(i * 7919) % n]}`, duration: seconds }),
      bare: await drive({ title: 'GET /echo/matters/:id', url: bare.url, server: bare, method: 'GET', path: (i) => `/echo/matters/${pool[(i * 7919) % n]}`, duration: seconds }),
    };
    // The list doors and the tail, each against the bare GET above: a page of 100 Matters, a page of
    // 100 events from a cursor anywhere in the workspace's tail, and the workspace's first page of Assets (100).
    const latestSeq = ((await (await fetch(`${service.url}${prefix}/events?limit=1`)).json()) as { latestSeq: number }).latestSeq;
    const lists = {
      matters: await drive({ title: 'GET /matters?limit=100', url: service.url, server: service, method: 'GET', path: () => `${prefix}/matters?limit=100`, duration: seconds }),
      events: await drive({ title: 'GET /events?after=<cursor>&limit=100', url: service.url, server: service, method: 'GET', path: (i) => `${prefix}/events?after=${(i * 7919) % Math.max(1, latestSeq - 100)}&limit=100`, duration: seconds }),
      assets: await drive({ title: 'GET /assets', url: service.url, server: service, method: 'GET', path: () => `${prefix}/assets`, duration: seconds }),
    };
    // Each read door's answer, captured and stored in the bare process, which then sends those very
    // bytes: the ratio to it is the engine's and the serializer's share, apart from the bytes' own cost.
    const sameBytes = async (door: Figures, name: string, path: string): Promise<Pair> => {
      const answer = await (await fetch(`${service.url}${path}`)).text();
      await fetch(`${bare.url}/echo/answers/${name}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: answer });
      return { door, bare: await drive({ title: `GET /echo/answers/${name} (the same ${(answer.length / 1024).toFixed(1)} KiB)`, url: bare.url, server: bare, method: 'GET', path: () => `/echo/answers/${name}`, duration: seconds }) };
    };
    const twins = [
      await sameBytes(get.door, 'matter', `${prefix}/matters/${pool[0]}`),
      await sameBytes(lists.matters, 'matters-page', `${prefix}/matters?limit=100`),
      await sameBytes(lists.events, 'events-page', `${prefix}/events?after=${Math.floor(latestSeq / 2)}&limit=100`),
      await sameBytes(lists.assets, 'assets-page', `${prefix}/assets`),
    ];
    // Under a fresh Idempotency-Key per request, each beside the plain door measured right after it.
    const keyedPool: string[] = [];
    const keyOf = (run: string) => (i: number) => ({ 'idempotency-key': `bench-${run}-${i}` });
    const keyedCreate = await drive({ title: 'POST /matters under Idempotency-Key', url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, headers: keyOf('create'), duration: seconds, onResponse: collectMatterIds(keyedPool) });
    const plainCreate = await createDoor('POST /matters (plain, after)', seconds, collectMatterIds(keyedPool));
    keyedPool.splice(0, Math.max(0, keyedPool.length - POOL_MAX));
    const k = keyedPool.length;
    const advanceOf = (title: string, headers?: (i: number) => Record<string, string>) =>
      drive({ title, url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${keyedPool[i % k]}/advance`, body: () => ADVANCE_BODY, headers, amount: k, duration: seconds });
    // One advance per Matter each, both stage commits: the keyed run takes each Matter intake -> prepare, the plain run prepare -> examine.
    const keyedAdvance = await advanceOf('POST /matters/:id/advance under Idempotency-Key', keyOf('advance'));
    const plainAdvance = await advanceOf('POST /matters/:id/advance (plain, after)');
    // A receiver that accepts and never answers, registered for every event of the workspace.
    const dead = createServer(() => undefined);
    await new Promise<void>((ok) => dead.listen(0, '127.0.0.1', ok));
    await fetch(`${service.url}${prefix}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:${(dead.address() as AddressInfo).port}/`, events: ['*'] }) });
    const deadPool: string[] = [];
    await createDoor('create (the dead endpoint run\'s Matters)', seconds / 2, collectMatterIds(deadPool));
    deadPool.splice(0, Math.max(0, deadPool.length - POOL_MAX));
    const d = deadPool.length;
    const deadAdvance = await drive({ title: 'POST /matters/:id/advance, a dead endpoint registered', url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${deadPool[i % d]}/advance`, body: () => ADVANCE_BODY, amount: 4 * d, duration: seconds });
    dead.close();
    return { create, advance, get, appendOnly, lists, sameBytes: twins, keyed: { create: { door: keyedCreate, bare: plainCreate }, advance: { door: keyedAdvance, bare: plainAdvance } }, deadEndpoint: { door: deadAdvance, bare: advance.door }, pool: n };
  } finally {
    await Promise.all([service.stop(), bare.stop()]);
    removeDir(dir);
    removeDir(bareDir);
  }
}

export async function bench(): Promise<string[]> {
  const f = await measureMatters();
  const a = f.advance.door;
  const c = f.create.door;
  const g = f.get.door;
  const yard = f.appendOnly;
  const bareGet = f.get.bare;
  const advanceRatio = a.rps / yard.rps;
  const createRatio = c.rps / yard.rps;
  const getRatio = g.rps / bareGet.rps;
  const listDoors = [f.lists.matters, f.lists.events, f.lists.assets];
  return [
    'Matter doors beside a bare Fastify route (same validator, same plumbing), one run',
    ...pairTable([f.create, f.advance, f.get]),
    `pool: the last ${f.pool.toLocaleString('en-US')} Matters the create run minted, cycled through; advance = 3 stage commits + 1 escalation per Matter, each a durable commit; the advance run ends when the pool is used up`,
    '',
    'Against the durable-append row (issue 18\'s yardstick): the bare advance route + one group-committed durable append, no engine',
    ...yardstickTable([c, a], yard, 'vs append'),
    `target advance >= 80% of the append row at p99 <= 10 ms: ${pct(advanceRatio)}, p99 ${ms(a.p99)} -> ${verdict(advanceRatio >= 0.8 && a.p99 <= 10)}`,
    `target create >= 60% of the append row: ${pct(createRatio)} -> ${verdict(createRatio >= 0.6)}`,
    '',
    'Reads against the bare GET (GET /echo/matters/:id) of the same run',
    ...yardstickTable([g, ...listDoors], bareGet, 'vs bare GET'),
    `target GET of a resident Matter >= 70% of the bare GET: ${pct(getRatio)} -> ${verdict(getRatio >= 0.7)}`,
    ...listDoors.map((d) => `target ${d.title} >= 50% of the bare GET: ${pct(d.rps / bareGet.rps)} -> ${verdict(d.rps / bareGet.rps >= 0.5)}`),
    '',
    'The same reads beside a bare route sending the very bytes each door answered (captured once, stored, sent as they are: no engine, no serializer)',
    ...pairTable(f.sameBytes),
    '',
    'Idempotency-Key: each door under a fresh key per request, beside the same door without one, run right after it (the "vs bare" column compares the two)',
    ...pairTable([f.keyed.create, f.keyed.advance]),
    '',
    'A webhook endpoint that never answers, registered for every event of the workspace: the advance run again on fresh Matters, beside the first advance run (no endpoint)',
    ...pairTable([f.deadEndpoint]),
    ...statusNotes([f.create.door, f.advance.door, f.get.door, f.appendOnly, ...listDoors, ...f.sameBytes.map((p) => p.bare), f.keyed.create.door, f.keyed.create.bare, f.keyed.advance.door, f.keyed.advance.bare, f.deadEndpoint.door]),
  ];
}

