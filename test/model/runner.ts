/**
 * The shared model-based test runner: walks the paths `@xstate/graph` finds in
 * a machine and replays each one through the HTTP service, with the machine
 * as the oracle. For every step it predicts acceptance with `snapshot.can()`,
 * sends the event through the service's doors, asserts the service agreed
 * (2xx iff accepted, never a 5xx; a refusal leaves the state unchanged) and
 * then asks the adapter to check the service's view against the snapshot.
 *
 * Two path sets:
 * - `shortest`: a node is a bounded state *plus the edge that entered it*, so
 *   the shortest paths to all nodes end once on every reachable transition
 *   (self-loops and refusing edges included), not only on every state.
 * - `simple`: a node is the bounded state alone; every loop-free path to every
 *   state is replayed.
 * At each state a path visits for the first time, the runner also *probes*:
 * it sends each event the adapter offers that the machine refuses outright
 * (an advance while a Signer holds the Gig, ...) and checks nothing moved.
 */
import { createTestModel } from '@xstate/graph';
import {
  initialTransition,
  transition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EmittedFrom,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import type { TestApp } from '../helpers/app.ts';
import { edgeIndex } from '../../machines/edges.ts';
import { recordCoverage } from './coverage.ts';

export type { TestApp };
export type MachineName = 'matter' | 'deadline-ladder' | 'enrollment';

export interface Variant<M extends AnyStateMachine> {
  name: string;
  input: InputFrom<M>;
}

/** Everything the oracle applied since the entity opened, in order (for journal checks). */
export interface Trace<M extends AnyStateMachine> {
  applied: Array<EventFromLogic<M>>;
  emitted: Array<EmittedFrom<M>>;
}

export interface SettleStep<M extends AnyStateMachine> {
  before: SnapshotFrom<M>;
  event: EventFromLogic<M>;
  after: SnapshotFrom<M>;
}

export interface ModelAdapter<M extends AnyStateMachine, H> {
  name: MachineName;
  machine: M;
  /** One model run per variant (e.g. consumer pattern, fixture client, one-shot vs recurring). */
  variants: Array<Variant<M>>;
  /**
   * The events to try from a snapshot: legal AND illegal ones, with bounded
   * payloads. Offer at least one event of every type the state declares: the
   * graph library fills a declared type it is not given with a bare `{type}`.
   */
  events: (snapshot: SnapshotFrom<M>) => Array<EventFromLogic<M>>;
  /** Keeps the graph finite: how a snapshot is keyed (e.g. state value + bounded context). */
  serializeState?: (snapshot: SnapshotFrom<M>) => string;
  /**
   * Optional: the machine events the service applies on its own inside the
   * same request after an accepted `step.event` (a filed receipt after the
   * `file` attestation, a fixture Signer's immediate answer). Each returned
   * event is applied to the oracle and settled in turn; return [] when none.
   */
  settle?: (step: SettleStep<M>, variant: Variant<M>) => Array<EventFromLogic<M>>;
  /** Opens a fresh entity over HTTP for the variant (usually in a fresh workspace). */
  open(app: TestApp, variant: Variant<M>): Promise<H>;
  /** Sends one machine event through the HTTP doors; `accepted` is true for a 2xx. */
  send(app: TestApp, handle: H, event: EventFromLogic<M>, before: SnapshotFrom<M>): Promise<{ accepted: boolean; status: number; body: unknown }>;
  /** Reads what the service reports and asserts it equals the machine's snapshot (stage, status, ladder view, roster row...). */
  check(app: TestApp, handle: H, expected: SnapshotFrom<M>, trace: Trace<M>): Promise<void>;
}

export interface RunOptions {
  paths: 'shortest' | 'simple';
  /** Replay at most this many paths (spread evenly over the list), for very large graphs. */
  maxPaths?: number;
  /** Paths replayed at once, each on its own entity (default 4: the journal group-commits them). */
  concurrency?: number;
  /** Probe refused events at each newly visited state (default true). */
  probes?: boolean;
}

export interface RunResult {
  /** Edge keys (see `edgeKey`) that a replayed path exercised through HTTP. */
  covered: Set<string>;
  /** For each edge exercised: how many replayed paths walked it (what `visualizations/<machine>.coverage.json` records). */
  walks: Map<string, number>;
  /** Every edge of the machine's graph. */
  total: number;
  /** Paths replayed. */
  paths: number;
}

/** What the oracle predicts for one event sent from `before`. */
export interface Outcome<M extends AnyStateMachine> {
  accepted: boolean;
  after: SnapshotFrom<M>;
  /** Edges selected: by the event, then by every settled follow-up. */
  edges: string[];
  applied: Array<EventFromLogic<M>>;
  emitted: Array<EmittedFrom<M>>;
}

const describeEvent = (e: { type: string }) => {
  const { type, ...rest } = e;
  return Object.keys(rest).length ? `${type}${JSON.stringify(rest)}` : type;
};

function emittedOf<M extends AnyStateMachine>(actions: ReadonlyArray<{ type: string; params?: unknown }>): Array<EmittedFrom<M>> {
  return actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: EmittedFrom<M> }).event);
}

