/**
 * Restart over a large journal: 1,000,000 events of realistic Matter streams
 * are written straight through `SqliteJournal.append` (in large batches, from
 * this process), then the service is spawned on that data directory and timed
 * from spawn to the first successful `GET /matters/{id}` of an old Matter.
 *
 * Realistic streams: template Matters are run through the real engine (on an
 * in-memory journal, with every mint extension the app installs) and each
 * commit they made is recorded; the journal is then filled with copies of
 * those commits under fresh ids, interleaved across Matters the way
 * concurrent traffic interleaves them. The mix: a Matter walked to
 * `fulfilled` by the fulfilling fixture client, one left waiting on a Signer,
 * one stopped by a Declination.
 */
import { newId } from '../src/domain/ids.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { createServices } from '../src/compose.ts';
import { ownGrainOf } from '../src/engine/grains.ts';
import { MemoryJournal } from '../src/journal/memory.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalEvent, NewEvent, StreamWrite } from '../src/journal/store.ts';
import { spawnService, removeDir, tempDataDir, type Child } from './lib/service.ts';
import { ms, num, table, verdict } from './lib/table.ts';

/** One commit of a template Matter: the streams it wrote, in order. */
type Commit = Array<{ stream: string; events: NewEvent[] }>;
interface Template {
  matterId: string;
  commits: Commit[];
  events: number;
}

const stripPositions = ({ grain: _g, seq: _s, stream: _st, version: _v, ...event }: JournalEvent): NewEvent => event;

/** The templates run in a sandbox grain, where the fixture Clients answer at once (fulfilled and declined Matters)... */
const TEMPLATE_GRAIN = 'ws_restartbench';
/** ...and their copies are journaled as one API key's top-level records, which a read by id reaches keylessly. */
const BENCH_GRAIN = ownGrainOf('key_restartbench');

/** Runs one Matter through the real engine and records its commits. */
async function template(client: string | undefined, advances: number): Promise<Template> {
  const services = createServices({ journal: new MemoryJournal() });
  const commits: Commit[] = [];
  services.bus.on('committed', (written) => {
    const commit: Commit = [];
    for (const e of written) {
      const last = commit[commit.length - 1];
      if (last && last.stream === e.stream) last.events.push(stripPositions(e));
      else commit.push({ stream: e.stream, events: [stripPositions(e)] });
    }
    commits.push(commit);
  });
  const matter = await services.matters.create(TEMPLATE_GRAIN, { matterType: 'patent_provisional', listFeeUsd: 199, clientState: 'CA', asset: { title: 'A widget' }, ...(client ? { client: { name: client } } : {}) });
  for (let i = 0; i < advances; i++) await services.matters.advance(TEMPLATE_GRAIN, matter.id, { note: 'advanced by the restart benchmark' });
  return { matterId: matter.id, commits, events: commits.flat().reduce((n, w) => n + w.events.length, 0) };
}

const ID = /\b(?:mt|as|gig|cl|doc|ld|lad|en)_[0-9a-z]{20,40}\b/g;

/** A copy of a template under fresh ids (every id it minted is replaced consistently). */
function copy(t: Template): { matterId: string; commits: Commit[] } {
  const fresh = new Map<string, string>();
  const text = JSON.stringify(t).replace(ID, (id) => {
    let next = fresh.get(id);
    if (!next) {
      next = newId(id.slice(0, id.indexOf('_')) as never);
      fresh.set(id, next);
    }
    return next;
  });
  return JSON.parse(text) as { matterId: string; commits: Commit[] };
}

export interface BuiltJournal {
  dir: string;
  events: number;
  matters: number;
  oldest: string;
  seconds: number;
}

/** Writes at least `target` events of Matter streams into a fresh data directory. */
export async function buildJournal(target: number, batchMatters = 2000): Promise<BuiltJournal> {
  const started = performance.now();
  const templates = [await template(FIXTURE.fulfillingClient, 5), await template(undefined, 4), await template(FIXTURE.decliningClient, 4)];
  const dir = tempDataDir('legalwork-restart-');
  const journal = new SqliteJournal(dir);
  let events = 0;
  let matters = 0;
  let oldest = '';
  while (events < target) {
    const batch = Array.from({ length: batchMatters }, (_, i) => copy(templates[(matters + i) % templates.length]));
    if (!oldest) oldest = batch[0].matterId;
    // Interleave: the first commit of every Matter in the batch, then the second, ...
    const writes: StreamWrite[] = [];
    const versions = new Map<string, number>();
    const rounds = Math.max(...batch.map((m) => m.commits.length));
    for (let r = 0; r < rounds; r++) {
      for (const m of batch) {
        for (const w of m.commits[r] ?? []) {
          const expectedVersion = versions.get(w.stream) ?? 0;
          writes.push({ stream: w.stream, expectedVersion, events: w.events });
          versions.set(w.stream, expectedVersion + w.events.length);
          events += w.events.length;
        }
      }
    }
    await journal.append(BENCH_GRAIN, writes);
    matters += batch.length;
  }
  await journal.close();
  return { dir, events, matters, oldest, seconds: (performance.now() - started) / 1000 };
}

export interface RestartFigures {
  journal: BuiltJournal;
  runs: Array<{ toListening: number; toFirstAnswer: number; listeningToAnswer: number; status: number }>;
  emptyToListening: number;
}

async function firstAnswer(child: Child, path: string) {
  const res = await fetch(`${child.url}${path}`);
  await res.arrayBuffer();
  const answeredAt = performance.now();
  return { status: res.status, toListening: child.listeningAt - child.spawnedAt, toFirstAnswer: answeredAt - child.spawnedAt, listeningToAnswer: answeredAt - child.listeningAt };
}

export async function measureRestart(target = Number(process.env.BENCH_EVENTS ?? 1_000_000)): Promise<RestartFigures> {
  const journal = await buildJournal(target);
  const empty = tempDataDir();
  try {
    // The same start-up on an empty journal: what node, tsx and the modules cost alone.
    const blank = await spawnService(empty);
    const emptyToListening = blank.listeningAt - blank.spawnedAt;
    await blank.stop();
    const runs = [];
    // Twice: each restart must answer from the journal alone.
    for (let i = 0; i < 2; i++) {
      const child = await spawnService(journal.dir);
      runs.push(await firstAnswer(child, `/matters/${journal.oldest}`));
      await child.stop();
    }
    return { journal, runs, emptyToListening };
  } finally {
    removeDir(journal.dir);
    removeDir(empty);
  }
}

export async function bench(): Promise<string[]> {
  const f = await measureRestart();
  const worst = Math.max(...f.runs.map((r) => r.toFirstAnswer));
  return [
    `Restart: a journal of ${num(f.journal.events)} events (${num(f.journal.matters)} Matters, their Assets and ladders) written in ${f.journal.seconds.toFixed(1)} s, then the service spawned on it`,
    ...table(
      ['restart', 'spawn -> listening', 'listening -> first answer', 'spawn -> first answer', 'status'],
      f.runs.map((r, i) => [`#${i + 1} GET /matters/<oldest>`, ms(r.toListening), ms(r.listeningToAnswer), ms(r.toFirstAnswer), String(r.status)]),
    ),
    `for comparison, spawn -> listening on an empty journal: ${ms(f.emptyToListening)}`,
    `target first answer <= 1 s over 1,000,000 events: worst ${ms(worst)} -> ${verdict(worst <= 1000 && f.journal.events >= 1_000_000 && f.runs.every((r) => r.status === 200))}`,
  ];
}
