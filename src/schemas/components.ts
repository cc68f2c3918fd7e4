/**
 * The named components of the contract: every resource the service answers,
 * written once, closed (a field not declared here never leaves: the schemas
 * write the replies), and referenced by every operation under every grain
 * prefix as `#/components/schemas/<Name>`.
 *
 * `ref(Component)` is how an operation points at one: a `$ref` for Fastify's
 * serializer and for the document, typed as the component for the handlers.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ENROLLMENT_GRANTS } from '../../machines/enrollment.ts';
import { RESERVED_ACTS, STAGE_VERBS, TERMINALS } from '../../machines/matter.ts';
import { TERMINAL_OUTCOMES } from '../../machines/deadline-ladder.ts';
import { ASSET_KINDS, CONSUMER_PATTERNS, GIG_OUTCOMES, MATTER_TYPES, RAILS } from '../domain/matter-types.ts';
import { FEEDS } from '../journal/store.ts';
import { EVENT_KINDS } from '../domain/event-kinds.ts';
import { EXAMPLE_FACT, FACT_COMPONENTS, factUnion, firmRoutingProperties, ReminderData } from './facts.ts';
import { INSPECTION_COMPONENTS } from './inspection.ts';
import { POPULATION_COMPONENTS } from './population.ts';
import { KEY_COMPONENTS } from './keys.ts';
import { UNREADABLE_COMPONENTS } from './unreadable.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SUBSCRIPTIONS } from '../domain/webhook-events.ts';
import { Arr, At, Bool, Enum, EXAMPLE, Int, Nullable, Num, Opt, Sha256Hex, Str, StrEx, Strict } from './common.ts';

/** A named component: its `$id` is its name in `#/components/schemas`. */
const named = <T extends TSchema>(name: string, schema: T): T & { $id: string } => ({ ...schema, $id: name });

/** Points at a component: `{$ref}` on the wire and in the document, the component's type in the handlers. */
export const ref = <T extends TSchema & { $id?: string }>(component: T, description?: string) =>
  Type.Unsafe<Static<T>>({ $ref: `${component.$id}#`, ...(description ? { description } : {}) });

// Closed sets.
export const MatterStatus = named('MatterStatus', Enum([...STAGE_VERBS, 'waiting_on_signer', 'needs_client_direction', ...TERMINALS] as const, 'a Stage Verb, waiting on a Signer, needing the Client\'s direction, or a terminal'));
export const Stage = named('Stage', Enum([...STAGE_VERBS, ...TERMINALS] as const, 'the stage a Matter stands at (a terminal once it ends)'));
export const ReservedAct = named('ReservedAct', Enum(RESERVED_ACTS, 'an act the law reserves to a licensed human: a Signer performs it, never the agent or the service'));
export const MatterType = named('MatterType', Enum(MATTER_TYPES, 'a ratified matter type'));
export const Rail = named('Rail', Enum(RAILS, 'the settlement rail'));
export const ConsumerPattern = named('ConsumerPattern', Enum(CONSUMER_PATTERNS, 'who the agent serves: B2A (the business itself), B2H2A (through a human), B2A2D (to a downstream client)'));
export const AssetKind = named('AssetKind', Enum(ASSET_KINDS, 'what an Asset is; each matter type mints its own kind unless the body names one'));
export const GigOutcome = named('GigOutcome', Enum(GIG_OUTCOMES, 'a Signer\'s answer to a Gig'));
export const Feed = named('Feed', Enum(FEEDS, 'timeline: everything; reminders: reminder.* events from ladder rungs; time: events with a named actor'));
export const LadderOutcome = named('LadderOutcome', Enum(TERMINAL_OUTCOMES, 'how a ladder closes at its terminal rung'));
export const EventKind = named('EventKind', Enum(Object.keys(EVENT_KINDS), 'what a fact records: each kind\'s `data` is declared by its component `Fact.<kind>`'));
export const Grant = named('Grant', Enum(ENROLLMENT_GRANTS, 'what a member grants its firm'));

