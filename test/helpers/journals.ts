/**
 * Stored journals (`test/journals/<machine>@<version>.jsonl`): what they hold,
 * how each machine's derived state is read off a loaded entity, and how a
 * stored stream is folded again through today's code, the way the service
 * loads an entity (`Supervisor.load`, which builds an `Entity` and checks
 * every recorded cause). Shared by `scripts/record-journals.ts`, which writes
 * the files once per machine version, and `test/journals.replay.test.ts`,
 * which replays them. The policy is docs/versioning.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AnyStateMachine } from 'xstate';
import { systemClock } from '../../src/domain/clock.ts';
import { deriveRosterRow, memberOf } from '../../src/domain/firm-members.ts';
import { matterView, stageOf, statusOf } from '../../src/domain/matter-view.ts';
import { createBus } from '../../src/engine/bus.ts';
import { machineTag, type Entity, type EntityDefinition } from '../../src/engine/entity.ts';
import { ENROLLMENT, enrollmentRow, statusOfEnrollment, type EnrollmentEntity } from '../../src/engine/firms.ts';
import { LADDER, ladderView, type LadderEntity } from '../../src/engine/ladders.ts';
import { MATTER, type MatterEntity } from '../../src/engine/matters.ts';
import { Supervisor } from '../../src/engine/supervisor.ts';
import type { JournalEvent, JournalStore } from '../../src/journal/store.ts';
import { PACKAGE_ROOT } from '../../src/paths.ts';

export const JOURNALS_DIR = join(PACKAGE_ROOT, 'test', 'journals');

/** The first line of a stored file. */
export interface JournalFileHeader {
  /** The machine's id (`matter`, `deadline-ladder`, `enrollment`). */
  machine: string;
  /** The machine version that recorded every stream of the file. */
  version: number;
  /** `<machine>@<version>`, as each opening cause records it. */
  tag: string;
  /** When the file was recorded (wall clock; nothing derived reads it). */
  recordedAt: string;
  /** Streams in the file: one per distinct model path. */
  paths: number;
  /** Streams per variant, and per path set (a path in both sets counts in each). */
  variants: Record<string, number>;
  sets: Record<string, number>;
  recordedWith: string;
  policy: string;
}

/** One line after the header: one stream, as the service journaled it, and what was derived from it then. */
export interface RecordedStream {
  /** Which model path drove it: `<variant>/<n>`, n counting the variant's distinct paths from 1. */
  path: string;
  variant: string;
  /** The model path sets (`shortest`, `simple`) that contain this path. */
  sets: string[];
  /** The machine events the path sent through the service's doors, in order (what it was recorded from). */
  sent: Array<Record<string, unknown>>;
  stream: string;
  /** The stream's events exactly as journaled, in version order (grain, seq, version, kind, verb, data, cause, ...). */
  journal: JournalEvent[];
  /** What the service derived from the stream once the path ended. */
  derived: Record<string, unknown>;
}

export interface RecordedMachine<M extends AnyStateMachine = AnyStateMachine> {
  definition: EntityDefinition<M>;
  /** The derived state recorded for a stream, read off the loaded entity as the service reads it. */
  derive(entity: Entity<M>): Record<string, unknown>;
}

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

const matter: RecordedMachine = {
  definition: MATTER,
  derive(e) {
    const entity = e as unknown as MatterEntity;
    const snapshot = entity.snapshot();
    // Its links are where its doors are, not a state folded from its history: recorded journals do not hold them.
    const { links: _links, ...view } = matterView(entity);
    return asJson({ status: statusOf(entity), stage: stageOf(entity), value: snapshot.value, context: snapshot.context, view });
  },
};

const ladder: RecordedMachine = {
  definition: LADDER,
  derive(e) {
    const entity = e as unknown as LadderEntity;
    const snapshot = entity.snapshot();
    return asJson({ value: snapshot.value, context: snapshot.context, view: ladderView(entity) });
  },
};

const enrollment: RecordedMachine = {
  definition: ENROLLMENT,
  derive(e) {
    const entity = e as unknown as EnrollmentEntity;
    const snapshot = entity.snapshot();
    const status = statusOfEnrollment(entity);
    const { memberId, grants } = snapshot.context;
    // Its version is its stream's length (the recorded line holds the stream itself), not a state folded from it: recorded journals before it do not hold it.
    const { version: _version, ...row } = enrollmentRow(entity);
    return asJson({ status, value: snapshot.value, context: snapshot.context, row, rosterRow: deriveRosterRow(memberId, status, grants, memberOf(memberId)!.facts) });
  },
};

/** Every machine whose journals are stored, by its id. */
export const RECORDED_MACHINES: Record<string, RecordedMachine> = { matter, 'deadline-ladder': ladder, enrollment };

/**
 * The stored file of a machine version: gzipped JSONL (the full set of model
 * paths is some 40 MB as plain text, under 2 MB gzipped). `zcat` reads it.
 */
