/**
 * Where Matters gather (issue 36): a grain's Matters (or Deadline Ladders, or
 * Enrollments) on their machine, as data a page draws on the machine's
 * diagram: for each state how many are in it and the oldest there (with its
 * age and links), for each transition how many times it was taken, and,
 * for a state, its entities a page at a time, oldest first.
 *
 * Computed from what the journal keeps beside every entity stream, never by
 * folding entities (ARCHITECTURE.md, "Growing it (2026-11-27)"): the
 * snapshot row's standing (`standing.ts`: the state's dotted path, facets,
 * the fact that entered it), written in the transaction of the facts that
 * change it, read in one aggregate over an index; and the ledger and
 * transition counts every entity write adds to in that same transaction
 * (`src/journal/population-rows.ts`).
 *
 * All of it is a cache of the journal. Each read checks what it read: the
 * ledger is there for today's machine (a new build's machine, or a changed
 * facet, starts none), the rows number its streams, their versions sum to
 * its events (no row behind or ahead of its stream), the counts to its
 * transitions, every path is a state of the machine and every edge one of
 * its edges. When a check fails, the grain's population of that machine is
 * rebuilt from the journal (`rebuild`) and read again. States are named by
 * their dotted path and transitions by `edgeKey` (`machines/edges.ts`), as
 * the single-record inspection and the generated diagrams name them.
 */
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { edgeIndex, pathOf, stateNodes } from '../../machines/edges.ts';
import { grainBase } from '../domain/links.ts';
import { eachStreamHead, type JournalEvent, type JournalStore, type PopulationMachine, type PopulationRows, type StreamInState } from '../journal/store.ts';
import { RecentMap } from '../lib/recent-map.ts';
import { openedBy, snapshotMachine, type EntityDefinition } from './entity.ts';
import { ENROLLMENT } from './firms.ts';
import { foldPath } from './inspection.ts';
import { LADDER, ladderStreamOf } from './ladders.ts';
import { MATTER } from './matters.ts';
import { facetsOf, standingOf } from './standing.ts';
import type { Supervisor } from './supervisor.ts';

export type PopulationKind = 'matter' | 'deadline-ladder' | 'enrollment';

/** A record's links: its own read, its inspector page, its inspection. */
export interface RecordLinks {
  entity: string;
  inspect: string;
  inspection: string;
}

/** One entity in a state: which, since when, and where to inspect it. */
export interface Member {
  /** The Matter id, the Asset id of a ladder, or the Enrollment id. */
  id: string;
  /** The instant and seq of the fact that entered the state. */
  since: string;
  seq: number;
  ageSeconds: number;
  version: number;
  links: RecordLinks;
}

export interface PopulationState {
  path: string;
  final: boolean;
  tags: string[];
  count: number;
  /** How many of them show each of the machine's facets (none for a machine without). */
  facets: Array<{ name: string; count: number }>;
  /** The one in the state longest (absent when none is). */
  oldest?: Member;
  links: { members: string };
}

export interface Population {
  subject: { kind: PopulationKind; grain: string; links: { self: string } };
  machine: { id: string; version: number; diagram: string };
  /** The instant the ages are counted to. */
  asOf: string;
  total: number;
  /** Every state an entity can stand in (the machine's atomic and final states), in declaration order. */
  states: PopulationState[];
  /** Every edge of the machine, in declaration order, with how many times the grain's entities took it. */
  transitions: Array<{ edge: string; count: number }>;
  facets: Array<{ name: string; description: string; count: number }>;
}

/** One kind of entity the population counts: its machine, the doors it is read under, and what its streams are called there. */
interface Kind {
  kind: PopulationKind;
  definition: EntityDefinition;
  /** The collection under a grain's `/inspection` (`matters`, `deadlines`, `enrollments`). */
  collection: string;
  /** A stream's id as its doors name it, and its links, under the grain's mount (`base`); `state` is its snapshot's JSON. */
  subject(stream: string, base: string, state: string): { id: string; links: RecordLinks };
}

const recordLinks = (entity: string): RecordLinks => ({ entity, inspect: `${entity}/inspect`, inspection: `${entity}/inspection` });
const LADDER_PREFIX = ladderStreamOf('');

