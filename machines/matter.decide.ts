/**
 * What a command does to a Matter, decided once, from the machine: the
 * events the actor is sent, or the refusal (naming the rule and the fix).
 * `decide(command, state) → events`, as the Decider pattern has it; the
 * machine is `evolve`, and emits the facts.
 *
 * Everything is read off the machine: whether it takes an event
 * (`snapshot.can`), which guard stands in the way (the transition's guard,
 * from `getNextTransitions`), which reserved act a stage escalates (the
 * `escalate` action's params), whether the Matter is final (`status`), waits
 * on a Signer or on its Client (state tags). No other module branches on a
 * Matter state's name. Pure: ids, the Gate's verdict and receipts arrive in
 * the command.
 */
import { getNextTransitions, type SnapshotFrom } from 'xstate';
import type { Refusal } from '../src/domain/refusal.ts';
import { refusal } from '../src/domain/refusals.ts';
import { matterMachine, TAG, type Attestation, type MatterEvent, type MatterStatus, type ReservedAct } from './matter.ts';

type Snapshot = SnapshotFrom<typeof matterMachine>;

/** The events to send to the Matter's actor, in order; or the Gig to post first (`escalate`); or why not. */
export type Decision = { send: MatterEvent[] } | { escalate: ReservedAct } | { refuse: Refusal };

/** The Attestation's shapes: a credential `<registry>:<number>`, an artifact `sha256:<64 hex>`. The contract publishes the same patterns. */
export const CREDENTIAL_REF = /^[a-z][a-z0-9-]*:[A-Za-z0-9-]+$/;
export const ARTIFACT_HASH = /^sha256:[0-9a-f]{64}$/;

const refused = (refusal: Refusal): Decision => ({ refuse: refusal });

/** The one name a Matter's state goes by: a leaf of `open`, or a terminal. */
export function statusOf(snapshot: Snapshot): MatterStatus {
  // The machine's state names are the statuses (its top-level states, and the states inside `open`).
  const value = snapshot.value as MatterStatus | { open: MatterStatus };
  return typeof value === 'string' ? value : value.open;
}

/** A terminal is forever: every journal-writing door answers 409. */
export function terminalRefusal(snapshot: Snapshot, id: string, doing = 'a terminal is forever'): Refusal | null {
  return snapshot.status === 'done' ? refusal('MATTER_TERMINAL', { matterId: id, status: statusOf(snapshot), consequence: doing }, { matterId: id, status: statusOf(snapshot) }) : null;
}

function waitingRefusal(snapshot: Snapshot, id: string): Refusal | null {
  if (!snapshot.hasTag(TAG.awaitingSigner)) return null;
  const gig = snapshot.context.pendingGig!;
  return refusal('MATTER_WAITING_ON_SIGNER', { matterId: id, reservedAct: gig.reservedAct, gigId: gig.gigId }, { matterId: id, pendingGigId: gig.gigId });
}

/** The reserved act this state escalates, read off its `escalate` action; null where it escalates none. */
export function reservedActOf(snapshot: Snapshot): ReservedAct | null {
  for (const t of getNextTransitions(snapshot)) {
    if (t.eventType !== 'ESCALATE') continue;
    for (const action of t.actions) {
      const a = action as { type?: string; params?: { reservedAct?: ReservedAct } };
      if (a.type === 'escalate' && a.params?.reservedAct) return a.params.reservedAct;
    }
  }
  return null;
}

/** The guard that keeps the machine from taking `event` here, when one does. */
function blockingGuard(snapshot: Snapshot, event: MatterEvent): string | null {
  const guard = getNextTransitions(snapshot).find((t) => t.eventType === event.type && t.guard)?.guard as string | { type?: string } | undefined;
  // A guard referenced by name is its name; an inline or parameterized one carries it as `type`.
  return typeof guard === 'string' ? guard : (guard?.type ?? null);
}

/** Can the Matter move on without anyone else answering first (a Signer, its Client), and is it open? */
export const advanceable = (snapshot: Snapshot): boolean => snapshot.status !== 'done' && !snapshot.hasTag(TAG.awaitingSigner) && !snapshot.hasTag(TAG.awaitingClient);

/**
 * Advance: the next Stage Verb commits, or the stage's reserved act
 * escalates. `gate` is the Gate's verdict on mechanics and merits, which
 * stops an open Matter before anything else does.
 */
export function decideAdvance(snapshot: Snapshot, id: string, command: { by: string; note?: string; gate: Refusal | null }): Decision {
  const stop = terminalRefusal(snapshot, id) ?? waitingRefusal(snapshot, id);
  if (stop) return refused(stop);
  if (snapshot.hasTag(TAG.awaitingClient)) {
    return refused(refusal('MATTER_NEEDS_CLIENT_DIRECTION', { matterId: id }, { matterId: id }));
  }
  if (command.gate) return refused(command.gate);
  const act = reservedActOf(snapshot);
  if (act) return { escalate: act };
  const event: MatterEvent = { type: 'ADVANCE', by: command.by, ...(command.note ? { note: command.note } : {}) };
  if (snapshot.can(event)) return { send: [event] };
  return refused(guardRefusal(snapshot, id, event));
}

export function decideConsent(snapshot: Snapshot, id: string, command: { actor: string; scope: string }): Decision {
  const stop = terminalRefusal(snapshot, id);
  if (stop) return refused(stop);
  if (command.actor !== 'client') {
    return refused(refusal('ACTOR_NOT_CLIENT', { actor: command.actor, door: 'consent' }, { rule: 'consent' }));
  }
  return { send: [{ type: 'CONSENT', actor: command.actor, scope: command.scope }] };
}

