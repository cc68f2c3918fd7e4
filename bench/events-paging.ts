/**
 * `GET /events` paging over a 1,000,000-event tail.
 *
 * The tail is written straight into a `SqliteJournal` in big batches (not over
 * HTTP: building it is not what is measured), each event with the tail entry
 * the service keeps beside it (`src/http/tail-entries.ts`, made by an app's
 * own serializer, as the service's appends make it), with the mix a busy grain has:
 * Matter and ladder facts, 5% carrying a named actor (the `time` feed) and 1%
 * ladder reminders (the `reminders` feed). Then the service is spawned on that
 * data directory and paged:
 * - one reader walking the whole timeline, 500 events a page, start to end;
 * - 20 connections reading random 500-event pages anywhere in the tail;
 * - 20 connections reading the sparse `reminders` feed from random cursors
 *   (each page scans ~10,000 journal rows to find 100 reminders);
 * - the last page of the tail, to show a cursor costs the same at any depth.
 *
 * Runs inside `npm run bench` (`bench()`), or alone: `node --import tsx bench/events-paging.ts`.
 * BENCH_EVENTS (default 1,000,000) and BENCH_SECONDS (default 10) tune it.
 */
import { fileURLToPath } from 'node:url';
import { ownGrainOf } from '../src/engine/grains.ts';
import { createApp } from '../src/compose.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { NewEvent, StreamWrite } from '../src/journal/store.ts';
import { drive } from './lib/load.ts';
import { removeDir, spawnService, tempDataDir } from './lib/service.ts';
import { ms, num, table } from './lib/table.ts';
import { quantile } from './lib/stats.ts';

const PAGE = 500;
const STREAM_EVENTS = 10;
const BATCH = 20_000;

/** The i-th event of the synthetic tail (1-based), shaped like the service's own facts. */
function eventAt(i: number, subject: string, at: string): NewEvent {
  if (i % 100 === 0) {
    return { kind: 'reminder.ack_due', at, subject, summary: `Acknowledgment due today: 5 days remain until the maintenance_fee_window deadline of Asset ${subject}`, by: 'gate', deliverTo: 'platform', data: { rung: 'ack_due', atDaysRemaining: 5, occurrence: 1, obligation: 'maintenance_fee_window', alarm: 'nominal' } };
  }
  if (i % 20 === 0) {
    return { kind: 'ladder.acked', at, subject, summary: `Dana Reviewer acknowledged the deadline at 6 days remaining`, by: 'human', actor: 'Dana Reviewer', data: { atDaysRemaining: 6, occurrence: 1 } };
  }
  return { kind: 'stage', at, subject, summary: 'advanced from intake', verb: 'prepare', by: 'gate', data: { proposedBy: 'agent', note: 'drafted the claims set and the abstract' }, cause: { type: 'ADVANCE', by: 'agent' } };
}

/** Writes `total` events into the top-level records of one API key, in a fresh data directory; answers the key that reads them. */
async function buildTail(total: number): Promise<{ dir: string; seconds: number; key: string }> {
  const started = performance.now();
  const dir = tempDataDir('legalwork-bench-events-');
  const journal = new SqliteJournal(dir);
  const base = Date.parse('2025-01-01T00:00:00.000Z');
  // The top level lists a key's own records only: the tail is the bench key's. The app's routes make each event's tail entry, as the service's appends do.
  const app = await createApp({ journal });
  const { key, record } = await app.services.keys.issue({ email: 'bench@legalwork.test' });
  const entryOf = app.services.supervisor.tailEntry;
  const grain = ownGrainOf(record.id);
  try {
    for (let written = 0; written < total; written += BATCH) {
      const writes: StreamWrite[] = [];
      const n = Math.min(BATCH, total - written);
      for (let k = 0; k < n; k += STREAM_EVENTS) {
        const stream = `bench-stream-${written + k}`;
        const events: NewEvent[] = [];
        for (let j = 0; j < Math.min(STREAM_EVENTS, n - k); j++) {
          const i = written + k + j + 1;
          const event = eventAt(i, `as_bench${Math.floor(i / STREAM_EVENTS)}`, new Date(base + i).toISOString());
          event.entry = entryOf?.(event);
          events.push(event);
        }
        writes.push({ stream, expectedVersion: 0, events });
      }
      await journal.append(grain, writes);
    }
  } finally {
    await app.close();
    await journal.close();
  }
  return { dir, seconds: (performance.now() - started) / 1000, key };
}