/** How a ladder closed: by evidence (`satisfied`), or at its terminal rung with an outcome. One object, not a union, so a nullable one is written without validating it. */
const LadderResolutionShape = Strict({
  kind: Enum(['satisfied', 'terminal_rung'] as const),
  occurrence: Int,
  evidenceRef: Opt(Type.String({ description: 'satisfied: the evidence' })),
  atDaysRemaining: Opt(Type.Integer({ description: 'satisfied: days left when it was satisfied' })),
  outcome: Opt(ref(LadderOutcome, 'terminal_rung: the outcome')),
}, 'how a ladder closed: by evidence, or at its terminal rung');
export const LadderResolution = named('LadderResolution', LadderResolutionShape);

/** How a capability is gated: not at all, behind an access tier, or behind a Signer. */
export const Gate = named('Gate', Type.Union([Type.Literal('none'), Strict({ requiresAccess: Str }), Strict({ requiresSigner: Str })], { description: 'none, requiresAccess (a tier) or requiresSigner (a reserved act)' }));
export const CapabilityMeta = named('CapabilityMeta', Strict({
  gate: ref(Gate),
  effect: Enum(['read', 'record', 'act'] as const),
  metered: Bool,
  dataset: Opt(Str),
  asOf: Opt(Str),
}, 'how the answer was gated, its effect, and whether it metered'));

/** The sandbox stamp on every JSON answer of a grain, success or refusal. */
export const Provenance = named('Provenance', Strict({
  environment: Type.Literal('sandbox'),
  legalwork: Type.Literal(true),
  synthetic: Type.Literal(true),
  workspace: Opt(Str),
  tenant: Opt(Str),
  firm: Opt(Str),
}, 'synthetic state can never pass for real state: the grain that answered, by kind'));
const Stamped = { provenance: Opt(ref(Provenance)) };

export const Offer = named('Offer', Strict({ id: Str, title: Str, priceUsd: Num, matterType: Opt(ref(MatterType)), proofPredicate: Opt(Type.String({ description: 'the data predicate that proves the Offer was served' })) }, 'a Tenant\'s Offer: a flat price for a matter type'));