export interface GigAnswer {
  gigId: string;
  outcome: 'attested' | 'send_back' | 'declined';
  attestation?: Partial<Attestation>;
  memo?: string;
  /** The filed receipt an attested `file` act carries (the network's, else the preview's synthetic one). */
  receipt: string;
}

/**
 * A Signer's answer to the pending Gig. An attested `file` act carries the
 * filed receipt, and the lifecycle commits `fulfilled` in the same step,
 * when the state the attestation lands in takes the receipt.
 */
export function decideGigAnswer(snapshot: Snapshot, id: string, answer: GigAnswer): Decision {
  const stop = terminalRefusal(snapshot, id);
  if (stop) return refused(stop);
  const pending = snapshot.context.pendingGig;
  if (!pending) return refused(refusal('NO_PENDING_GIG', { matterId: id, status: statusOf(snapshot) }));
  if (pending.gigId !== answer.gigId) {
    return refused(refusal('GIG_MISMATCH', { matterId: id, gigId: answer.gigId, pendingGigId: pending.gigId }, { pendingGigId: pending.gigId }));
  }
  const signedBy = answer.attestation?.signedBy;
  if (answer.outcome === 'attested') {
    const invalid = attestationRefusal(answer.attestation);
    if (invalid) return refused(invalid);
    const attested: MatterEvent = { type: 'GIG_ATTESTED', gigId: pending.gigId, attestation: answer.attestation as Attestation };
    // The filing's attestation carries the filed receipt, which closes the Matter in the same step.
    return pending.reservedAct === 'file' ? { send: [{ ...attested, receipt: answer.receipt }, { type: 'FILE_RECEIPT', receipt: answer.receipt }] } : { send: [attested] };
  }
  if (!answer.memo?.trim()) {
    return refused(answer.outcome === 'send_back' ? refusal('GATE_DEFECTS', {}) : refusal('GATE_MEMO', {}));
  }
  const by = signedBy ? { signedBy } : {};
  return { send: [answer.outcome === 'send_back' ? { type: 'GIG_SENT_BACK', gigId: pending.gigId, memo: answer.memo, ...by } : { type: 'GIG_DECLINED', gigId: pending.gigId, memo: answer.memo, ...by }] };
}

function attestationRefusal(a: Partial<Attestation> | undefined): Refusal | null {
  if (!a || !a.signedBy || !a.credentialRef || !a.artifactHash) return refusal('GATE_ATTESTATION', { flaw: 'missing' });
  if (!CREDENTIAL_REF.test(a.credentialRef)) return refusal('GATE_ATTESTATION', { flaw: 'credentialRef', credentialRef: a.credentialRef });
  if (!ARTIFACT_HASH.test(a.artifactHash)) return refusal('GATE_ATTESTATION', { flaw: 'artifactHash' });
  return null;
}

/**
 * The Client's direction: accepted in any open state, never blocked. After
 * a Declination it reopens the Matter before the declined act, which then
 * escalates again (`reopens`).
 */
export function decideClientDirection(snapshot: Snapshot, id: string, command: { instruction: string; authorizes?: Record<string, unknown> }): Decision & { reopens?: boolean } {
  const stop = terminalRefusal(snapshot, id);
  if (stop) return refused(stop);
  const event: MatterEvent = { type: 'CLIENT_DIRECTION', instruction: command.instruction, ...(command.authorizes ? { authorizes: command.authorizes } : {}) };
  return { send: [event], reopens: snapshot.hasTag(TAG.awaitingClient) };
}

export type TerminalCommand = { outcome: 'withdrawn' | 'lapsed' | 'referred_out'; byClient?: boolean; confirmedUnresponsiveTwice?: boolean; referredTo?: string; note?: string };

export function decideTerminal(snapshot: Snapshot, id: string, command: TerminalCommand): Decision {
  const stop = terminalRefusal(snapshot, id) ?? waitingRefusal(snapshot, id);
  if (stop) return refused(stop);
  const note = command.note ? { note: command.note } : {};
  const event: MatterEvent =
    command.outcome === 'withdrawn' ? { type: 'WITHDRAW', byClient: command.byClient === true, ...note }
    : command.outcome === 'lapsed' ? { type: 'LAPSE', confirmedUnresponsiveTwice: command.confirmedUnresponsiveTwice === true, ...note }
    : { type: 'REFER_OUT', referredTo: command.referredTo ?? '', ...note };
  return snapshot.can(event) ? { send: [event] } : refused(guardRefusal(snapshot, id, event));
}

export function decideDocument(snapshot: Snapshot, id: string, document: { id: string; name: string; kind: string; sha256: string }): Decision {
  const stop = terminalRefusal(snapshot, id, 'its file is closed');
  return stop ? refused(stop) : { send: [{ type: 'RECORD_DOCUMENT', document }] };
}

/** The refusal each guard of the machine stands for, worded for the caller. */
const GUARD_REFUSALS: Record<string, (snapshot: Snapshot, id: string) => Refusal> = {
  consentSatisfied: (s, id) => refusal('GATE_CONSENT', { matterId: id, consumerPattern: s.context.consumerPattern }),
  byClient: () => refusal('GATE_ACTOR', {}),
  confirmedUnresponsiveTwice: () => refusal('GATE_PREDICATE', { outcome: 'lapsed' }),
  referredToPresent: () => refusal('GATE_PREDICATE', { outcome: 'referred_out' }),
};

function guardRefusal(snapshot: Snapshot, id: string, event: MatterEvent): Refusal {
  const guard = blockingGuard(snapshot, event);
  const word = guard ? GUARD_REFUSALS[guard] : undefined;
  return word ? word(snapshot, id) : refusal('STATE_REFUSES', { subject: `Matter ${id} is ${statusOf(snapshot)}`, event: event.type }, { matterId: id, status: statusOf(snapshot) });
}
