/**
 * The inspection: what a reviewer (or an agent) sees of one Matter, Deadline
 * Ladder or Enrollment on its machine, read off the same code that decides
 * (ARCHITECTURE.md, "Growing it (2026-11-27)"):
 *
 * - **the path**: every fact of the stream, oldest first, each with the
 *   event that caused it, the states before and after and the edges the
 *   machine selected for it (`edgeKey`, `machines/edges.ts`), folded from the
 *   journal through the machine, exactly as a rebuild folds it;
 * - **the state** the fold reaches, as of the head or of an earlier fact
 *   (`at`: time travel), with the entity's own view as of then;
 * - **the doors open now**: every command the decider beside the machine
 *   accepts in that state, asked with a representative command (the body an
 *   agent would send), with the events it sends and the edges they take;
 * - **every other command, with the refusal** that decider gives, worded by
 *   the catalog as the door would answer it, and the edge that refuses it
 *   where the machine declares one.
 *
 * No rule is kept here: the deciders (`machines/*.decide.ts`) are asked
 * through their exported functions, the Gate through `Matters.gate`, and the
 * catalog words the refusals (`refusalOf`). What this module adds is which
 * door carries each command and the body that stands for it. The Signer
 * registry is not asked: a Signer's answer names its Signer only when it
 * arrives, and is verified then (the representative answer names the
 * sandbox's eligible fixture Signer).
 */
import { createActor, transition, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type InputFrom, type SnapshotFrom } from 'xstate';
import { TERMINAL_OUTCOMES, type deadlineLadderMachine, type LadderEvent } from '../../machines/deadline-ladder.ts';
import { decideAck, decideMonitor, decideResolve, decideSatisfy, decideTick, isResolved } from '../../machines/deadline-ladder.decide.ts';
import type { Decision, Subject } from '../../machines/decision.ts';
import { edgeIndex, statePath } from '../../machines/edges.ts';
import { ENROLLMENT_GRANTS, enrollmentStatus, type enrollmentMachine } from '../../machines/enrollment.ts';
import { decideAmend, decideRevoke } from '../../machines/enrollment.decide.ts';
import { matterStatus, type matterMachine, type MatterEvent } from '../../machines/matter.ts';
import { decideAdvance, decideClientDirection, decideConsent, decideDocument, decideGigAnswer, decideTerminal, type TerminalCommand } from '../../machines/matter.decide.ts';
import { FIXTURE } from '../domain/fixtures.ts';
import { grainBase } from '../domain/links.ts';
import { factsOf, matterView } from '../domain/matter-view.ts';
import { refusal, refusalOf } from '../domain/refusals.ts';
import { syntheticReceipt } from '../domain/supply-network.ts';
import type { JournalEvent } from '../journal/store.ts';
import { Entity, StoredState, type EntityDefinition } from './entity.ts';
import { ENROLLMENT, enrollmentRow, type Firms } from './firms.ts';
import { LADDER, ladderStreamOf, ladderView } from './ladders.ts';
import { MATTER, type Matters } from './matters.ts';
import type { Supervisor } from './supervisor.ts';

export type InspectedKind = 'matter' | 'deadline-ladder' | 'enrollment';

/** One fact of the stream, as the path shows it. */
export interface InspectionStep {
  /** 1 for the opening fact, then each fact in journal order. */
  step: number;
  seq: number;
  version: number;
  at: string;
  kind: string;
  verb?: string;
  /** The machine event that caused it (`xstate.init` for the opening); null for a fact journaled beside another, with no cause (a rung's reminder). */
  event: string | null;
  /** The state before it (dotted path); null before the opening. */
  from: string | null;
  /** The state after it. */
  to: string;
  /** The edges (`edgeKey`) the machine selected for its cause; none for the opening or a fact with no cause. */
  transitions: string[];
  by: string;
  actor: string | null;
  note: string;
  gigId: string | null;
  signer: string | null;
  /** Who proposed it (an advance's `by`) and the caller's X-Actor/X-Mandate, where the fact records them. */
  provenance?: { proposedBy?: string; actor?: string; mandate?: string };
  data: Record<string, unknown>;
}

