/**
 * `npm run journals:record [-- <machine>...] [--force]`: records, once per
 * machine version, the journals that `test/journals.replay.test.ts` folds
 * through today's machines (docs/versioning.md).
 *
 * Every path the model tests replay (test/model: `@xstate/graph`'s shortest
 * and simple paths of each variant, through the same adapters) is driven
 * through the real service, an in-process app on a SQLite journal, with the
 * machine as the oracle at every step; each path's entity stream is then read
 * back from the journal exactly as written, and the state the service derives
 * from it (status, stage, machine context, the Matter view; the ladder view;
 * the enrollment and roster rows) is recorded beside it. A path found in both
 * path sets is recorded once, naming both.
 *
 * Output: `test/journals/<machine>@<version>.jsonl.gz`, gzipped JSONL (read
 * it with `zcat`): a header line then one line per stream, in path order. Instants come from a fixed clock and paths
 * run one at a time, so only the ids the service mints (random by design)
 * differ between two recordings.
 *
 * A file for the current version that already exists is kept: journals are
 * re-recorded only for a new machine version (a new file beside the old),
 * never to make the replay test pass. `--force` overwrites anyway.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { AnyStateMachine, EventFromLogic } from 'xstate';
import { fixedClock } from '../src/domain/clock.ts';
import { canonicalJson } from '../src/domain/hash.ts';
import { machineTag } from '../src/engine/entity.ts';
import { ladderStreamOf } from '../src/engine/ladders.ts';
import { PACKAGE_ROOT } from '../src/paths.ts';
import { call, testApp, type TestApp } from '../test/helpers/app.ts';
import { fileNameOf, isRecorded, JOURNALS_DIR, RECORDED_MACHINES, type JournalFileHeader, type RecordedStream } from '../test/helpers/journals.ts';
import { ladderAdapter, leanLadderAdapter, type LadderHandle } from '../test/model/deadline-ladder.adapter.ts';
import { enrollmentAdapter, type EnrollmentHandle } from '../test/model/enrollment.adapter.ts';
import { matterAdapter, type MatterHandle } from '../test/model/matter.adapter.ts';
import { modelPaths, Replay, type ModelAdapter } from '../test/model/runner.ts';

/** Where the recording's instants start; each journaled event moves the clock 1 ms. */
const CLOCK_START = '2026-01-01T00:00:00.000Z';

interface Source<M extends AnyStateMachine, H> {
  name: string;
  /** The adapters of the model suite: the shortest paths', and the simple paths' (the ladder's lean event set). */
  shortest: ModelAdapter<M, H>;
  simple: ModelAdapter<M, H>;
  /** The entity stream a path drove, and what the service serves of it (to hold the recorded view to the wire). */
  stream(app: TestApp, handle: H): Promise<string>;
  served(app: TestApp, handle: H): Promise<{ what: string; body: Record<string, unknown> }>;
  /** Which part of the derived state the served body shows. */
  view: string;
}

const SOURCES: Array<Source<any, any>> = [
  {
    name: 'matter',
    shortest: matterAdapter,
    simple: matterAdapter,
    stream: async (_app, h: MatterHandle) => h.id,
    served: async (app, h: MatterHandle) => ({ what: `GET ${h.prefix}/matters/${h.id}`, body: (await call(app, 'GET', `${h.prefix}/matters/${h.id}`)).body.matter }),
    view: 'view',
  } satisfies Source<any, MatterHandle>,
  {
    name: 'deadline-ladder',
    shortest: ladderAdapter,
    simple: leanLadderAdapter,
    stream: async (_app, h: LadderHandle) => ladderStreamOf(h.assetId),
    served: async (app, h: LadderHandle) => ({ what: `GET ${h.prefix}/deadlines/${h.assetId}`, body: (await call(app, 'GET', `${h.prefix}/deadlines/${h.assetId}`)).body }),
    view: 'view',
  } satisfies Source<any, LadderHandle>,
  {
    name: 'enrollment',
    shortest: enrollmentAdapter,
    simple: enrollmentAdapter,
    stream: async (app, h: EnrollmentHandle) => (await call(app, 'GET', `${h.firm}/enrollments`)).body.results[0].enrollmentId,
    served: async (app, h: EnrollmentHandle) => ({ what: `GET ${h.firm}/enrollments`, body: (await call(app, 'GET', `${h.firm}/enrollments`)).body.results[0] }),
    view: 'row',
  } satisfies Source<any, EnrollmentHandle>,
];

const describe = (e: { type: string }) => JSON.stringify(e);

