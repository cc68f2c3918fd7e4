/**
 * The Matter doors over HTTP, each beside its twin in the same run, at 50
 * connections (issue 37: every door against a twin that does the same work
 * without the engine; ratios to the twin of the same run).
 *
 * - create: `POST /workspaces/{ws}/matters` opens a Matter, mints its Asset
 *   and opens its ladder in one durable transaction. Its twin,
 *   `POST /twin/matters` on the bare process (`lib/write-twin.ts`), makes the
 *   very appends the engine makes for a create (recorded from the engine in
 *   this run), under fresh ids, through the same journal adapter, into a
 *   journal emptied and filled to the service's number of events just before
 *   the door's run, and answers the door's bytes.
 * - advance: `POST .../matters/{id}/advance` over a pool of the Matters the
 *   create run minted, round-robin, so no two in-flight requests touch one
 *   Matter. A plain (non-fixture) Matter takes four successful advances:
 *   three stage commits (intake -> prepare -> examine -> review) and one
 *   escalation (a Gig posted for `sign`, journaled as `gig.posted`, then its
 *   delivery record in the outbox); each is a durable commit. The run stops
 *   after 4 x pool requests, so every answer is a 2xx unless something went
 *   wrong (non-2xx are printed, never counted). Its twin replays each
 *   advance's appends on as many Matters of its own journal, filled again to
 *   the service's size just before.
 * - GET: `GET .../matters/{id}` over the same pool (journal, view and Asset);
 *   then the same GETs with the ETag each answered as If-None-Match (304).
 * - list doors and the tail: `GET .../matters?limit=100`,
 *   `GET .../events?after=<cursor>&limit=100` (cursors spread over the
 *   workspace's tail), `GET .../assets` (100 a page).
 *
 * A read door's twin is a bare route sending the very bytes the door answered
 * (captured once, stored in the bare process, sent as they are), run right
 * after the door's run. The echo
 * routes (the request validated with the door's schema and echoed, no journal)
 * are printed beside as the HTTP plumbing's share.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Database } from '../src/journal/sqlite-driver.ts';
import { drive, type Figures, type Load } from './lib/load.ts';
import { spawnBare, spawnService, removeDir, tempDataDir } from './lib/service.ts';
import { pairTable, yardstickTable, ms, num, pct, statusNotes, verdict, type Pair } from './lib/table.ts';
import { recordWrites, type DoorAnswers } from './lib/write-twin.ts';

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

/** Events in a service's embedded journal (read-only, from this process) and the journal's bytes on disk (the file and its WAL). */
export function journalSize(dir: string): { events: number; bytes: number } {
  const file = join(dir, 'journal.db');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const events = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    return { events, bytes: journalBytes(dir) };
  } finally {
    db.close();
  }
}

/** The bytes of `journal.db` and its WAL in `dir`. */
export function journalBytes(dir: string): number {
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  return size(join(dir, 'journal.db')) + size(join(dir, 'journal.db-wal'));
}

/** The twin's journal directory (the bare process keeps one `twin-*` at a time under its data directory). */
const twinDir = (bareDir: string) => join(bareDir, readdirSync(bareDir).find((d) => d.startsWith('twin-')) ?? '');

/** One create and its four advances on the service, each answer's bytes as the door sent them: what the write twins answer. */
async function captureAnswers(serviceUrl: string, prefix: string): Promise<DoorAnswers> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${serviceUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
    return text;
  };
  const create = await post(`${prefix}/matters`, CREATE_BODY);
  const matterId = MATTER_ID.exec(create)![1];
  const advances: string[] = [];
  for (let i = 0; i < 4; i++) advances.push(await post(`${prefix}/matters/${matterId}/advance`, ADVANCE_BODY));
  return { matterId, create, advances };
}

async function postJson<T>(url: string, body: unknown, method = 'POST'): Promise<T> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** What a write row's door and twin wrote: events in each journal before the run, and per answer. */
export interface WriteSizes {
  /** Events in the service's journal, and its bytes, just before the door's run; the twin's after its fill. */
  service: { events: number; bytes: number };
  twin: { events: number; bytes: number; fillSeconds: number };
  /** Events the door's run added to the service's journal per 2xx answer, and the twin's per answer as recorded. */
  doorEventsPerAnswer: number;
  twinEventsPerAnswer: number;
}