interface DoorBase {
  /** A stable name: the door, and the variant where one door takes several (`terminal.withdrawn`, `gig-result.attested`). */
  command: string;
  method: 'POST';
  /** The operation, as the contract names it at the top level (`/matters/{id}/advance`). */
  door: string;
  /** Where to send it for this entity, under its grain's prefix. */
  href: string;
  /** The representative body asked (what an agent would send); absent when the door takes none. */
  body?: Record<string, unknown>;
  /** What the door does beyond the decision, when that matters to a caller. */
  note?: string;
}

export interface OpenDoor extends DoorBase {
  /** The machine events the decider sends, in order. */
  sends: string[];
  /** The edges they take (`edgeKey`). */
  transitions: string[];
}

export interface RefusedDoor extends DoorBase {
  status: number;
  code: string;
  error: string;
  fix?: string;
  rule?: string;
  /** The edges the machine declares for the command's event from this state (one declared only to refuse it, or the one the refusal stands in front of); none when it declares none. */
  transitions: string[];
}

export interface Inspection {
  subject: { kind: InspectedKind; id: string; links: { self: string; page: string; entity: string; stream: string } };
  machine: { id: string; version: number; diagram: string };
  /** The fact the answer is as of; `latest`: it is the stream's head. */
  at: { seq: number; version: number; latest: boolean };
  head: { seq: number; version: number };
  state: { path: string; status: string; final: boolean; tags: string[] };
  matter?: ReturnType<typeof matterView>;
  ladder?: ReturnType<typeof ladderView>;
  enrollment?: ReturnType<typeof enrollmentRow>;
  path: InspectionStep[];
  open: OpenDoor[];
  refused: RefusedDoor[];
}

/** What one door's decider answers for its representative command. */
interface Asked<E extends EventObject> {
  body?: Record<string, unknown>;
  decision: Decision<E>;
  /** The events the command stands for, for the refusing edges of a refused one. */
  probes: E[];
}

/** One command an entity's doors take, and how the inspection asks its decider. */
interface DoorSpec<M extends AnyStateMachine> {
  command: string;
  door: string;
  /** Where to send it: below the record's own address (`…/matters/mt_…/advance`), or from its grain's (`/firms/fm_…/enrollments`). */
  href(at: Addresses): string;
  note?: string;
  ask(subject: AsOf<M>, journal: JournalEvent[]): Asked<EventObject> | Promise<Asked<EventObject>>;
}

/** A record's address (`/workspaces/ws_…/matters/mt_…`) and its grain's (`/workspaces/ws_…`, `''` at the top level). */
interface Addresses {
  record: string;
  base: string;
}

/** The entity as of one fact: what a decider and a view read. */
type AsOf<M extends AnyStateMachine> = StoredState<M> & Subject<SnapshotFrom<M>>;

/** The Gig id a representative escalation names: a placeholder (a real advance mints its own). */
const PROBE_GIG = 'gig_inspection0000000000000';
const PROBE_HASH = `sha256:${'a'.repeat(64)}`;

/**
 * The fold of a stream's first `version` facts through the machine: each
 * step with the edges its cause selected, and the state reached. Each cause
 * is checked as a rebuild checks it; one the machine refuses answers as an
 * unreadable stream does.
 */
export function foldPath<M extends AnyStateMachine>(definition: EntityDefinition<M>, journal: JournalEvent[], version: number): { steps: InspectionStep[]; snapshot: SnapshotFrom<M> } {
  const machine = definition.machine;
  const index = edgeIndex(machine);
  const actor = createActor(machine, { input: (journal[0].cause as { input: InputFrom<M> }).input } as never);
  actor.start();
  const steps: InspectionStep[] = [];
  for (let i = 0; i < version; i++) {
    const e = journal[i];
    const before = actor.getSnapshot() as AnyMachineSnapshot;
    const cause = e.cause as EventObject | undefined;
    let transitions: string[] = [];
    let event: string | null = null;
    let from: string | null = statePath(before.value);
    if (i === 0) {
      event = 'xstate.init';
      from = null;
    } else if (cause) {
      event = cause.type;
      if (!before.can(cause)) {
        actor.stop();
        throw refusal('ENTITY_UNREADABLE', { detail: `stream ${e.stream} cannot be replayed: at seq ${e.seq} the machine refuses the recorded event (event ${cause.type}, state ${JSON.stringify(before.value)})`, id: e.stream }, { stream: e.stream, seq: e.seq, event: cause.type });
      }
      transitions = index.selected(before, cause);
      actor.send(cause as never);
    }
    steps.push(stepOf(e, i + 1, event, from, statePath((actor.getSnapshot() as AnyMachineSnapshot).value), transitions));
  }
  const snapshot = actor.getSnapshot() as SnapshotFrom<M>;
  actor.stop();
  return { steps, snapshot };
}

