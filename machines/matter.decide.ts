/**
 * What each command does to a Matter, decided once, from the machine: the
 * events its actor is sent, or the refusal (by its catalog code, naming the
 * rule). `decide(command, state) → events`, as the Decider pattern has it;
 * the machine is `evolve`, and emits the facts.
 *
 * Everything is read off the machine: whether it takes an event
 * (`snapshot.can`), which guard stands in the way (the transition's guard,
 * from `getNextTransitions`), whether the Matter is final (`status`), waits
 * on a Signer or on its Client (state tags). No other module branches on a
 * Matter state's name. Pure: the Gig id an escalation journals, the Gate's
 * verdict, the Signer registry's verdict and the filed receipt arrive in the
 * command.
 */
import { getNextTransitions, type SnapshotFrom } from 'xstate';
import { refuses, sends, type Decision, type Refusing, type Subject } from './decision.ts';
import { matterMachine, matterStatus, TAG, type Attestation, type MatterEvent } from './matter.ts';

type Matter = Subject<SnapshotFrom<typeof matterMachine>>;

/** Every refusal a Matter decider names, besides the Gate's verdict it passes on (the specs cover each). */
export const MATTER_REFUSALS = [
  'MATTER_TERMINAL',
  'MATTER_WAITING_ON_SIGNER',
  'MATTER_NEEDS_CLIENT_DIRECTION',
  'ACTOR_NOT_CLIENT',
  'NO_PENDING_GIG',
  'GIG_MISMATCH',
  'GATE_ATTESTATION',
  'GATE_DEFECTS',
  'GATE_MEMO',
  'GATE_CONSENT',
  'GATE_ACTOR',
  'GATE_PREDICATE',
  'SIGNER_ELIGIBILITY',
  'SIGNER_STANDING',
  'SIGNER_COVERAGE',
  'SIGNER_CREDENTIAL',
  'STATE_REFUSES',
] as const;

export type MatterDecision = Decision<MatterEvent>;

/** The Attestation's shapes: a credential `<registry>:<number>`, an artifact `sha256:<64 hex>`. The contract publishes the same patterns. */
export const CREDENTIAL_REF = /^[a-z][a-z0-9-]*:[A-Za-z0-9-]+$/;
export const ARTIFACT_HASH = /^sha256:[0-9a-f]{64}$/;

const refused = refuses<(typeof MATTER_REFUSALS)[number]>;

/** A terminal is forever: every journal-writing door answers 409. */
function terminalRefusal(matter: Matter, doing = 'a terminal is forever'): MatterDecision | null {
  const snapshot = matter.snapshot();
  if (snapshot.status !== 'done') return null;
  const status = matterStatus(snapshot);
  return refused('MATTER_TERMINAL', { matterId: matter.id, status, consequence: doing }, { matterId: matter.id, status });
}

function waitingRefusal(matter: Matter): MatterDecision | null {
  const snapshot = matter.snapshot();
  if (!snapshot.hasTag(TAG.awaitingSigner)) return null;
  const gig = snapshot.context.pendingGig!;
  return refused('MATTER_WAITING_ON_SIGNER', { matterId: matter.id, reservedAct: gig.reservedAct, gigId: gig.gigId }, { matterId: matter.id, pendingGigId: gig.gigId });
}

/** Can the Matter move on without anyone else answering first (a Signer, its Client), and is it open? */
export const advanceable = (snapshot: SnapshotFrom<typeof matterMachine>): boolean => snapshot.status !== 'done' && !snapshot.hasTag(TAG.awaitingSigner) && !snapshot.hasTag(TAG.awaitingClient);

export interface AdvanceCommand {
  by: string;
  note?: string;
  /** The Gig a reserved act escalates as: its id, minted by the caller (journaled with the escalation, then posted). */
  gigId: string;
  /** The Gate's verdict on mechanics and merits (null: they hold), which stops an open Matter before anything else does. */
  gate: Refusing | null;
}