/** Every refusal: a worded `error`, a machine `code` from the catalog, a fix, and the facts the refusal names. */
export const Refusal = named('Refusal', Strict({
  type: Opt(Enum(['BLOCKED', 'EMPTY'] as const, 'BLOCKED: refused by policy; EMPTY: nothing of that id here')),
  error: Type.String({ description: 'the refusal, worded for a reader' }),
  code: Type.String({ description: 'the machine code, one of the refusal catalog\'s' }),
  rule: Opt(Type.String({ description: 'the rule that refused' })),
  fix: Opt(Type.String({ description: 'what to do instead' })),
  results: Opt(Arr(Type.Unknown(), { maxItems: 0, description: 'on a typed EMPTY: the empty set' })),
  matterId: Opt(Str),
  currentVersion: Opt(Type.Integer({ description: 'on VERSION_MISMATCH: the record\'s version now' })),
  committedAt: Opt(Type.String({ description: 'on IDEMPOTENCY_ANSWER_LOST: when the first request under the key committed' })),
  wrote: Opt(Arr(Str, { description: 'on IDEMPOTENCY_ANSWER_LOST: the records (stream ids) the first request wrote' })),
  status: Opt(ref(MatterStatus)),
  pendingGigId: Opt(Str),
  assetId: Opt(Str),
  daysUntilDeadline: Opt(Int),
  resolution: Opt(ref(LadderResolution)),
  field: Opt(Type.String({ description: 'the field that is missing or malformed' })),
  memberId: Opt(Str),
  enrollmentId: Opt(Str),
  grants: Opt(Arr(Str)),
  allowed: Opt(Arr(Str)),
  accepted: Opt(Arr(Str)),
  ratified: Opt(Arr(Str)),
  declaredOffers: Opt(Arr(Str)),
  offer: Opt(Type.Union([Str, ref(Offer)])),
  key: Opt(Str),
  keyId: Opt(Type.String({ description: 'on KEY_REVOKED, KEY_EXPIRED, KEY_ALREADY_ROLLED: the key presented' })),
  successorId: Opt(Type.String({ description: 'on KEY_REVOKED, KEY_EXPIRED, KEY_ALREADY_ROLLED: the key it was rolled into, which owns its records and spend' })),
  endedAt: Opt(Type.String({ description: 'on KEY_REVOKED, KEY_EXPIRED: when the key stopped being honoured' })),
  actor: Opt(Str),
  scope: Opt(Str),
  address: Opt(Str),
  header: Opt(Str),
  window: Opt(Type.Union([Str, Strict({ window: Str, opensOn: Str, dueOn: Str, surchargeUntil: Str, state: Str })], { description: 'the maintenance window: its name, or the window itself' })),
  webhookId: Opt(Str),
  limit: Opt(Strict({ maxFeeUsd: Opt(Num), jurisdictions: Opt(Arr(Str)) }, 'on GATE_MECHANICS: the mechanical limit the Gate applied, the fee cap or the jurisdictions allowed')),
  requiresAccess: Opt(Str),
  upgrade: Opt(Strict({ tier: Str, how: Str, live: Opt(Bool) })),
  sandbox: Opt(Str),
  then: Opt(Str),
  predicate: Opt(Type.String({ description: 'the Signer predicate that failed' })),
  credential: Opt(Str),
  cure: Opt(Type.String({ description: 'how the Signer cures it' })),
  spendCeilingUsd: Opt(Num),
  committedUsd: Opt(Num),
  priceUsd: Opt(Num),
  act: Opt(Str),
  retryAfterSeconds: Opt(Int),
  bound: Opt(Strict({ kind: Str, limit: Int, windowSeconds: Int, caller: Str })),
  rateLimit: Opt(Strict({ requestsPerSecond: Int, windowSeconds: Int, caller: Type.String({ description: 'what the limit counts by: api key, sandbox grain or address' }) }, { description: 'on RATE_LIMITED: the limit that refused' })),
  streams: Opt(Strict({ limit: Int, caller: Type.String({ description: 'what the cap counts by: api key or sandbox grain' }) }, { description: 'on STREAM_CAP: the cap on open event streams' })),
  stream: Opt(Str),
  seq: Opt(Int),
  event: Opt(Str),
  state: Opt(Str),
  requestId: Opt(Str),
  detail: Opt(Type.String({ description: 'what the framework reported' })),
  meta: Opt(ref(CapabilityMeta)),
  ...Stamped,
}, {
  description: 'a refusal: nothing was written. `code` is the machine code (the operation lists the codes each status can carry in `x-refusal-codes`), `fix` what to do instead',
  examples: [
    { type: 'EMPTY', error: 'no Matter mt_0k4n8b2v6c1x9z3l7j5h2g8f4 here', code: 'MATTER_NOT_FOUND', fix: 'GET /matters lists the Matters you can reach', results: [], matterId: 'mt_0k4n8b2v6c1x9z3l7j5h2g8f4' },
    { error: 'body/matterType must be equal to one of the allowed values', code: 'INVALID_REQUEST', field: 'body.matterType', fix: 'send a body the operation\'s schema accepts: its example shows one' },
  ],
}));