export const KINDS: Readonly<Record<PopulationKind, Kind>> = {
  matter: {
    kind: 'matter',
    definition: MATTER,
    collection: 'matters',
    subject: (stream, base) => ({ id: stream, links: recordLinks(`${base}/matters/${encodeURIComponent(stream)}`) }),
  },
  'deadline-ladder': {
    kind: 'deadline-ladder',
    definition: LADDER,
    collection: 'deadlines',
    subject: (stream, base) => {
      const assetId = stream.slice(LADDER_PREFIX.length);
      return { id: assetId, links: recordLinks(`${base}/deadlines/${encodeURIComponent(assetId)}`) };
    },
  },
  enrollment: {
    kind: 'enrollment',
    definition: ENROLLMENT,
    collection: 'enrollments',
    // An Enrollment's doors name its member (its current Enrollment): the member is in its context.
    subject: (stream, base, state) => {
      const memberId = String((JSON.parse(state) as { context?: { memberId?: unknown } }).context?.memberId ?? '');
      const member = `${base}/enrollments/${encodeURIComponent(memberId)}`;
      return { id: stream, links: { entity: `${base}/enrollments`, inspect: `${member}/inspect`, inspection: `${member}/inspection` } };
    },
  },
};

/** How many rounds a rebuild tries to land its counts while the grain keeps moving, each folding only what moved. */
const SETTLE_ROUNDS = 20;
/** Rows a rebuild rewrites at once. */
const REWRITES_IN_FLIGHT = 16;
/** Grains whose population this process has found sound, by grain and tag: a page of a state's entities needs no check of its own. */
const CHECKED_KEPT = 10_000;

/** What a machine's states and edges are, read once per machine. */
export interface Shape {
  machine: PopulationMachine;
  states: Array<{ path: string; final: boolean; tags: string[] }>;
  paths: Set<string>;
  edges: string[];
  edgeSet: Set<string>;
  facets: ReturnType<typeof facetsOf>;
}

const shapes = new WeakMap<EntityDefinition, Shape>();

export function shapeOf(definition: EntityDefinition): Shape {
  let shape = shapes.get(definition);
  if (!shape) {
    const machine = definition.machine;
    const leaves = stateNodes(machine).filter((n) => n.type === 'atomic' || n.type === 'final');
    const states = leaves.map((n) => ({ path: pathOf(n), final: n.type === 'final', tags: [...n.tags].sort() }));
    const edges = edgeIndex(machine).keys;
    const facets = facetsOf(machine);
    shape = { machine: { tag: snapshotMachine(definition), id: machine.id, facets: facets.length }, states, paths: new Set(states.map((s) => s.path)), edges, edgeSet: new Set(edges), facets };
    shapes.set(definition, shape);
  }
  return shape;
}

/** What `unsound` says of a grain that keeps nothing of the machine: sound when it holds none of its streams. */
const NOTHING_KEPT = 'nothing kept';

/** Why what the journal keeps cannot be read as it is (null: it can). */
export function unsound(rows: PopulationRows, shape: Shape): string | null {
  const { ledger, states, transitions } = rows;
  const sum = (values: number[]) => values.reduce((n, v) => n + v, 0);
  if (!ledger) return states.length || transitions.length ? 'rows or counts without a ledger' : NOTHING_KEPT;
  if (states.some((s) => s.path === null || !shape.paths.has(s.path))) return 'a row in no state of the machine';
  if (states.some((s) => s.oldest === null)) return 'a row without the fact that entered its state';
  if (transitions.some((t) => !shape.edgeSet.has(t.edge) || t.count < 0)) return 'a count of no edge of the machine';
  if (ledger.streams !== sum(states.map((s) => s.count))) return 'the rows do not number the ledger\'s streams';
  if (ledger.events !== sum(states.map((s) => s.versions))) return 'a row behind or ahead of its stream';
  if (ledger.transitions !== sum(transitions.map((t) => t.count))) return 'the counts do not add up to the ledger\'s transitions';
  return null;
}

/** What one stream adds to its grain's ledger and counts, and its row, as of a seq: folded from the journal. */
interface Contribution {
  version: number;
  transitions: string[];
  row: { state: string; path: string; facets: number; entered: { seq: number; at: string } };
}

/** A rebuild's running totals. */
class Tally {
  streams = 0;
  events = 0;
  readonly edges = new Map<string, number>();

  add(c: Contribution | null, sign: 1 | -1 = 1): void {
    if (!c) return;
    this.streams += sign;
    this.events += sign * c.version;
    for (const edge of c.transitions) this.edges.set(edge, (this.edges.get(edge) ?? 0) + sign);
  }

  counts() {
    const transitions = [...this.edges].filter(([, n]) => n !== 0).map(([edge, count]) => ({ edge, count }));
    return { ledger: { streams: this.streams, events: this.events, transitions: transitions.reduce((n, t) => n + t.count, 0) }, transitions };
  }
}