/** The median time of 50 fetches of `url` in a row, each body read in full. */
async function medianOf50(url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await (await fetch(url, { headers })).arrayBuffer();
    times.push(performance.now() - t);
  }
  return quantile(times, 0.5);
}

export async function bench(): Promise<string[]> {
  const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const built = await buildTail(total);
  const service = await spawnService(built.dir);
  const headers = { authorization: `Bearer ${built.key}` };
  const lines: string[] = [`tail: ${num(total)} events in one API key's top-level records, written in ${built.seconds.toFixed(1)} s (${num(total / built.seconds)} events/s, batches of ${num(BATCH)})`, ''];
  try {
    // One reader, start to end.
    const walk: number[] = [];
    let after = 0;
    let seen = 0;
    const walkStarted = performance.now();
    for (;;) {
      const t = performance.now();
      const res = await fetch(`${service.url}/events?after=${after}&limit=${PAGE}`, { headers });
      const body = (await res.json()) as { type: string; results: Array<{ seq: number }>; nextAfter: number };
      walk.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`GET /events answered ${res.status}`);
      if (body.type === 'EMPTY') break;
      for (const e of body.results) if (e.seq !== ++seen) throw new Error(`the walk expected seq ${seen}, got ${e.seq}`);
      after = body.nextAfter;
    }
    const walkSeconds = (performance.now() - walkStarted) / 1000;
    if (seen !== total) throw new Error(`the walk saw ${seen} events of ${total}`);

    const random = await drive({ title: `random pages of ${PAGE}`, url: service.url, method: 'GET', path: () => `/events?after=${Math.floor(Math.random() * (total - PAGE))}&limit=${PAGE}`, connections: 20, duration: seconds, server: service, headers });
    const sparse = await drive({ title: 'reminders feed, pages of 100', url: service.url, method: 'GET', path: () => `/events?feed=reminders&after=${Math.floor(Math.random() * (total - 20_000))}&limit=100`, connections: 20, duration: Math.max(3, Math.round(seconds / 2)), server: service, headers });
    const deep = await medianOf50(`${service.url}/events?after=${total - PAGE}&limit=${PAGE}`, headers);
    const shallow = await medianOf50(`${service.url}/events?after=0&limit=${PAGE}`, headers);

    lines.push(
      ...table(
        ['read', 'pages/s', 'events/s', 'p50', 'p99', 'CPU/page', 'non-2xx'],
        [
          ['one reader, whole timeline, pages of 500', num(walk.length / walkSeconds), num(total / walkSeconds), ms(quantile(walk, 0.5)), ms(quantile(walk, 0.99)), '', '0'],
          [`${random.title} (20 connections)`, num(random.rps), num(random.rps * PAGE), ms(random.p50), ms(random.p99), `${(random.cpuUs / 1000).toFixed(2)} ms`, num(random.non2xx)],
          [`${sparse.title} (20 connections)`, num(sparse.rps), num(sparse.rps * 100), ms(sparse.p50), ms(sparse.p99), `${(sparse.cpuUs / 1000).toFixed(2)} ms`, num(sparse.non2xx)],
        ],
      ),
      '',
      `page depth: the first page ${ms(shallow)}, the last page (after=${num(total - PAGE)}) ${ms(deep)} (medians of 50): a cursor is a primary-key seek, not an offset scan`,
      `the walk read every seq from 1 to ${num(total)} exactly once, in order, in ${walkSeconds.toFixed(1)} s (client-side JSON parsing included)`,
    );
  } finally {
    await service.stop();
    removeDir(built.dir);
  }
  return lines;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) for (const line of await bench()) console.log(line);