// Matters.
export const Matter = named('Matter', Strict({
  id: StrEx(EXAMPLE.matter),
  stage: ref(Stage),
  status: ref(MatterStatus),
  rail: ref(Rail),
  matterType: ref(MatterType),
  jurisdiction: StrEx('US-USPTO'),
  assetId: StrEx(EXAMPLE.asset),
  consumerPattern: ref(ConsumerPattern),
  needsClientDirection: Bool,
  pendingGigId: Opt(Type.String({ description: 'the Gig the Matter waits on' })),
  pendingAct: Opt(ref(ReservedAct)),
  client: Strict({ id: StrEx(EXAMPLE.client) }, 'the Client, only as an opaque id: the service never stores a name'),
  consented: Bool,
  signals: Arr(Str, { description: 'what the Gate noticed in the opening facts' }),
  attestedActs: Type.Integer({ minimum: 0, description: 'reserved acts a Signer attested so far' }),
  offer: Opt(Str),
  tenant: Opt(Str),
  mint: Opt(Str),
  listFeeUsd: Opt(Num),
  openedAt: At(),
  version: Type.Integer({ minimum: 1, description: 'the Matter stream\'s version: it grows with every fact' }),
  links: Strict({
    inspect: StrEx(`/matters/${EXAMPLE.matter}/inspect`, { description: 'the inspector page (HTML): the Matter on its machine\'s diagram, its path, its timeline, the doors open now' }),
    inspection: StrEx(`/matters/${EXAMPLE.matter}/inspection`, { description: 'the same as data: the path, the state (`?at=<seq>`: as of an earlier fact), the commands open now and every other with its refusal' }),
  }, 'where to see the Matter on its machine, under its grain\'s prefix'),
}, 'a Matter: a unit of legal work driven through the six stages'));

/**
 * A journal or tail entry: its own fields, closed, and one kind's `kind` and
 * `data` (`factUnion`: a `oneOf` of the `Fact.<kind>` components, discriminated
 * by `kind`). Its own `data` is any value (no type: a generated client reads it
 * as its kind's, `unknown & Fact.<kind>.data`); the branch of its kind types it.
 * Typed loosely for the handlers, which pass facts through as journaled; the
 * contract, and so the reply check, types `data` by kind.
 */
const FactEntry = <T extends Record<string, TSchema>>(properties: T, description: string, example: Record<string, unknown>) => {
  const own = Strict({ ...properties, data: Type.Unsafe<Record<string, unknown>>({ description: 'the fact\'s data, as its kind declares it (`Fact.<kind>`)' }) });
  return Type.Unsafe<Static<typeof own>>({ ...own, ...factUnion(), description, examples: [example] });
};
/** An entry's kind, typed as text for the handlers (the contract's `EventKind`). */
const KindOf = Type.Unsafe<string>({ $ref: 'EventKind#' });

/** One fact of a journal, as a Matter's journal shows it. */
export const JournalEntry = named('JournalEntry', FactEntry({
  seq: Type.Integer({ description: 'the grain\'s global position' }),
  at: Str,
  kind: KindOf,
  verb: Opt(Type.String({ description: 'the Stage Verb or terminal it records' })),
  by: Type.String({ description: 'who the fact is by: gate, agent, signer, client' }),
  actor: Opt(Type.String({ description: 'the named human, where one acted' })),
  note: Str,
}, 'one fact of a Matter\'s append-only journal: its `data` is its kind\'s (`Fact.<kind>`)', { seq: 9, at: EXAMPLE.at, ...EXAMPLE_FACT, note: 'reserved act sign attested' }));

export const Attestation = named('Attestation', Strict({
  signedBy: StrEx(EXAMPLE.signer, { description: 'the Signer\'s id' }),
  credentialRef: Opt(Type.String({ description: 'the Signer\'s credential, `<registry>:<number>`' })),
  artifactHash: Opt(Type.String({ description: '`sha256:` and 64 hex digits: the artifact the Signer attested' })),
}, 'a Signer\'s attestation of a reserved act'));

export const DocumentRecord = named('DocumentRecord', Strict({ id: StrEx(EXAMPLE.document), matterId: StrEx(EXAMPLE.matter), name: StrEx('specification.pdf'), kind: StrEx('specification'), sha256: Sha256Hex, recordedAt: Opt(Str) }, 'a document record: metadata only, no blob'));

export const Escalation = named('Escalation', Strict({
  reservedAct: ref(ReservedAct),
  gigId: Str,
  answered: Opt(Type.String({ description: 'how the supply network answered at once, in a sandbox' })),
  pending: Opt(Type.String({ description: 'the Gig is journaled but the supply network has not taken its post yet: it is retried, and the Matter waits on its Signer meanwhile' })),
}, 'the reserved act, journaled as a Gig (whose id is ours) and then posted to the supply network'));