function stepOf(e: JournalEvent, step: number, event: string | null, from: string | null, to: string, transitions: string[]): InspectionStep {
  const data = e.data ?? {};
  const proposedBy = typeof data.proposedBy === 'string' ? data.proposedBy : undefined;
  const caller = data.callerProvenance as { actor?: string; mandate?: string } | undefined;
  const provenance = { ...(proposedBy ? { proposedBy } : {}), ...(caller?.actor ? { actor: caller.actor } : {}), ...(caller?.mandate ? { mandate: caller.mandate } : {}) };
  const attestation = data.attestation as { signedBy?: unknown } | undefined;
  const signer = e.by === 'signer' ? (e.actor ?? (typeof attestation?.signedBy === 'string' ? attestation.signedBy : null)) : null;
  return {
    step,
    seq: e.seq,
    version: e.version,
    at: e.at,
    kind: e.kind,
    ...(e.verb !== undefined ? { verb: e.verb } : {}),
    event,
    from,
    to,
    transitions,
    by: e.by ?? 'gate',
    actor: e.actor ?? null,
    note: e.summary,
    gigId: typeof data.gigId === 'string' ? data.gigId : null,
    signer,
    ...(Object.keys(provenance).length ? { provenance } : {}),
    data,
  };
}

/** Asks every door's decider on the entity as of one fact: the doors open, and the others with their refusals. */
async function doorsOf<M extends AnyStateMachine>(machine: M, specs: DoorSpec<M>[], subject: AsOf<M>, journal: JournalEvent[], addresses: Addresses): Promise<{ open: OpenDoor[]; refused: RefusedDoor[] }> {
  const index = edgeIndex(machine);
  const snapshot = subject.snapshot() as AnyMachineSnapshot;
  const open: OpenDoor[] = [];
  const refused: RefusedDoor[] = [];
  for (const spec of specs) {
    const { body, decision, probes } = await spec.ask(subject, journal);
    const base = { command: spec.command, method: 'POST' as const, door: spec.door, href: spec.href(addresses), ...(body ? { body } : {}), ...(spec.note ? { note: spec.note } : {}) };
    if ('send' in decision) {
      const transitions: string[] = [];
      let state = snapshot;
      for (const event of decision.send) {
        transitions.push(...index.selected(state, event));
        [state] = transition(machine, state as never, event as never) as [AnyMachineSnapshot, unknown];
      }
      open.push({ ...base, sends: decision.send.map((e) => e.type), transitions });
      continue;
    }
    const worded = refusalOf(decision.refuse);
    const transitions = [...new Set(probes.flatMap((probe) => {
      const selected = index.selected(snapshot, probe);
      return selected.length ? selected : index.declared(snapshot, probe.type);
    }))];
    const { fix, rule } = worded.extra as { fix?: string; rule?: string };
    refused.push({ ...base, status: worded.status, code: worded.code, error: worded.message, ...(typeof fix === 'string' ? { fix } : {}), ...(typeof rule === 'string' ? { rule } : {}), transitions });
  }
  return { open, refused };
}

/** The stream's first `version` facts, for `at`: the last fact at or before that seq; refused when `at` is before the stream opened. */
function versionAt(journal: JournalEvent[], at: number | undefined, what: string): number {
  if (at === undefined) return journal.length;
  let version = 0;
  while (version < journal.length && journal[version].seq <= at) version++;
  if (version === 0) throw refusal('INSPECTION_BEFORE_OPENING', { what, at, first: journal[0].seq, last: journal[journal.length - 1].seq }, { seq: journal[0].seq });
  return version;
}

