/**
 * The facts a door answers, typed by kind (issue 33): each kind of
 * `src/domain/event-kinds.ts` with its `data` declared field by field and
 * closed, as the code that writes it writes it (the machines under
 * `machines/` emit Matter, ladder and Enrollment facts; `src/engine/` writes
 * the plain-stream ones).
 *
 * In the contract each kind is one component, `Fact.<kind>`: its `kind` (a
 * constant) and its `data`. A journal or tail entry (`JournalEntry`,
 * `TailEntry` in components.ts) is its own fields and a `oneOf` of them,
 * discriminated by `kind` (`factUnion`), so a client generated from the
 * contract narrows `data` by `kind`, and the reply check holds every fact a
 * test reads to its kind's schema. The serializer never tries the branches:
 * it writes an entry's own fields, and its `data` projected onto its kind's
 * schema by a projector chosen by `kind` (`src/http/serializers.ts`).
 *
 * This module names the other components it points at by name (`refTo`), so
 * components.ts can import it without a cycle.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EVENT_KINDS, type EventKind } from '../domain/event-kinds.ts';
import { RUNGS } from '../../machines/deadline-ladder.ts';
import { Arr, Enum, EXAMPLE, EXAMPLE_SHA256, Int, Nullable, Num, Opt, Sha256Hex, Str, StrEx, Strict } from './common.ts';
import { WEEKDAYS } from './grains.ts';

/** A component by its name (its `$id`): `{$ref: "<name>#"}`, which the document writes `#/components/schemas/<name>`. */
const refTo = <T = unknown>(name: string, description?: string) => Type.Unsafe<T>({ $ref: `${name}#`, ...(description ? { description } : {}) });

/** A string or null, with its allowed strings (`enum` must list null too). */
const NullableEnum = <T extends readonly string[]>(values: T, description: string) => Type.Unsafe<T[number] | null>({ type: ['string', 'null'], enum: [...values, null], description });

/** The caller's X-Actor and X-Mandate, journaled as provenance only (never verified), when sent. */
const CallerProvenance = Opt(Strict({ actor: Opt(Str), mandate: Opt(Str), verified: Type.Literal(false) }, 'the caller\'s X-Actor and X-Mandate as sent, never verified'));

const GrainOpened = Strict({ expiresAt: Str, ttlSeconds: Num });
const Enrolled = (instrument: string) => Strict({ instrument: Type.Literal(instrument), firmId: Str, memberId: Str, granted: Arr(refTo('Grant')), grants: Arr(refTo('Grant'), { description: 'every grant held after it' }), executedBy: Str });

/** A firm's participation window, as a routing declaration and its answers hold it. */
export const ParticipationWindow = Strict({ day: Enum(WEEKDAYS), from: StrEx('09:00', { description: '24-hour HH:MM' }), to: StrEx('17:00'), timezone: Opt(StrEx('America/New_York')) });
/** A firm's routing as declared: the windows, the members' opt-ins, and who is remitted (always each member). */
export const firmRoutingProperties = (optIn: Record<string, TSchema> = {}) => ({
  participationWindows: Opt(Arr(ParticipationWindow)),
  memberOptIns: Opt(Arr(Strict({ memberId: StrEx(EXAMPLE.member), matterTypes: Opt(Arr(refTo('MatterType'))), ...optIn }))),
  remittanceDesignation: Enum(['individual'] as const, 'each member is paid (a designation to the firm is refused)'),
});

/**
 * The rung a Deadline Ladder journaled when a tick crossed it: the `data` of
 * each `reminder.*` fact, and (with the Asset) of each `reminder.*` webhook.
 * Closed where it is used (`unevaluatedProperties: false` beside it), so a
 * webhook adds its `assetId` to the same declaration.
 */
export const ReminderData = { ...Type.Object({
  rung: Enum(RUNGS),
  atDaysRemaining: Int,
  occurrence: Int,
  obligation: StrEx('nonprovisional_conversion'),
  alarm: Enum(['nominal', 'vacant'] as const, 'vacant: no monitoring owner was named'),
}, { description: 'a rung the ladder crossed, as it journaled it' }), $id: 'ReminderData' };
/** `ReminderData`, closed. */
export const Reminder = Type.Unsafe<Static<typeof ReminderData>>({ type: 'object', allOf: [{ $ref: 'ReminderData#' }], unevaluatedProperties: false });

