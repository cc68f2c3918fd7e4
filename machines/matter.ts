/**
 * The Matter machine: one Client's one legal objective, driven through the six
 * Stage Verbs to a terminal. It encodes the spec's "States and transitions"
 * table (kept as data in `matter.table.ts`, which a test holds equal to this).
 *
 * Pure by construction: no I/O, no delays, no clock. Time, ids and the answers
 * of the outside world (a Gig id, an Attestation, a filed receipt) arrive inside
 * events. Every accepted event emits exactly one fact through `emit`; the
 * supervisor journals that fact, and replaying the journaled events through
 * `transition()` rebuilds the same snapshot without re-running anything.
 *
 * "From any open stage" transitions live on the compound `open` state, so the
 * four terminals are final in the graph too.
 */
import { assign, emit, enqueueActions, setup, type SnapshotFrom } from 'xstate';
import { fact, type EmittedFact } from './fact.ts';

export const STAGE_VERBS = ['intake', 'prepare', 'examine', 'review', 'sign', 'file'] as const;
export type StageVerb = (typeof STAGE_VERBS)[number];
export const TERMINALS = ['fulfilled', 'withdrawn', 'lapsed', 'referred_out'] as const;
export type Terminal = (typeof TERMINALS)[number];
/** What a Matter's state is called: a Stage Verb, waiting on a Signer, needing the Client's direction, or a terminal. */
export type MatterStatus = StageVerb | 'waiting_on_signer' | 'needs_client_direction' | Terminal;
/** The agent classes a Matter is opened for (a B2A2D Matter needs the Client's consent to pass intake). */
export const CONSUMER_PATTERNS = ['B2A', 'B2H2A', 'B2A2D'] as const;
export type ConsumerPattern = (typeof CONSUMER_PATTERNS)[number];
/** The stage acts the law reserves to a licensed human: they escalate as Gigs. */
export const RESERVED_ACTS = ['sign', 'file'] as const;
export type ReservedAct = (typeof RESERVED_ACTS)[number];
/** The state tags the decider reads: who the Matter waits on. */
export const TAG = { awaitingSigner: 'awaiting-signer', awaitingClient: 'awaiting-client' } as const;

export interface Attestation {
  signedBy: string;
  credentialRef: string;
  artifactHash: string;
}

export interface MatterInput {
  consumerPattern: ConsumerPattern;
}

export interface MatterContext {
  consumerPattern: ConsumerPattern;
  consented: boolean;
  /** The one Gig a Matter may hold at a time. */
  pendingGig: { gigId: string; reservedAct: ReservedAct } | null;
  /** The reserved act a Declination stopped; a Client direction re-posts it. */
  declinedAct: ReservedAct | null;
  attestedActs: number;
  receipt: string | null;
}

/** Who proposed a write; the Gate alone commits. */
type By = { by: string; note?: string };

export type MatterEvent =
  | ({ type: 'ADVANCE' } & By)
  | { type: 'ESCALATE'; gigId: string }
  | { type: 'GIG_ATTESTED'; gigId: string; attestation: Attestation; receipt?: string }
  | { type: 'GIG_SENT_BACK'; gigId: string; memo: string; signedBy?: string }
  | { type: 'GIG_DECLINED'; gigId: string; memo: string; signedBy?: string }
  | { type: 'CONSENT'; actor: string; scope: string }
  | { type: 'CLIENT_DIRECTION'; instruction: string; authorizes?: Record<string, unknown> }
  | { type: 'WITHDRAW'; byClient: boolean; note?: string }
  | { type: 'LAPSE'; confirmedUnresponsiveTwice: boolean; note?: string }
  | { type: 'REFER_OUT'; referredTo: string; note?: string }
  | { type: 'FILE_RECEIPT'; receipt: string }
  | { type: 'RECORD_DOCUMENT'; document: { id: string; name: string; kind: string; sha256: string } };

export type MatterEventType = MatterEvent['type'];

const NEXT_STAGE = { intake: 'prepare', prepare: 'examine', examine: 'review' } as const;
type Ev<T extends MatterEventType> = Extract<MatterEvent, { type: T }>;

/**
 * The Matter machine's version, recorded in the opening cause of every stream
 * it opens (`machine: '<id>@<version>'`). Bump it when a change alters how
 * journaled events fold, and follow docs/versioning.md (an upcaster or the
 * old definition kept for the old streams; new recorded journals beside the old).
 */
export const MATTER_MACHINE_VERSION = 1;

