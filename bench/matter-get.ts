/**
 * `npx tsx bench/matter-get.ts`: what a GET of a Matter (its journal) and a
 * page of the tail cost, where facts are written through the contract's
 * serializers. Two measures, one run:
 *
 * - over HTTP, the real service (`bin/legalwork.js serve`) at 50 connections:
 *   `GET /workspaces/{ws}/matters/{id}` over a pool of fulfilled Matters
 *   (each journal: matter.opened, three stages, two Gigs posted and attested,
 *   the filing's receipt, lifecycle: 9 facts), and `GET …/events?limit=100`;
 * - in this process, the serializer alone: the GET answer of one of those
 *   Matters and one tail page, each written by the serializer the service
 *   compiles for that door (`src/http/serializers.ts`), timed per call.
 *
 * Figures, not a test: run it before and after a change to the contract's
 * fact schemas (docs/contract-and-keys.md). BENCH_SECONDS (default 10),
 * BENCH_POOL (default 300 Matters).
 */
import { COMPONENTS } from '../src/schemas/components.ts';
import { EventDoors, MatterDoors } from '../src/http/schemas/responses.ts';
import { buildSerializer } from '../src/http/serializers.ts';
import { drive } from './lib/load.ts';
import { removeDir, spawnService, tempDataDir } from './lib/service.ts';
import { ms, num, table, us } from './lib/table.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const poolSize = Number(process.env.BENCH_POOL ?? 300);

async function json(url: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  const parsed = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}

/** µs per call of `write(value)`, the best of five rounds. */
function perCall(write: (value: unknown) => string, value: unknown, calls = 5_000): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t = performance.now();
    for (let i = 0; i < calls; i++) write(value);
    best = Math.min(best, ((performance.now() - t) * 1000) / calls);
  }
  return best;
}

const dir = tempDataDir();
const service = await spawnService(dir);
try {
  const ws = (await json(`${service.url}/workspaces`, 'POST')).workspace.id as string;
  const prefix = `${service.url}/workspaces/${ws}`;
  const pool: string[] = [];
  for (let i = 0; i < poolSize; i++) {
    const { matter } = await json(`${prefix}/matters`, 'POST', { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' }, asset: { title: `Bench widget ${i}` } });
    for (let step = 0; step < 5; step++) await json(`${prefix}/matters/${matter.id}/advance`, 'POST', {});
    pool.push(matter.id);
  }
  const answer = await json(`${prefix}/matters/${pool[0]}`);
  const page = await json(`${prefix}/events?limit=100`);
  const get = () => drive({ title: 'GET /matters/:id (9 facts)', url: service.url, server: service, method: 'GET', path: (i) => `/workspaces/${ws}/matters/${pool[(i * 7919) % pool.length]}`, duration: seconds });
  const tail = () => drive({ title: 'GET /events?limit=100', url: service.url, server: service, method: 'GET', path: (i) => `/workspaces/${ws}/events?after=${(i * 7919) % Math.max(1, page.latestSeq - 100)}&limit=100`, duration: seconds });
  await drive({ title: 'warm-up', url: service.url, server: service, method: 'GET', path: (i) => `/workspaces/${ws}/matters/${pool[i % pool.length]}`, duration: 3 });
  const runs = [await get(), await tail(), await get()];

  // The serializer alone, as the service compiles it for each door (its components as the shared schemas).
  const external = Object.fromEntries(COMPONENTS.map((c) => [c.$id, c]));
  const serializerOf = (schema: unknown) => buildSerializer(external as never, {})({ schema } as never) as (value: unknown) => string;
  const writeMatter = serializerOf(MatterDoors.get.response[200]);
  const writeTail = serializerOf(EventDoors.tail.response[200]);
  const same = (write: (v: unknown) => string, value: unknown) => JSON.stringify(JSON.parse(write(value))) === JSON.stringify(value);

  console.log(`GET of a Matter and a tail page, ${seconds} s each, a pool of ${pool.length} fulfilled Matters (${answer.journal.length} facts each), node ${process.version}`);
  console.log(table(['door (50 connections)', 'req/s (2xx)', 'p50', 'p99', 'CPU/req', 'loop/req', 'non-2xx'], runs.map((f) => [f.title, num(f.rps), ms(f.p50), ms(f.p99), us(f.cpuUs), us(f.loopUs), num(f.non2xx)])).join('\n'));
  console.log('');
  console.log(table(['serializer alone (this process)', 'µs/call', 'bytes', 'same JSON as the answer'], [
    [`GET /matters/:id answer (${answer.journal.length} facts)`, perCall(writeMatter, answer).toFixed(2), num(writeMatter(answer).length), String(same(writeMatter, answer))],
    [`GET /events page (${page.results.length} facts)`, perCall(writeTail, page, 1_000).toFixed(2), num(writeTail(page).length), String(same(writeTail, page))],
    [`JSON.stringify of the same Matter answer`, perCall(JSON.stringify, answer).toFixed(2), num(JSON.stringify(answer).length), ''],
  ]).join('\n'));
} finally {
  await service.stop();
  removeDir(dir);
}