/** Each kind's `data`, closed: exactly the fields the code that writes the fact writes. */
export const FACT_DATA: Record<EventKind, TSchema> = {
  'workspace.opened': GrainOpened,
  'tenant.opened': GrainOpened,
  'firm.opened': GrainOpened,
  'matter.opened': Strict({
    matterType: refTo('MatterType'),
    rail: refTo('Rail'),
    jurisdiction: Str,
    assetId: Str,
    consumerPattern: refTo('ConsumerPattern'),
    client: Strict({ id: Str }, 'the Client, only as an opaque id'),
    clientFixture: NullableEnum(['declining', 'fulfilling'] as const, 'the fixture behaviour of the Client in a sandbox grain; null: none'),
    signals: Arr(Str),
    tenant: Opt(Str),
    mint: Opt(Str),
    offer: Opt(Str),
    listFeeUsd: Opt(Num),
    clientState: Opt(Str),
    exposureUsd: Opt(Num),
    clientMandates: Opt(Strict({ settlementFloor: Opt(Num) })),
    tenantGuardrails: Opt(Strict({ maxFeeUsd: Opt(Num), jurisdictions: Opt(Arr(Str)) })),
    adversePartyHashes: Opt(Arr(Str, { description: 'sha256 of each adverse party\'s name: never the names' })),
  }),
  'asset.minted': Strict({ kind: refTo('AssetKind'), title: Str, matterId: Str }),
  stage: Strict({
    proposedBy: Opt(Type.String({ description: 'a Gate commit: who proposed the advance' })),
    gigId: Opt(Type.String({ description: 'a reserved act: the Gig the Signer answered' })),
    act: Opt(refTo('ReservedAct')),
    attestation: Opt(refTo('Attestation')),
    receipt: Opt(Nullable(Type.String({ description: 'the government receipt of a filing; null for any other act' }))),
  }),
  'gig.posted': Strict({ reservedAct: refTo('ReservedAct'), gigId: Str }),
  'gig.sent_back': Strict({ gigId: Str, defects: Type.String({ description: 'the Signer\'s memo' }) }),
  'gig.declined': Strict({ gigId: Str, memo: Str }),
  'client.direction': Strict({
    instruction: Str,
    // The Client's own terms: what it authorizes is its to word, so the map is open.
    authorizes: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'what the Client authorizes, as it worded it (an open map); null: nothing named' }),
    reopened: Type.Boolean({ description: 'the direction reopened the declined act (a new Gig)' }),
    declinedAct: Opt(refTo('ReservedAct')),
  }),
  consent: Strict({ scope: Str }),
  'document.recorded': Strict({ document: Strict({ id: Str, matterId: Str, name: Str, kind: Str, sha256: Sha256Hex }) }),
  terminal: Strict({ outcome: Enum(['withdrawn', 'lapsed', 'referred_out'] as const), referredTo: Opt(Str) }),
  lifecycle: Strict({ receipt: Str }),
  'ladder.opened': Strict({ matterId: Str, matterType: refTo('MatterType'), obligation: Str, daysUntilDeadline: Int, recurEveryDays: Nullable(Int), fixture: NullableEnum(['ack-due', 'notice-eve'] as const, 'the sandbox fixture that placed the ladder; null: none'), alarm: Enum(['vacant'] as const) }),
  'ladder.ticked': Strict({ days: Int, from: Int, to: Int, occurrence: Int, owner: Nullable(Str), rungs: Arr(Strict({ rung: Enum(RUNGS), atDaysRemaining: Int })) }),
  'ladder.acked': Strict({ atDaysRemaining: Int, occurrence: Int }),
  'ladder.monitored': Strict({ signerId: Str, previous: Nullable(Str) }),
  'ladder.satisfied': Strict({ evidenceRef: Str, occurrence: Int, atDaysRemaining: Int, closes: Type.Boolean({ description: 'true: the ladder closed; false: a recurring ladder opened its next occurrence' }), nextOccurrence: Opt(Int), daysUntilDeadline: Opt(Int) }),
  'ladder.resolved': Strict({ outcome: refTo('LadderOutcome'), occurrence: Int }),
  ...(Object.fromEntries(RUNGS.map((rung) => [`reminder.${rung}`, Reminder])) as Record<`reminder.${(typeof RUNGS)[number]}`, TSchema>),
  'enrollment.opened': Enrolled('enrollment'),
  'enrollment.amended': Enrolled('amendment'),
  'enrollment.revoked': Strict({ instrument: Type.Literal('revocation'), firmId: Str, memberId: Str, revoked: Arr(refTo('Grant')), executedBy: Str, reason: Opt(Str) }),
  'firm.routing.declared': Strict({ routing: Strict(firmRoutingProperties()) }),
  'tenant.offers.declared': Strict({ offers: Arr(refTo('Offer')) }),
  'tenant.routing.declared': Strict({ routing: Strict({ maxFeeUsd: Num, jurisdictions: Opt(Arr(Str)) }) }),
  'conflicts.entry': Strict({ ledger: Strict({ kind: Enum(['practitioner', 'firm'] as const), id: Str }), nameHash: Sha256Hex }),
  'capability.recorded': Strict({ route: Str, artifactId: Str, kind: Str, title: Str, sha256: Sha256Hex, bytes: Int, callerProvenance: CallerProvenance }),
  'capability.acted': Strict({ route: Str, actId: Str, priceUsd: Opt(Num), receipt: refTo('ActReceipt'), callerProvenance: CallerProvenance }),
  'capability.escalated': Strict({ route: Str, actId: Str, gigId: Str, credential: Str, reservedAct: refTo('ReservedAct'), priceUsd: Opt(Num), matterType: Str, preferredSigner: Opt(Str), callerProvenance: CallerProvenance }),
  'supply.callback.accepted': Strict({ webhookId: Str, digest: Sha256Hex, matterId: Str, matterVersion: Int }),
};