/** The machine as oracle: the pure outcome of sending `event` (and what settles after it). */
export function oracleStep<M extends AnyStateMachine, H>(adapter: ModelAdapter<M, H>, variant: Variant<M>, before: SnapshotFrom<M>, event: EventFromLogic<M>): Outcome<M> {
  const index = edgeIndex(adapter.machine);
  const snap = before as AnyMachineSnapshot;
  const edges = index.selected(snap, event);
  if (!snap.can(event)) return { accepted: false, after: before, edges, applied: [], emitted: [] };
  const applied: Array<EventFromLogic<M>> = [];
  const emitted: Array<EmittedFrom<M>> = [];
  const apply = (from: SnapshotFrom<M>, e: EventFromLogic<M>): SnapshotFrom<M> => {
    const [next, actions] = transition(adapter.machine, from, e);
    applied.push(e);
    emitted.push(...emittedOf<M>(actions as never));
    return next as SnapshotFrom<M>;
  };
  let after = apply(before, event);
  const queue: Array<SettleStep<M>> = [{ before, event, after }];
  while (queue.length) {
    const step = queue.shift()!;
    for (const follow of adapter.settle?.(step, variant) ?? []) {
      const from = after as AnyMachineSnapshot;
      if (!from.can(follow)) throw new Error(`${adapter.name}: settle offered ${describeEvent(follow)}, which the machine refuses in ${JSON.stringify(from.value)}`);
      edges.push(...index.selected(from, follow));
      const next = apply(after, follow);
      queue.push({ before: after, event: follow, after: next });
      after = next;
    }
  }
  return { accepted: true, after, edges, applied, emitted };
}

export const initialSnapshot = <M extends AnyStateMachine>(machine: M, input: InputFrom<M>): SnapshotFrom<M> => initialTransition(machine, input)[0] as SnapshotFrom<M>;

/** How the graph and the replays key a snapshot: the adapter's bounded key, else the whole state. */
function stateKey<M extends AnyStateMachine, H>(adapter: ModelAdapter<M, H>, snapshot: SnapshotFrom<M>): string {
  const s = snapshot as AnyMachineSnapshot;
  return adapter.serializeState ? adapter.serializeState(snapshot) : JSON.stringify({ value: s.value, context: s.context });
}

function fail(context: string, message: string): never {
  throw new Error(`${context}: ${message}`);
}

/**
 * One entity being driven through HTTP beside its oracle snapshot. Shared by
 * the model runner and the fast-check properties.
 */
export class Replay<M extends AnyStateMachine, H> {
  snapshot!: SnapshotFrom<M>;
  handle!: H;
  readonly trace: Trace<M> = { applied: [], emitted: [] };
  readonly covered = new Set<string>();
  readonly sent: string[] = [];

  constructor(
    readonly adapter: ModelAdapter<M, H>,
    readonly app: TestApp,
    readonly variant: Variant<M>,
    readonly label: string,
  ) {}

  key(snapshot: SnapshotFrom<M> = this.snapshot): string {
    return stateKey(this.adapter, snapshot);
  }

  private where() {
    return `${this.label} after [${this.sent.join(' → ')}]`;
  }

  async open(): Promise<this> {
    this.snapshot = initialSnapshot(this.adapter.machine, this.variant.input);
    this.handle = await this.adapter.open(this.app, this.variant);
    await this.check();
    return this;
  }

  async check(): Promise<void> {
    try {
      await this.adapter.check(this.app, this.handle, this.snapshot, this.trace);
    } catch (error) {
      throw prefixed(error, `${this.where()}, the service disagrees with the machine in ${JSON.stringify((this.snapshot as AnyMachineSnapshot).value)}`);
    }
  }

  /** Sends one event through HTTP and holds the service to the oracle's verdict. */
  async send(event: EventFromLogic<M>): Promise<Outcome<M>> {
    const outcome = oracleStep(this.adapter, this.variant, this.snapshot, event);
    const where = `${this.where()} → ${describeEvent(event)}`;
    const res = await this.adapter.send(this.app, this.handle, event, this.snapshot);
    this.sent.push(describeEvent(event));
    if (res.status >= 500) fail(where, `the service answered ${res.status} (never a 5xx): ${JSON.stringify(res.body)}`);
    if (res.accepted !== (res.status >= 200 && res.status < 300)) fail(where, `adapter reported accepted=${res.accepted} for status ${res.status}`);
    if (res.accepted !== outcome.accepted) {
      fail(where, `the machine ${outcome.accepted ? 'accepts' : 'refuses'} it in ${JSON.stringify((this.snapshot as AnyMachineSnapshot).value)}, the service answered ${res.status} ${JSON.stringify(res.body)}`);
    }
    for (const edge of outcome.edges) this.covered.add(edge);
    if (outcome.accepted) {
      this.snapshot = outcome.after;
      this.trace.applied.push(...outcome.applied);
      this.trace.emitted.push(...outcome.emitted);
    }
    await this.check();
    return outcome;
  }