export interface MatterFigures {
  create: Pair;
  advance: Pair;
  /** Each write door's sizes: the journals filled alike, and what each answer wrote. */
  sizes: { create: WriteSizes; advance: WriteSizes };
  /** The echo routes (the door's schema, no journal): the HTTP plumbing's share. */
  echo: { create: Figures; advance: Figures };
  get: Pair;
  /** The same GETs sent with the ETag each Matter answered (If-None-Match: a 304, no body), beside the 200 run (`get.door`). */
  notModified: Pair;
  /** The list doors and the event tail, each against the bare GET (`get.bare`). */
  lists: { matters: Figures; events: Figures; assets: Figures };
  /** Each read door beside the bare route sending the very bytes it answered (`sameBytes`). */
  sameBytes: Pair[];
  /** The same create and advance under a fresh Idempotency-Key each, beside the plain door run again after them (the request context is live in the process by then). */
  keyed: { create: Pair; advance: Pair };
  /** The advance run again on fresh Matters with a webhook endpoint that never answers registered (every event's attempt hangs to its timeout), beside the first advance run. */
  deadEndpoint: Pair;
  pool: number;
  /** What the twins replay, from the recording: events per create, per advance, appends per advance; appends the engine made after answering (not replayed). */
  recorded: { eventsPerCreate: number; eventsPerAdvance: number[]; appendsPerAdvance: number[]; answerRows: number; late: number; streamsPerCreate: number };
}