// The Matter's doors, in the order its decider declares them (`matterDecider`).
type MatterSpec = DoorSpec<typeof matterMachine>;
type MatterAsOf = AsOf<typeof matterMachine>;

const matterSpecs = (matters: Matters): MatterSpec[] => {
  const below = (path: string) => (a: Addresses) => `${a.record}${path}`;
  const gigOf = (m: MatterAsOf) => m.snapshot().context.pendingGig?.gigId ?? PROBE_GIG;
  const answer = (outcome: 'attested' | 'send_back' | 'declined'): MatterSpec => ({
    command: `gig-result.${outcome}`,
    door: '/matters/{id}/gig-result',
    href: below('/gig-result'),
    note: 'a Signer\'s answer, sent by the supply network (at the top level, only as its signed callback); the Signer it names is verified by the Signer registry when it arrives',
    ask: (m) => {
      const gigId = gigOf(m);
      const body =
        outcome === 'attested' ? { gigId, outcome, attestation: { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: PROBE_HASH } }
        : outcome === 'send_back' ? { gigId, outcome, memo: 'the claims need another pass' }
        : { gigId, outcome, memo: 'outside my practice' };
      const decision = decideGigAnswer(m, { ...body, receipt: syntheticReceipt(factsOf(m).rail, gigId) });
      const probe: MatterEvent =
        outcome === 'attested' ? { type: 'GIG_ATTESTED', gigId, attestation: body.attestation! } : outcome === 'send_back' ? { type: 'GIG_SENT_BACK', gigId, memo: body.memo! } : { type: 'GIG_DECLINED', gigId, memo: body.memo! };
      return { body, decision, probes: [probe] };
    },
  });
  const terminal = (outcome: TerminalCommand['outcome'], body: TerminalCommand, probe: MatterEvent): MatterSpec => ({
    command: `terminal.${outcome}`,
    door: '/matters/{id}/terminal',
    href: below('/terminal'),
    ask: (m) => ({ body: { ...body }, decision: decideTerminal(m, body), probes: [probe] }),
  });
  return [
    {
      command: 'advance',
      door: '/matters/{id}/advance',
      href: below('/advance'),
      ask: async (m) => ({
        body: {},
        decision: decideAdvance(m, { by: 'agent', gigId: PROBE_GIG, gate: await matters.gate(m.grain, m, undefined) }),
        probes: [{ type: 'ADVANCE', by: 'agent' }, { type: 'ESCALATE', gigId: PROBE_GIG }],
      }),
    },
    {
      command: 'consent',
      door: '/matters/{id}/consent',
      href: below('/consent'),
      ask: (m) => {
        const body = { actor: 'client', scope: 'this Matter' };
        return { body, decision: decideConsent(m, body), probes: [{ type: 'CONSENT', ...body }] };
      },
    },
    answer('attested'),
    answer('send_back'),
    answer('declined'),
    {
      command: 'client-direction',
      door: '/matters/{id}/client-direction',
      href: below('/client-direction'),
      ask: (m) => {
        const body = { instruction: 'proceed as advised' };
        return { body, decision: decideClientDirection(m, { ...body, gigId: PROBE_GIG }), probes: [{ type: 'CLIENT_DIRECTION', ...body }] };
      },
    },
    terminal('withdrawn', { outcome: 'withdrawn', byClient: true }, { type: 'WITHDRAW', byClient: true }),
    terminal('lapsed', { outcome: 'lapsed', confirmedUnresponsiveTwice: true }, { type: 'LAPSE', confirmedUnresponsiveTwice: true }),
    terminal('referred_out', { outcome: 'referred_out', referredTo: 'outside counsel' }, { type: 'REFER_OUT', referredTo: 'outside counsel' }),
    {
      command: 'documents',
      door: '/matters/{id}/documents',
      href: below('/documents'),
      ask: (m) => {
        const body = { name: 'specification.pdf', kind: 'specification', sha256: PROBE_HASH.slice('sha256:'.length) };
        const document = { id: 'doc_inspection000000000000', ...body };
        return { body, decision: decideDocument(m, document), probes: [{ type: 'RECORD_DOCUMENT', document }] };
      },
    },
  ];
};

