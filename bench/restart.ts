/**
 * Restart over a large journal: 1,000,000 events of realistic Matter streams
 * are written straight through `SqliteJournal.append` (in large batches, from
 * this process), then the service is spawned on that data directory and timed
 * from spawn to the first successful `GET /matters/{id}` of an old Matter:
 * twice after a clean stop, then once after a SIGKILL (what the crash cycles
 * restart from), against the target of 1 s. The tests that restart the
 * service (test/crash-cycles.test.ts, test/journal/postgres.restart.test.ts)
 * assert only that a restart does not grow with the journal; the target is
 * this row's.
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
import { matterView } from '../src/domain/matter-view.ts';
import { MemoryJournal } from '../src/journal/memory.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import { columnsOf } from '../src/journal/rows.ts';
import type { JournalEvent, NewEvent } from '../src/journal/store.ts';
import { spawnService, removeDir, tempDataDir, type Child } from './lib/service.ts';
import { ms, num, table, verdict } from './lib/table.ts';
import { fill, IdPatterns, type Pattern } from './lib/id-pattern.ts';

/** One commit of a template Matter: the streams it wrote, in order (`grain` set when a stream joined another grain than the Matter's: the outbox's delivery records). */
export type Commit = Array<{ stream: string; grain?: string; events: NewEvent[] }>;
export interface Template {
  matterId: string;
  commits: Commit[];
  events: number;
  /** The Matter as `GET /matters/{id}` shows it at the end of its commits (its copies read back the same, ids aside). */
  view: { status: string; stage: string; version: number };
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
      else commit.push({ stream: e.stream, ...(e.grain !== TEMPLATE_GRAIN ? { grain: e.grain } : {}), events: [stripPositions(e)] });
    }
    commits.push(commit);
  });
  const matter = await services.matters.create(TEMPLATE_GRAIN, { matterType: 'patent_provisional', listFeeUsd: 199, clientState: 'CA', asset: { title: 'A widget' }, ...(client ? { client: { name: client } } : {}) });
  for (let i = 0; i < advances; i++) await services.matters.advance(TEMPLATE_GRAIN, matter.id, { note: 'advanced by the restart benchmark' });
  const { status, stage, version } = matterView(await services.matters.get(TEMPLATE_GRAIN, matter.id));
  return { matterId: matter.id, commits, events: commits.flat().reduce((n, w) => n + w.events.length, 0), view: { status, stage, version } };
}

/** The three template Matters: one walked to `fulfilled`, one waiting on a Signer, one stopped by a Declination. */
export async function templates(): Promise<Template[]> {
  return [await template(FIXTURE.fulfillingClient, 5), await template(undefined, 4), await template(FIXTURE.decliningClient, 4)];
}

const ID = /\b(?:mt|as|gig|cl|doc|ld|lad|en)_[0-9a-z]{20,40}\b/g;

/** A text of a template with the ids it minted cut out: literal pieces, and between them the index of the id that goes there. */

/** One event of a template as its row's columns (`journal/rows.ts`), each text a pattern. */
interface EventPattern {
  at: Pattern;
  kind: Pattern;
  actor: Pattern | null;
  body: Pattern;
}

/** A template compiled once, so each copy is string joins (a million events' worth of JSON is too slow to re-serialize). */
interface Compiled {
  template: Template;
  /** The prefix of each id the template minted, by index. */
  prefixes: string[];
  matter: number;
  commits: Array<Array<{ stream: Pattern; grain?: string; events: EventPattern[] }>>;
}

function compile(t: Template): Compiled {
  const { pattern, prefixes } = new IdPatterns(ID);
  const commits = t.commits.map((commit) =>
    commit.map((w) => ({
      stream: pattern(w.stream),
      ...(w.grain !== undefined ? { grain: w.grain } : {}),
      events: w.events.map((e) => {
        const c = columnsOf(e);
        return { at: pattern(c.at), kind: pattern(c.kind), actor: c.actor === null ? null : pattern(c.actor), body: pattern(c.body) };
      }),
    })),
  );
  const matter = pattern(t.matterId);
  return { template: t, prefixes, matter: matter[1] as number, commits };
}

/** A new event's row columns (`journal/rows.ts`: `columnsOf`) as a copy writes them. */
export type EventColumns = ReturnType<typeof columnsOf>;

/** The event a row's columns hold, as a writer would hand it to `append` (the inverse of `columnsOf`). */
export const newEventOf = (c: EventColumns): NewEvent => ({ kind: c.kind, at: c.at, ...(c.actor === null ? {} : { actor: c.actor }), ...(JSON.parse(c.body) as Omit<NewEvent, 'kind' | 'at' | 'actor'>) });