/** The component of a kind: `Fact.<kind>`. */
export const factName = (kind: EventKind) => `Fact.${kind}`;

/**
 * One component per kind: its `kind`, a constant, and its closed `data`. Open
 * itself, and says so (`unevaluatedProperties: true`: a validator that closes
 * an object saying nothing, as Redocly's example check does, must not close
 * it): the entry it is a branch of adds its own fields, and closes them.
 */
export const FACT_COMPONENTS = (Object.keys(EVENT_KINDS) as EventKind[]).map((kind) => ({
  ...Type.Object({ kind: Type.Literal(kind), data: FACT_DATA[kind] }, { description: EVENT_KINDS[kind], unevaluatedProperties: true }),
  $id: factName(kind),
}));

/**
 * What makes an entry a fact of one kind: a `oneOf` of the kinds' components,
 * discriminated by `kind` (with the mapping, so a generator narrows by it).
 * The entry closes its own fields (`kind` and `data` among them); the branch
 * of its kind closes its `data`.
 */
export const factUnion = () => ({
  oneOf: (Object.keys(EVENT_KINDS) as EventKind[]).map((kind) => ({ $ref: `${factName(kind)}#` })),
  discriminator: { propertyName: 'kind', mapping: Object.fromEntries((Object.keys(EVENT_KINDS) as EventKind[]).map((kind) => [kind, `#/components/schemas/${factName(kind)}`])) },
});

/** The example fact of the contract's answers: the Signer's attestation of the `sign` act, as a Matter's journal shows it. */
export const EXAMPLE_FACT = {
  kind: 'stage',
  verb: 'sign',
  by: 'signer',
  actor: EXAMPLE.signer,
  data: { gigId: 'gig_1x8c2v6b0n4m9q3w7e5r1t5y9', act: 'sign', attestation: { signedBy: EXAMPLE.signer, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${EXAMPLE_SHA256}` }, receipt: null },
} as const;