// The ladder's doors, in the order its decider declares them (`ladderDecider`).
type LadderSpec = DoorSpec<typeof deadlineLadderMachine>;
const ladderSpec = <B extends Record<string, unknown>>(command: string, path: string, body: B, decide: (l: AsOf<typeof deadlineLadderMachine>, body: B) => Decision<EventObject>, probe: LadderEvent): LadderSpec => ({
  command,
  door: `/deadlines/{assetId}${path}`,
  href: (a) => `${a.record}${path}`,
  ask: (l) => ({ body, decision: decide(l, body), probes: [probe] }),
});
const LADDER_SPECS: LadderSpec[] = [
  ladderSpec('tick', '/tick', { days: 1 }, decideTick, { type: 'TICK', days: 1 }),
  ladderSpec('ack', '/ack', { actor: 'Ada Lovelace' }, decideAck, { type: 'ACK', actor: 'Ada Lovelace' }),
  ladderSpec('monitor', '/monitor', { signerId: 'platform' }, decideMonitor, { type: 'MONITOR', signerId: 'platform' }),
  ladderSpec('satisfy', '/satisfy', { evidenceRef: 'uspto-receipt:63/123,456' }, decideSatisfy, { type: 'SATISFY', evidenceRef: 'uspto-receipt:63/123,456' }),
  ...TERMINAL_OUTCOMES.map((outcome) => ladderSpec(`resolve.${outcome}`, '/resolve', { outcome }, decideResolve, { type: 'RESOLVE', outcome })),
];

// The Enrollment's doors, in the order its decider declares them (`enrollmentDecider`).
type EnrollmentSpec = DoorSpec<typeof enrollmentMachine>;
const ENROLLMENT_SPECS: EnrollmentSpec[] = [
  {
    command: 'amend',
    door: '/firms/{firmId}/enrollments',
    href: (a) => `${a.base}/enrollments`,
    note: 'amends the member\'s live Enrollment with grants it does not hold; once the Enrollment is revoked, the same door opens a new one for the member instead',
    ask: (e) => {
      const { memberId, grants: held } = e.snapshot().context;
      const missing = ENROLLMENT_GRANTS.filter((g) => !held.includes(g));
      const grants = missing.length ? [missing[0]] : [...ENROLLMENT_GRANTS];
      return { body: { memberId, grants }, decision: decideAmend(e, { grants }), probes: [{ type: 'AMEND', grants, executedBy: memberId }] };
    },
  },
  {
    command: 'revoke',
    door: '/firms/{firmId}/enrollments/{memberId}/revoke',
    href: (a) => `${a.record}/revoke`,
    ask: (e, journal) => {
      const { memberId } = e.snapshot().context;
      // As the door asks it: when the Enrollment was revoked, read from its journal.
      const revokedAt = journal.find((j) => j.kind === 'enrollment.revoked')?.at;
      return { decision: decideRevoke(e, { revokedAt }), probes: [{ type: 'REVOKE', executedBy: memberId }] };
    },
  },
];

/**
 * The inspections of a service's entities: each loads the entity the
 * grain reaches (404 as its other reads), folds its journal up to `at` and
 * asks its deciders there.
 */
export class Inspections {
  constructor(
    private readonly supervisor: Supervisor,
    private readonly matters: Matters,
    private readonly firms: Firms,
  ) {}

  /** A Matter's inspection, as of its head or of the fact at or before seq `at`. */
  async matter(grain: string, id: string, at?: number): Promise<Inspection> {
    const entity = await this.matters.get(grain, id);
    const base = grainBase(entity.grain);
    const self = `${base}/matters/${encodeURIComponent(entity.id)}`;
    return this.inspect({
      kind: 'matter',
      id: entity.id,
      definition: MATTER,
      journal: entity.journal,
      at,
      what: `Matter ${entity.id}`,
      links: { self: `${self}/inspection`, page: `${self}/inspect`, entity: self, stream: `${base}/events/stream` },
      addresses: { record: self, base },
      specs: matterSpecs(this.matters),
      status: (s) => matterStatus(s),
      view: (asOf) => ({ matter: matterView(asOf) }),
    });
  }