export const Settlement = named('Settlement', Strict({
  rail: ref(Rail),
  merchantOfRecord: StrEx('platform'),
  legalFeeMerchantOfRecord: StrEx('platform', { description: 'platform (patent rail) or signer (state rail: the Signer invoices its Legal Fee)' }),
  productFeeToCustomerUsd: Num,
  legalFeeToSignerUsd: Num,
  attestedActs: Int,
  perActInsuranceUsd: Num,
  insuranceTotalUsd: Num,
  platformNetUsd: Num,
}, 'who is paid what for a fulfilled Matter'));

// Deadline Ladders.
export const Monitoring = named('Monitoring', Strict({ assetId: StrEx(EXAMPLE.asset), signerId: Nullable(StrEx(EXAMPLE.signer)) }, 'who watches the ladder; null: nobody (the alarm is vacant)'));
const LadderProperties = {
  assetId: StrEx(EXAMPLE.asset),
  matterId: StrEx(EXAMPLE.matter),
  obligation: StrEx('nonprovisional_conversion'),
  status: Enum(['open', 'resolved'] as const),
  rung: Enum(['before_notice', 'notice', 'daily_ack', 'terminal', 'resolved'] as const, 'where the count stands: which rung comes next'),
  daysUntilDeadline: Int,
  alarm: Enum(['nominal', 'vacant'] as const),
  vacant: Bool,
  monitoring: ref(Monitoring),
  ackRequiredToday: Bool,
  terminalOutcomes: Arr(ref(LadderOutcome)),
  occurrences: Arr(Strict({
    occurrence: Int,
    kind: Enum(['open', 'satisfied', 'resolved'] as const),
    evidenceRef: Nullable(Str),
    daysUntilDeadline: Opt(Type.Integer({ description: 'on the open occurrence: days left' })),
    atDaysRemaining: Opt(Type.Integer({ description: 'on a satisfied occurrence: days left when it was satisfied' })),
    outcome: Opt(ref(LadderOutcome)),
  }), { description: 'satisfied occurrences, then the open (or resolved) one' }),
  acks: Arr(Strict({ actor: Str, atDaysRemaining: Int, occurrence: Int })),
  resolution: Nullable(LadderResolutionShape),
  recurEveryDays: Opt(Int),
  nextOccurrenceInDays: Opt(Nullable(Int)),
  fixture: Opt(Str),
  version: Int,
};
export const DeadlineLadder = named('DeadlineLadder', Strict(LadderProperties, 'a Deadline Ladder: days to a deadline, moved only by explicit ticks'));
/** The ladder's fields beside a typed result (GET and satisfy answer them flat). */
export const LadderFields = LadderProperties;

export const Asset = named('Asset', Strict({
  id: StrEx(EXAMPLE.asset),
  kind: StrEx('patent_application'),
  title: StrEx('Self-folding map'),
  registryId: Nullable(Type.String({ description: 'the registry receipt, once filed (null until then)', examples: [null] })),
  statusHistory: Arr(Strict({ status: Str, at: Str, seq: Int, matterId: Str })),
  docket: Arr(Strict({ seq: Int, at: Str, kind: ref(EventKind), summary: Str, matterId: Str })),
  lineage: Arr(Str, { description: 'the Matters that acted on it, oldest first' }),
  deadlineLadder: Opt(Nullable(Strict(LadderProperties, 'the Asset\'s Deadline Ladder (null: none was opened)'))),
}, 'an Asset: the perpetual noun Matters act on'));

// Sandbox grains.
const GrainProperties = {
  id: Str,
  tier: StrEx('anonymous'),
  environment: Type.Literal('sandbox'),
  openedAt: At(),
  expiresAt: StrEx('2026-11-27T09:00:00.000Z'),
  ttlSeconds: Type.Number({ description: 'the grain\'s lifetime, in seconds (a fraction in tests that expire it quickly)' }),
  expiresInSeconds: Int,
  graduation: Strict({ tier: StrEx('identified'), how: StrEx('POST /keys with your email, then run the same calls on the top-level surface with Authorization: Bearer <key>; sandbox state does not carry over') }),
};
const Counts = <K extends string>(...names: K[]) => Strict(Object.fromEntries(names.map((n) => [n, Int])) as Record<K, typeof Int>);