  /** Sends each offered event the machine refuses outright from here; nothing may move. */
  async probe(): Promise<void> {
    const index = edgeIndex(this.adapter.machine);
    const snap = this.snapshot as AnyMachineSnapshot;
    for (const event of this.adapter.events(this.snapshot)) {
      if (snap.can(event) || index.selected(snap, event).length) continue;
      await this.send(event);
    }
  }
}

function prefixed(error: unknown, context: string): Error {
  if (error instanceof Error) {
    error.message = `${context}: ${error.message}`;
    return error;
  }
  return new Error(`${context}: ${String(error)}`);
}

/** The graph the paths come from: the machine, with each step settled as the service settles it. */
function settledModel<M extends AnyStateMachine, H>(adapter: ModelAdapter<M, H>, variant: Variant<M>, mode: RunOptions['paths']) {
  const logic = Object.create(adapter.machine) as M;
  (logic as { transition: unknown }).transition = (snapshot: SnapshotFrom<M>, event: EventFromLogic<M>) => {
    try {
      return oracleStep(adapter, variant, snapshot, event).after;
    } catch (error) {
      throw prefixed(error, `${adapter.name}/${variant.name}: ${describeEvent(event)} from ${JSON.stringify((snapshot as AnyMachineSnapshot).value)}`);
    }
  };
  const serializeState = (state: SnapshotFrom<M>, event?: EventFromLogic<M>, prev?: SnapshotFrom<M>) => {
    if (mode === 'simple' || !event || !prev) return stateKey(adapter, state);
    const { edges } = oracleStep(adapter, variant, prev, event);
    return `${stateKey(adapter, state)} <- ${edges.length ? edges.join(' + ') : 'refused'}`;
  };
  return createTestModel(logic, {
    events: (s: SnapshotFrom<M>) => adapter.events(s),
    serializeState: serializeState as never,
    serializeEvent: (e: EventFromLogic<M>) => JSON.stringify(e),
  } as never);
}

/** Evenly spaced picks, so a cap keeps paths from all over the graph. */
function spread<T>(items: T[], max: number | undefined): T[] {
  if (max === undefined || items.length <= max) return items;
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(items[Math.floor((i * items.length) / max)]);
  return out;
}

/** Lists a variant's paths without replaying them (for sizing and tests of the runner). */
export function modelPaths<M extends AnyStateMachine, H>(adapter: ModelAdapter<M, H>, variant: Variant<M>, mode: RunOptions['paths']) {
  const model = settledModel(adapter, variant, mode);
  const options = { input: variant.input } as never;
  const paths = mode === 'shortest' ? model.getShortestPaths(options) : model.getSimplePaths(options);
  // Each step names the event that reached its state; the first is the machine's own `xstate.init`.
  return paths.map((p) => ({ events: p.steps.map((s) => s.event as EventFromLogic<M>).filter((e) => e.type !== 'xstate.init'), state: p.state as SnapshotFrom<M> }));
}

async function pool<T>(items: T[], width: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(width, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  });
  await Promise.all(lanes);
}

export async function runModel<M extends AnyStateMachine, H>(adapter: ModelAdapter<M, H>, app: TestApp, options: RunOptions): Promise<RunResult> {
  const total = edgeIndex(adapter.machine).keys.length;
  const covered = new Set<string>();
  const walks = new Map<string, number>();
  let replayed = 0;
  for (const variant of adapter.variants) {
    const paths = spread(modelPaths(adapter, variant, options.paths), options.maxPaths);
    const probed = new Set<string>();
    const variantCovered = new Set<string>();
    const variantWalks = new Map<string, number>();
    await pool(paths, options.concurrency ?? 4, async (path, i) => {
      const label = `[model ${adapter.name}/${variant.name}/${options.paths} path ${i + 1}/${paths.length}: ${path.events.map(describeEvent).join(' → ') || '(initial)'}]`;
      const replay = await new Replay(adapter, app, variant, label).open();
      // Probe each state the variant's paths reach, once: before every step and at the path's end.
      const probeOnce = async () => {
        if (options.probes === false || probed.has(replay.key())) return;
        probed.add(replay.key());
        await replay.probe();
      };
      for (const event of path.events) {
        await probeOnce();
        await replay.send(event);
      }
      await probeOnce();
      if (replay.key() !== replay.key(path.state)) fail(label, `replay ended in ${replay.key()}, the graph says ${replay.key(path.state)}`);
      // A path counts once for each edge it walked, however many times it walked it (a count of paths, not of steps).
      for (const edge of replay.covered) {
        variantCovered.add(edge);
        variantWalks.set(edge, (variantWalks.get(edge) ?? 0) + 1);
      }
    });
    replayed += paths.length;
    for (const edge of variantCovered) covered.add(edge);
    for (const [edge, n] of variantWalks) walks.set(edge, (walks.get(edge) ?? 0) + n);
    const sorted = [...variantWalks].sort(([a], [b]) => (a < b ? -1 : 1));
    recordCoverage({ machine: adapter.name, variant: variant.name, mode: options.paths, covered: sorted.map(([edge]) => edge), walks: Object.fromEntries(sorted), total, paths: paths.length });
  }
  return { covered, walks, total, paths: replayed };
}