  /** An Asset's Deadline Ladder's inspection. */
  async ladder(grain: string, assetId: string, at?: number): Promise<Inspection> {
    const entity = await this.supervisor.loadIn(LADDER, ladderStreamOf(assetId), grain);
    if (!entity) throw LADDER.notFound(ladderStreamOf(assetId));
    const base = grainBase(entity.grain);
    const self = `${base}/deadlines/${encodeURIComponent(assetId)}`;
    return this.inspect({
      kind: 'deadline-ladder',
      id: assetId,
      definition: LADDER,
      journal: entity.journal,
      at,
      what: `the Deadline Ladder of Asset ${assetId}`,
      links: { self: `${self}/inspection`, page: `${self}/inspect`, entity: self, stream: `${base}/events/stream` },
      addresses: { record: self, base },
      specs: LADDER_SPECS,
      status: (s) => (isResolved(s) ? 'resolved' : 'open'),
      view: (asOf) => ({ ladder: ladderView(asOf) }),
    });
  }

  /** A member's current Enrollment's inspection, in a firm. */
  async enrollment(firmId: string, memberId: string, at?: number): Promise<Inspection> {
    const current = (await this.firms.currentEnrollments(firmId)).find((e) => e.snapshot().context.memberId === memberId);
    if (!current) throw refusal('ENROLLMENT_NOT_FOUND', { memberId, firmId }, { memberId });
    const base = grainBase(current.grain);
    const self = `${base}/enrollments/${encodeURIComponent(memberId)}`;
    return this.inspect({
      kind: 'enrollment',
      id: current.id,
      definition: ENROLLMENT,
      journal: current.journal,
      at,
      what: `the Enrollment ${current.id} of member ${memberId}`,
      links: { self: `${self}/inspection`, page: `${self}/inspect`, entity: `${base}/enrollments`, stream: `${base}/events/stream` },
      addresses: { record: self, base },
      specs: ENROLLMENT_SPECS,
      status: (s) => enrollmentStatus(s.value),
      view: (asOf) => ({ enrollment: enrollmentRow(new Entity(ENROLLMENT, current.journal.slice(0, asOf.version))) }),
    });
  }

  private async inspect<M extends AnyStateMachine>(o: {
    kind: InspectedKind;
    id: string;
    definition: EntityDefinition<M>;
    journal: JournalEvent[];
    at: number | undefined;
    what: string;
    links: Inspection['subject']['links'];
    addresses: Addresses;
    specs: DoorSpec<M>[];
    status(snapshot: SnapshotFrom<M>): string;
    view(asOf: AsOf<M>): Pick<Inspection, 'matter' | 'ladder' | 'enrollment'>;
  }): Promise<Inspection> {
    const { journal, definition } = o;
    const version = versionAt(journal, o.at, o.what);
    const { steps, snapshot } = foldPath(definition, journal, version);
    const asOf = new StoredState(journal[0], version, snapshot) as AsOf<M>;
    const { open, refused } = await doorsOf(definition.machine, o.specs, asOf, journal.slice(0, version), o.addresses);
    const last = journal[version - 1];
    const head = journal[journal.length - 1];
    const s = snapshot as AnyMachineSnapshot;
    return {
      subject: { kind: o.kind, id: o.id, links: o.links },
      machine: { id: definition.machine.id, version: definition.version, diagram: `/docs/diagrams/${definition.machine.id}.svg` },
      at: { seq: last.seq, version, latest: version === journal.length },
      head: { seq: head.seq, version: journal.length },
      state: { path: statePath(s.value), status: o.status(snapshot), final: s.status === 'done', tags: [...s.tags].sort() },
      ...o.view(asOf),
      path: steps,
      open,
      refused,
    };
  }
}