export const matterMachine = setup({
  types: {
    context: {} as MatterContext,
    events: {} as MatterEvent,
    input: {} as MatterInput,
    emitted: {} as EmittedFact,
    tags: {} as (typeof TAG)[keyof typeof TAG],
  },
  actions: {
    // A plain emit, not enqueueActions: the commonest transition stays the cheapest one.
    commitStage: emit(({ event }, params: { from: keyof typeof NEXT_STAGE }) => {
      const e = event as Ev<'ADVANCE'>;
      return fact({ kind: 'stage', verb: NEXT_STAGE[params.from], by: 'gate', note: e.note ?? `advanced from ${params.from}`, data: { proposedBy: e.by } });
    }),
    escalate: enqueueActions(({ event, enqueue }, params: { reservedAct: ReservedAct }) => {
      const { gigId } = event as Ev<'ESCALATE'>;
      enqueue.assign({ pendingGig: { gigId, reservedAct: params.reservedAct } });
      enqueue.emit(fact({ kind: 'gig.posted', verb: params.reservedAct, by: 'gate', note: `reserved act ${params.reservedAct} escalated to the supply network`, data: { reservedAct: params.reservedAct, gigId } }));
    }),
    /** The Signer attested: the reserved stage commits under their credential. */
    attest: enqueueActions(({ context, event, enqueue }) => {
      const e = event as Ev<'GIG_ATTESTED'>;
      const act = context.pendingGig!.reservedAct;
      enqueue.assign({ pendingGig: null, attestedActs: context.attestedActs + 1 });
      enqueue.emit(fact({ kind: 'stage', verb: act, by: 'signer', actor: e.attestation.signedBy, note: `reserved act ${act} attested`, data: { gigId: e.gigId, act, attestation: e.attestation, receipt: e.receipt ?? null } }));
    }),
    /** The Client spoke after a Declination: the Matter reopens before the declined act. */
    reopen: enqueueActions(({ context, event, enqueue }) => {
      const e = event as Ev<'CLIENT_DIRECTION'>;
      enqueue.assign({ declinedAct: null });
      enqueue.emit(fact({ kind: 'client.direction', by: 'client', actor: 'client', note: e.instruction, data: { instruction: e.instruction, authorizes: e.authorizes ?? null, reopened: true, declinedAct: context.declinedAct } }));
    }),
  },
  guards: {
    /** B2A2D: each downstream client's Matter carries its own journaled consent. */
    consentSatisfied: ({ context }) => context.consumerPattern !== 'B2A2D' || context.consented,
    pendingActIsSign: ({ context, event }) =>
      context.pendingGig?.reservedAct === 'sign' && 'gigId' in event && event.gigId === context.pendingGig.gigId,
    pendingActIsFile: ({ context, event }) =>
      context.pendingGig?.reservedAct === 'file' && 'gigId' in event && event.gigId === context.pendingGig.gigId,
    gigMatches: ({ context, event }) => 'gigId' in event && event.gigId === context.pendingGig?.gigId,
    declinedActWasSign: ({ context }) => context.declinedAct === 'sign',
    declinedActWasFile: ({ context }) => context.declinedAct === 'file',
    byClient: ({ event }) => event.type === 'WITHDRAW' && event.byClient === true,
    confirmedUnresponsiveTwice: ({ event }) => event.type === 'LAPSE' && event.confirmedUnresponsiveTwice === true,
    referredToPresent: ({ event }) => event.type === 'REFER_OUT' && event.referredTo.trim() !== '',
    receiptOnFile: ({ context, event }) => event.type === 'FILE_RECEIPT' && event.receipt !== '' && context.attestedActs > 0,
  },
}).createMachine({
  id: 'matter',
  context: ({ input }) => ({
    consumerPattern: input.consumerPattern,
    consented: false,
    pendingGig: null,
    declinedAct: null,
    attestedActs: 0,
    receipt: null,
  }),
  initial: 'open',
  states: {
    open: {
      initial: 'intake',
      on: {
        CONSENT: {
          actions: [
            assign({ consented: true }),
            emit(({ event }) => fact({ kind: 'consent', by: 'client', actor: event.actor, data: { scope: event.scope } })),
          ],
        },
        CLIENT_DIRECTION: {
          actions: emit(({ event }) =>
            fact({ kind: 'client.direction', by: 'client', actor: 'client', note: event.instruction, data: { instruction: event.instruction, authorizes: event.authorizes ?? null, reopened: false } }),
          ),
        },
        RECORD_DOCUMENT: {
          actions: emit(({ event }) => fact({ kind: 'document.recorded', by: 'agent', data: { document: event.document } })),
        },
        WITHDRAW: {
          guard: 'byClient',
          target: 'withdrawn',
          actions: emit(({ event }) => fact({ kind: 'terminal', verb: 'withdrawn', by: 'client', actor: 'client', note: event.note, data: { outcome: 'withdrawn' } })),
        },
        LAPSE: {
          guard: 'confirmedUnresponsiveTwice',
          target: 'lapsed',
          actions: emit(({ event }) => fact({ kind: 'terminal', verb: 'lapsed', by: 'gate', note: event.note, data: { outcome: 'lapsed' } })),
        },
        REFER_OUT: {
          guard: 'referredToPresent',
          target: 'referred_out',
          actions: emit(({ event }) => fact({ kind: 'terminal', verb: 'referred_out', by: 'gate', note: event.note, data: { outcome: 'referred_out', referredTo: event.referredTo } })),
        },
      },
      states: {
        intake: { on: { ADVANCE: { guard: 'consentSatisfied', target: 'prepare', actions: { type: 'commitStage', params: { from: 'intake' } } } } },
        prepare: { on: { ADVANCE: { target: 'examine', actions: { type: 'commitStage', params: { from: 'prepare' } } } } },
        examine: { on: { ADVANCE: { target: 'review', actions: { type: 'commitStage', params: { from: 'examine' } } } } },
        review: { on: { ESCALATE: { target: 'waiting_on_signer', actions: { type: 'escalate', params: { reservedAct: 'sign' } } } } },
        sign: { on: { ESCALATE: { target: 'waiting_on_signer', actions: { type: 'escalate', params: { reservedAct: 'file' } } } } },
        file: {
          on: {
            FILE_RECEIPT: {
              guard: 'receiptOnFile',
              target: '#matter.fulfilled',
              actions: [
                assign({ receipt: ({ event }) => event.receipt }),
                emit(({ event }) => fact({ kind: 'lifecycle', verb: 'fulfilled', by: 'gate', note: 'filed receipt on file', data: { receipt: event.receipt } })),
              ],
            },
          },
        },
        waiting_on_signer: {
          tags: [TAG.awaitingSigner],
          on: {
            GIG_ATTESTED: [
              { guard: 'pendingActIsSign', target: 'sign', actions: 'attest' },
              { guard: 'pendingActIsFile', target: 'file', actions: 'attest' },
            ],
            GIG_SENT_BACK: {
              guard: 'gigMatches',
              target: 'prepare',
              actions: [
                assign({ pendingGig: null }),
                emit(({ event }) => fact({ kind: 'gig.sent_back', verb: 'prepare', by: 'signer', actor: event.signedBy ?? 'signer', note: event.memo, data: { gigId: event.gigId, defects: event.memo } })),
              ],
            },
            GIG_DECLINED: {
              guard: 'gigMatches',
              target: 'needs_client_direction',
              // The fact is emitted before the assignment clears the Gig it names.
              actions: [
                emit(({ event, context }) => fact({ kind: 'gig.declined', verb: context.pendingGig!.reservedAct, by: 'signer', actor: event.signedBy ?? 'signer', note: event.memo, data: { gigId: event.gigId, memo: event.memo } })),
                assign({ declinedAct: ({ context }) => context.pendingGig!.reservedAct, pendingGig: null }),
              ],
            },
            // A Matter waiting on a Signer cannot be closed from under the Gig.
            WITHDRAW: {},
            LAPSE: {},
            REFER_OUT: {},
          },
        },
        needs_client_direction: {
          tags: [TAG.awaitingClient],
          on: {
            CLIENT_DIRECTION: [
              { guard: 'declinedActWasSign', target: 'review', actions: 'reopen' },
              { guard: 'declinedActWasFile', target: 'sign', actions: 'reopen' },
            ],
          },
        },
      },
    },
    fulfilled: { type: 'final' },
    withdrawn: { type: 'final' },
    lapsed: { type: 'final' },
    referred_out: { type: 'final' },
  },
});

/** The one name a Matter's state goes by: a leaf of `open` (a Stage Verb, or who it waits on), or a terminal. */
export function matterStatus(snapshot: SnapshotFrom<typeof matterMachine>): MatterStatus {
  // The machine's state names are the statuses (its top-level states, and the states inside `open`).
  const value = snapshot.value as MatterStatus | { open: MatterStatus };
  return typeof value === 'string' ? value : value.open;
}