export async function measureMatters(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<MatterFigures> {
  const dir = tempDataDir();
  const bareDir = tempDataDir();
  const [service, bare] = await Promise.all([spawnService(dir), spawnBare(bareDir)]);
  try {
    const prefix = await openWorkspace(service.url);
    // The write twins' work: the appends the engine makes for a create and each advance (recorded in this
    // process, on the same adapter), and the bytes the doors answer them (captured from the service).
    const templates = await recordWrites(CREATE_BODY, ADVANCE_BODY);
    const answers = await captureAnswers(service.url, prefix);
    const loaded = (await postJson<{ eventsPerCreate: number; eventsPerAdvance: number[]; appendsPerAdvance: number[]; answerRows: number }>(`${bare.url}/twin/templates`, { templates, answers }, 'PUT'));
    const recorded = { ...loaded, late: templates.late, streamsPerCreate: templates.create.reduce((n, a) => n + ('writes' in a ? a.writes.length : 0), 0) };
    const twinReset = (events: number, keep: number) => postJson<{ events: number; matters: number; pool: string[]; seconds: number }>(`${bare.url}/twin/reset`, { events, keep });

    const pool: string[] = [];
    const createDoor = (title: string, s: number, onResponse?: Load['onResponse']) =>
      drive({ title, url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, duration: s, onResponse });
    const createTwin = (title: string, s: number) => drive({ title, url: bare.url, server: bare, method: 'POST', path: () => '/twin/matters', body: () => CREATE_BODY, duration: s });
    const createEcho = (s: number) => drive({ title: 'echo: POST /echo/matters', url: bare.url, server: bare, method: 'POST', path: () => '/echo/matters', body: () => CREATE_BODY, duration: s });

    // Warm every process and path (JIT, SQLite page cache) before anything is measured.
    await createDoor('warm-up', 2);
    await createEcho(2);
    await twinReset(0, 0);
    await createTwin('warm-up (twin)', 2);

    // Create: the twin's journal filled to the service's size, then the door's run and the twin's.
    const createService = journalSize(dir);
    const createFill = await twinReset(createService.events, 0);
    const createTwinBytes = journalBytes(twinDir(bareDir));
    const createDoorRun = await createDoor('POST /matters (create + Asset + ladder)', seconds, collectMatterIds(pool));
    const afterCreate = journalSize(dir);
    const create: Pair = { door: createDoorRun, bare: await createTwin('twin: POST /twin/matters (the same appends, no engine)', seconds) };
    const echoCreate = await createEcho(seconds);

    // The most recently minted Matters, fewer than the supervisor keeps resident: cycling through
    // more than it keeps would make every touch a rehydration (the worst case of any LRU cache).
    pool.splice(0, Math.max(0, pool.length - POOL_MAX));
    // Advance: the twin's journal emptied and filled again to the service's size; its pool, the last Matters of the fill.
    const advanceService = journalSize(dir);
    const advanceFill = await twinReset(advanceService.events, POOL_MAX);
    const advanceTwinBytes = journalBytes(twinDir(bareDir));
    const n = Math.min(pool.length, advanceFill.pool.length);
    pool.splice(0, pool.length - n);
    const twinPool = advanceFill.pool.slice(-n);
    const advanceDoor = await drive({ title: 'POST /matters/:id/advance', url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${pool[i % n]}/advance`, body: () => ADVANCE_BODY, amount: 4 * n, duration: seconds });
    const afterAdvance = journalSize(dir);
    const advance: Pair = {
      door: advanceDoor,
      // As many advances as the door's run answered, in the same round-robin order: the same mix of stage
      // commits and escalations even when the door's run was cut short by its duration.
      bare: await drive({ title: 'twin: POST /twin/matters/:id/advance (the same appends, no engine)', url: bare.url, server: bare, method: 'POST', path: (i) => `/twin/matters/${twinPool[i % n]}/advance`, body: () => ADVANCE_BODY, amount: Math.max(1, advanceDoor.ok + advanceDoor.non2xx), duration: seconds }),
    };
    const echoAdvance = await drive({ title: 'echo: POST /echo/matters/:id/advance', url: bare.url, server: bare, method: 'POST', path: (i) => `/echo/matters/${pool[i % n]}/advance`, body: () => ADVANCE_BODY, duration: seconds });
    const perAnswer = (before: { events: number }, after: { events: number }, f: Figures) => (after.events - before.events) / Math.max(1, f.ok);
    const sizes = {
      create: { service: createService, twin: { events: createFill.events, bytes: createTwinBytes, fillSeconds: createFill.seconds }, doorEventsPerAnswer: perAnswer(createService, afterCreate, createDoorRun), twinEventsPerAnswer: recorded.eventsPerCreate },
      advance: { service: advanceService, twin: { events: advanceFill.events, bytes: advanceTwinBytes, fillSeconds: advanceFill.seconds }, doorEventsPerAnswer: perAnswer(advanceService, afterAdvance, advanceDoor), twinEventsPerAnswer: recorded.eventsPerAdvance.reduce((a, b) => a + b, 0) / recorded.eventsPerAdvance.length },
    };
    // Each read door, then right after it a bare route sending the very bytes the door answered (captured and
    // stored in the bare process first): the ratio is the engine's and the serializer's share, apart from the
    // bytes' own cost. Back to back, so what the shared machine does between two runs moves both alike.
    const sameBytes = async (title: string, path: (i: number) => string, name: string, sample: string): Promise<Pair> => {
      const answer = await (await fetch(`${service.url}${sample}`)).text();
      await fetch(`${bare.url}/echo/answers/${name}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: answer });
      const door = await drive({ title, url: service.url, server: service, method: 'GET', path, duration: seconds });
      return { door, bare: await drive({ title: `twin: GET /echo/answers/${name} (the same ${(answer.length / 1024).toFixed(1)} KiB)`, url: bare.url, server: bare, method: 'GET', path: () => `/echo/answers/${name}`, duration: seconds }) };
    };
    const matterPair = await sameBytes('GET /matters/:id', (i) => `${prefix}/matters/${pool[(i * 7919) % n]}`, 'matter', `${prefix}/matters/${pool[0]}`);
    const get: Pair = {
      door: matterPair.door,
      bare: await drive({ title: 'GET /echo/matters/:id', url: bare.url, server: bare, method: 'GET', path: (i) => `/echo/matters/${pool[(i * 7919) % n]}`, duration: seconds }),
    };
    // The same reads, each sent with the ETag its Matter answered: the service finds the answer's bytes kept for the Matter's versions (`src/http/answer-bytes.ts`), and sends a 304 with no body from their kept tag.
    const etags: string[] = [];
    for (const id of pool.slice(0, n)) etags.push((await fetch(`${service.url}${prefix}/matters/${id}`)).headers.get('etag') ?? '');
    const notModified: Pair = {
      door: await drive({ title: 'GET /matters/:id with If-None-Match (304)', url: service.url, server: service, method: 'GET', path: (i) => `${prefix}/matters/${pool[(i * 7919) % n]}`, headers: (i) => ({ 'if-none-match': etags[(i * 7919) % n] }), alsoOk: [304], duration: seconds }),
      bare: get.door,
    };
    // The list doors and the tail: a page of 100 Matters, a page of 100 events from a cursor anywhere
    // in the workspace's tail, and the workspace's first page of Assets (100).
    const latestSeq = ((await (await fetch(`${service.url}${prefix}/events?limit=1`)).json()) as { latestSeq: number }).latestSeq;
    const mattersPage = await sameBytes('GET /matters?limit=100', () => `${prefix}/matters?limit=100`, 'matters-page', `${prefix}/matters?limit=100`);
    const eventsPage = await sameBytes('GET /events?after=<cursor>&limit=100', (i) => `${prefix}/events?after=${(i * 7919) % Math.max(1, latestSeq - 100)}&limit=100`, 'events-page', `${prefix}/events?after=${Math.floor(latestSeq / 2)}&limit=100`);
    const assetsPage = await sameBytes('GET /assets', () => `${prefix}/assets`, 'assets-page', `${prefix}/assets`);
    const twins = [matterPair, mattersPage, eventsPage, assetsPage];
    const lists = { matters: mattersPage.door, events: eventsPage.door, assets: assetsPage.door };
    // Under a fresh Idempotency-Key per request, each beside the plain door measured right after it.
    const keyedPool: string[] = [];
    const keyOf = (run: string) => (i: number) => ({ 'idempotency-key': `bench-${run}-${i}` });
    // The keyed path warmed up first, as every other path was (its first requests turn on the request context and compile its code): a create and an advance under keys.
    const warmPool: string[] = [];
    await drive({ title: 'warm-up: POST /matters under Idempotency-Key', url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, headers: keyOf('warm-create'), duration: 2, onResponse: collectMatterIds(warmPool) });
    await drive({ title: 'warm-up: POST /matters/:id/advance under Idempotency-Key', url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${warmPool[i % warmPool.length]}/advance`, body: () => ADVANCE_BODY, headers: keyOf('warm-advance'), amount: warmPool.length, duration: 2 });
    const keyedCreate = await drive({ title: 'POST /matters under Idempotency-Key', url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, headers: keyOf('create'), duration: seconds, onResponse: collectMatterIds(keyedPool) });
    const plainCreate = await createDoor('POST /matters (plain, after)', seconds, collectMatterIds(keyedPool));
    keyedPool.splice(0, Math.max(0, keyedPool.length - POOL_MAX));
    // The same work for both runs: each takes its own half of the pool (alternate Matters, made by both create runs) intake -> prepare, one advance a Matter.
    const halves = [keyedPool.filter((_, i) => i % 2 === 0), keyedPool.filter((_, i) => i % 2 === 1)];
    const advanceOf = (title: string, half: string[], headers?: (i: number) => Record<string, string>) =>
      drive({ title, url: service.url, server: service, method: 'POST', path: (i) => `${prefix}/matters/${half[i % half.length]}/advance`, body: () => ADVANCE_BODY, headers, amount: half.length, duration: seconds });
    const keyedAdvance = await advanceOf('POST /matters/:id/advance under Idempotency-Key', halves[0], keyOf('advance'));
    const plainAdvance = await advanceOf('POST /matters/:id/advance (plain, after)', halves[1]);
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
    return { create, advance, sizes, echo: { create: echoCreate, advance: echoAdvance }, get, notModified, lists, sameBytes: twins, keyed: { create: { door: keyedCreate, bare: plainCreate }, advance: { door: keyedAdvance, bare: plainAdvance } }, deadEndpoint: { door: deadAdvance, bare: advance.door }, pool: n, recorded };
  } finally {
    await Promise.all([service.stop(), bare.stop()]);
    removeDir(dir);
    removeDir(bareDir);
  }
}

const kib = (bytes: number) => `${num(bytes / 1024)} KiB`;

/** The issue-37 target lines of a write door against its same-work twin. */
function writeTargets(name: string, pair: Pair, share: number): string[] {
  const ratio = pair.door.rps / pair.bare.rps;
  const p99 = pair.door.p99 / pair.bare.p99;
  return [
    `target ${name} >= ${pct(share)} of its same-work twin: ${pct(ratio)} -> ${verdict(ratio >= share)}`,
    `target ${name} p99 <= 1.5 x the twin's p99 at 50 connections: ${ms(pair.door.p99)} against ${ms(pair.bare.p99)} (${p99.toFixed(2)} x) -> ${verdict(p99 <= 1.5)}`,
  ];
}

export async function bench(): Promise<string[]> {
  const f = await measureMatters();
  const r = f.recorded;
  const sizeLine = (name: string, s: WriteSizes) =>
    `${name}: the service's journal held ${num(s.service.events)} events (${kib(s.service.bytes)}) before the door's run; the twin's was filled to ${num(s.twin.events)} events (${kib(s.twin.bytes)}) in ${s.twin.fillSeconds.toFixed(1)} s. Events per answer: the door's run ${s.doorEventsPerAnswer.toFixed(2)}, the twin ${s.twinEventsPerAnswer.toFixed(2)}`;
  const [getTwin, ...pageTwins] = f.sameBytes;
  const getRatio = getTwin.door.rps / getTwin.bare.rps;
  return [
    'Writes beside their same-work twins (issue 37): the bare route makes, without the engine, the very appends the engine makes for the door',
    `(recorded from the engine in this run: a create is ${r.eventsPerCreate} events on ${r.streamsPerCreate} streams in one append; the advances ${r.eventsPerAdvance.join(', ')} events in ${r.appendsPerAdvance.join(', ')} appends; ${r.answerRows} answer rows kept after the create and the advances, replayed unwaited as the door keeps them${r.late ? `; ${r.late} appends made after a call answered, not replayed` : ''}), under fresh ids, through the same journal adapter (SQLite, WAL, synchronous=FULL, its group commit and writer thread), each append one durable transaction, and answers the door's bytes`,
    ...pairTable([f.create, f.advance], 'vs twin', ''),
    sizeLine('create', f.sizes.create),
    sizeLine('advance', f.sizes.advance),
    `advance pool: the last ${num(f.pool)} Matters each side minted, cycled through round-robin, four advances each (3 stage commits + 1 escalation); the door's run ends when its pool is used up (or at BENCH_SECONDS), the twin's after as many advances as the door answered`,
    ...writeTargets('create', f.create, 0.6),
    ...writeTargets('advance', f.advance, 0.8),
    '',
    'The echo routes (the door\'s request schema validated and echoed, no journal): the HTTP plumbing\'s share',
    ...pairTable([{ door: f.create.door, bare: f.echo.create }, { door: f.advance.door, bare: f.echo.advance }], 'vs echo', ''),
    '',
    'Reads beside a bare route sending the very bytes each door answered (captured once, stored, sent as they are: no engine, no serializer)',
    ...pairTable(f.sameBytes, 'vs twin', ''),
    `target GET of a resident Matter >= 50% of its same-bytes twin: ${pct(getRatio)} -> ${verdict(getRatio >= 0.5)}`,
    ...pageTwins.map((p) => `target ${p.door.title} >= 30% of its same-bytes twin: ${pct(p.door.rps / p.bare.rps)} -> ${verdict(p.door.rps / p.bare.rps >= 0.3)}`),
    '',
    'A conditional read: the same GETs sent with the ETag each Matter answered, answered 304 with no body from the tag kept with the answer bytes (nothing built or hashed), beside the 200 run',
    ...pairTable([f.notModified], 'vs 200', ''),
    '',
    'For comparison, the reads against the bare GET (GET /echo/matters/:id: a few dozen bytes)',
    ...yardstickTable([f.get.door, f.lists.matters, f.lists.events, f.lists.assets], f.get.bare, 'vs bare GET'),
    '',
    'Idempotency-Key: each door under a fresh key per request, beside the same door without one, run right after it (the "vs plain" column compares the two)',
    ...pairTable([f.keyed.create, f.keyed.advance], 'vs plain', ''),
    '',
    'A webhook endpoint that never answers, registered for every event of the workspace: the advance run again on fresh Matters, beside the first advance run (no endpoint)',
    ...pairTable([f.deadEndpoint], 'vs first', ''),
    ...statusNotes([f.create.door, f.create.bare, f.advance.door, f.advance.bare, f.echo.create, f.echo.advance, f.get.door, f.notModified.door, ...Object.values(f.lists), ...f.sameBytes.map((p) => p.bare), f.keyed.create.door, f.keyed.create.bare, f.keyed.advance.door, f.keyed.advance.bare, f.deadEndpoint.door]),
  ];
}