export class Populations {
  private readonly journal: JournalStore;
  /** Rebuilds under way in this process, by grain and machine: a second asker waits for the first. */
  private readonly rebuilding = new Map<string, Promise<void>>();
  private readonly checked = new RecentMap<string, true>(CHECKED_KEPT);

  constructor(
    private readonly supervisor: Supervisor,
    /** Ages are counted to the service's clock (`LEGALWORK_CLOCK=fixed:…` fixes them as it fixes the stamps). */
    private readonly now: () => number = () => Date.parse(supervisor.clock.now()),
  ) {
    this.journal = supervisor.journal;
  }

  /** The grain's population of one kind of entity. */
  async of(grain: string, kind: PopulationKind): Promise<Population> {
    const k = KINDS[kind];
    const shape = shapeOf(k.definition);
    const rows = await this.sound(grain, k, shape);
    const now = this.now();
    const base = grainBase(grain);
    const self = `${base}/inspection/${k.collection}`;
    const byPath = new Map(rows.states.map((s) => [s.path, s]));
    const counted = new Map(rows.transitions.map((t) => [t.edge, t.count]));
    const facetTotals = shape.facets.map(() => 0);
    const states = shape.states.map((s): PopulationState => {
      const found = byPath.get(s.path);
      found?.facets.forEach((n, i) => (facetTotals[i] += n));
      const oldest = found?.oldest;
      return {
        ...s,
        count: found?.count ?? 0,
        facets: shape.facets.map((f, i) => ({ name: f.name, count: found?.facets[i] ?? 0 })),
        ...(oldest ? { oldest: this.member(k, base, oldest, now) } : {}),
        links: { members: `${self}/states/${encodeURIComponent(s.path)}` },
      };
    });
    return {
      subject: { kind, grain, links: { self } },
      machine: { id: k.definition.machine.id, version: k.definition.version, diagram: `/docs/diagrams/${k.definition.machine.id}.svg` },
      asOf: new Date(now).toISOString(),
      total: states.reduce((n, s) => n + s.count, 0),
      states,
      transitions: shape.edges.map((edge) => ({ edge, count: counted.get(edge) ?? 0 })),
      facets: shape.facets.map((f, i) => ({ name: f.name, description: f.description, count: facetTotals[i] })),
    };
  }

  /** The entities of one kind in one state of the grain, oldest first, a page after the seq `after` that entered it. */
  async inState(grain: string, kind: PopulationKind, path: string, after: number, limit: number): Promise<{ members: Member[]; nextAfter: number | null }> {
    const k = KINDS[kind];
    const shape = shapeOf(k.definition);
    // Rows this process has not yet found sound are checked (and rebuilt if they must be) before they are listed.
    if (!this.checked.get(`${grain}\n${shape.machine.tag}`)) await this.sound(grain, k, shape);
    const rows = await this.journal.streamsInState(grain, shape.machine.tag, path, after, limit);
    const now = this.now();
    const base = grainBase(grain);
    const members = rows.map((r) => this.member(k, base, r, now));
    return { members, nextAfter: rows.length === limit ? rows[rows.length - 1].seq : null };
  }

  private member(k: Kind, base: string, row: StreamInState, now: number): Member {
    const { id, links } = k.subject(row.stream, base, row.state);
    return { id, since: row.at, seq: row.seq, ageSeconds: Math.max(0, Math.floor((now - Date.parse(row.at)) / 1000)), version: row.version, links };
  }

  /**
   * The grain's rows and counts of the kind, rebuilt from the journal first
   * when they do not check out. A grain that never held one of the kind
   * has nothing kept, and nothing to rebuild.
   */
  private async sound(grain: string, k: Kind, shape: Shape): Promise<PopulationRows> {
    let rows = await this.journal.population(grain, shape.machine);
    const problem = unsound(rows, shape);
    if (problem !== null && (problem !== NOTHING_KEPT || (await this.journal.streamHeads(grain, k.definition.openedKind, 0, 1)).length > 0)) {
      await this.rebuild(grain, k, shape);
      rows = await this.journal.population(grain, shape.machine);
    }
    this.checked.set(`${grain}\n${shape.machine.tag}`, true);
    return rows;
  }