/** Advance: the next Stage Verb commits, or the stage's reserved act escalates as a Gig. */
export function decideAdvance(matter: Matter, command: AdvanceCommand): MatterDecision {
  const snapshot = matter.snapshot();
  const stop = terminalRefusal(matter) ?? waitingRefusal(matter);
  if (stop) return stop;
  if (snapshot.hasTag(TAG.awaitingClient)) return refused('MATTER_NEEDS_CLIENT_DIRECTION', { matterId: matter.id }, { matterId: matter.id });
  if (command.gate) return { refuse: command.gate };
  const escalation: MatterEvent = { type: 'ESCALATE', gigId: command.gigId };
  if (snapshot.can(escalation)) return sends(escalation);
  const event: MatterEvent = { type: 'ADVANCE', by: command.by, ...(command.note ? { note: command.note } : {}) };
  return snapshot.can(event) ? sends(event) : guardRefusal(matter, event);
}

export function decideConsent(matter: Matter, command: { actor: string; scope: string }): MatterDecision {
  const stop = terminalRefusal(matter);
  if (stop) return stop;
  if (command.actor !== 'client') return refused('ACTOR_NOT_CLIENT', { actor: command.actor, door: 'consent' }, { rule: 'consent' });
  return sends({ type: 'CONSENT', actor: command.actor, scope: command.scope });
}

/** Why the Signer registry does not count a Signer, by the predicate that failed. */
export type SignerPredicate = 'eligibility' | 'standing' | 'coverage' | 'credential';

/** The Signer registry's answer about one Signer, asked fresh when their answer would be applied. */
export type SignerVerdict =
  | { eligible: true; signerId: string }
  | { eligible: false; signerId: string; predicate: SignerPredicate; error: string; cure: string };

const SIGNER_REFUSALS = { eligibility: 'SIGNER_ELIGIBILITY', standing: 'SIGNER_STANDING', coverage: 'SIGNER_COVERAGE', credential: 'SIGNER_CREDENTIAL' } as const;

export interface GigAnswer {
  gigId: string;
  outcome: 'attested' | 'send_back' | 'declined';
  attestation?: Partial<Attestation>;
  memo?: string;
  /** The filed receipt an attested `file` act carries (the network's, else the preview's synthetic one). */
  receipt: string;
  /**
   * The registry's verdict on the Signer the answer names (`attestation.signedBy`),
   * asked only once the rest of the answer is taken; absent, not asked yet.
   */
  signer?: SignerVerdict;
}

/**
 * A Signer's answer to the pending Gig. An attested `file` act carries the
 * filed receipt, and the lifecycle commits `fulfilled` in the same step,
 * when the state the attestation lands in takes the receipt.
 */
export function decideGigAnswer(matter: Matter, answer: GigAnswer): MatterDecision {
  const stop = terminalRefusal(matter);
  if (stop) return stop;
  const snapshot = matter.snapshot();
  const pending = snapshot.context.pendingGig;
  if (!pending) return refused('NO_PENDING_GIG', { matterId: matter.id, status: matterStatus(snapshot) });
  if (pending.gigId !== answer.gigId) return refused('GIG_MISMATCH', { matterId: matter.id, gigId: answer.gigId, pendingGigId: pending.gigId }, { pendingGigId: pending.gigId });
  const taken = answerEvents(answer, pending.gigId, pending.reservedAct === 'file');
  if ('refuse' in taken) return taken;
  const signer = answer.signer;
  if (signer && !signer.eligible) return refused(SIGNER_REFUSALS[signer.predicate], { error: signer.error }, { predicate: signer.predicate, cure: signer.cure, pendingGigId: answer.gigId });
  return taken;
}

/** The events an answer sends to a Matter holding its Gig, or why the Gate refuses it as worded. */
function answerEvents(answer: GigAnswer, gigId: string, filing: boolean): MatterDecision {
  if (answer.outcome === 'attested') {
    const invalid = attestationRefusal(answer.attestation);
    if (invalid) return invalid;
    const attested: MatterEvent = { type: 'GIG_ATTESTED', gigId, attestation: answer.attestation as Attestation };
    // The filing's attestation carries the filed receipt, which closes the Matter in the same step.
    return filing ? sends({ ...attested, receipt: answer.receipt }, { type: 'FILE_RECEIPT', receipt: answer.receipt }) : sends(attested);
  }
  if (!answer.memo?.trim()) return answer.outcome === 'send_back' ? refused('GATE_DEFECTS') : refused('GATE_MEMO');
  const signedBy = answer.attestation?.signedBy;
  const by = signedBy ? { signedBy } : {};
  return sends(answer.outcome === 'send_back' ? { type: 'GIG_SENT_BACK', gigId, memo: answer.memo, ...by } : { type: 'GIG_DECLINED', gigId, memo: answer.memo, ...by });
}