export const Workspace = named('Workspace', Strict({ ...GrainProperties, id: StrEx(EXAMPLE.workspace), counts: Opt(Counts('matters', 'assets', 'events')) }, 'a sandbox workspace: keyless, synthetic, TTL-bound; a read adds its counts'));
export const TenantRouting = named('TenantRouting', Strict({ maxFeeUsd: Nullable(Num), jurisdictions: Opt(Arr(Str)) }, 'a Tenant\'s routing mechanics: a fee cap, and the jurisdictions served'));


export const Tenant = named('Tenant', Strict({ ...GrainProperties, id: StrEx(EXAMPLE.tenant), offers: Arr(ref(Offer)), routing: ref(TenantRouting), counts: Counts('offers', 'matters', 'events') }, 'a sandbox tenant: its Offers and routing'));
export const Firm = named('Firm', Strict({ ...GrainProperties, id: StrEx(EXAMPLE.firm), enrollments: Strict({ enrolled: Int, revoked: Int }) }, 'a sandbox firm: its enrollment counts'));

export const Ceremony = named('Ceremony', Strict({
  instrument: StrEx('enrollment', { description: 'enrollment, amendment or revocation' }),
  enrollmentId: StrEx(EXAMPLE.enrollment),
  firmId: StrEx(EXAMPLE.firm),
  memberId: StrEx(EXAMPLE.member),
  granted: Opt(Arr(ref(Grant))),
  revoked: Opt(Arr(ref(Grant))),
  grants: Opt(Arr(ref(Grant))),
  executedBy: StrEx(EXAMPLE.member),
  executedAt: At(),
  seq: Int,
}, 'the journaled instrument naming what was granted or revoked and who executed it'));

export const Enrollment = named('Enrollment', Strict({
  memberId: StrEx(EXAMPLE.member),
  enrollmentId: StrEx(EXAMPLE.enrollment),
  version: Type.Integer({ minimum: 1, description: 'the Enrollment\'s version (its stream\'s): what an If-Match on its amendment or revocation names' }),
  status: StrEx('enrolled'),
  grants: Arr(ref(Grant)),
  standing: Strict({ credentialLive: Bool, standingFresh: Bool, coverageInForce: Bool }),
  eligible: Bool,
  failingPredicate: Opt(Str),
  enrolledAt: At(),
  revokedAt: Opt(Str),
  ceremonies: Arr(ref(Ceremony)),
}, 'a member\'s current standing in a firm'));

// The event tail.
export const TailEntry = named('TailEntry', FactEntry({
  seq: Int,
  at: At(),
  kind: KindOf,
  subject: StrEx(EXAMPLE.matter, { description: 'the stream the event is about' }),
  summary: StrEx('reserved act sign attested'),
  verb: Opt(Str),
  by: Opt(Str),
  actor: Opt(Str),
  deliverTo: Opt(Type.String({ description: 'a reminder\'s addressee: the monitoring owner, or the vacancy alarm' })),
}, 'one event of a grain\'s tail: its `data` is its kind\'s (`Fact.<kind>`)', { seq: 9, at: EXAMPLE.at, subject: EXAMPLE.matter, summary: 'reserved act sign attested', ...EXAMPLE_FACT }));