/** One stream's events of one commit of a copy: a `StreamWrite` whose events are still row columns. */
export interface CopyWrite {
  stream: string;
  grain?: string;
  expectedVersion: number;
  events: EventColumns[];
}

/** One batch of Matter copies, their commits interleaved as one append's writes (every stream new: expected versions from 0). */
export interface MatterBatch {
  /** The copies' Matter ids and the template each copies, in the order they were made. */
  matters: Array<{ id: string; template: Template }>;
  writes: CopyWrite[];
  events: number;
}

/**
 * Copies of the templates under fresh ids (every id a template minted is
 * replaced consistently), taken in turn, `batchMatters` to a batch, until at
 * least `target` events are written. Within a batch the commits are
 * interleaved the way concurrent traffic interleaves them: the first commit
 * of every Matter, then the second, ...
 */
export function* matterBatches(from: Template[], target: number, batchMatters = 2000): Generator<MatterBatch> {
  const compiled = from.map(compile);
  let events = 0;
  let made = 0;
  while (events < target) {
    const batch = Array.from({ length: batchMatters }, (_, i) => {
      const c = compiled[(made + i) % compiled.length];
      return { c, ids: c.prefixes.map((prefix) => newId(prefix as never)) };
    });
    made += batch.length;
    const writes: CopyWrite[] = [];
    let batchEvents = 0;
    const rounds = Math.max(...compiled.map((c) => c.commits.length));
    // Every stream of a copy is new: its versions count from 0 in this batch.
    const versions = new Map<string, number>();
    for (let r = 0; r < rounds; r++) {
      for (const { c, ids } of batch) {
        for (const w of c.commits[r] ?? []) {
          const stream = fill(w.stream, ids);
          const expectedVersion = versions.get(stream) ?? 0;
          const events = w.events.map((e) => ({ at: fill(e.at, ids), kind: fill(e.kind, ids), actor: e.actor === null ? null : fill(e.actor, ids), body: fill(e.body, ids) }));
          writes.push({ stream, ...(w.grain !== undefined ? { grain: w.grain } : {}), expectedVersion, events });
          versions.set(stream, expectedVersion + events.length);
          batchEvents += events.length;
        }
      }
    }
    events += batchEvents;
    yield { matters: batch.map(({ c, ids }) => ({ id: ids[c.matter], template: c.template })), writes, events: batchEvents };
  }
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
  const dir = tempDataDir('legalwork-restart-');
  const journal = new SqliteJournal(dir);
  let events = 0;
  let matters = 0;
  let oldest = '';
  for (const batch of matterBatches(await templates(), target, batchMatters)) {
    oldest ||= batch.matters[0].id;
    await journal.append(BENCH_GRAIN, batch.writes.map((w) => ({ ...w, events: w.events.map(newEventOf) })));
    events += batch.events;
    matters += batch.matters.length;
  }
  await journal.close();
  return { dir, events, matters, oldest, seconds: (performance.now() - started) / 1000 };
}

export interface RestartFigures {
  journal: BuiltJournal;
  runs: Array<{ toListening: number; toFirstAnswer: number; listeningToAnswer: number; status: number; after: 'a clean stop' | 'a SIGKILL' }>;
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
    const runs: RestartFigures['runs'] = [];
    // Three times, each restart answering from the journal alone: after the build's clean close, after a SIGTERM, and
    // after a SIGKILL of the second (an unclean end, which the crash cycles restart from).
    let after: RestartFigures['runs'][number]['after'] = 'a clean stop';
    for (let i = 0; i < 3; i++) {
      const child = await spawnService(journal.dir);
      runs.push({ ...(await firstAnswer(child, `/matters/${journal.oldest}`)), after });
      if (i === 1) {
        await child.kill();
        after = 'a SIGKILL';
      } else await child.stop();
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
      f.runs.map((r, i) => [`#${i + 1} GET /matters/<oldest>, after ${r.after}`, ms(r.toListening), ms(r.listeningToAnswer), ms(r.toFirstAnswer), String(r.status)]),
    ),
    `for comparison, spawn -> listening on an empty journal: ${ms(f.emptyToListening)}`,
    `target first answer <= 1 s over 1,000,000 events: worst ${ms(worst)} -> ${verdict(worst <= 1000 && f.journal.events >= 1_000_000 && f.runs.every((r) => r.status === 200))}`,
  ];
}