function attestationRefusal(a: Partial<Attestation> | undefined): MatterDecision | null {
  if (!a || !a.signedBy || !a.credentialRef || !a.artifactHash) return refused('GATE_ATTESTATION', { flaw: 'missing' });
  if (!CREDENTIAL_REF.test(a.credentialRef)) return refused('GATE_ATTESTATION', { flaw: 'credentialRef', credentialRef: a.credentialRef });
  if (!ARTIFACT_HASH.test(a.artifactHash)) return refused('GATE_ATTESTATION', { flaw: 'artifactHash' });
  return null;
}

export interface ClientDirectionCommand {
  instruction: string;
  authorizes?: Record<string, unknown>;
  /** The fresh Gig a direction after a Declination escalates the declined act as (minted by the caller). */
  gigId: string;
}

/**
 * The Client's direction: accepted in any open state, never blocked. After
 * a Declination it reopens the Matter before the declined act, which
 * escalates again, as a fresh Gig, in the same commit.
 */
export function decideClientDirection(matter: Matter, command: ClientDirectionCommand): MatterDecision {
  const stop = terminalRefusal(matter);
  if (stop) return stop;
  const direction: MatterEvent = { type: 'CLIENT_DIRECTION', instruction: command.instruction, ...(command.authorizes ? { authorizes: command.authorizes } : {}) };
  return matter.snapshot().hasTag(TAG.awaitingClient) ? sends<MatterEvent>(direction, { type: 'ESCALATE', gigId: command.gigId }) : sends(direction);
}

export type TerminalCommand = { outcome: 'withdrawn' | 'lapsed' | 'referred_out'; byClient?: boolean; confirmedUnresponsiveTwice?: boolean; referredTo?: string; note?: string };

export function decideTerminal(matter: Matter, command: TerminalCommand): MatterDecision {
  const stop = terminalRefusal(matter) ?? waitingRefusal(matter);
  if (stop) return stop;
  const note = command.note ? { note: command.note } : {};
  const event: MatterEvent =
    command.outcome === 'withdrawn' ? { type: 'WITHDRAW', byClient: command.byClient === true, ...note }
    : command.outcome === 'lapsed' ? { type: 'LAPSE', confirmedUnresponsiveTwice: command.confirmedUnresponsiveTwice === true, ...note }
    : { type: 'REFER_OUT', referredTo: command.referredTo ?? '', ...note };
  return matter.snapshot().can(event) ? sends(event) : guardRefusal(matter, event);
}

export function decideDocument(matter: Matter, document: { id: string; name: string; kind: string; sha256: string }): MatterDecision {
  return terminalRefusal(matter, 'its file is closed') ?? sends({ type: 'RECORD_DOCUMENT', document });
}

/** Every command a Matter takes, by name: what the inspection asks of each. */
export const matterDecider = {
  advance: decideAdvance,
  consent: decideConsent,
  gigAnswer: decideGigAnswer,
  clientDirection: decideClientDirection,
  terminal: decideTerminal,
  document: decideDocument,
};

/** The refusal each guard of the machine stands for, worded for the caller. */
const GUARD_REFUSALS: Record<string, (matter: Matter) => MatterDecision> = {
  consentSatisfied: (m) => refused('GATE_CONSENT', { matterId: m.id, consumerPattern: m.snapshot().context.consumerPattern }),
  byClient: () => refused('GATE_ACTOR'),
  confirmedUnresponsiveTwice: () => refused('GATE_PREDICATE', { outcome: 'lapsed' }),
  referredToPresent: () => refused('GATE_PREDICATE', { outcome: 'referred_out' }),
};

/** Why the machine does not take `event`: the guard in the way, or its state. */
function guardRefusal(matter: Matter, event: MatterEvent): MatterDecision {
  const snapshot = matter.snapshot();
  const guard = getNextTransitions(snapshot).find((t) => t.eventType === event.type && t.guard)?.guard as string | { type?: string } | undefined;
  // A guard referenced by name is its name; an inline or parameterized one carries it as `type`.
  const word = GUARD_REFUSALS[typeof guard === 'string' ? guard : (guard?.type ?? '')];
  if (word) return word(matter);
  const status = matterStatus(snapshot);
  return refused('STATE_REFUSES', { subject: `Matter ${matter.id} is ${status}`, event: event.type }, { matterId: matter.id, status });
}