/** Every component, in the order the contract lists them. */
// Webhooks (decisions.md, "Webhooks").
export const WebhookEventType = named('WebhookEventType', Enum(WEBHOOK_EVENT_TYPES, 'a webhook event: outcome.filed (a reserved act attested with its government receipt), the Matter lifecycle, or a Deadline Ladder rung'));
export const WebhookEndpoint = named('WebhookEndpoint', Strict({
  id: StrEx(EXAMPLE.webhook),
  url: StrEx('https://93.184.215.14/legalwork/webhooks', { description: 'where deliveries are POSTed' }),
  events: Arr(Enum(WEBHOOK_SUBSCRIPTIONS), { description: 'the event types it is sent: types, reminder.* or *' }),
  description: Opt(Str),
  status: Enum(['enabled', 'disabled'] as const),
  disabled: Nullable(Strict({ at: Str, reason: Str }, { examples: [null] })),
  createdAt: At(),
}, 'a webhook endpoint (its signing secret is shown once, when it is registered)'));
export const WebhookAttempt = named('WebhookAttempt', Strict({
  deliveryId: StrEx(EXAMPLE.delivery, { description: 'the delivery of one event to this endpoint: redeliver names it' }),
  eventId: StrEx(EXAMPLE.event, { description: 'the event\'s id (the payload\'s `id` and the webhook-id header): the same on every attempt' }),
  type: ref(WebhookEventType),
  seq: Type.Integer({ description: 'the seq, in the grain\'s event tail, of the fact the event is' }),
  attempt: Type.Integer({ description: '1 for the first attempt, then each retry' }),
  redelivery: Type.Boolean({ description: 'sent again on request (POST …/redeliver)' }),
  outcome: Enum(['delivered', 'failed'] as const),
  final: Type.Boolean({ description: 'the event is finished with: delivered, or given up after the last retry' }),
  responseStatus: Nullable(Type.Integer({ description: 'the receiver\'s status; null when it never answered' })),
  durationMs: Int,
  responseBody: StrEx('', { description: 'the first 1 KiB of the receiver\'s body' }),
  error: Opt(Type.String({ description: 'why there was no answer' })),
  attemptedAt: At(),
  position: Type.Integer({ description: 'pass as `before` for the attempts before it' }),
}, 'one delivery attempt'));

/** A firm's routing, declared field by field: the declaration in force, each opt-in with whether its countersignature is still live. */
export const FirmRouting = named('FirmRouting', Type.Unsafe<Record<string, unknown>>(Strict(firmRoutingProperties({ countersigned: Opt(Type.Boolean({ description: 'on a read: whether the member\'s live Enrollment still grants routing' })) }), 'a firm\'s routing mechanics, as declared (merits-bearing and actor-shaped keys are refused)')));

/** What a simulated registry receipts for an unreserved act of the catalog (answered by the act, journaled with it). */
export const ActReceipt = named('ActReceipt', Strict({
  id: StrEx('63/482,193'),
  registry: StrEx('patent office (simulated)'),
  synthetic: Type.Literal(true),
  entityName: Opt(Str),
  entityType: Opt(Str),
  title: Opt(Str),
  inventors: Opt(Arr(Str)),
  patentNumber: Opt(Str),
  window: Opt(Str),
}, 'the simulated registry\'s receipt, naming what it received'));

export const COMPONENTS = [
  WebhookEventType, WebhookEndpoint, WebhookAttempt,
  MatterStatus, Stage, ReservedAct, MatterType, Rail, ConsumerPattern, AssetKind, GigOutcome, Feed, LadderOutcome, EventKind, Grant,
  Gate, CapabilityMeta, Provenance, Refusal, Matter, JournalEntry, Attestation, DocumentRecord, Escalation, Settlement, LadderResolution, Monitoring, DeadlineLadder, Asset,
  Workspace, TenantRouting, Offer, Tenant, Firm, Ceremony, Enrollment, TailEntry, ...KEY_COMPONENTS, FirmRouting, ActReceipt,
  // Each fact kind's data (facts.ts), and the rung a reminder carries.
  ReminderData, ...FACT_COMPONENTS,
  // The inspection (inspection.ts), and where records gather (population.ts).
  ...INSPECTION_COMPONENTS,
  ...POPULATION_COMPONENTS,
  // A list's record it cannot read, in its place (unreadable.ts).
  ...UNREADABLE_COMPONENTS,
];