  /**
   * Rebuilds the grain's population of one machine from the journal: every
   * stream of the kind folded through the machine (the inspection's fold,
   * `foldPath`, which reads the edges each cause took) as of the grain's
   * last seq, its row rewritten, and the ledger and counts replaced when
   * the grain is still at that seq. When it has moved on, only the streams
   * written since are folded again, and the counts offered again.
   * Serialized per grain and machine, across processes on a shared journal.
   */
  rebuild(grain: string, k: Kind, shape: Shape): Promise<void> {
    const key = `${grain}\n${shape.machine.id}`;
    let running = this.rebuilding.get(key);
    if (!running) {
      running = this.supervisor.exclusive(`population:${key}`, () => this.rebuildNow(grain, k, shape)).finally(() => this.rebuilding.delete(key));
      this.rebuilding.set(key, running);
    }
    return running;
  }

  private async rebuildNow(grain: string, k: Kind, shape: Shape): Promise<void> {
    const { definition } = k;
    const tally = new Tally();
    const rewrites = new Set<Promise<void>>();
    const rewrite = async (stream: string, c: Contribution | null) => {
      if (!c) return;
      while (rewrites.size >= REWRITES_IN_FLIGHT) await Promise.race(rewrites);
      const put = this.journal.putSnapshot(stream, { version: c.version, machine: shape.machine.tag, state: c.row.state, standing: { path: c.row.path, facets: c.row.facets, entered: c.row.entered } }).finally(() => rewrites.delete(put));
      rewrites.add(put);
    };
    let seq = await this.journal.latestSeq(grain);
    for await (const head of eachStreamHead(this.journal, grain, definition.openedKind)) {
      if (head.seq > seq) break;
      const c = contributionOf(definition, await this.journal.readStream(head.stream), seq);
      tally.add(c);
      await rewrite(head.stream, c);
    }
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      await Promise.all(rewrites);
      if (await this.journal.resetPopulation(grain, shape.machine, seq, tally.counts())) return;
      // The grain moved on while the counts were folded: fold again only what was written since.
      const now = await this.journal.latestSeq(grain);
      const moved = new Set<string>();
      for (let after = seq; after < now; ) {
        const page = await this.journal.readTail(grain, { after, limit: 500, feed: 'timeline' });
        for (const e of page) if (e.seq <= now) moved.add(e.stream);
        if (page.length === 0) break;
        after = page[page.length - 1].seq;
      }
      for (const stream of moved) {
        const journal = await this.journal.readStream(stream);
        if (journal[0]?.kind !== definition.openedKind) continue;
        tally.add(contributionOf(definition, journal, seq), -1);
        const c = contributionOf(definition, journal, now);
        tally.add(c);
        await rewrite(stream, c);
      }
      seq = now;
    }
    await Promise.all(rewrites);
    throw new Error(`the population of ${definition.machine.id} in grain ${grain} did not settle in ${SETTLE_ROUNDS} rounds: the grain kept moving`);
  }
}

/**
 * What a stream adds to the population as of seq `at` (its events up to
 * there), folded through the machine and checked as the inspection folds
 * it; null when it had not opened by then, or when this machine cannot read
 * it (another machine or version opened it, or it refuses a recorded
 * event): such a stream is not counted, as it cannot be loaded either.
 */
export function contributionOf(definition: EntityDefinition, journal: JournalEvent[], at: number): Contribution | null {
  const upto = journal.filter((e) => e.seq <= at);
  if (upto.length === 0) return null;
  const by = openedBy(upto[0], definition);
  if (by.machine !== definition.machine.id || by.version !== definition.version) return null;
  let folded: ReturnType<typeof foldPath>;
  try {
    folded = foldPath(definition, upto, upto.length);
  } catch {
    return null;
  }
  const { steps, snapshot } = folded;
  let entered = { seq: steps[0].seq, at: steps[0].at };
  for (const step of steps.slice(1)) if (step.event !== null && step.from !== step.to) entered = { seq: step.seq, at: step.at };
  const machine: AnyStateMachine = definition.machine;
  const s = snapshot as AnyMachineSnapshot;
  return {
    version: upto.length,
    transitions: steps.flatMap((step) => step.transitions),
    row: { state: JSON.stringify(machine.getPersistedSnapshot(s)), ...standingOf(machine, s), entered },
  };
}

/** The one `Populations` of a supervisor, so every grain prefix's doors share its rebuilds and checks. */
const populations = new WeakMap<Supervisor, Populations>();
export function populationsOf(supervisor: Supervisor): Populations {
  let found = populations.get(supervisor);
  if (!found) {
    found = new Populations(supervisor);
    populations.set(supervisor, found);
  }
  return found;
}