export const fileNameOf = (definition: EntityDefinition): string => `${machineTag(definition)}.jsonl.gz`;

/** Whether a machine version's journals are stored already (gzipped, or as plain JSONL). */
export const isRecorded = (definition: EntityDefinition, dir = JOURNALS_DIR): string | null =>
  [fileNameOf(definition), `${machineTag(definition)}.jsonl`].map((f) => join(dir, f)).find((f) => existsSync(f)) ?? null;

export interface JournalFile {
  name: string;
  header: JournalFileHeader;
  streams: RecordedStream[];
}

export function readJournalFile(path: string, name = path): JournalFile {
  const bytes = readFileSync(path);
  const lines = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8').split('\n').filter((l) => l.trim() !== '');
  if (!lines.length) throw new Error(`${name} is empty: its first line must be the header`);
  const [header, ...streams] = lines.map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (error) {
      throw new Error(`${name} line ${i + 1} is not JSON: ${(error as Error).message}`);
    }
  });
  if (streams.length !== header.paths) throw new Error(`${name}: the header says ${header.paths} streams, the file holds ${streams.length}`);
  return { name, header: header as JournalFileHeader, streams: streams as RecordedStream[] };
}

/** Every stored file, by name order. */
export function storedJournalFiles(dir = JOURNALS_DIR): JournalFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') || f.endsWith('.jsonl.gz'))
    .sort()
    .map((f) => readJournalFile(join(dir, f), f));
}

/**
 * A supervisor over the given streams only, as the service's supervisor is
 * over its journal: `load` reads the stream, builds the entity from it
 * (checking the machine and version that opened it, then every recorded
 * cause), and answers ENTITY_UNREADABLE for a stream it cannot fold.
 * Snapshot rows are ignored: it holds none (so every stream is folded
 * whole, from its first event) and keeps none of those a fold rewrites.
 */
export function replaySupervisor(definitions: EntityDefinition[], streams: Iterable<JournalEvent[]>): Supervisor {
  const byId = new Map<string, JournalEvent[]>();
  for (const s of streams) if (s.length) byId.set(s[0].stream, s);
  const reads: Partial<JournalStore> = { readStream: async (id: string) => structuredClone(byId.get(id) ?? []), readSnapshot: async () => null, putSnapshot: async () => undefined };
  const journal = new Proxy(reads, {
    get(target, key) {
      if (key in target || key === 'shared' || key === 'then') return target[key as keyof JournalStore];
      throw new Error(`a replay reads streams (and no snapshot) only; it was asked for journal.${String(key)}`);
    },
  }) as JournalStore;
  // Nothing is appended: the clock and the bus stand idle.
  return new Supervisor({ journal, bus: createBus(), clock: systemClock, residentActors: 64, entities: definitions });
}

/**
 * Where two JSON values first differ, as `path: recorded X, now Y`; null when
 * they are equal (objects compared key by key in sorted order, arrays by index).
 */
export function firstDifference(recorded: unknown, now: unknown, at = ''): string | null {
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  const here = at || '(root)';
  if (recorded === now) return null;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (!isObject(recorded) || !isObject(now) || Array.isArray(recorded) !== Array.isArray(now)) return `${here}: recorded ${show(recorded)}, now ${show(now)}`;
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let i = 0; i < Math.max(recorded.length, now.length); i++) {
      const d = firstDifference(recorded[i], now[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const keys = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort();
  for (const k of keys) {
    const d = firstDifference(recorded[k], now[k], at ? `${at}.${k}` : k);
    if (d) return d;
  }
  return null;
}

/** What one stored file's replay found: the streams folded, and a worded failure for each that did not fold to its recorded state. */
export interface ReplayResult {
  replayed: number;
  failures: string[];
}

/**
 * Folds each stored stream through today's code, as the service loads an
 * entity (`Supervisor.load`), and compares what is derived from it with what
 * was recorded. `definition` stands in for the machine's (a test simulating
 * a machine change passes a modified one).
 */
export async function replayStreams(file: string, machine: RecordedMachine, streams: RecordedStream[], definition: EntityDefinition = machine.definition): Promise<ReplayResult> {
  const supervisor = replaySupervisor([definition], streams.map((s) => s.journal));
  const failures: string[] = [];
  for (const s of streams) {
    const where = `${file}: stream ${s.stream} (path ${s.path}, ${s.journal.length} events)`;
    let derived: Record<string, unknown>;
    try {
      const entity = await supervisor.load(definition, s.stream);
      if (!entity) {
        failures.push(`${where}: not loaded (its first event is ${s.journal[0]?.kind ?? 'missing'}, not ${definition.openedKind})`);
        continue;
      }
      derived = machine.derive(entity);
    } catch (error) {
      failures.push(`${where}: unreadable today: ${(error as Error).message}`);
      continue;
    }
    const difference = firstDifference(s.derived, derived);
    if (difference) failures.push(`${where}: the derived state differs first at ${difference}`);
  }
  return { replayed: streams.length, failures };
}