/** Records every path of one machine; returns the file's lines. */
async function record<M extends AnyStateMachine, H>(source: Source<M, H>): Promise<{ header: JournalFileHeader; streams: RecordedStream[] }> {
  const recorded = RECORDED_MACHINES[source.name];
  const app = await testApp({ clock: fixedClock(CLOCK_START), creationBound: { limit: 1_000_000 } });
  const streams: RecordedStream[] = [];
  const variants: Record<string, number> = {};
  const sets: Record<string, number> = { shortest: 0, simple: 0 };
  try {
    for (const variant of source.shortest.variants) {
      // The variant's distinct paths, shortest first, each naming the sets it is in.
      const paths = new Map<string, { events: Array<EventFromLogic<M>>; sets: string[] }>();
      for (const set of ['shortest', 'simple'] as const) {
        for (const path of modelPaths(set === 'shortest' ? source.shortest : source.simple, variant, set)) {
          const key = path.events.map(describe).join(' ');
          const entry = paths.get(key) ?? { events: path.events, sets: [] };
          entry.sets.push(set);
          paths.set(key, entry);
          sets[set]++;
        }
      }
      let n = 0;
      for (const { events, sets: inSets } of paths.values()) {
        const label = `${variant.name}/${++n}`;
        const replay = await new Replay(source.shortest, app, variant, `[record ${source.name} ${label}]`).open();
        for (const event of events) await replay.send(event);
        const id = await source.stream(app, replay.handle);
        const entity = await app.services.supervisor.load(recorded.definition as never, id);
        if (!entity) throw new Error(`${source.name} ${label}: no stream ${id}`);
        const derived = recorded.derive(entity as never);
        // The recorded view is the one the service serves.
        const served = await source.served(app, replay.handle);
        const view = derived[source.view] as Record<string, unknown>;
        const shown = Object.fromEntries(Object.keys(view).map((k) => [k, served.body[k]]));
        if (canonicalJson(shown) !== canonicalJson(view)) throw new Error(`${source.name} ${label}: ${served.what} serves ${canonicalJson(shown)}, the entity derives ${canonicalJson(view)}`);
        const journal = await app.services.journal.readStream(id);
        streams.push({ path: label, variant: variant.name, sets: inSets, sent: events as Array<Record<string, unknown>>, stream: id, journal, derived });
      }
      variants[variant.name] = n;
      console.log(`${source.name}/${variant.name}: ${n} paths`);
    }
  } finally {
    await app.close();
  }
  const definition = recorded.definition;
  return {
    header: {
      machine: definition.machine.id,
      version: definition.version,
      tag: machineTag(definition),
      recordedAt: new Date().toISOString(),
      paths: streams.length,
      variants,
      sets,
      recordedWith: 'npm run journals:record (scripts/record-journals.ts): the model paths of test/model through an in-process app on SQLite',
      policy: 'docs/versioning.md: recorded once per machine version; never re-recorded to make test/journals.replay.test.ts pass',
    },
    streams,
  };
}

async function main() {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const wanted = args.filter((a) => a !== '--force');
  const unknown = wanted.filter((w) => !SOURCES.some((s) => s.name === w));
  if (unknown.length) throw new Error(`unknown machine ${unknown.join(', ')}: one of ${SOURCES.map((s) => s.name).join(', ')}`);
  mkdirSync(JOURNALS_DIR, { recursive: true });
  let written = 0;
  let kept = 0;
  for (const source of SOURCES.filter((s) => !wanted.length || wanted.includes(s.name))) {
    const definition = RECORDED_MACHINES[source.name].definition;
    const file = join(JOURNALS_DIR, fileNameOf(definition));
    const existing = isRecorded(definition);
    if (existing && !force) {
      const shown = relative(PACKAGE_ROOT, existing);
      console.error(
        `${shown} exists: kept. Stored journals are recorded once per machine version and never re-recorded to make the replay test pass; ` +
          `a change that alters how past events fold declares a new version beside the machine (docs/versioning.md), and its journals are recorded into a new file beside this one. --force overwrites.`,
      );
      kept++;
      continue;
    }
    const started = Date.now();
    const { header, streams } = await record(source);
    // gzip stamps no time of its own: the same lines give the same bytes.
    const bytes = gzipSync(Buffer.from([header, ...streams].map((line) => JSON.stringify(line)).join('\n') + '\n'), { level: 9 });
    if (existing && existing !== file) rmSync(existing);
    writeFileSync(file, bytes);
    console.log(`${relative(PACKAGE_ROOT, file)}: ${streams.length} streams, ${bytes.length} bytes, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    written++;
  }
  // Nothing recorded because every file was already there: say so in the exit code too.
  if (!written && kept) process.exitCode = 1;
}

await main();
